/**
 * A federated A2A agent as one caller reaches it (the A2A door, routes/a2a.ts): the version of the
 * agent the caller is routed to (by its skills' routing tables, as an upstream's offerings are),
 * who that version's card said the agent is, and the agent's skills the caller may call, each a
 * tool `<agent>.<skill id>` of the one call chain.
 */
import type { ReachableSkill } from "../a2a/index.js";
import { routedDeployment } from "../routing/index.js";
import { registryView } from "./lookup.js";
import { routedUpstreamVersion, upstreamsOfView } from "./offerings.js";
import type { GatewayRuntime } from "./runtime.js";
import type { CallScope } from "./scope.js";

/** An agent a caller may reach: who it is, the version routed to the caller, and its skills the caller may call (by id). */
export interface ReachableAgent {
  agent: { name: string; description: string; version: string };
  version: string;
  /** By skill id, in the order of their tools' names; each with its tool's name. */
  skills: Array<ReachableSkill & { tool: string }>;
}

/**
 * The agent `name` as `scope`'s caller reaches it; undefined when it is no A2A upstream, or the
 * caller may call none of its skills (the same answer: what a caller cannot use does not exist).
 * @example const agent = await reachableAgent(runtime, scope, "text") // { agent: { name: "Text agent", … }, version: "1.0.0", skills: [{ id: "summarize", tool: "text.summarize", … }] }
 */
export async function reachableAgent(runtime: GatewayRuntime, scope: CallScope, name: string): Promise<ReachableAgent | undefined> {
  const record = await runtime.upstreams.cached(name);
  if (record?.kind !== "a2a") return undefined;
  const entries = upstreamsOfView(await registryView(runtime, scope.trace)).get(name) ?? [];
  const version = routedUpstreamVersion(name, entries, record, scope.routeKey);
  const agent = version ? record.versions[version]?.agent : undefined;
  if (!version || !agent) return undefined;
  const skills = entries.flatMap((entry) => {
    const deployment = scope.access.allowsSkill(entry.name, entry.tags) ? routedDeployment(entry, scope.routeKey) : undefined;
    const endpoint = deployment && "upstream" in deployment.endpoint ? deployment.endpoint.upstream : undefined;
    if (endpoint?.kind !== "a2a") return [];
    const { manifest } = deployment!;
    return [{ id: endpoint.skill, tool: entry.name, name: manifest.title ?? endpoint.skill, description: manifest.description }];
  });
  return skills.length ? { agent, version, skills } : undefined;
}
