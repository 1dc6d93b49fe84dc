/**
 * The drift gate end to end: the repository's skills match their committed contracts (what
 * `.ci/run` checks), a breaking change in a skill folder is reported with what breaks, and
 * `npm run deploy` stops before any upload when the check fails. The rules themselves are the
 * table in src/contracts/index.test.ts.
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
  it("every skill of the repository matches its committed contract", async () => {
    expect(committedContracts().map((c) => `${c.name}@${c.version}`)).toContain("modbus.decode@1.0.0");
    expect(await contractProblems()).toEqual([]);
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

  it("npm run deploy stops before uploading anything when the check fails", async () => {
    // Committed contracts that disagree with a real skill: modbus.decode's definition "changed" under 1.0.0.
    const contracts = join(scratch, "drifted");
    cpSync(join(ROOT, "contracts"), contracts, { recursive: true });
    const file = join(contracts, "modbus.decode", "1.0.0.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), description: "what callers approved" }));
    const env = { ...process.env, SKILLMESH_CONTRACTS_DIR: contracts, SKILLMESH_URL: "http://127.0.0.1:9", SKILLMESH_ADMIN_TOKEN: "x".repeat(32), CLOUDFLARE_API_TOKEN: "no-such-token" };
    const failed = await run("npm", ["run", "deploy"], { cwd: ROOT, env }).then(() => undefined, (error: { stderr: string; stdout: string }) => error);
    expect(failed, "deploy must fail").toBeDefined();
    expect(failed!.stderr).toContain("Not deploying: the contract check failed");
    expect(failed!.stderr).toContain("modbus.decode 1.0.0: its definition changed under the same version");
    expect(`${failed!.stdout}${failed!.stderr}`).not.toMatch(/Uploaded|deploying skill|wrangler deploy/i);
    expect(skillDirs().length).toBeGreaterThan(0);
  });
});
