/**
 * An A2A agent as an upstream kind: its card read, each selected skill a tool called at the card's
 * JSON-RPC interface (at the card's own origin, past the URL policy); an answer's task and context
 * kept as the caller's before it is relayed.
 */
import { type AgentToolArguments, jsonRpcInterfaceOf, toolResultOf } from "../../protocols/a2a/index.js";
import type { UpstreamEndpoint } from "../../registry/deployments/model.js";
import { readAgentCard, sendToAgent } from "./a2a-client.js";
import { type Skipped, a2aManifestOf, selects, urlSecretRefusal } from "./definitions.js";
import { type Definition, type DefinitionsRead, type UpstreamKind, UpstreamError, definitionOf, toolFailure } from "./kind.js";

/** An A2A agent's skills, each a tool. */
export const a2aKind: UpstreamKind<Extract<UpstreamEndpoint, { kind: "a2a" }>> = {
  async definitions({ record, source, credential, where, signal, urlRefusal }): Promise<DefinitionsRead> {
    const cardUrl = where.documentUrl!;
    const card = await readAgentCard({ url: cardUrl, label: `Upstream ${record.name}`, headers: credential.headers, signal }).catch((error: unknown) => {
      throw new UpstreamError(502, `Could not read ${record.name}'s Agent Card: ${error instanceof Error ? error.message : "failed"}`);
    });
    const endpoint = jsonRpcInterfaceOf(card, cardUrl);
    if ("refused" in endpoint) throw new UpstreamError(400, `Upstream ${record.name}: ${endpoint.refused}`);
    const refusal = urlRefusal(endpoint.url, "an agent's JSON-RPC URL") ?? urlSecretRefusal(endpoint.url, "an agent's JSON-RPC URL");
    if (refusal) throw new UpstreamError(400, `Invalid upstream: ${refusal}`);
    const definitions: Definition[] = [];
    const skipped: Skipped[] = [];
    for (const skill of card.skills) {
      if (!selects(source, skill.id)) continue;
      const made = a2aManifestOf(source, skill);
      if ("refused" in made) skipped.push({ tool: skill.id, reason: made.refused });
      else definitions.push(await definitionOf(skill.id, made.manifest, { upstream: { kind: "a2a", name: record.name, url: endpoint.url, skill: skill.id } }));
    }
    return { url: endpoint.url, era: undefined, agent: { name: card.name, description: card.description, version: card.version }, definitions, skipped };
  },

  async call({ endpoint, request, args, credential, conversations }) {
    const agent = { url: endpoint.url, label: request.skill, headers: credential.headers, signal: request.signal };
    const answer = await sendToAgent(agent, endpoint.skill, args as AgentToolArguments, request);
    // The task and its context are the caller's: only it may continue them, ask about them or cancel them.
    await conversations.keep(endpoint.name, answer, { caller: request.caller, version: request.version, tool: request.skill });
    const result = toolResultOf(answer);
    if (result.isError) throw toolFailure(request.skill, result);
    return result;
  },
};
