/**
 * The skill catalog callers see (`skills.list`, `skills.discover`, `rpc.discover`, MCP
 * `tools/list`): one summary per skill name, described by its stable deployment — and only the
 * skills the caller's grants allow.
 */
import type { Access } from "../auth/index.js";
import type { Deployment } from "../registry/model.js";
import type { RegistryView } from "../registry/snapshot.js";

/**
 * A skill as listed to callers: what a model needs to pick and call it — not which versions
 * are deployed or how they are rolled out (the admin API tells operators).
 */
export interface SkillSummary {
  name: string;
  description: string;
  tags: string[];
  idempotent: boolean;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

/** One summary per skill name, described by its stable (else newest) deployment. */
export function summarize(deployments: Deployment[]): SkillSummary[] {
  const byName = new Map<string, Deployment[]>();
  for (const d of deployments) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
  return [...byName.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, all]) => {
      const main = all.find((d) => d.role === "stable") ?? all.find((d) => d.role !== "degraded") ?? all[0]!;
      return {
        name,
        description: main.manifest.description,
        tags: [...new Set(all.flatMap((d) => d.tags))].sort(),
        idempotent: main.manifest.idempotent,
        inputSchema: main.manifest.inputSchema,
        outputSchema: main.manifest.outputSchema,
      };
    });
}

const catalogs = new WeakMap<RegistryView, SkillSummary[]>();
const filtered = new WeakMap<RegistryView, Map<string, SkillSummary[]>>();

/**
 * Every skill of a registry view, summarized once per view (a view is replaced, never changed,
 * when the registry changes).
 * @example catalogOf(await registryView(runtime, scope.trace)).map((s) => s.name)
 */
export function catalogOf(view: RegistryView): SkillSummary[] {
  let catalog = catalogs.get(view);
  if (!catalog) {
    catalog = summarize(view.deployments());
    catalogs.set(view, catalog);
  }
  return catalog;
}

/**
 * The skills of a view that `access` allows, computed once per view and set of grants.
 * @example catalogFor(view, scope.access)
 */
export function catalogFor(view: RegistryView, access: Access): SkillSummary[] {
  if (access.unrestricted) return catalogOf(view);
  let byGrants = filtered.get(view);
  if (!byGrants) filtered.set(view, (byGrants = new Map()));
  let catalog = byGrants.get(access.signature);
  if (!catalog) byGrants.set(access.signature, (catalog = allowedOf(catalogOf(view), access)));
  return catalog;
}

/** The summaries `access` allows. */
export function allowedOf(summaries: SkillSummary[], access: Access): SkillSummary[] {
  return access.unrestricted ? summaries : summaries.filter((s) => access.allowsSkill(s.name, s.tags));
}
