/**
 * A newcomer's two commands say what they need to: `npm install` ends with which Node runs the
 * scripts and what to type next (its postinstall; npm's own warnings kept to errors by .npmrc), and
 * `npm test` on a machine without redis-server, chromium or promtool, where it cannot install them,
 * stops before any test, naming the one command to run (its pretest).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { ROOT } from "../scripts/mesh/bundle.js";

const run = promisify(execFile);
const bin = mkdtempSync(join(tmpdir(), "skillmesh-path-"));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

it("npm test stops at once on a machine without its tools, naming what to install", async () => {
  // A PATH with node and a shell, but none of the tools and no apt-get: nothing it can install.
  symlinkSync(process.execPath, join(bin, "node"));
  symlinkSync("/bin/sh", join(bin, "sh"));
  const failed = await run(join(bin, "node"), [join(ROOT, "scripts/setup/test-tools.mjs")], { env: { PATH: bin } }).catch((error) => error);
  expect(failed.code).toBe(1);
  expect(failed.stderr).toContain("npm test needs redis-server, chromium, promtool, which this machine lacks. Run:");
  expect(failed.stderr).toContain("redis-server chromium prometheus");
  // npm runs it before every test of `npm test`.
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
  expect(pkg.scripts.pretest).toBe("node scripts/setup/test-tools.mjs");
});

it("npm test goes on where the tools are", async () => {
  const { stdout, stderr } = await run(process.execPath, [join(ROOT, "scripts/setup/test-tools.mjs")]);
  expect(stdout + stderr).toBe("");
});

it("npm install ends with the Node its scripts run on and the two commands to type next", async () => {
  const { stdout } = await run("npm", ["run", "--silent", "postinstall"], { cwd: ROOT });
  expect(stdout).toMatch(/^Skillmesh installed\. Its scripts run on Node 2[2-9]\.\d+\.\d+/);
  expect(stdout).toContain("npm run dev");
  expect(stdout).toContain("npm test");
  expect(readFileSync(join(ROOT, ".npmrc"), "utf8")).toMatch(/^loglevel=error$/m);
});
