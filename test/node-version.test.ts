/**
 * The Node the project supports (package.json `engines`) is one every package it installs
 * accepts: a clean `npm ci` on it prints no EBADENGINE warning. CI (.ci/run), GitHub Actions
 * (.nvmrc) and the README say the same version.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { ROOT } from "../scripts/mesh/bundle.js";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { engines?: { node?: string } | string[] }> };

describe("the supported Node", () => {
  it("is accepted by every locked package, so a clean install on it is quiet", () => {
    const supported = pkg.engines.node;
    expect(semver.validRange(supported)).not.toBeNull();
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== "")
      .flatMap(([path, entry]) => {
        const wanted = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
        return wanted && !semver.subset(supported, wanted) ? [`${path.replace(/^node_modules\//, "")} wants ${wanted}`] : [];
      });
    expect(refusing).toEqual([]);
  });

  it("is the one CI runs, GitHub Actions sets up and the README names", () => {
    const major = semver.minVersion(pkg.engines.node)!.major;
    expect(readFileSync(join(ROOT, ".nvmrc"), "utf8").trim()).toBe(String(major));
    expect(readFileSync(join(ROOT, ".github/workflows/ci.yml"), "utf8")).toContain("node-version-file: .nvmrc");
    expect(readFileSync(join(ROOT, ".ci/run"), "utf8")).toContain(`>= ${major}`);
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain(`Node ${major}`);
  });
});
