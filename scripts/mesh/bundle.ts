/**
 * Bundles Workers with wrangler itself (`wrangler deploy --dry-run --outdir`), so what the local
 * mesh, the tests and the benchmark run is byte for byte what `npm run deploy` would upload.
 * Bundles are cached by a hash of their sources: a second start skips wrangler.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";

const run = promisify(execFile);

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");

export interface Bundle {
  /** The folder holding wrangler.toml. */
  dir: string;
  configPath: string;
  /** The bundled ES module. */
  scriptPath: string;
  bytes: number;
}

/** A flat folder name for a Worker's bundle: `skills/html-extract` → `skills__html-extract`, the root → `gateway`. */
function folderNameOf(dir: string): string {
  return relative(ROOT, resolve(ROOT, dir)).replace(/[\\/]/g, "__") || "gateway";
}

/** Hash of every file below `paths` (sorted), for the cache key. */
function hashOf(paths: string[]): string {
  const hash = createHash("sha256");
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) if (name !== "node_modules" && !name.startsWith(".")) visit(join(path, name));
    } else {
      hash.update(relative(ROOT, path)).update(readFileSync(path));
    }
  };
  paths.forEach(visit);
  return hash.digest("hex").slice(0, 16);
}

/**
 * Modules beside a Worker's folder (`test/fixtures/skills/echo.ts` for `echo-v1`), which its
 * code may share with its siblings: part of its cache key. The root's parent is not ours.
 */
function siblingModulesOf(absDir: string): string[] {
  const parent = dirname(absDir);
  if (absDir === ROOT || !parent.startsWith(ROOT)) return [];
  return readdirSync(parent).filter((name) => /\.[cm]?[jt]s$/.test(name)).map((name) => join(parent, name));
}

/**
 * Bundles the Worker configured in `dir/wrangler.toml` into `outdir` (or a cached folder under
 * `.skillmesh/bundles`). `src/`, `routes/`, sibling modules and the lockfile are part of the cache key.
 * @example const { scriptPath } = await bundleWorker("skills/html-extract")
 */
export async function bundleWorker(dir: string, options: { outdir?: string } = {}): Promise<Bundle> {
  const absDir = resolve(ROOT, dir);
  const configPath = join(absDir, "wrangler.toml");
  const key = hashOf([join(ROOT, "src"), join(ROOT, "routes"), absDir, ...siblingModulesOf(absDir), join(ROOT, "package-lock.json")]);
  const outdir = options.outdir ?? join(ROOT, ".skillmesh/bundles", folderNameOf(absDir), key);
  const scriptPath = join(outdir, "index.js");
  if (options.outdir || !existsSync(scriptPath)) {
    // A cached worker keeps only its newest bundle: drop the ones of older sources.
    if (!options.outdir) rmSync(dirname(outdir), { recursive: true, force: true });
    rmSync(outdir, { recursive: true, force: true });
    mkdirSync(outdir, { recursive: true });
    try {
      await run(process.execPath, [WRANGLER, "deploy", "--dry-run", "--outdir", outdir, "-c", configPath], {
        cwd: ROOT,
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", CI: "true" },
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      rmSync(outdir, { recursive: true, force: true });
      const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
      throw new Error(`wrangler could not bundle ${relative(ROOT, configPath)}:\n${stdout}\n${stderr}`);
    }
  }
  return { dir: absDir, configPath, scriptPath, bytes: statSync(scriptPath).size };
}

/**
 * Bundles several Workers, two at a time (wrangler is CPU-bound; this machine has two cores).
 * @example const bundles = await bundleAll(["skills/a", "skills/b"])
 */
export async function bundleAll(dirs: string[], options: { outRoot?: string } = {}): Promise<Bundle[]> {
  const results: Bundle[] = new Array(dirs.length);
  let next = 0;
  const worker = async () => {
    while (next < dirs.length) {
      const i = next++;
      const dir = dirs[i]!;
      const outdir = options.outRoot ? join(options.outRoot, folderNameOf(dir)) : undefined;
      results[i] = await bundleWorker(dir, { outdir });
    }
  };
  await Promise.all([worker(), worker()]);
  return results;
}

/** Every skill folder under `skills/` (a folder with a wrangler.toml). */
export function skillDirs(root = join(ROOT, "skills")): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort()
    .map((name) => join(root, name))
    .filter((dir) => existsSync(join(dir, "wrangler.toml")));
}
