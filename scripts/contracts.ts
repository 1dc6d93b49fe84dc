/**
 * Contracts in git. `npm run contracts` writes each skill's manifest (as its bundle serves it at
 * `GET /manifest`) to `contracts/<name>/<version>.json` for commit — never over a released one
 * with another definition. `npm run contracts -- --check` and `skillmesh contracts check` compare
 * the skills with the released contracts (the working tree's and the base branch's, read with
 * git, so a rewritten file cannot silence the gate) and fail with what breaks whom (src/registry/contracts
 * holds the rules), and check every pipeline against the skills it calls
 * (src/federation/pipeline/check.ts). `.ci/run` and `npm run deploy` run the check.
 *
 * Agent Skills packages (agent-skills/) go the same way: each version's contract (digests, the
 * tools it names) is written to `contracts/agent-skills/<name>/<version>.json`, and the check
 * refuses a package that does not pass the format, names a tool no skill serves, or changed
 * under a released version (src/registry/packages/contract.ts).
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import { changesBetween, checkContracts, nextVersion } from "../src/registry/contracts/index.js";
import { canonicalJson, safeJson } from "../src/lib/json/index.js";
import { manifestChanges } from "../src/registry/deployments/contract.js";
import { checkPipeline } from "../src/federation/pipeline/check.js";
import { type PipelineSpec, parsePipelineSpec } from "../src/federation/pipeline/index.js";
import { type SkillManifest, SkillManifestSchema } from "../src/skill/manifest.js";
import { InvalidPackage, type CheckedPackage } from "../src/registry/packages/index.js";
import {
  PACKAGE_CONTRACTS_FOLDER,
  type PackageContract,
  PackageContractSchema,
  changedFiles,
  contractOf,
  packageContractPath,
  packageProblems,
} from "../src/registry/packages/contract.js";
import { agentSkillDirs, currentPackages } from "./mesh/agent-skills.js";
import { ROOT, bundleAll, skillDirs } from "./mesh/bundle.js";
import { startMesh } from "./mesh/index.js";

/** Where contracts are committed (`SKILLMESH_CONTRACTS_DIR` points elsewhere, for tests). */
export const CONTRACTS_DIR = process.env.SKILLMESH_CONTRACTS_DIR ?? join(ROOT, "contracts");

/**
 * The manifests the skill folders serve now: their bundles started in workerd, `GET /manifest`
 * read. A bundle's manifest is kept beside it in the bundle cache (a bundle is one definition:
 * its cache key covers every source it is built from), so only new bundles are started.
 */
export async function currentManifests(dirs = skillDirs()): Promise<SkillManifest[]> {
  const bundles = await bundleAll(dirs);
  const cacheOf = (scriptPath: string) => join(dirname(scriptPath), "manifest.json");
  const cached = bundles.map((bundle) => {
    const parsed =
      existsSync(cacheOf(bundle.scriptPath)) ? SkillManifestSchema.safeParse(JSON.parse(readFileSync(cacheOf(bundle.scriptPath), "utf8"))) : undefined;
    return parsed?.success ? parsed.data : undefined;
  });
  const missing = dirs.filter((_, i) => !cached[i]);
  if (missing.length) {
    const mesh = await startMesh({ skills: missing, adminToken: randomBytes(16).toString("hex"), register: false });
    try {
      for (const skill of mesh.skills) {
        const i = bundles.findIndex((bundle) => bundle.dir === skill.dir);
        cached[i] = skill.manifest;
        writeFileSync(cacheOf(bundles[i]!.scriptPath), JSON.stringify(skill.manifest));
      }
    } finally {
      await mesh.dispose();
    }
  }
  return cached.map((manifest) => manifest!);
}

/** A contract file's manifest (a file that does not parse is an error naming it). */
function manifestFrom(text: string, file: string): SkillManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not JSON`);
  }
  const parsed = SkillManifestSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${file} is not a skill manifest: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** A package contract file's contents (a file that does not parse is an error naming it). */
function packageContractFrom(text: string, file: string): PackageContract {
  const parsed = PackageContractSchema.safeParse(safeJson(text));
  if (!parsed.success) throw new Error(`${file} is not an Agent Skill contract: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** Every contract in the working tree's folder, parsed. */
export function committedContracts(dir = CONTRACTS_DIR): SkillManifest[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name !== PACKAGE_CONTRACTS_FOLDER)
    .flatMap((name) =>
      readdirSync(join(dir, name))
        .filter((file) => file.endsWith(".json"))
        .map((file) => manifestFrom(readFileSync(join(dir, name, file), "utf8"), `contracts/${name}/${file}`)),
    );
}

/** Where the released contracts are read from: a folder, and the git repository it is in (if any). */
export interface ContractSource {
  dir: string;
  /** The git ref whose contracts are released too, e.g. "origin/main" (default: `baseRefOf`). */
  against?: string;
}

/** Runs git in `cwd`; undefined when git or the repository is not there, or the command fails. */
function git(cwd: string, args: string[]): string | undefined {
  const result = spawnSync("git", args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return result.status === 0 ? result.stdout : undefined;
}

/**
 * The ref whose contracts are released, as buf's `breaking --against` and Pact's `can-i-deploy`
 * compare with the main line: `SKILLMESH_CONTRACTS_AGAINST` if set, else where HEAD left
 * origin/main (or main), else HEAD itself; undefined outside a git repository.
 * @example baseRefOf(ROOT) // "3f1c…" (the merge base of HEAD and origin/main)
 */
export function baseRefOf(cwd: string, env = process.env): string | undefined {
  if (env.SKILLMESH_CONTRACTS_AGAINST) return env.SKILLMESH_CONTRACTS_AGAINST;
  if (git(cwd, ["rev-parse", "--verify", "--quiet", "HEAD"]) === undefined) return undefined;
  for (const main of ["origin/main", "main"]) {
    const base = git(cwd, ["merge-base", "HEAD", main])?.trim();
    if (base) return base;
  }
  return "HEAD";
}

/**
 * The contracts `ref` holds in `dir` (path → manifest), read with git; empty when `dir` is not
 * in a repository or `ref` has none.
 */
export function contractsAt(dir: string, ref: string): Map<string, SkillManifest> {
  return filesAt(dir, ref, (path) => !path.startsWith(`${PACKAGE_CONTRACTS_FOLDER}/`), manifestFrom);
}

/** The package contracts `ref` holds in `dir` (path → contract), read with git. */
export function packageContractsAt(dir: string, ref: string): Map<string, PackageContract> {
  return filesAt(dir, ref, (path) => path.startsWith(`${PACKAGE_CONTRACTS_FOLDER}/`), packageContractFrom);
}

/** The `.json` files under `dir` at `ref` that `wanted` takes (by their path in `dir`), parsed. */
function filesAt<T>(dir: string, ref: string, wanted: (path: string) => boolean, parse: (text: string, file: string) => T): Map<string, T> {
  const contracts = new Map<string, T>();
  if (!existsSync(dir)) return contracts;
  const prefix = git(dir, ["rev-parse", "--show-prefix"])?.trim();
  if (prefix === undefined) return contracts;
  const listed = git(dir, ["ls-tree", "-r", "--name-only", "--full-name", ref, "--", "."]);
  for (const path of (listed ?? "").split("\n").filter((line) => line.endsWith(".json"))) {
    const relativePath = path.slice(prefix.length); // ls-tree names paths from the repository's root
    if (!wanted(relativePath)) continue;
    const text = git(dir, ["show", `${ref}:${path}`]);
    if (text !== undefined) contracts.set(relativePath, parse(text, `${ref}:${path}`));
  }
  return contracts;
}

/** Every package contract in the working tree's folder (path in it → contract). */
export function committedPackageContracts(dir = CONTRACTS_DIR): Map<string, PackageContract> {
  const root = join(dir, PACKAGE_CONTRACTS_FOLDER);
  if (!existsSync(root)) return new Map();
  return new Map(
    readdirSync(root).flatMap((name) =>
      readdirSync(join(root, name))
        .filter((file) => file.endsWith(".json"))
        .map((file) => {
          const path = `${PACKAGE_CONTRACTS_FOLDER}/${name}/${file}`;
          return [path, packageContractFrom(readFileSync(join(dir, path), "utf8"), `contracts/${path}`)] as const;
        }),
    ),
  );
}

/** The released package contracts, read as `releasedContracts` reads the tools'. */
export function releasedPackageContracts(source: ContractSource): Released<PackageContract> {
  return releasedOf(committedPackageContracts(source.dir), source, packageContractsAt);
}

/**
 * The released contracts: the base ref's (`baseRefOf`) and the working tree's, the base ref's
 * winning where both have one; and every file the working tree rewrote (a released contract is
 * never rewritten, or the drift gate could be silenced by writing the new definition over it).
 * @example const { released, rewritten } = releasedContracts({ dir: CONTRACTS_DIR })
 */
export function releasedContracts(source: ContractSource): Released<SkillManifest> {
  return releasedOf(new Map(committedContracts(source.dir).map((m) => [`${m.name}/${m.version}.json`, m])), source, contractsAt);
}

/** What is released, and the working tree's rewrites of it (paths in the contracts folder). */
export interface Released<T> {
  released: T[];
  rewritten: string[];
  against?: string;
}

/** The working tree's contracts (path → contract) and those of the base ref (`baseAt`), the base ref's winning. */
function releasedOf<T>(working: Map<string, T>, source: ContractSource, baseAt: (dir: string, ref: string) => Map<string, T>): Released<T> {
  const against = source.against ?? baseRefOf(source.dir);
  const base = against ? baseAt(source.dir, against) : new Map<string, T>();
  const rewritten = [...base]
    .filter(([path, contract]) => working.has(path) && canonicalJson(working.get(path)) !== canonicalJson(contract))
    .map(([path]) => path);
  return { released: [...new Map([...working, ...base]).values()], rewritten, ...(against ? { against } : {}) };
}

/**
 * What keeps the skills from being released against the released contracts (empty: none).
 * @example if ((await contractProblems()).length) process.exit(1)
 */
export async function contractProblems(dirs = skillDirs(), dir = CONTRACTS_DIR, packageDirs = agentSkillDirs()): Promise<string[]> {
  return (await contractReport(dirs, dir, packageDirs)).problems;
}

/**
 * The problems, the manifests the skill folders serve now (what a deploy would upload), and the
 * packages of `agent-skills/` (what a deploy would register).
 */
export async function contractReport(
  dirs = skillDirs(),
  dir = CONTRACTS_DIR,
  packageDirs = agentSkillDirs(),
): Promise<{ problems: string[]; current: SkillManifest[]; packages: CheckedPackage[] }> {
  const current = await currentManifests(dirs);
  const { released, rewritten, against } = releasedContracts({ dir });
  const releasedPackages = releasedPackageContracts({ dir });
  const rewrites = [...rewritten, ...releasedPackages.rewritten].map(
    (path) =>
      `contracts/${path} was rewritten since ${shortRef(against!)}: a released contract is never rewritten (give the changed ${path.startsWith(`${PACKAGE_CONTRACTS_FOLDER}/`) ? "package a new metadata.version" : "skill a new version"}; git checkout the file back)`,
  );
  const packages = await currentPackages(packageDirs);
  // The tools a package may name: the skills of this repository, and those released elsewhere.
  const tools = new Set([...current, ...released].map((m) => m.name));
  return {
    problems: [
      ...rewrites,
      ...checkContracts(current, released),
      ...pipelineProblems(dirs, [...current, ...released]),
      ...packageProblems(packages, releasedPackages.released, tools),
    ],
    current,
    packages: packages.filter((pkg): pkg is CheckedPackage => !(pkg instanceof InvalidPackage)),
  };
}

const shortRef = (ref: string) => (/^[0-9a-f]{40}$/.test(ref) ? ref.slice(0, 10) : ref);

/**
 * Every pipeline of the skill folders (a `pipeline.yaml`) checked against the contracts of the
 * skills it calls: the folders' current ones, and the committed ones of skills deployed elsewhere.
 * @example pipelineProblems(skillDirs(), manifests) // ["pipeline web.digest, step summarize, input.text: …"]
 */
export function pipelineProblems(dirs: string[], manifests: SkillManifest[]): string[] {
  return dirs.flatMap((folder) => {
    const file = join(folder, "pipeline.yaml");
    if (!existsSync(file)) return [];
    let spec: PipelineSpec;
    try {
      spec = parsePipelineSpec(readFileSync(file, "utf8"));
    } catch (error) {
      return [`${relative(ROOT, folder)}/${(error as Error).message}`];
    }
    return checkPipeline(spec, manifests);
  });
}

/** A `npm run contracts` that would rewrite released contracts: nothing was written. */
export class ReleasedContractError extends Error {}

/**
 * Writes the contracts of the skills' current versions that are not released yet; returns the
 * files written (a contract already there with the same definition is left as it is). Refuses,
 * writing nothing, when a skill's definition differs from its released contract, naming the
 * version to bump to.
 * @example await writeContracts() // ["/…/contracts/math.subtract/1.0.0.json"]
 */
export async function writeContracts(dirs = skillDirs(), dir = CONTRACTS_DIR, against?: string, packageDirs = agentSkillDirs()): Promise<string[]> {
  const current = await currentManifests(dirs);
  const { released } = releasedContracts({ dir, ...(against ? { against } : {}) });
  const releasedOf = (manifest: SkillManifest) => released.find((r) => r.name === manifest.name && r.version === manifest.version);
  const refusals = current.flatMap((manifest) => {
    const same = releasedOf(manifest);
    return same && canonicalJson(same) !== canonicalJson(manifest) ?
        [
          `${manifest.name} ${manifest.version} is released (contracts/${manifest.name}/${manifest.version}.json) and its definition changed: ${nextVersionAdvice(same, manifest)}`,
        ]
      : [];
  });
  const packages = await currentPackages(packageDirs);
  const invalid = packages.filter((pkg): pkg is InvalidPackage => pkg instanceof InvalidPackage);
  const releasedPackages = releasedPackageContracts({ dir, ...(against ? { against } : {}) }).released;
  const releasedPackageOf = (pkg: CheckedPackage) => releasedPackages.find((c) => c.name === pkg.name && c.version === pkg.version);
  const valid = packages.filter((pkg): pkg is CheckedPackage => !(pkg instanceof InvalidPackage));
  refusals.push(
    ...invalid.flatMap((pkg) => pkg.problems.map((problem) => `${pkg.where}: ${problem}`)),
    ...valid.flatMap((pkg) => {
      const same = releasedPackageOf(pkg);
      return same && same.digest !== pkg.digest ?
          [
            `Agent Skill ${pkg.name} ${pkg.version} is released (contracts/${packageContractPath(pkg.name, pkg.version)}) and changed (${changedFiles(same, pkg).join(", ")}): give it a new metadata.version`,
          ]
        : [];
    }),
  );
  if (refusals.length)
    throw new ReleasedContractError(`Nothing written: a released contract is never rewritten.\n${refusals.map((r) => `  ✗ ${r}`).join("\n")}`);
  const written: string[] = [];
  for (const pkg of valid) {
    const file = join(dir, packageContractPath(pkg.name, pkg.version));
    if (releasedPackageOf(pkg) && existsSync(file)) continue;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(contractOf(pkg), null, 2)}\n`);
    written.push(file);
  }
  for (const manifest of current) {
    const file = join(dir, manifest.name, `${manifest.version}.json`);
    if (releasedOf(manifest) && existsSync(file)) continue; // the same definition, already there
    mkdirSync(join(dir, manifest.name), { recursive: true });
    writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
    written.push(file);
  }
  return written;
}

/**
 * The version a changed definition needs, from what changed: a breaking change the next major,
 * an additive one the next minor, anything else (a description) the next patch.
 * @example nextVersionAdvice(released, changed) // "bump it to 2.0.0 (breaks callers: input.text removed)"
 */
export function nextVersionAdvice(released: SkillManifest, changed: SkillManifest): string {
  const { breaking, additive } = changesBetween(released, changed);
  if (breaking.length) return `bump it to ${nextVersion(released.version, "major")} (breaks callers: ${breaking.join("; ")})`;
  if (additive.length) return `bump it to ${nextVersion(released.version, "minor")} (adds: ${additive.join("; ")})`;
  return `bump it to ${nextVersion(released.version, "patch")} (${manifestChanges(released, changed).join("; ") || "the definition changed"})`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
  try {
    if (values.check) {
      const problems = await contractProblems();
      for (const problem of problems) console.error(`✗ ${problem}`);
      if (problems.length) process.exit(1);
      console.log("Contracts: every skill and Agent Skill matches its committed contract.");
    } else {
      const written = await writeContracts();
      for (const file of written) console.log(`wrote ${file.slice(ROOT.length + 1)}`);
      if (!written.length) console.log("Every skill's contract is written already (nothing changed).");
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
