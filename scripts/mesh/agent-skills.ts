/**
 * The project's Agent Skills packages: every folder of `agent-skills/` with a `SKILL.md`, read
 * from disk, checked (src/registry/packages) and registered with a gateway's admin API — by
 * `npm run dev` at start and on every edit, by `npm run deploy` after the skills they use.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { InvalidPackage, type CheckedPackage, type PackageFile, SKILL_FILE, packageOf } from "../../src/registry/packages/index.js";
import { type AgentSkillUpload, AgentSkillRegisteredSchema } from "../../src/admin/api/index.js";
import { ROOT } from "./bundle.js";
import { adminCall } from "./index.js";

/** The folder of packages (`SKILLMESH_AGENT_SKILLS_DIR` points elsewhere, for tests). */
export const AGENT_SKILLS_DIR = process.env.SKILLMESH_AGENT_SKILLS_DIR ?? join(ROOT, "agent-skills");

/**
 * Every package folder of `root` (a folder with a `SKILL.md`), sorted; none when `root` is not there.
 * @example agentSkillDirs() // ["/…/agent-skills/modbus-triage", "/…/agent-skills/web-research-digest"]
 */
export function agentSkillDirs(root = AGENT_SKILLS_DIR): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && existsSync(join(root, entry.name, SKILL_FILE)))
    .map((entry) => join(root, entry.name))
    .sort();
}

/**
 * A package folder's files, every one under it but hidden ones (`.DS_Store`, `.git/`: an editor's
 * or a tool's, not the package's), with paths relative to the folder.
 */
export function packageFilesOf(dir: string): PackageFile[] {
  const files: PackageFile[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith(".")) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() || statSync(path).isFile())
        files.push({ path: relative(dir, path).split("\\").join("/"), bytes: new Uint8Array(readFileSync(path)) });
    }
  };
  walk(dir);
  return files;
}

/** Every package of the folder, checked: a package, or why it does not pass. */
export async function currentPackages(dirs = agentSkillDirs()): Promise<Array<CheckedPackage | InvalidPackage>> {
  return Promise.all(
    dirs.map((dir) =>
      packageOf(basename(dir), packageFilesOf(dir)).catch((error: unknown) => {
        if (error instanceof InvalidPackage) return error;
        throw error;
      }),
    ),
  );
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The admin API's upload of a package folder: text files as text, the others as base64. */
export function uploadOf(dir: string): AgentSkillUpload {
  return {
    name: basename(dir),
    files: packageFilesOf(dir).map((file) => {
      try {
        return { path: file.path, content: UTF8.decode(file.bytes), encoding: "utf8" as const };
      } catch {
        return { path: file.path, content: Buffer.from(file.bytes).toString("base64"), encoding: "base64" as const };
      }
    }),
  };
}

/**
 * Registers a package folder with a gateway (`POST /admin/agent-skills`); throws with the
 * gateway's reasons when it is refused.
 * @example const { name, version, changed } = await registerAgentSkill(url, token, "agent-skills/modbus-triage")
 */
export async function registerAgentSkill(gatewayUrl: string, adminToken: string, dir: string) {
  return AgentSkillRegisteredSchema.parse(await adminCall(gatewayUrl, adminToken, "POST", "/agent-skills", uploadOf(dir)));
}
