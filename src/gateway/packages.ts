/**
 * Which Agent Skills packages a caller sees (src/agent-skills): of each package, the version its
 * routing table gives the caller (by `X-User-Group` and its sticky key, src/agent-skills/routing.ts),
 * when the caller may call every Skillmesh tool that version names — its grants, narrowed by a
 * virtual server. One rule for every way packages are served (MCP, the well-known index).
 */
import { type SkillEntry, skillEntryOf } from "../agent-skills/index.js";
import type { AgentSkillRecord } from "../agent-skills/registry.js";
import type { Access } from "../auth/access.js";
import { servedVersionOf } from "../agent-skills/routing.js";
import type { RouteKey } from "../routing/index.js";
import type { Context } from "../tracing/index.js";
import { catalogFor } from "./catalog.js";
import { registryView } from "./invoke.js";
import type { GatewayRuntime } from "./runtime.js";

/** A package as a caller sees it: its record, the version served, and its SEP-2640 entry. */
export interface VisiblePackage {
  record: AgentSkillRecord;
  version: string;
  description: string;
  entry: SkillEntry;
}

/**
 * The packages `access` sees, each at the version routed to `key`.
 * @example const packages = await visiblePackages(runtime, scope.access, scope.trace, routeKeyOf(scope.context))
 */
export async function visiblePackages(runtime: GatewayRuntime, access: Access, trace: Context, key: RouteKey): Promise<VisiblePackage[]> {
  const callable = new Set(catalogFor(await registryView(runtime, trace), access).map((skill) => skill.name));
  return (await runtime.agentSkills.list()).flatMap((record) => {
    const served = servedVersionOf(record, key);
    const version = record.versions[served];
    if (!version || !version.tools.every((tool) => callable.has(tool))) return [];
    return [{ record, version: served, description: version.description, entry: skillEntryOf({ name: record.name, frontmatter: version.frontmatter, files: version.files }) }];
  });
}
