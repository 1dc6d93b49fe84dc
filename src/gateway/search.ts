/**
 * Searching what a caller may use (src/catalog-search): the tools of the registry — one index per
 * registry generation, shared by every caller, each hit checked against the caller's grants — and
 * the Agent Skills packages it sees (src/gateway/packages.ts), at the version it is served.
 */
import type { Access } from "../auth/access.js";
import { type CatalogEntry, type CatalogHit, CatalogIndex, signatureOf } from "../catalog-search/index.js";
import type { RouteKey } from "../routing/index.js";
import type { Context } from "../tracing/index.js";
import { CAPABILITY_TOOL } from "./capability.js";
import { type SkillSummary, catalogOf } from "./catalog.js";
import { registryView } from "./invoke.js";
import { packageCatalog } from "./packages.js";
import type { GatewayRuntime } from "./runtime.js";

/** A search's query and bounds, as the search tool takes them. */
export interface CatalogQuery {
  query: string;
  limit: number;
  kind?: CatalogEntry["kind"];
}

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

/**
 * The tools and packages that best match `query`, best first, of those `access` may use.
 * @example await searchCatalog(runtime, scope.access, scope.trace, routeKeyOf(scope.context), { query: "decode modbus", limit: 5 })
 */
export async function searchCatalog(runtime: GatewayRuntime, access: Access, trace: Context, key: RouteKey, query: CatalogQuery): Promise<CatalogHit[]> {
  const options = { limit: query.limit, ...(query.kind ? { kind: query.kind } : {}) };
  const tools =
    query.kind === "skill"
      ? []
      : toolIndexOf(catalogOf(await registryView(runtime, trace))).scored(query.query, {
          ...options,
          allows: (entry) => entry.name === CAPABILITY_TOOL.name || access.allowsSkill(entry.name, entry.tags),
        });
  const packages = query.kind === "tool" ? [] : (await packageCatalog(runtime, access, trace, key)).all().map(({ name, description, entry }): CatalogEntry => ({ kind: "skill", name, description, tags: [], uri: entry.uri }));
  const skills = packages.length ? new CatalogIndex(packages).scored(query.query, options) : [];
  return [...skills, ...tools]
    .sort((a, b) => b.score - a.score)
    .slice(0, query.limit)
    .map(({ hit }) => hit);
}
