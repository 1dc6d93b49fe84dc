/**
 * Agent Skills packages (agentskills.io/specification): a folder with a `SKILL.md` — YAML
 * frontmatter (`name`, `description`, optional `license`, `compatibility`, `metadata`,
 * `allowed-tools`) and Markdown instructions — plus any files it uses (`scripts/`, `references/`,
 * `assets/`). Here a package is read from its files, checked against the format (the rules of the
 * reference validator, skills-ref), given a version and digests, and described as the MCP Skills
 * extension (SEP-2640) lists it: `skill://<name>/<path>` URIs with `sha256:` digests.
 *
 * Where the format leaves a choice, Skillmesh decides:
 * - the version is `metadata.version`, semver, required (packages are versioned as tools are);
 * - the Skillmesh tools a package uses are the `allowed-tools` entries that are dotted skill
 *   names (`modbus.decode`); the others (`Read`, `Bash(git:*)`) are the host's and pass through;
 * - every relative Markdown link of `SKILL.md`, and every `scripts/…`, `references/…` or
 *   `assets/…` path it names, must be a file of the package.
 */
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { sha256Hex } from "../../lib/hash/index.js";
import { SemverSchema } from "../../skill/manifest.js";

/** The format's limits (agentskills.io/specification, skills-ref's validator). */
export const MAX_NAME_CHARS = 64;
export const MAX_DESCRIPTION_CHARS = 1_024;
export const MAX_COMPATIBILITY_CHARS = 500;
/**
 * The bounds on a package: its files and their bytes in all, the Skills extension's per-skill
 * limits (SEP-2640 "Limits": 512 resources, 16 MiB, which every conforming host accepts), and one
 * file (Skillmesh's own).
 */
export const MAX_PACKAGE_FILES = 512;
export const MAX_PACKAGE_BYTES = 16 * 1024 * 1024;
export const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** The MCP Skills extension's URI scheme for a package's files. */
export const SKILL_URI_SCHEME = "skill://";
/** The file every package has, at its root. */
export const SKILL_FILE = "SKILL.md";

/**
 * A skill's `name`: 1–64 lowercase letters, digits and hyphens (Unicode letters too, NFKC),
 * not starting or ending with a hyphen, no `--`.
 */
export const AgentSkillNameSchema = z
  .string()
  .transform((name) => name.trim().normalize("NFKC"))
  .pipe(
    z
      .string()
      .min(1, "name must not be empty")
      .max(MAX_NAME_CHARS, `name must be at most ${MAX_NAME_CHARS} characters`)
      .refine((name) => name === name.toLowerCase(), "name must be lowercase")
      .refine((name) => /^[\p{L}\p{N}-]+$/u.test(name), "name may hold only letters, digits and hyphens")
      .refine((name) => !name.startsWith("-") && !name.endsWith("-"), "name must not start or end with a hyphen")
      .refine((name) => !name.includes("--"), "name must not contain consecutive hyphens"),
  );

/** The frontmatter the format allows: these fields and no others (as skills-ref checks). */
export const FrontmatterSchema = z.strictObject({
  name: AgentSkillNameSchema,
  description: z
    .string()
    .refine((text) => text.trim().length > 0, "description must not be empty")
    .pipe(z.string().max(MAX_DESCRIPTION_CHARS, `description must be at most ${MAX_DESCRIPTION_CHARS} characters`)),
  license: z.string().optional(),
  compatibility: z.string().min(1).max(MAX_COMPATIBILITY_CHARS, `compatibility must be at most ${MAX_COMPATIBILITY_CHARS} characters`).optional(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)).optional(),
  "allowed-tools": z.string().optional(),
});
export type Frontmatter = z.infer<typeof FrontmatterSchema>;

/** A Skillmesh tool named in `allowed-tools`: a dotted skill name. */
const SKILLMESH_TOOL = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+$/;

/** One file of a package: its path in the package and its bytes. */
export interface PackageFile {
  path: string;
  bytes: Uint8Array;
}

/** A checked package: what the registry keeps of it and what the Skills extension lists. */
export interface CheckedPackage {
  name: string;
  version: string;
  /** The frontmatter as written (YAML rendered as JSON), as SEP-2640 lists it verbatim. */
  frontmatter: Record<string, unknown>;
  description: string;
  /** The Skillmesh tools it uses (`allowed-tools` entries that are skill names). */
  tools: string[];
  /** Every file, `SKILL.md` first then by path, with its `sha256:` digest and size. */
  files: Array<{ path: string; digest: string; bytes: number }>;
  /** The digest of the whole package: of every path and its digest, in order. */
  digest: string;
}

/** A package that does not pass, and every reason why. */
export class InvalidPackage extends Error {
  constructor(
    readonly where: string,
    readonly problems: string[],
  ) {
    super(`${where}: ${problems.join("; ")}`);
    this.name = "InvalidPackage";
  }
}

/**
 * The frontmatter and body of a `SKILL.md`; throws `InvalidPackage` when it has none, or it is
 * not a YAML mapping.
 * @example splitSkillMd("---\nname: a\ndescription: b\n---\nDo this.") // { frontmatter: { name: "a", … }, body: "Do this." }
 */
export function splitSkillMd(text: string): { frontmatter: Record<string, unknown>; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) throw new InvalidPackage(SKILL_FILE, ["it must start with YAML frontmatter between --- lines"]);
  let parsed: unknown;
  try {
    parsed = parseYaml(match[1]!, { maxAliasCount: 10 });
  } catch (error) {
    throw new InvalidPackage(SKILL_FILE, [`its frontmatter is not valid YAML: ${(error as Error).message.split("\n")[0]}`]);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new InvalidPackage(SKILL_FILE, ["its frontmatter must be a YAML mapping"]);
  return { frontmatter: parsed as Record<string, unknown>, body: text.slice(match[0].length) };
}

/**
 * The package paths a `SKILL.md` body refers to: its relative Markdown links, and the
 * `scripts/…`, `references/…` and `assets/…` paths it names.
 * @example referencedPaths("See [the guide](references/GUIDE.md#forms); run scripts/extract.py.") // ["references/GUIDE.md", "scripts/extract.py"]
 */
export function referencedPaths(body: string): string[] {
  const paths = new Set<string>();
  for (const [, target] of body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^([a-z][a-z0-9+.-]*:|#|\/)/i.test(target!)) continue; // a URL, an anchor, an absolute path
    const path = decoded(target!.replace(/[#?].*$/, "")).replace(/^\.\//, "");
    if (path) paths.add(path);
  }
  for (const [path] of body.matchAll(/(?<![\w./-])(?:scripts|references|assets)\/[\w./-]*[\w-]/g)) paths.add(path!);
  return [...paths];
}

/** A link target with its %-escapes decoded (left as written when they do not decode). */
function decoded(target: string): string {
  try {
    return decodeURI(target);
  } catch {
    return target;
  }
}

/**
 * Checks a package's files against the format and Skillmesh's rules and describes it; throws
 * `InvalidPackage` naming every problem. `folder` is the name of the folder it came from, which
 * the format wants equal to its `name`.
 * @example const pkg = await packageOf("modbus-triage", files)
 */
export async function packageOf(folder: string, files: PackageFile[]): Promise<CheckedPackage> {
  const where = `Agent Skill ${folder}`;
  const problems: string[] = [];
  const byPath = new Map<string, PackageFile>();
  let total = 0;
  // Paths equal but for case or Unicode form would be one file on a case-insensitive disk: which one
  // a client keeps is not the one a reviewer read.
  const folded = new Map<string, string>();
  for (const file of files) {
    const refusal = pathRefusal(file.path);
    const fold = file.path.normalize("NFC").toLowerCase();
    if (refusal) problems.push(`${file.path}: ${refusal}`);
    else if (byPath.has(file.path)) problems.push(`${file.path}: listed twice`);
    else if (folded.has(fold))
      problems.push(`${file.path}: the same path as ${folded.get(fold)} but for case or Unicode form (a case-insensitive disk would keep only one)`);
    else {
      byPath.set(file.path, file);
      folded.set(fold, file.path);
    }
    if (file.bytes.byteLength > MAX_FILE_BYTES) problems.push(`${file.path}: larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
    total += file.bytes.byteLength;
  }
  if (files.length > MAX_PACKAGE_FILES) problems.push(`more than ${MAX_PACKAGE_FILES} files (the Skills extension's limit per skill)`);
  if (total > MAX_PACKAGE_BYTES) problems.push(`larger than ${MAX_PACKAGE_BYTES / 1024 / 1024} MiB in all (the Skills extension's limit per skill)`);
  const skillFile = byPath.get(SKILL_FILE);
  if (!skillFile) throw new InvalidPackage(where, [...problems, `no ${SKILL_FILE} at its root`]);

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(skillFile.bytes);
  } catch {
    throw new InvalidPackage(where, [...problems, `${SKILL_FILE} is not UTF-8 text`]);
  }
  const { frontmatter, body } = (() => {
    try {
      return splitSkillMd(text);
    } catch (error) {
      throw new InvalidPackage(where, [...problems, (error as InvalidPackage).message]);
    }
  })();
  const checked = FrontmatterSchema.safeParse(frontmatter);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      if (issue.code === "unrecognized_keys")
        problems.push(
          `${SKILL_FILE} frontmatter: unexpected field(s) ${issue.keys.join(", ")} (the format allows ${Object.keys(FrontmatterSchema.shape).join(", ")})`,
        );
      else problems.push(`${SKILL_FILE} frontmatter: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
    }
  }
  const name = checked.data?.name;
  if (name !== undefined && name !== folder.normalize("NFKC")) problems.push(`name ${name} must be the name of its folder (${folder})`);
  const version = SemverSchema.safeParse(checked.data?.metadata?.version);
  if (checked.success && !version.success) problems.push(`${SKILL_FILE} frontmatter: metadata.version must be the package's semver version, e.g. "1.0.0"`);
  for (const path of referencedPaths(body)) if (!byPath.has(path)) problems.push(`${SKILL_FILE} refers to ${path}, which is not in the package`);
  if (problems.length || !checked.success || !version.success) throw new InvalidPackage(where, problems);

  const ordered = [
    skillFile,
    ...[...byPath.values()]
      .filter((f) => f !== skillFile)
      .sort((a, b) =>
        a.path < b.path ? -1
        : a.path > b.path ? 1
        : 0,
      ),
  ];
  const described = await Promise.all(
    ordered.map(async (file) => ({ path: file.path, digest: `sha256:${await sha256Hex(file.bytes)}`, bytes: file.bytes.byteLength })),
  );
  const tools = (checked.data["allowed-tools"] ?? "").split(/\s+/).filter((entry) => SKILLMESH_TOOL.test(entry));
  return {
    name: checked.data.name,
    version: version.data,
    frontmatter,
    description: checked.data.description,
    tools: [...new Set(tools)],
    files: described,
    digest: `sha256:${await sha256Hex(described.map((f) => `${f.path}\0${f.digest}\n`).join(""))}`,
  };
}

/**
 * Why a path cannot be a package file: absolute, `..`, a backslash, empty segments, control
 * characters; undefined when it can.
 */
export function pathRefusal(path: string): string | undefined {
  if (!path || path.length > 512) return "a file path of 1–512 characters";
  if (path.startsWith("/") || path.includes("\\")) return "paths are relative, with / between folders";
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(path)) return "no control characters in a path";
  const segments = path.split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return "no empty, . or .. segments in a path";
  return undefined;
}

/**
 * The package as the MCP Skills extension (SEP-2640) lists it: the URI of its `SKILL.md`, its
 * frontmatter verbatim, and every file's URI and digest.
 * @example packageEntryOf(pkg) // { uri: "skill://modbus-triage/SKILL.md", frontmatter: {…}, resources: [{ uri, digest }, …] }
 */
export function packageEntryOf(pkg: Pick<CheckedPackage, "name" | "frontmatter" | "files">): PackageEntry {
  return {
    uri: skillUriOf(pkg.name, SKILL_FILE),
    frontmatter: pkg.frontmatter,
    resources: pkg.files.map((file) => ({ uri: skillUriOf(pkg.name, file.path), digest: file.digest, size: file.bytes })),
  };
}

/** A package as SEP-2640's `skills/list` and `skills/get` answer it: every file with its digest and size in bytes. */
export interface PackageEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: Array<{ uri: string; digest: string; size: number }>;
}

/**
 * The `skill://` URI of a package's file.
 * @example skillUriOf("modbus-triage", "references/A B.md") // "skill://modbus-triage/references/A%20B.md"
 */
export function skillUriOf(name: string, path: string): string {
  return `${SKILL_URI_SCHEME}${encodeURIComponent(name)}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * The package and file a `skill://` URI names; undefined for another scheme or a malformed URI.
 * @example parseSkillUri("skill://modbus-triage/SKILL.md") // { name: "modbus-triage", path: "SKILL.md" }
 */
export function parseSkillUri(uri: string): { name: string; path: string } | undefined {
  if (!uri.startsWith(SKILL_URI_SCHEME)) return undefined;
  const [name, ...segments] = uri.slice(SKILL_URI_SCHEME.length).split("/");
  const path = pathOfSegments(segments);
  const decodedName = name ? pathOfSegments([name]) : undefined;
  return decodedName && path ? { name: decodedName, path } : undefined;
}

/**
 * A package file's path from its URL-encoded segments (a `skill://` URI's, a well-known URL's);
 * undefined when one does not decode, or the path could not be a package file.
 * @example pathOfSegments(["references", "A%20B.md"]) // "references/A B.md"
 */
export function pathOfSegments(segments: string[]): string | undefined {
  try {
    const path = segments.map(decodeURIComponent).join("/");
    return pathRefusal(path) ? undefined : path;
  } catch {
    return undefined;
  }
}
