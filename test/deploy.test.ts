/** `npm run deploy -- --dry-run`: real wrangler bundles of the gateway and every skill, with sizes. */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, skillDirs } from "../scripts/mesh/bundle.js";

const run = promisify(execFile);
const outdir = mkdtempSync(join(tmpdir(), "skillmesh-dist-"));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe("npm run deploy", () => {
  it("--dry-run bundles every Worker with wrangler and prints each bundle's size", async () => {
    const { stdout } = await run("npm", ["run", "deploy", "--", "--dry-run", "--outdir", outdir], { cwd: ROOT, env: { ...process.env, CLOUDFLARE_API_TOKEN: "" } });
    const rows = stdout.split("\n").filter((line) => /KiB/.test(line));
    const names = ["skillmesh-gateway", ...skillDirs().map((dir) => readFileSync(join(dir, "wrangler.toml"), "utf8").match(/^name = "(.+)"$/m)![1]!)];
    expect(rows.map((row) => row.split(/\s+/)[0]).sort()).toEqual(names.sort());
    for (const row of rows) {
      const [, kib, , , , file] = row.trim().split(/\s+/);
      const path = join(ROOT, file!);
      expect(existsSync(path), row).toBe(true);
      expect(Number(kib)).toBeCloseTo(statSync(path).size / 1024, 1);
      // An ES module Worker: a default export with a fetch handler (Hono's app).
      expect(readFileSync(path, "utf8")).toMatch(/export\s*\{[^}]*\bas default\b/);
    }
  }, 120_000);

  it("a real deploy without credentials stops before doing anything, saying what is missing", async () => {
    const failed = await run("npm", ["run", "deploy"], { cwd: ROOT, env: { ...process.env, SKILLMESH_URL: "", CLOUDFLARE_API_TOKEN: "" } }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/SKILLMESH_URL.*SKILLMESH_ADMIN_TOKEN.*CLOUDFLARE_API_TOKEN/);
  });
});
