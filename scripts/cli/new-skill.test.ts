import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkill } from "./new-skill.js";

describe("createSkill's refusals (nothing is written)", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "skillmesh-new-"));
    mkdirSync(join(root, "skills"));
    mkdirSync(join(root, "contracts", "text.summarize"), { recursive: true });
    writeFileSync(join(root, "contracts", "text.summarize", "1.0.0.json"), "{}");
    writeFileSync(join(root, "wrangler.toml"), 'name = "gateway"\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const untouched = () => {
    expect(readFileSync(join(root, "wrangler.toml"), "utf8")).toBe('name = "gateway"\n');
    expect(existsSync(join(root, "skills", "text-summarize"))).toBe(false);
    expect(existsSync(join(root, "skills", "greet"))).toBe(false);
  };

  it("refuses a name@version already released in contracts/ (the registry would refuse its second definition)", async () => {
    await expect(createSkill(root, { name: "text.summarize" })).rejects.toThrow(
      "text.summarize@1.0.0 is already released (contracts/text.summarize/1.0.0.json)",
    );
    untouched();
  });
  it("refuses a tag the manifest would refuse at load", async () => {
    await expect(createSkill(root, { name: "greet", tags: ["ok", "bad tag"] })).rejects.toThrow('"bad tag" is not a tag');
    untouched();
  });
});
