/**
 * The drift gate end to end: the repository's skills match their committed contracts (what
 * `.ci/run` checks) and a breaking change in a skill folder is reported with what breaks
 * (test/deploy.test.ts: `npm run deploy` stops before any upload when the check fails). The
 * rules themselves are the table in src/registry/contracts/index.test.ts.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { CONTRACTS_DIR, committedContracts, committedPackageContracts, contractProblems, currentManifests } from "../scripts/contracts.js";
import { ROOT } from "../scripts/mesh/bundle.js";

const run = promisify(execFile);
// Inside the repository (ignored): a copied skill imports the SDK by a relative path.
mkdirSync(join(ROOT, ".skillmesh"), { recursive: true });
const scratch = mkdtempSync(join(ROOT, ".skillmesh", "contracts-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("contracts in git", () => {
  it("every skill of the repository with a committed contract matches it", async () => {
    expect(committedContracts().map((c) => `${c.name}@${c.version}`)).toContain("modbus.decode@1.0.0");
    // A skill still in the making (`skillmesh new`, no contract yet) is for .ci/run's check and
    // `npm run deploy` to refuse, not for `npm test`: a user's first skill must not break the tests.
    const problems = await contractProblems();
    expect(problems.filter((problem) => !/: no contract committed for it/.test(problem))).toEqual([]);
  });

  it("reports a breaking change made in a skill folder without a major version", async () => {
    // A copy of the subtract fixture, released as 1.1.0 with a newly required input.
    const dir = join(scratch, "subtract");
    cpSync(join(ROOT, "test/fixtures/skills/subtract"), dir, { recursive: true });
    const source = readFileSync(join(dir, "index.ts"), "utf8").replaceAll("../../../../src/", "../../../src/");
    writeFileSync(join(dir, "index.ts"), source);
    const contracts = join(scratch, "contracts");
    const { writeContracts } = await import("../scripts/contracts.js");
    await writeContracts([dir], contracts, undefined, []);
    expect(await contractProblems([dir], contracts, [])).toEqual([]);
    writeFileSync(
      join(dir, "index.ts"),
      source.replace('version: "1.0.0"', 'version: "1.1.0"').replace("z.object({", "z.object({ precision: z.number().int(),"),
    );
    const problems = await contractProblems([dir], contracts, []);
    expect(problems).toEqual([
      expect.stringMatching(/^subtract 1\.1\.0: breaks callers of 1\.0\.0 without a major version: input\.precision added as required/),
    ]);
  });

  /** A copy of the subtract fixture at 1.0.0, in a git repository of its own with its contract committed on main. */
  async function releasedSubtract(name: string) {
    const repo = join(scratch, name);
    const dir = join(repo, "subtract");
    cpSync(join(ROOT, "test/fixtures/skills/subtract"), dir, { recursive: true });
    const source = readFileSync(join(dir, "index.ts"), "utf8");
    writeFileSync(join(dir, "index.ts"), source);
    const contracts = join(repo, "contracts");
    const { writeContracts } = await import("../scripts/contracts.js");
    expect(await writeContracts([dir], contracts, undefined, [])).toEqual([join(contracts, "subtract", "1.0.0.json")]);
    const git = (...args: string[]) => run("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
    await git("init", "-q", "-b", "main");
    await git("add", "contracts");
    await git("commit", "-q", "-m", "release subtract 1.0.0");
    // The same version, changed in a way that breaks callers: a newly required input.
    writeFileSync(join(dir, "index.ts"), source.replace("z.object({", "z.object({ precision: z.number().int(),"));
    return { dir, contracts, file: join(contracts, "subtract", "1.0.0.json") };
  }

  it("npm run contracts never rewrites a released contract: it writes nothing and names the version to bump", async () => {
    const { dir, contracts, file } = await releasedSubtract("rewrite");
    const before = readFileSync(file, "utf8");
    const { ReleasedContractError, writeContracts } = await import("../scripts/contracts.js");
    const refused = await writeContracts([dir], contracts, undefined, []).catch((error) => error);
    expect(refused).toBeInstanceOf(ReleasedContractError);
    expect(refused.message).toContain(
      "subtract 1.0.0 is released (contracts/subtract/1.0.0.json) and its definition changed: bump it to 2.0.0 (breaks callers: input.precision added as required)",
    );
    expect(readFileSync(file, "utf8")).toBe(before);
    // Unchanged definitions are left as they are, and a new version is written beside them.
    expect(await writeContracts([join(ROOT, "test/fixtures/skills/sum")], contracts, undefined, [])).toEqual([join(contracts, "sum", "1.0.0.json")]);
  }, 60_000);

  it("a contract rewritten in the working tree does not silence the check: the base branch's is the released one", async () => {
    const { dir, contracts, file } = await releasedSubtract("silenced");
    // What `npm run contracts` did before: the changed definition written over the released one.
    const [changed] = await currentManifests([dir]);
    writeFileSync(file, `${JSON.stringify(changed, null, 2)}\n`);
    const problems = await contractProblems([dir], contracts, []);
    expect(problems).toEqual([
      expect.stringMatching(/^contracts\/subtract\/1\.0\.0\.json was rewritten since [0-9a-f]{10}: a released contract is never rewritten/),
      "subtract 1.0.0: its definition changed under the same version (run npm run contracts only for a new version: bump it)",
    ]);
  }, 60_000);
});

describe("Agent Skills packages in git", () => {
  const PACKAGES = join(ROOT, "agent-skills");

  it("every package of agent-skills/ passes and matches its committed contract", async () => {
    expect([...committedPackageContracts().keys()].sort()).toEqual(["agent-skills/modbus-triage/1.0.0.json", "agent-skills/web-research-digest/1.0.0.json"]);
    expect((await contractProblems()).filter((problem) => problem.startsWith("Agent Skill"))).toEqual([]);
  });

  /** A git repository of its own: the tools' contracts of this one and `packages` (name → files to change) copied from agent-skills/modbus-triage. */
  async function repoWith(name: string, packages: Record<string, (skillMd: string) => string>) {
    const repo = join(scratch, name);
    const contracts = join(repo, "contracts");
    cpSync(CONTRACTS_DIR, contracts, { recursive: true, filter: (path) => !path.includes("/agent-skills") });
    const dirs = Object.entries(packages).map(([folder, edit]) => {
      const dir = join(repo, "agent-skills", folder);
      cpSync(join(PACKAGES, "modbus-triage"), dir, { recursive: true });
      writeFileSync(join(dir, "SKILL.md"), edit(readFileSync(join(dir, "SKILL.md"), "utf8")));
      return dir;
    });
    const git = (...args: string[]) => run("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
    await git("init", "-q", "-b", "main");
    await git("add", ".");
    await git("commit", "-q", "-m", "the tools' contracts");
    return { repo, contracts, dirs, git };
  }

  it("refuses a bad frontmatter, a missing referenced file and a tool no skill serves, naming each", async () => {
    const { contracts, dirs } = await repoWith("refusals", {
      "bad-frontmatter": (md) => md.replace("name: modbus-triage", "name: bad-frontmatter\nversion: 2"),
      "missing-file": (md) => md.replace("name: modbus-triage", "name: missing-file").replace("references/EXCEPTIONS.md", "references/CODES.md"),
      "unknown-tool": (md) =>
        md.replace("name: modbus-triage", "name: unknown-tool").replace("allowed-tools: modbus.decode", "allowed-tools: modbus.decode modbus.encode Read"),
    });
    const problems = await contractProblems([], contracts, dirs);
    expect(problems).toEqual([
      "Agent Skill bad-frontmatter: SKILL.md frontmatter: unexpected field(s) version (the format allows name, description, license, compatibility, metadata, allowed-tools)",
      "Agent Skill missing-file: SKILL.md refers to references/CODES.md, which is not in the package",
      "Agent Skill unknown-tool 1.0.0: allowed-tools names modbus.encode, which no skill serves (deploy it, or drop it from allowed-tools)",
      "Agent Skill unknown-tool 1.0.0: no contract committed for it (run npm run contracts and commit contracts/agent-skills/unknown-tool/1.0.0.json)",
    ]);
    // npm run contracts writes nothing while a package does not pass.
    const { ReleasedContractError, writeContracts } = await import("../scripts/contracts.js");
    expect(await writeContracts([], contracts, undefined, dirs).catch((error) => error)).toBeInstanceOf(ReleasedContractError);
  }, 60_000);

  it("a package changed under a released version is refused, naming the file; a new metadata.version is written beside it", async () => {
    const { contracts, dirs, git } = await repoWith("drift", { triage: (md) => md.replace("name: modbus-triage", "name: triage") });
    const [dir] = dirs as [string];
    const { ReleasedContractError, writeContracts } = await import("../scripts/contracts.js");
    expect(await writeContracts([], contracts, undefined, dirs)).toEqual([join(contracts, "agent-skills", "triage", "1.0.0.json")]);
    expect(await contractProblems([], contracts, dirs)).toEqual([]);
    await git("add", ".");
    await git("commit", "-q", "-m", "release triage 1.0.0");

    // The same version with other instructions: the check and the writer refuse it.
    writeFileSync(join(dir, "references", "EXCEPTIONS.md"), "# Exceptions\n\nAsk the vendor.\n");
    expect(await contractProblems([], contracts, dirs)).toEqual([
      "Agent Skill triage 1.0.0: changed under the same version (references/EXCEPTIONS.md changed): a released package is never changed, give it a new metadata.version",
    ]);
    const refused = await writeContracts([], contracts, undefined, dirs).catch((error) => error);
    expect(refused).toBeInstanceOf(ReleasedContractError);
    expect(refused.message).toContain(
      "Agent Skill triage 1.0.0 is released (contracts/agent-skills/triage/1.0.0.json) and changed (references/EXCEPTIONS.md changed): give it a new metadata.version",
    );
    // Writing the changed digest over the released contract does not silence the gate.
    const file = join(contracts, "agent-skills", "triage", "1.0.0.json");
    const released = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...released, digest: `sha256:${"0".repeat(64)}` }));
    expect((await contractProblems([], contracts, dirs))[0]).toMatch(
      /^contracts\/agent-skills\/triage\/1\.0\.0\.json was rewritten since [0-9a-f]{10}: a released contract is never rewritten \(give the changed package a new metadata\.version/,
    );
    writeFileSync(file, JSON.stringify(released, null, 2) + "\n");

    // A new version passes once its contract is written.
    writeFileSync(join(dir, "SKILL.md"), readFileSync(join(dir, "SKILL.md"), "utf8").replace('version: "1.0.0"', 'version: "1.1.0"'));
    expect(await writeContracts([], contracts, undefined, dirs)).toEqual([join(contracts, "agent-skills", "triage", "1.1.0.json")]);
    expect(await contractProblems([], contracts, dirs)).toEqual([]);
  }, 60_000);
});
