/**
 * The gateway's Agent Skills packages: each version's index (frontmatter, files with digests,
 * the Skillmesh tools it uses) in the store, the files' bytes in a bucket (R2 in production and
 * in Miniflare), content-addressed by their SHA-256 so that versions share what they share.
 *
 * A package's first version is its stable one; a later version is registered beside it at 0%,
 * as a tool's is, for a canary to split callers between them (src/registry/packages/routing.ts). A
 * version is immutable: registering the same version with other files is refused (409), as the
 * contracts' drift gate refuses it in git.
 */
import { z } from "zod";
import { safeJson } from "../../lib/json/index.js";
import type { Store } from "../../store/index.js";
import { RoutingTableSchema, compareNames } from "../deployments/model.js";
import { rollback } from "../routing/edits.js";
import { type CheckedPackage, InvalidPackage, type PackageFile, packageOf } from "./index.js";
import { type PackageEdit, routed } from "./routing.js";
import { ARCHIVE_CONTENT_TYPE, archiveOf } from "./archive.js";
import { sha256Hex } from "../../lib/hash/index.js";

/** Where the files' bytes live: the part of an R2 bucket the registry uses. */
export interface FileBucket {
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
  put(key: string, value: Uint8Array, options?: { httpMetadata?: { contentType?: string } }): Promise<unknown>;
}

export const AGENT_SKILL_KEYS = {
  /** Every package's name, scored by when it was first registered. */
  index: "sm:agent-skills",
  /** Counts every change of any package: an isolate re-reads the index only when it moved. */
  revision: "sm:agent-skills:rev",
  record: (name: string) => `sm:agent-skill:${name}`,
} as const;

/** A file's key in the bucket: its digest. */
export const fileKey = (digest: string) => digest.replace(/^sha256:/, "sha256/");

const PackageVersionSchema = z.object({
  frontmatter: z.record(z.string(), z.unknown()),
  description: z.string(),
  tools: z.array(z.string()),
  files: z.array(z.object({ path: z.string(), digest: z.string(), bytes: z.number() })),
  digest: z.string(),
  /** A package of more than one file: its `.tar.gz` (src/registry/packages/archive.ts), stored by digest as its files are. */
  archive: z.object({ digest: z.string(), bytes: z.number() }).optional(),
  registeredAt: z.number(),
});
export const PackageRecordSchema = z.object({
  name: z.string(),
  /** The version served when no routing says otherwise (the first registered, until promoted). */
  stable: z.string(),
  versions: z.record(z.string(), PackageVersionSchema),
  /** How callers are split between versions (src/registry/packages/routing.ts); absent: all on the stable one. */
  routes: RoutingTableSchema.optional(),
  createdAt: z.number(),
});
export type PackageRecord = z.infer<typeof PackageRecordSchema>;

/** A registration refused for a reason the operator can fix: the status to answer, and why. */
export class PackageRefused extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
    readonly problems: string[] = [],
  ) {
    super(message);
    this.name = "PackageRefused";
  }
}

export interface PackagesSettings {
  /** The bucket of files; without one, nothing can be registered (400, saying what to bind). */
  bucket?: FileBucket;
  /** Of the Skillmesh tools a package names, those the gateway does not serve. */
  unknownTools(names: string[]): Promise<string[]>;
  /**
   * Why a new package may not take this name, or undefined: a federated upstream's name (its
   * skills are served as `skill://<upstream>/…`, which the package's URIs would meet).
   */
  nameRefusal?(name: string): Promise<string | undefined>;
}

/** How long an isolate serves its copy of the index before reading it again (a change shows everywhere within it). */
export const INDEX_TTL_MS = 1_000;
/** The most file bytes an isolate keeps (files are immutable: a digest names one content forever). */
const MAX_CACHED_FILE_BYTES = 32 * 1024 * 1024;

/** The packages as an isolate read them: in name order, by name, and the revision they are at. */
export interface PackageIndex {
  records: PackageRecord[];
  byName: ReadonlyMap<string, PackageRecord>;
  revision: number;
}

export class Packages {
  #listed: { until: number; index: Promise<PackageIndex> } | undefined;
  readonly #bytes = new Map<string, Uint8Array>();
  #cachedBytes = 0;

  constructor(
    private readonly store: Store,
    private readonly settings: PackagesSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Checks a package (its folder name and files) and registers its version: the files go to the
   * bucket, the index to the store. Throws `PackageRefused` for a package that does not pass
   * (400, naming every problem), a tool it names that the gateway does not serve (400), or a
   * version registered before with other files (409). Answers whether anything changed, and the
   * package's stable version (another than this one: this one is a canary at 0%).
   * @example const { pkg, changed } = await packages.register("modbus-triage", files)
   */
  async register(folder: string, files: PackageFile[], now = this.now()): Promise<{ pkg: CheckedPackage; changed: boolean; stable: string }> {
    const bucket = this.settings.bucket;
    if (!bucket) throw new PackageRefused(400, "This gateway has no bucket for Agent Skills files (bind AGENT_SKILL_FILES, an R2 bucket)");
    let pkg: CheckedPackage;
    try {
      pkg = await packageOf(folder, files);
    } catch (error) {
      if (error instanceof InvalidPackage) throw new PackageRefused(400, `Invalid Agent Skill ${folder}`, error.problems);
      throw error;
    }
    const unknown = await this.settings.unknownTools(pkg.tools);
    if (unknown.length)
      throw new PackageRefused(
        400,
        `Invalid Agent Skill: ${pkg.name} names tools the gateway does not serve`,
        unknown.map((tool) => `allowed-tools: ${tool} is not a registered skill`),
      );
    const existing = await this.get(pkg.name);
    const taken = existing ? undefined : await this.settings.nameRefusal?.(pkg.name);
    if (taken) throw new PackageRefused(409, taken);
    const known = existing?.versions[pkg.version];
    if (known && known.digest !== pkg.digest) {
      throw new PackageRefused(
        409,
        `${pkg.name}@${pkg.version} is registered with other files (${known.digest}); a changed package needs a new metadata.version`,
      );
    }
    if (known) return { pkg, changed: false, stable: existing!.stable };
    const byPath = new Map(files.map((file) => [file.path, file]));
    for (const file of pkg.files)
      await bucket.put(fileKey(file.digest), byPath.get(file.path)!.bytes, { httpMetadata: { contentType: contentTypeOf(file.path) } });
    let archive: { digest: string; bytes: number } | undefined;
    if (pkg.files.length > 1) {
      const bytes = await archiveOf(pkg.files.map((file) => byPath.get(file.path)!));
      archive = { digest: `sha256:${await sha256Hex(bytes)}`, bytes: bytes.byteLength };
      await bucket.put(fileKey(archive.digest), bytes, { httpMetadata: { contentType: ARCHIVE_CONTENT_TYPE } });
    }
    const record: PackageRecord = existing ?? { name: pkg.name, stable: pkg.version, versions: {}, createdAt: now };
    record.versions[pkg.version] = {
      frontmatter: pkg.frontmatter,
      description: pkg.description,
      tools: pkg.tools,
      files: pkg.files,
      digest: pkg.digest,
      ...(archive ? { archive } : {}),
      registeredAt: now,
    };
    await this.store.set(AGENT_SKILL_KEYS.record(pkg.name), JSON.stringify(record));
    await this.store.zadd(AGENT_SKILL_KEYS.index, [{ score: record.createdAt, member: pkg.name }]);
    await this.#changed();
    return { pkg, changed: true, stable: record.stable };
  }

  async get(name: string): Promise<PackageRecord | undefined> {
    const parsed = PackageRecordSchema.safeParse(safeJson((await this.store.get(AGENT_SKILL_KEYS.record(name))) ?? ""));
    return parsed.success ? parsed.data : undefined;
  }

  /** Every package, in the order they were first registered (as this isolate last read them). */
  async list(): Promise<PackageRecord[]> {
    const { records } = await this.index();
    return [...records].sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * Every package in name order, as this isolate read them: the index is served as it is for
   * `INDEX_TTL_MS`, then the revision is read (one GET) and the records only when it moved — a
   * warm isolate reads no store per request, and 10,000 packages are not re-read every second.
   */
  index(): Promise<PackageIndex> {
    const now = this.now();
    if (this.#listed && this.#listed.until > now) return this.#listed.index;
    const previous = this.#listed?.index;
    const index = this.#read(previous);
    this.#listed = { until: now + INDEX_TTL_MS, index };
    index.catch(() => (this.#listed = undefined)); // a store that failed is asked again next time
    return index;
  }

  async #read(previous: Promise<PackageIndex> | undefined): Promise<PackageIndex> {
    const revision = Number((await this.store.get(AGENT_SKILL_KEYS.revision)) ?? 0);
    const kept = await previous?.catch(() => undefined);
    if (kept && kept.revision === revision) return kept;
    const names = await this.store.zrangeByScore(AGENT_SKILL_KEYS.index, -Infinity, Infinity);
    const raws = names.length ? await this.store.mget(...names.map(AGENT_SKILL_KEYS.record)) : [];
    const records = raws
      .flatMap((raw) => {
        const parsed = PackageRecordSchema.safeParse(safeJson(raw ?? ""));
        return parsed.success ? [parsed.data] : [];
      })
      .sort((a, b) => compareNames(a.name, b.name));
    return { records, byName: new Map(records.map((r) => [r.name, r])), revision };
  }

  /** After a write: every isolate reads the index again when its copy's time is up, this one at once. */
  async #changed(): Promise<void> {
    this.#listed = undefined;
    await this.store.incr(AGENT_SKILL_KEYS.revision);
  }

  /**
   * One file of one version, its bytes as stored; undefined when the package, the version or the
   * path is not there.
   * @example const bytes = await packages.file("modbus-triage", "1.0.0", "SKILL.md")
   */
  async file(name: string, version: string, path: string): Promise<{ bytes: Uint8Array; digest: string; contentType: string } | undefined> {
    const entry = (await this.index()).byName.get(name)?.versions[version]?.files.find((f) => f.path === path);
    const bytes = entry && (await this.#bytesOf(entry.digest));
    return bytes && { bytes, digest: entry!.digest, contentType: contentTypeOf(path) };
  }

  /** The `.tar.gz` of a version of more than one file; undefined for one of a single file. */
  async archive(name: string, version: string): Promise<{ bytes: Uint8Array; digest: string; contentType: string } | undefined> {
    const archive = (await this.index()).byName.get(name)?.versions[version]?.archive;
    const bytes = archive && (await this.#bytesOf(archive.digest));
    return bytes && { bytes, digest: archive!.digest, contentType: ARCHIVE_CONTENT_TYPE };
  }

  /** Bytes by digest: this isolate's copy, else the bucket's, then kept (the oldest dropped beyond the bound). */
  async #bytesOf(digest: string): Promise<Uint8Array | undefined> {
    const kept = this.#bytes.get(digest);
    if (kept) return kept;
    const object = await this.settings.bucket?.get(fileKey(digest));
    if (!object) return undefined;
    const bytes = new Uint8Array(await object.arrayBuffer());
    this.#bytes.set(digest, bytes);
    this.#cachedBytes += bytes.byteLength;
    for (const [key, old] of this.#bytes) {
      if (this.#cachedBytes <= MAX_CACHED_FILE_BYTES) break;
      this.#bytes.delete(key);
      this.#cachedBytes -= old.byteLength;
    }
    return bytes;
  }

  /**
   * Applies a routing edit (canary, promote, rollback) to a package and stores it; the record and
   * the edit's event. Throws `PackageRefused` (404) for an unknown package, and the edit's
   * `RoutingEditError` for an edit that does not apply.
   * @example await packages.route("modbus-triage", (doc, name, ctx) => setCanary(doc, name, "1.1.0", { beta: 100 }, ctx), "admin")
   */
  async route(name: string, edit: PackageEdit, by: string) {
    const record = await this.get(name);
    if (!record) throw new PackageRefused(404, `No Agent Skill ${name}; GET /admin/agent-skills lists them`);
    const result = routed(record, edit, { now: this.now(), by });
    await this.store.set(AGENT_SKILL_KEYS.record(name), JSON.stringify(result.record));
    await this.#changed();
    return result;
  }

  /**
   * Removes a package, or one version of it (not its stable one while others remain); the
   * versions removed, or undefined when there was nothing to remove. Files stay in the bucket
   * (other versions may share them).
   */
  async remove(name: string, version?: string): Promise<string[] | undefined> {
    const record = await this.get(name);
    if (!record || (version && !record.versions[version])) return undefined;
    const versions = version ? [version] : Object.keys(record.versions);
    if (versions.length === Object.keys(record.versions).length) {
      await this.store.del(AGENT_SKILL_KEYS.record(name));
      await this.store.zrem(AGENT_SKILL_KEYS.index, name);
      await this.#changed();
      return versions;
    }
    if (version === record.stable)
      throw new PackageRefused(409, `${name}@${version} is the stable version; promote another first, or remove the whole package`);
    // Its callers go back to the stable version, as a rollback of it sends them.
    const { record: next } = routed(record, (doc, n, ctx) => rollback(doc, n, { ...ctx, version: version! }), { now: this.now(), by: "admin" });
    delete next.versions[version!];
    for (const weights of Object.values(next.routes ?? {})) delete weights[version!];
    await this.store.set(AGENT_SKILL_KEYS.record(name), JSON.stringify(next));
    await this.#changed();
    return versions;
  }
}

/** The media type a file is served with, by its extension. */
export function contentTypeOf(path: string): string {
  const extension = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  const types: Record<string, string> = {
    md: "text/markdown; charset=utf-8",
    txt: "text/plain; charset=utf-8",
    json: "application/json",
    yaml: "application/yaml",
    yml: "application/yaml",
    py: "text/x-python; charset=utf-8",
    sh: "text/x-shellscript; charset=utf-8",
    js: "text/plain; charset=utf-8", // served as text: a package's script must not run in the gateway's origin
    ts: "text/plain; charset=utf-8",
    csv: "text/csv; charset=utf-8",
    html: "text/plain; charset=utf-8",
    svg: "text/plain; charset=utf-8",
    png: "image/png",
    jpg: "image/jpeg",
    jpeg: "image/jpeg",
    pdf: "application/pdf",
  };
  return types[extension] ?? "application/octet-stream";
}
