/**
 * Contracts in git. `npm run contracts` writes every skill's manifest (as its bundle serves it at
 * `GET /manifest`) to `contracts/<name>/<version>.json` for commit; `npm run contracts -- --check`
 * and `skillmesh contracts check` compare the skills with the committed contracts and fail with
 * what breaks whom (src/contracts holds the rules), and check every pipeline against the skills
 * it calls (src/pipeline/check.ts). `.ci/run` and `npm run deploy` run the check.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { checkContracts } from "../src/contracts/index.js";
import { checkPipeline } from "../src/pipeline/check.js";
import { type PipelineSpec, parsePipelineSpec } from "../src/pipeline/index.js";
import { type SkillManifest, SkillManifestSchema } from "../src/skill/manifest.js";
import { ROOT, skillDirs } from "./mesh/bundle.js";
import { startMesh } from "./mesh/index.js";

/** Where contracts are committed (`SKILLMESH_CONTRACTS_DIR` points elsewhere, for tests). */
export const CONTRACTS_DIR = process.env.SKILLMESH_CONTRACTS_DIR ?? join(ROOT, "contracts");

/** The manifests the skill folders serve now: their bundles started in workerd, `GET /manifest` read. */
export async function currentManifests(dirs = skillDirs()): Promise<SkillManifest[]> {
  const mesh = await startMesh({ skills: dirs, adminToken: randomBytes(16).toString("hex"), register: false });
  try {
    return mesh.skills.map((skill) => skill.manifest);
  } finally {
    await mesh.dispose();
  }
}

/** Every committed contract, parsed (a file that does not parse is an error naming it). */
export function committedContracts(dir = CONTRACTS_DIR): SkillManifest[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) =>
    readdirSync(join(dir, name))
      .filter((file) => file.endsWith(".json"))
      .map((file) => {
        const parsed = SkillManifestSchema.safeParse(JSON.parse(readFileSync(join(dir, name, file), "utf8")));
        if (!parsed.success) throw new Error(`contracts/${name}/${file} is not a skill manifest: ${parsed.error.issues[0]?.message}`);
        return parsed.data;
      }),
  );
}

/**
 * What keeps the skills from being released against the committed contracts (empty: none).
 * @example if ((await contractProblems()).length) process.exit(1)
 */
export async function contractProblems(dirs = skillDirs(), dir = CONTRACTS_DIR): Promise<string[]> {
  const current = await currentManifests(dirs);
  const committed = committedContracts(dir);
  return [...checkContracts(current, committed), ...pipelineProblems(dirs, [...current, ...committed])];
}

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

/** Writes the contracts of the skills' current versions; returns the files written. */
export async function writeContracts(dirs = skillDirs(), dir = CONTRACTS_DIR): Promise<string[]> {
  const written: string[] = [];
  for (const manifest of await currentManifests(dirs)) {
    mkdirSync(join(dir, manifest.name), { recursive: true });
    const file = join(dir, manifest.name, `${manifest.version}.json`);
    writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
    written.push(file);
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
  try {
    if (values.check) {
      const problems = await contractProblems();
      for (const problem of problems) console.error(`✗ ${problem}`);
      if (problems.length) process.exit(1);
      console.log("Contracts: every skill matches its committed contract.");
    } else {
      for (const file of await writeContracts()) console.log(`wrote ${file.slice(ROOT.length + 1)}`);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
