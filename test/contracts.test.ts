/**
 * The drift gate end to end: the repository's skills match their committed contracts (what
 * `.ci/run` checks) and a breaking change in a skill folder is reported with what breaks
 * (test/deploy.test.ts: `npm run deploy` stops before any upload when the check fails). The
 * rules themselves are the table in src/contracts/index.test.ts.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { committedContracts, contractProblems, currentManifests } from "../scripts/contracts.js";
import { ROOT, skillDirs } from "../scripts/mesh/bundle.js";

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
    await writeContracts([dir], contracts);
    expect(await contractProblems([dir], contracts)).toEqual([]);
    writeFileSync(join(dir, "index.ts"), source.replace('version: "1.0.0"', 'version: "1.1.0"').replace("z.object({", "z.object({ precision: z.number().int(),"));
    const problems = await contractProblems([dir], contracts);
    expect(problems).toEqual([expect.stringMatching(/^subtract 1\.1\.0: breaks callers of 1\.0\.0 without a major version: input\.precision added as required/)]);
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
    expect(await writeContracts([dir], contracts)).toEqual([join(contracts, "subtract", "1.0.0.json")]);
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
    const refused = await writeContracts([dir], contracts).catch((error) => error);
    expect(refused).toBeInstanceOf(ReleasedContractError);
    expect(refused.message).toContain("subtract 1.0.0 is released (contracts/subtract/1.0.0.json) and its definition changed: bump it to 2.0.0 (breaks callers: input.precision added as required)");
    expect(readFileSync(file, "utf8")).toBe(before);
    // Unchanged definitions are left as they are, and a new version is written beside them.
    expect(await writeContracts([join(ROOT, "test/fixtures/skills/sum")], contracts)).toEqual([join(contracts, "sum", "1.0.0.json")]);
  }, 60_000);

  it("a contract rewritten in the working tree does not silence the check: the base branch's is the released one", async () => {
    const { dir, contracts, file } = await releasedSubtract("silenced");
    // What `npm run contracts` did before: the changed definition written over the released one.
    const [changed] = await currentManifests([dir]);
    writeFileSync(file, `${JSON.stringify(changed, null, 2)}\n`);
    const problems = await contractProblems([dir], contracts);
    expect(problems).toEqual([
      expect.stringMatching(/^contracts\/subtract\/1\.0\.0\.json was rewritten since [0-9a-f]{10}: a released contract is never rewritten/),
      "subtract 1.0.0: its definition changed under the same version (run npm run contracts only for a new version: bump it)",
    ]);
  }, 60_000);
});
