/**
 * Bundles Workers with wrangler itself (`wrangler deploy --dry-run --outdir`), so what the local
 * mesh, the tests and the benchmark run is byte for byte what `npm run deploy` would upload.
 * Bundles are cached by a hash of their sources: a second start skips wrangler.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { mapConcurrently } from "../../src/lib/pool/index.js";

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
  return readdirSync(parent)
    .filter((name) => /\.[cm]?[jt]s$/.test(name))
    .map((name) => join(parent, name));
}

/** The mark of a cached bundle still being built (`<key>.partial-<pid>-<random>`). */
const PARTIAL = ".partial-";

/**
 * A cached Worker keeps its newest bundles only. Not just the last one: a running `npm run dev`
 * falls back to the last good bundle when a newer one fails to start.
 */
function pruneBundles(workerDir: string, keep = 4): void {
  if (!existsSync(workerDir)) return;
  const bundles = readdirSync(workerDir)
    .filter((name) => !name.includes(PARTIAL)) // another process's bundle in the making
    .map((name) => join(workerDir, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  for (const old of bundles.slice(keep)) rmSync(old, { recursive: true, force: true });
}

/**
 * Bundles the Worker configured in `dir/wrangler.toml` into a cached folder under
 * `.skillmesh/bundles`, once per state of its sources (`src/`, `routes/`, its own folder, sibling
 * modules and the lockfile are the cache key), and copies it to `outdir` when one is given: a run
 * of the tests, `npm run dev` and `npm run deploy -- --dry-run` bundle each Worker once.
 * @example const { scriptPath } = await bundleWorker("skills/html-extract")
 */
export async function bundleWorker(dir: string, options: { outdir?: string; unminified?: boolean } = {}): Promise<Bundle> {
  const absDir = resolve(ROOT, dir);
  const configPath = join(absDir, "wrangler.toml");
  // A linked folder of the repository's is the Worker it links to: one cache entry, keyed by its real place.
  const linked = realpathSync(absDir);
  const realDir = linked.startsWith(`${ROOT}/`) ? linked : absDir;
  // The gateway (the root) is src/, routes/ and its wrangler.toml: not the whole repository.
  const own = realDir === ROOT ? [join(ROOT, "wrangler.toml")] : [realDir, ...siblingModulesOf(realDir)];
  const key = hashOf([join(ROOT, "src"), join(ROOT, "routes"), ...own, join(ROOT, "package-lock.json")]);
  // Unminified (for a readable CPU profile): its own cache entry.
  const cached = join(ROOT, ".skillmesh/bundles", folderNameOf(realDir), options.unminified ? `${key}-unminified` : key);
  if (!existsSync(join(cached, "index.js"))) {
    pruneBundles(dirname(cached));
    // Built aside and moved in whole: test files (and a running npm run dev) bundle on demand,
    // and two of them may build the same one at once.
    const building = `${cached}${PARTIAL}${process.pid}-${Math.random().toString(36).slice(2)}`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    try {
      await run(
        process.execPath,
        [WRANGLER, "deploy", "--dry-run", "--outdir", building, "-c", configPath, ...(options.unminified ? ["--minify=false"] : [])],
        {
          cwd: ROOT,
          env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", CI: "true" },
          maxBuffer: 16 * 1024 * 1024,
        },
      );
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
      throw new Error(`wrangler could not bundle ${relative(ROOT, configPath)}: ${wranglerErrorOf(`${stdout}\n${stderr}`)}`, { cause: error });
    }
    try {
      renameSync(building, cached);
    } catch {
      rmSync(building, { recursive: true, force: true }); // another process's is there already: the same bundle
    }
  }
  const outdir = options.outdir ?? cached;
  if (options.outdir) {
    rmSync(outdir, { recursive: true, force: true });
    cpSync(cached, outdir, { recursive: true });
  }
  const scriptPath = join(outdir, "index.js");
  return { dir: absDir, configPath, scriptPath, bytes: statSync(scriptPath).size };
}

/**
 * Bundles several Workers, two at a time (wrangler is CPU-bound; this machine has two cores).
 * @example const bundles = await bundleAll(["skills/a", "skills/b"])
 */
export async function bundleAll(dirs: string[], options: { outRoot?: string; unminified?: boolean } = {}): Promise<Bundle[]> {
  return mapConcurrently(dirs, 2, (dir) =>
    bundleWorker(dir, { outdir: options.outRoot ? join(options.outRoot, folderNameOf(dir)) : undefined, unminified: options.unminified }),
  );
}

/** `SKILL_` + the folder name in upper snake case: `skills/text-summarize-v2` → `SKILL_TEXT_SUMMARIZE_V2` (the gateway's binding to it). */
export function bindingNameOf(dir: string): string {
  return `SKILL_${basename(dir)
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")}`;
}

/** `skill-` + the folder name: `skills/text-summarize-v2` → `skill-text-summarize-v2` (its Worker). */
export function workerNameOf(dir: string): string {
  return `skill-${basename(dir)}`;
}

/**
 * Whether a skill folder is a pipeline (it has a `pipeline.yaml`, served by `definePipeline`):
 * the operator's own repository says so, so `npm run dev` and `npm run deploy` register it as
 * one (`"pipeline": true`), and only then does it get delegation tokens for its steps.
 * @example isPipelineDir("skills/web-digest") // true
 */
export function isPipelineDir(dir: string): boolean {
  return existsSync(join(dir, "pipeline.yaml"));
}

/** Every skill folder under `skills/` (a folder with a wrangler.toml); `SKILLMESH_SKILLS_DIR` names another folder of them (tests). */
export function skillDirs(root = process.env.SKILLMESH_SKILLS_DIR ?? join(ROOT, "skills")): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort()
    .map((name) => join(root, name))
    .filter((dir) => existsSync(join(dir, "wrangler.toml")));
}

/**
 * The error wrangler printed (its `✘ [ERROR]` block), without colours, banner or log path.
 * @example wranglerErrorOf(stderr) // "A request to the Cloudflare API (/accounts/…/workers/scripts/skill-a) failed. Uploaded script … [code: 10021]"
 */
export function wranglerErrorOf(output: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const start = plain.indexOf("[ERROR]");
  if (start < 0) return plain.trim().split("\n").slice(-3).join(" ").trim() || "wrangler failed without a message";
  const block = plain.slice(start + "[ERROR]".length).split(/\n\s*(?:If you think this is a bug|🪵)/)[0]!;
  return block
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim())
    .join("\n")
    .trim();
}
