/**
 * A federated MCP upstream's packages — its Agent Skills (the Skills extension, SEP-2640; "skill"
 * on that wire and in its held changes): what the upstream lists in `skills/list`, checked and
 * pinned. A package is instructions a model obeys, so it is pinned as a tool is and more strictly:
 * - its listing is checked against the Skills extension and the Agent Skills format: a `SKILL.md`
 *   URI whose last skill-path segment is the frontmatter's `name`, every file listed once with a
 *   `sha256:` digest, inside the skill's directory (a skill without `resources` — generated on
 *   demand, with no digests to pin — is not served);
 * - its `SKILL.md` is read at once, and its bytes must have the listed digest and its frontmatter
 *   be the listed one, field by field (what an operator approves is what a model will read);
 * - every file's digest is pinned; a refresh that lists another digest, another file or other
 *   frontmatter holds the skill for approval (src/federation/upstream/held.ts), and until then a read whose
 *   bytes do not have the pinned digest is refused (src/gateway/chain/operations.ts).
 * It is served as `skill://<upstream>/<its skill-path>/<file>`: the upstream's name is the
 * skill-path's first segment (SEP-2640's organizational prefix), so its last is still the name.
 */
import { decodeBase64 } from "hono/utils/encode";
import { AgentSkillNameSchema, MAX_DESCRIPTION_CHARS, SKILL_FILE, pathOfSegments, splitSkillMd } from "../../registry/packages/index.js";
import { sha256Hex } from "../../lib/hash/index.js";
import { canonicalJson } from "../../lib/json/index.js";
import { type AgentSkillEntry, type ReadResourceResult, isInputRequired } from "../../protocols/mcp/index.js";
import { UTF8_ENCODER } from "../../lib/utf8/index.js";
import { listUpstreamPackages, readUpstreamResource } from "./mcp-client.js";
import { LIST_BUDGET_BYTES, type McpTarget, type ReadBudget } from "./mcp-session.js";
import type { McpEra, UpstreamPackage } from "./model.js";

/** A URI's scheme and the rest (`skill://a/b` → `skill://`, `a/b`). */
const SCHEME = /^([a-z][a-z0-9+.-]*:\/\/)(.+)$/i;

/**
 * A listed skill checked and made ready to pin, or why it is not served.
 * @example pinnedPackageOf({ uri: "skill://acme/refunds/SKILL.md", frontmatter: { name: "refunds", description: "…" }, resources: [...] }) // { uri, path: "acme/refunds", frontmatter, files }
 */
export function pinnedPackageOf(entry: AgentSkillEntry): UpstreamPackage | { refused: string } {
  const suffix = `/${SKILL_FILE}`;
  const parts = SCHEME.exec(entry.uri);
  if (!parts || !entry.uri.endsWith(suffix)) return { refused: `its uri is not <scheme>://<skill-path>/${SKILL_FILE}` };
  const root = entry.uri.slice(0, -suffix.length);
  const path = pathOfSegments(parts[2]!.slice(0, -suffix.length).split("/"));
  if (!path) return { refused: "its skill-path is not a path of URI segments" };
  const name = AgentSkillNameSchema.safeParse(entry.frontmatter.name);
  if (!name.success || name.data !== entry.frontmatter.name) return { refused: "its frontmatter's name is not a valid Agent Skill name" };
  if (path.split("/").at(-1) !== name.data) return { refused: `the last segment of its skill-path is not its name (${name.data})` };
  const description = entry.frontmatter.description;
  if (typeof description !== "string" || !description.trim() || description.length > MAX_DESCRIPTION_CHARS)
    return { refused: `its frontmatter's description is not 1-${MAX_DESCRIPTION_CHARS} characters` };
  if (!entry.resources) return { refused: "it lists no resources (a skill generated on demand has no digests to pin)" };
  const files: UpstreamPackage["files"] = [];
  for (const resource of entry.resources) {
    const file = resource.uri.startsWith(`${root}/`) ? pathOfSegments(resource.uri.slice(root.length + 1).split("/")) : undefined;
    if (!file) return { refused: `${resource.uri.slice(0, 200)} is not a file of the skill's directory` };
    if (files.some((f) => f.path === file)) return { refused: `${file} is listed twice` };
    files.push({ path: file, uri: resource.uri, digest: resource.digest });
  }
  const skillFile = files.findIndex((f) => f.path === SKILL_FILE);
  if (skillFile < 0) return { refused: `its resources do not list its ${SKILL_FILE}` };
  files.unshift(...files.splice(skillFile, 1));
  return { uri: entry.uri, path, frontmatter: entry.frontmatter, files };
}

/**
 * The bytes of a read's single contents item (text as UTF-8, a blob decoded); undefined when the
 * answer is not exactly one item of `uri`.
 * @example contentBytesOf({ contents: [{ uri, text: "# Hi" }] }, uri) // Uint8Array [35, 32, 72, 105]
 */
export function contentBytesOf(read: ReadResourceResult, uri: string): Uint8Array | undefined {
  const [only, ...more] = read.contents;
  if (!only || more.length || only.uri !== uri) return undefined;
  try {
    return "text" in only ? UTF8_ENCODER.encode(only.text) : decodeBase64(only.blob);
  } catch {
    return undefined;
  }
}

/** Why a file's bytes are not the pinned ones; undefined when they are. */
export async function digestRefusal(bytes: Uint8Array | undefined, digest: string): Promise<string | undefined> {
  if (!bytes) return "was not answered as one file";
  const actual = `sha256:${await sha256Hex(bytes)}`;
  return actual === digest ? undefined : `has digest ${actual}, not the pinned ${digest}`;
}

/** What an upstream's skills read: those pinned, and those left out with why. */
export interface PackagesRead {
  skills: UpstreamPackage[];
  skipped: Array<{ tool: string; reason: string }>;
}

/**
 * An upstream's Agent Skills, listed, checked and each `SKILL.md` read and verified; undefined
 * when the upstream does not serve the Skills extension. A transport failure throws (the caller
 * keeps what it pinned). The `SKILL.md` reads share one budget of `LIST_BUDGET_BYTES`.
 * @example const read = await readUpstreamPackages(target, era) // { skills: [{ path: "git-workflow", … }], skipped: [] }
 */
export async function readUpstreamPackages(target: McpTarget, era: McpEra): Promise<PackagesRead | undefined> {
  const listed = await listUpstreamPackages(target, era);
  if (!listed) return undefined;
  const skipped = listed.invalid.map(({ tool, reason }) => ({ tool: `skill ${tool}`, reason }));
  const skills: UpstreamPackage[] = [];
  const budget: ReadBudget = { bytes: LIST_BUDGET_BYTES };
  for (const entry of listed.entries) {
    const pinned = pinnedPackageOf(entry);
    const where = `skill ${entry.uri.slice(0, 200)}`;
    if ("refused" in pinned) {
      skipped.push({ tool: where, reason: pinned.refused });
      continue;
    }
    if (skills.some((s) => s.path === pinned.path)) {
      skipped.push({ tool: where, reason: "listed twice" });
      continue;
    }
    const refusal = await skillFileRefusal(target, era, pinned, budget);
    if (refusal) skipped.push({ tool: where, reason: refusal });
    else skills.push(pinned);
  }
  return { skills, skipped };
}

/** Why a skill's `SKILL.md`, read now, is not what its listing says: its digest, or its frontmatter. */
async function skillFileRefusal(target: McpTarget, era: McpEra, skill: UpstreamPackage, budget: ReadBudget): Promise<string | undefined> {
  const file = skill.files[0]!;
  const read = await readUpstreamResource(target, era, file.uri, undefined, budget);
  if (isInputRequired(read)) return `its ${SKILL_FILE} asked for input instead of answering`;
  const bytes = contentBytesOf(read, file.uri);
  const refusal = await digestRefusal(bytes, file.digest);
  if (refusal) return `its ${SKILL_FILE} ${refusal}`;
  try {
    const { frontmatter } = splitSkillMd(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
    if (canonicalJson(frontmatter) !== canonicalJson(skill.frontmatter)) return `its ${SKILL_FILE}'s frontmatter is not the listed one`;
  } catch {
    return `its ${SKILL_FILE} has no frontmatter to compare with the listed one`;
  }
  return undefined;
}

/**
 * The URI a skill's file is served under: `skill://<upstream>/<skill-path>/<file>`, each segment
 * encoded.
 * @example servedPackageUriOf("team", "acme/refunds", "SKILL.md") // "skill://team/acme/refunds/SKILL.md"
 */
export function servedPackageUriOf(upstream: string, skillPath: string, file: string): string {
  return `skill://${[upstream, ...skillPath.split("/"), ...file.split("/")].map(encodeURIComponent).join("/")}`;
}
