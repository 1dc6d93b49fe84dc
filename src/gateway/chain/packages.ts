/**
 * Which Agent Skills packages a caller sees (src/registry/packages): of each package, the version its
 * routing table gives the caller (by `X-User-Group` and its sticky key, src/registry/packages/routing.ts),
 * when the caller's grants name the package (as they name a tool: a name glob), or the version
 * names Skillmesh tools and the caller may call every one of them — its grants, narrowed by a
 * virtual server either way. A package that names no tool is seen only by the grants that name
 * it: what a package says of itself never opens it to anyone. One rule for every way packages are
 * served (MCP, the well-known index, search).
 *
 * Decided lazily, in name order: a page of `skills/list` or one `resources/read` looks at the
 * packages it answers with, not at all of them, so 10,000 packages cost a caller what 10 do.
 */
import { type PackageEntry, packageEntryOf } from "../../registry/packages/index.js";
import type { PackageRecord, PackageIndex } from "../../registry/packages/registry.js";
import { servedVersionOf } from "../../registry/packages/routing.js";
import { type Access, mayCall } from "../../identity/auth/access.js";
import { type Page, cursorAfter, startAfter } from "../../protocols/paging/index.js";
import type { RouteKey } from "../../registry/routing/index.js";
import type { RegistryView } from "../../registry/deployments/snapshot.js";
import type { GatewayRuntime } from "./runtime.js";

/** A package as a caller sees it: its record, the version served, and its SEP-2640 entry. */
export interface VisiblePackage {
  name: string;
  record: PackageRecord;
  version: string;
  description: string;
  entry: PackageEntry;
}

/** The packages one caller sees: a page of them, one by name, or all. */
export interface PackageCatalog {
  /**
   * The same for callers who see the same packages at the same versions: the index's revision, the
   * grants (a door's narrowing included) and the versions of the packages split between versions.
   * What is derived from all of them (a search index, the well-known index) is kept under it.
   */
  key(): string;
  /** At most `limit` packages after `cursor` (a `nextCursor` of an earlier page), in name order. */
  page(limit: number, cursor?: string): Page<VisiblePackage>;
  find(name: string): VisiblePackage | undefined;
  all(): VisiblePackage[];
}

const NO_TAGS: readonly string[] = [];
// The packages whose callers are split between versions (a routing table), once per index read.
const split = new WeakMap<PackageIndex, PackageRecord[]>();
const splitOf = (index: PackageIndex) => {
  let records = split.get(index);
  if (!records) split.set(index, (records = index.records.filter((record) => record.routes)));
  return records;
};
// A version's entry, built once per version object (the isolate's copy of the index keeps them).
const entries = new WeakMap<object, PackageEntry>();

/**
 * The packages `access` sees in a registry view, each at the version routed to `key`.
 * @example (await packageCatalog(runtime, await registryView(runtime, scope.trace), scope.access, scope.routeKey)).page(100)
 */
export async function packageCatalog(runtime: GatewayRuntime, view: RegistryView, access: Access, key: RouteKey): Promise<PackageCatalog> {
  const index = await runtime.packages.index();
  const { records, byName } = index;
  const callable = (tool: string) => {
    const entry = view.tools.get(tool);
    return entry !== undefined && mayCall(access, entry);
  };
  const seen = (record: PackageRecord): VisiblePackage | undefined => {
    const served = servedVersionOf(record, key);
    const version = record.versions[served];
    if (!version) return undefined;
    const granted = access.allowsSkill(record.name, NO_TAGS) || (version.tools.length > 0 && version.tools.every(callable));
    if (!granted) return undefined;
    let entry = entries.get(version);
    if (!entry) entries.set(version, (entry = packageEntryOf({ name: record.name, frontmatter: version.frontmatter, files: version.files })));
    return { name: record.name, record, version: served, description: version.description, entry };
  };
  let cacheKey: string | undefined;
  return {
    // Worked out only for what derives from every package (a search, the well-known index), not per
    // read; a method, not a getter: an object literal with an accessor is made on V8's slow path,
    // and this one is made per request.
    key() {
      return (cacheKey ??= JSON.stringify([
        index.revision,
        access.signature,
        splitOf(index).map((record) => `${record.name}@${servedVersionOf(record, key)}`),
      ]));
    },
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
