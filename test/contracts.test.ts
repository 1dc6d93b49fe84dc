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
import { committedContracts, contractProblems } from "../scripts/contracts.js";
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
});
