/**
 * Searching what a caller may use (src/lib/catalog-search): the tools it may call, the resources it is
 * offered (src/gateway/chain/offerings.ts) and the Agent Skills packages it sees (src/gateway/chain/packages.ts),
 * at the version it is served. Each index holds only what the caller may see — its scores (how rare
 * a word is) never count what it may not, so a ranking tells nothing of hidden tools — and is kept
 * for the next search with the same grants: tools per registry generation and grants, packages per
 * package revision, grants and routed versions (`PackageCatalog.key()`).
 */
import { type CatalogEntry, type CatalogHit, CatalogIndex, signatureOf } from "../../lib/catalog-search/index.js";
import { CAPABILITY_TOOL } from "./capability.js";
import type { CallerCatalog } from "./caller-catalog.js";
import type { ToolSummary } from "./catalog.js";
import { Kept } from "../../lib/kept/index.js";
import type { PackageCatalog } from "./packages.js";
import { type ListedOfferings, listedOf } from "./offerings.js";
import type { CatalogQuery } from "./operation.js";

export type { CatalogQuery } from "./operation.js";

/** A tool's search entry. */
export const toolEntryOf = (skill: ToolSummary): CatalogEntry => ({
  kind: "tool",
  name: skill.name,
  description: skill.description,
  tags: skill.tags,
  signature: signatureOf(skill.inputSchema),
});

/** Search indexes kept per isolate: one per catalog of tools (a registry generation's, for one set of grants) and per package view. */
export const SEARCH_INDEXES_KEPT = 16;
const toolIndexes = new Kept<ToolSummary[], CatalogIndex>(SEARCH_INDEXES_KEPT);
const packageIndexes = new Kept<string, CatalogIndex>(SEARCH_INDEXES_KEPT);

/** The index of every tool of a catalog (and `skills.call`), built once per catalog (a catalog is rebuilt only when the registry changes). */
export function toolIndexOf(catalog: ToolSummary[]): CatalogIndex {
  return toolIndexes.get(catalog, () => new CatalogIndex([...catalog, CAPABILITY_TOOL].map(toolEntryOf)));
}

/** The index of the packages a caller sees, built once per `PackageCatalog.key()`. */
function packageIndexOf(packages: PackageCatalog): CatalogIndex {
  return packageIndexes.get(
    packages.key(),
    () =>
      new CatalogIndex(packages.all().map(({ name, description, entry }): CatalogEntry => ({ kind: "skill", name, description, tags: [], uri: entry.uri }))),
  );
}

// One index of what a caller's catalog offers (its skills' declarations are one object per catalog;
// with MCP upstreams in it the offerings are new on each request, and so is their small index).
const resourceIndexes = new WeakMap<ListedOfferings, CatalogIndex>();

function resourceIndexOf(offerings: ListedOfferings): CatalogIndex {
  let index = resourceIndexes.get(offerings);
  if (!index) {
    const entries: CatalogEntry[] = [
      ...offerings.resources.map((r): CatalogEntry => ({ kind: "resource", name: r.name, description: r.description ?? r.title ?? "", tags: [], uri: r.uri })),
      ...offerings.resourceTemplates.map((t): CatalogEntry => ({
        kind: "resource",
        name: t.name,
        description: t.description ?? t.title ?? "",
        tags: [],
        uri: t.uriTemplate,
      })),
    ];
    resourceIndexes.set(offerings, (index = new CatalogIndex(entries)));
  }
  return index;
}

/**
 * The tools, Agent Skills packages and resources that best match `query`, best first, of those
 * the caller may use (`kind` narrows to one of them).
 * @example await searchCatalog(new CallerCatalog(runtime, scope), { query: "decode modbus", limit: 5 })
 */
export async function searchCatalog(catalog: CallerCatalog, query: CatalogQuery): Promise<CatalogHit[]> {
  const options = { limit: query.limit };
  const wants = (kind: CatalogEntry["kind"]) => query.kind === undefined || query.kind === kind;
  const tools = wants("tool") ? toolIndexOf(await catalog.tools()).scored(query.query, options) : [];
  const resources = wants("resource") ? resourceIndexOf(listedOf(await catalog.offerings())).scored(query.query, options) : [];
  const skills = wants("skill") ? packageIndexOf(await catalog.packages()).scored(query.query, options) : [];
  return [...skills, ...tools, ...resources]
    .sort((a, b) => b.score - a.score)
    .slice(0, query.limit)
    .map(({ hit }) => hit);
}
