/**
 * Searching what a caller may use (src/catalog-search): the tools of the registry — one index per
 * registry generation, shared by every caller, each hit checked against the caller's grants — the
 * resources it is offered (src/gateway/offerings.ts), and the Agent Skills packages it sees
 * (src/gateway/packages.ts), at the version it is served.
 */
import { type CatalogEntry, type CatalogHit, CatalogIndex, signatureOf } from "../catalog-search/index.js";
import { CAPABILITY_TOOL } from "./capability.js";
import type { CallerCatalog } from "./caller-catalog.js";
import { type SkillSummary, catalogOf } from "./catalog.js";
import { type ListedOfferings, listedOf } from "./offerings.js";
import type { CatalogQuery } from "./operation.js";

export type { CatalogQuery } from "./operation.js";

/** A tool's search entry. */
export const toolEntryOf = (skill: SkillSummary): CatalogEntry => ({ kind: "tool", name: skill.name, description: skill.description, tags: skill.tags, signature: signatureOf(skill.inputSchema) });

// One index per catalog (a catalog is rebuilt only when the registry changes).
const toolIndexes = new WeakMap<SkillSummary[], CatalogIndex>();

/** The index of every tool of a catalog (and `skills.call`), built once per catalog. */
export function toolIndexOf(catalog: SkillSummary[]): CatalogIndex {
  let index = toolIndexes.get(catalog);
  if (!index) toolIndexes.set(catalog, (index = new CatalogIndex([...catalog, CAPABILITY_TOOL].map(toolEntryOf))));
  return index;
}

// One index of what a caller's catalog offers (its skills' declarations are one object per catalog;
// with MCP upstreams in it the offerings are new on each request, and so is their small index).
const resourceIndexes = new WeakMap<ListedOfferings, CatalogIndex>();

function resourceIndexOf(offerings: ListedOfferings): CatalogIndex {
  let index = resourceIndexes.get(offerings);
  if (!index) {
    const entries: CatalogEntry[] = [
      ...offerings.resources.map((r): CatalogEntry => ({ kind: "resource", name: r.name, description: r.description ?? r.title ?? "", tags: [], uri: r.uri })),
      ...offerings.resourceTemplates.map((t): CatalogEntry => ({ kind: "resource", name: t.name, description: t.description ?? t.title ?? "", tags: [], uri: t.uriTemplate })),
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
  const { access } = catalog;
  const options = { limit: query.limit };
  const wants = (kind: CatalogEntry["kind"]) => query.kind === undefined || query.kind === kind;
  const view = await catalog.view();
  const tools = wants("tool")
    ? toolIndexOf(catalogOf(view)).scored(query.query, { ...options, allows: (entry) => entry.name === CAPABILITY_TOOL.name || access.allowsSkill(entry.name, entry.tags) })
    : [];
  const resources = wants("resource") ? resourceIndexOf(listedOf(await catalog.offerings())).scored(query.query, options) : [];
  const packages = wants("skill") ? (await catalog.packages()).all().map(({ name, description, entry }): CatalogEntry => ({ kind: "skill", name, description, tags: [], uri: entry.uri })) : [];
  const skills = packages.length ? new CatalogIndex(packages).scored(query.query, options) : [];
  return [...skills, ...tools, ...resources]
    .sort((a, b) => b.score - a.score)
    .slice(0, query.limit)
    .map(({ hit }) => hit);
}
