import { describe, expect, it } from "vitest";
import { changedFiles, packageContractPath, packageProblems } from "./contract.js";
import { InvalidPackage, packageOf } from "./index.js";

const file = (path: string, text: string) => ({ path, bytes: new TextEncoder().encode(text) });
const skillMd = (tools: string) =>
  `---\nname: triage\ndescription: Triage.\nallowed-tools: ${tools}\nmetadata:\n  version: "1.0.0"\n---\nSee [notes](references/NOTES.md).\n`;

describe("package contracts", () => {
  it("names the files that changed, were added or removed", async () => {
    const before = await packageOf("triage", [file("SKILL.md", skillMd("modbus.decode")), file("references/NOTES.md", "a"), file("assets/x.txt", "x")]);
    const after = await packageOf("triage", [file("SKILL.md", skillMd("modbus.decode")), file("references/NOTES.md", "b"), file("assets/y.txt", "y")]);
    expect(changedFiles(before, after)).toEqual(["assets/x.txt removed", "assets/y.txt added", "references/NOTES.md changed"]);
    expect(changedFiles(before, before)).toEqual([]);
  });

  it("refuses an invalid package, an unknown tool, a missing contract and a changed released version", async () => {
    const pkg = await packageOf("triage", [file("SKILL.md", skillMd("modbus.decode Read web.fetch")), file("references/NOTES.md", "a")]);
    const invalid = new InvalidPackage("Agent Skill broken", ["no SKILL.md at its root"]);
    expect(packageProblems([pkg, invalid], [], new Set(["modbus.decode"]))).toEqual([
      "Agent Skill triage 1.0.0: allowed-tools names web.fetch, which no skill serves (deploy it, or drop it from allowed-tools)",
      `Agent Skill triage 1.0.0: no contract committed for it (run npm run contracts and commit contracts/${packageContractPath("triage", "1.0.0")})`,
      "Agent Skill broken: no SKILL.md at its root",
    ]);
    const released = {
      name: "triage",
      version: "1.0.0",
      digest: `sha256:${"0".repeat(64)}`,
      tools: pkg.tools,
      files: pkg.files.map((f) => ({ ...f, digest: f.path === "SKILL.md" ? f.digest : "sha256:other" })),
    };
    expect(packageProblems([pkg], [released], new Set(["modbus.decode", "web.fetch"]))).toEqual([
      "Agent Skill triage 1.0.0: changed under the same version (references/NOTES.md changed): a released package is never changed, give it a new metadata.version",
    ]);
    expect(packageProblems([pkg], [{ ...released, digest: pkg.digest }], new Set(["modbus.decode", "web.fetch"]))).toEqual([]);
  });
});
