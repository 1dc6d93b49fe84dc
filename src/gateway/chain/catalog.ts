/**
 * The skill catalog callers see (`skills.list`, `skills.discover`, `rpc.discover`, MCP
 * `tools/list`): one summary per skill name, described by its stable deployment — and only the
 * skills the caller's grants allow.
 */
import { type Access, mayCall } from "../../identity/auth/access.js";
import type { Deployment, UpstreamEndpoint } from "../../registry/deployments/model.js";
import type { SkillManifest } from "../../skill/manifest.js";
import { compareNames } from "../../registry/deployments/model.js";
import type { RegistryView, ToolEntry } from "../../registry/deployments/snapshot.js";

/**
 * A tool as listed to callers (a skill Worker's, or an upstream's): what a model needs to pick and
 * call it — not which versions are deployed or how they are rolled out (the admin API tells
 * operators).
 */
export interface ToolSummary {
  name: string;
  description: string;
  tags: string[];
  idempotent: boolean;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  /** How long one call may run as an async job, when the skill declares more than its timeout. */
  maxDurationMs?: number;
  /** Every call runs as an async job (an MCP task): the skill declares `jobOnly`. */
  jobOnly?: boolean;
  /** The contract hash of the definition listed (`sha256:…`): pin it to notice a change. */
  contractHash?: string;
  /** What a call costs, as the skill declares it. */
  cost?: SkillManifest["cost"];
  /** What the skill promises (success rate, p95), as it declares it; `observed` says what it does. */
  reliability?: SkillManifest["reliability"];
  /** A display name, and MCP annotations, as declared (a federated tool: as its upstream lists them). */
  title?: string;
  annotations?: SkillManifest["annotations"];
  /** Its MCP App (`_meta.ui` in `tools/list`). */
  ui?: SkillManifest["ui"];
  /** `tool-result`: it answers an MCP tool result, passed through as is (a federated tool's answer format). */
  answers?: SkillManifest["answers"];
  /** The kind of upstream it is a tool of (from its deployment's endpoint), for a federated tool. */
  upstream?: UpstreamEndpoint["kind"];
  /** MCP resources, resource templates and prompts the skill serves, as declared. */
  resources?: SkillManifest["resources"];
  resourceTemplates?: SkillManifest["resourceTemplates"];
  prompts?: SkillManifest["prompts"];
}

/** One summary per skill name, described by its stable (else newest) deployment, in name order. */
export function summarize(deployments: Deployment[]): ToolSummary[] {
  const byName = new Map<string, Deployment[]>();
  for (const d of deployments) {
    const all = byName.get(d.name);
    if (all) all.push(d);
    else byName.set(d.name, [d]);
  }
  return [...byName.entries()].sort(([a], [b]) => compareNames(a, b)).map(([name, all]) => summaryOfDeployments(name, all));
}

function summaryOfDeployments(name: string, all: Deployment[]): ToolSummary {
  const main = all.find((d) => d.role === "stable") ?? all.find((d) => d.role !== "degraded") ?? all[0]!;
  return {
    name,
    description: main.manifest.description,
    tags: [...new Set(all.flatMap((d) => d.tags))].sort(),
    idempotent: main.manifest.idempotent,
    inputSchema: main.manifest.inputSchema,
    outputSchema: main.manifest.outputSchema,
    ...(main.manifest.maxDurationMs && main.manifest.maxDurationMs > main.manifest.timeoutMs ? { maxDurationMs: main.manifest.maxDurationMs } : {}),
    ...(main.manifest.jobOnly ? { jobOnly: true } : {}),
    ...(main.contractHash ? { contractHash: main.contractHash } : {}),
    ...(main.manifest.cost ? { cost: main.manifest.cost } : {}),
    ...(main.manifest.reliability ? { reliability: main.manifest.reliability } : {}),
    ...(main.manifest.title ? { title: main.manifest.title } : {}),
    ...(main.manifest.annotations ? { annotations: main.manifest.annotations } : {}),
    ...(main.manifest.answers ? { answers: main.manifest.answers } : {}),
    ...("upstream" in main.endpoint ? { upstream: main.endpoint.upstream.kind } : {}),
    ...(main.manifest.ui ? { ui: main.manifest.ui } : {}),
    ...(main.manifest.resources ? { resources: main.manifest.resources } : {}),
    ...(main.manifest.resourceTemplates ? { resourceTemplates: main.manifest.resourceTemplates } : {}),
    ...(main.manifest.prompts ? { prompts: main.manifest.prompts } : {}),
  };
}

/** Summaries by entry: an entry is shared by every view until its skill changes, and so is its summary. */
const summaries = new WeakMap<ToolEntry, ToolSummary>();

/** The summary of one live skill. */
export function summaryOf(entry: ToolEntry): ToolSummary {
  let summary = summaries.get(entry);
  if (!summary) summaries.set(entry, (summary = summaryOfDeployments(entry.name, entry.degraded ? [...entry.versions, entry.degraded] : entry.versions)));
  return summary;
}

// Keyed by the view's generation: rebuilt when a skill changed, not when only the revision moved.
const catalogs = new WeakMap<object, ToolSummary[]>();
const filtered = new WeakMap<object, Map<string, ToolSummary[]>>();

/**
 * Every skill of a registry view in name order, built once per change of the registry (and
 * then only the changed skills are summarized again).
 * @example catalogOf(await registryView(runtime, scope.trace)).map((s) => s.name)
 */
export function catalogOf(view: RegistryView): ToolSummary[] {
  let catalog = catalogs.get(view.generation);
  if (!catalog) {
    catalog = view.names.map((name) => summaryOf(view.tools.get(name)!));
    catalogs.set(view.generation, catalog);
  }
  return catalog;
}

/**
 * The skills of a view that `access` allows, computed once per view and set of grants.
 * @example catalogFor(view, scope.access)
 */
export function catalogFor(view: RegistryView, access: Access): ToolSummary[] {
  if (access.unrestricted) return catalogOf(view);
  let byGrants = filtered.get(view.generation);
  if (!byGrants) filtered.set(view.generation, (byGrants = new Map<string, ToolSummary[]>()));
  let catalog = byGrants.get(access.signature);
  if (!catalog) {
    catalog = allowedOf(catalogOf(view), access);
    // Bounded: 10,000 keys with wide grants would otherwise keep 10,000 lists of 10,000 skills.
    if (byGrants.size >= GRANT_CATALOGS_KEPT) byGrants.delete(byGrants.keys().next().value!);
    byGrants.set(access.signature, catalog);
  }
  return catalog;
}

/** Filtered catalogs kept per registry view (the oldest is forgotten first). */
export const GRANT_CATALOGS_KEPT = 256;

/** The summaries `access` allows. */
export function allowedOf(summaries: ToolSummary[], access: Access): ToolSummary[] {
  return access.unrestricted ? summaries : summaries.filter((s) => mayCall(access, s));
}
