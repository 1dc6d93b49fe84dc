/**
 * The import rules (.dependency-cruiser.cjs) in `npm test` too, not only in `.ci/run`: a new
 * import circle of files or folders (an import that runs upward) fails the tests where it is made.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { ROOT } from "../scripts/mesh/bundle.js";

const run = promisify(execFile);

it("finds no import circle and nothing importing upward (npm run depcheck)", async () => {
  const cruiser = join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs");
  const { stdout } = await run(
    process.execPath,
    [cruiser, "src", "routes", "scripts", "skills", "--config", ".dependency-cruiser.cjs", "--output-type", "json"],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  const { summary } = JSON.parse(stdout) as {
    summary: { error: number; totalCruised: number; violations: Array<{ rule: { name: string }; from: string; to: string; cycle?: Array<{ name: string }> }> };
  };
  const described = summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(" → ")})` : ""}`);
  expect(described).toEqual([]);
  expect(summary.error).toBe(0);
  expect(summary.totalCruised).toBeGreaterThan(100);
});
