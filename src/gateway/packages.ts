/**
 * Which Agent Skills packages a caller sees (src/agent-skills): of each package, the version its
 * routing table gives the caller (by `X-User-Group` and its sticky key, src/agent-skills/routing.ts),
 * when the caller may call every Skillmesh tool that version names — its grants, narrowed by a
 * virtual server. One rule for every way packages are served (MCP, the well-known index, search).
 *
 * Decided lazily, in name order: a page of `skills/list` or one `resources/read` looks at the
 * packages it answers with, not at all of them, so 10,000 packages cost a caller what 10 do.
 */
import { type SkillEntry, skillEntryOf, skillUriOf } from "../agent-skills/index.js";
import type { AgentSkillRecord } from "../agent-skills/registry.js";
import { ARCHIVE_SUFFIX } from "../agent-skills/archive.js";
import { servedVersionOf } from "../agent-skills/routing.js";
import type { Access } from "../auth/access.js";
import { type Page, cursorAfter, startAfter } from "../paging/index.js";
import { ErrorCode, RpcError } from "../jsonrpc/index.js";
import { type RouteKey, routeKeyOf } from "../routing/index.js";
import type { Context } from "../tracing/index.js";
import { registryView } from "./invoke.js";
import { chargeCaller, readAudit } from "./policies.js";
import type { CallScope } from "./scope.js";
import type { GatewayRuntime } from "./runtime.js";

/** A package as a caller sees it: its record, the version served, and its SEP-2640 entry. */
export interface VisiblePackage {
  name: string;
  record: AgentSkillRecord;
  version: string;
  description: string;
  entry: SkillEntry;
}

/** The packages one caller sees: a page of them, one by name, or all. */
export interface PackageCatalog {
  /** At most `limit` packages after `cursor` (a `nextCursor` of an earlier page), in name order. */
  page(limit: number, cursor?: string): Page<VisiblePackage>;
  find(name: string): VisiblePackage | undefined;
  all(): VisiblePackage[];
}

// A version's entry, built once per version object (the isolate's copy of the index keeps them).
const entries = new WeakMap<object, SkillEntry>();

/**
 * The packages `access` sees, each at the version routed to `key`.
 * @example (await packageCatalog(runtime, scope.access, scope.trace, routeKeyOf(scope.context))).page(100)
 */
export async function packageCatalog(runtime: GatewayRuntime, access: Access, trace: Context, key: RouteKey): Promise<PackageCatalog> {
  const [{ records, byName }, view] = await Promise.all([runtime.agentSkills.index(), registryView(runtime, trace)]);
  const callable = (tool: string) => {
    const entry = view.skills.get(tool);
    return entry !== undefined && access.allowsSkill(entry.name, entry.tags);
  };
  const seen = (record: AgentSkillRecord): VisiblePackage | undefined => {
    const served = servedVersionOf(record, key);
    const version = record.versions[served];
    if (!version || !version.tools.every(callable)) return undefined;
    let entry = entries.get(version);
    if (!entry) entries.set(version, (entry = skillEntryOf({ name: record.name, frontmatter: version.frontmatter, files: version.files })));
    return { name: record.name, record, version: served, description: version.description, entry };
  };
  return {
    page(limit, cursor) {
      const items: VisiblePackage[] = [];
      let i = cursor === undefined ? 0 : startAfter(records, cursor);
      for (; i < records.length && items.length < limit; i++) {
        const visible = seen(records[i]!);
        if (visible) items.push(visible);
      }
      // More remain while a later package is seen (looked for only as far as the first one).
      let more = false;
      for (; i < records.length && !more; i++) more = seen(records[i]!) !== undefined;
      return more ? { items, nextCursor: cursorAfter(items.at(-1)!.name) } : { items };
    },
    find: (name) => {
      const record = byName.get(name);
      return record && seen(record);
    },
    all: () => records.flatMap((record) => seen(record) ?? []),
  };
}

/** A package file as a read answers it. */
export interface ReadFile {
  bytes: Uint8Array;
  digest: string;
  contentType: string;
}

/**
 * Reads one file of a package the caller sees, at the version it is served, as a call is made:
 * charged against the caller's rate and quota (a refusal is the thrown -32005), and audited — the
 * caller, the `skill://` URI, the package version and how it went (`method` says how it was
 * asked: MCP `resources/read`, the well-known route). Undefined (audited as -32602) for a file the
 * caller cannot see, as for one that does not exist.
 * @example const file = await readPackageFile(runtime, scope, "modbus-triage", "SKILL.md", "resources/read")
 */
export function readPackageFile(runtime: GatewayRuntime, scope: CallScope, name: string, path: string, method: string): Promise<ReadFile | undefined> {
  return readAudited(runtime, scope, name, skillUriOf(name, path), method, (seen) => runtime.agentSkills.file(name, seen.version, path));
}

/**
 * Reads the `.tar.gz` of a package the caller sees (one of more than one file), as `readPackageFile`
 * reads a file: charged and audited (its `resource` is the archive's well-known path).
 * @example const archive = await readPackageArchive(runtime, scope, "modbus-triage", "GET /.well-known/agent-skills")
 */
export function readPackageArchive(runtime: GatewayRuntime, scope: CallScope, name: string, method: string): Promise<ReadFile | undefined> {
  return readAudited(runtime, scope, name, `${skillUriOf(name, "")}${ARCHIVE_SUFFIX}`, method, (seen) => runtime.agentSkills.archive(name, seen.version));
}

async function readAudited(runtime: GatewayRuntime, scope: CallScope, name: string, resource: string, method: string, read: (seen: VisiblePackage) => Promise<ReadFile | undefined>): Promise<ReadFile | undefined> {
  const audit = readAudit(runtime, scope, method, resource);
  const seen = (await packageCatalog(runtime, scope.access, scope.trace, routeKeyOf(scope.context))).find(name);
  const file = seen && (await read(seen));
  if (!seen || !file) {
    audit(ErrorCode.InvalidParams);
    return undefined;
  }
  const deployment = `${name}@${seen.version}`;
  try {
    await chargeCaller(runtime.store, scope);
  } catch (error) {
    audit(error instanceof RpcError ? error.code : ErrorCode.InternalError, deployment);
    throw error;
  }
  audit(0, deployment);
  return file;
}

