/**
 * An MCP server as an upstream kind: its tools (every page of `tools/list`), resources, templates,
 * prompts, Agent Skills and the apps its tools show, read and pinned; a tool called in the server's
 * era, its progress, logs and input requests relayed.
 */
import { toolUiOf } from "../../protocols/mcp/index.js";
import type { UpstreamEndpoint } from "../../registry/deployments/model.js";
import { readUpstreamApps } from "./apps.js";
import { type CallCredential, OPERATOR } from "./credentials.js";
import { type Skipped, mcpManifestOf, selects } from "./definitions.js";
import { type Definition, type DefinitionsRead, type UpstreamKind, UpstreamError, definitionOf, toolFailure } from "./kind.js";
import { callTool, listOfferings, listTools } from "./mcp-client.js";
import { LIST_BUDGET_BYTES, type McpTarget, discoverEra } from "./mcp-session.js";
import type { McpEra } from "./model.js";
import { readUpstreamPackages } from "./packages.js";

/** One MCP server as a call (or a definitions read) reaches it, with its credential for `caller`. */
export function mcpTarget(url: string, label: string, credential: CallCredential, caller: string, signal: AbortSignal): McpTarget {
  // A 2025 server keeps state per session: each caller has its own, even with a shared credential.
  return {
    url,
    label,
    headers: credential.headers,
    ...(credential.query ? { query: credential.query } : {}),
    sessionKey: `${credential.sessionKey}\n${caller}`,
    signal,
  };
}

/** An MCP server's tools, offerings, Agent Skills and apps. */
export const mcpKind: UpstreamKind<Extract<UpstreamEndpoint, { kind: "mcp" }>> = {
  async definitions({ record, source, credential, where, signal }): Promise<DefinitionsRead> {
    const definitions: Definition[] = [];
    const skipped: Skipped[] = [];
    const url = where.url!;
    const target = mcpTarget(url, `Upstream ${record.name}`, credential, OPERATOR, signal);
    let era: McpEra;
    let listed: Awaited<ReturnType<typeof listTools>>;
    try {
      era = await discoverEra(target);
      listed = await listTools(target, era);
    } catch (error) {
      throw new UpstreamError(502, `Could not read ${record.name}'s tools: ${error instanceof Error ? error.message : "failed"}`);
    }
    skipped.push(...listed.invalid);
    const offered = await listOfferings(target, era).catch(() => undefined);
    // Its Agent Skills, when it serves them; when they cannot be read, what was pinned stays (a refresh's reconcile).
    const skills = await readUpstreamPackages(target, era).catch((error: unknown) => {
      skipped.push({ tool: "skills", reason: `could not be read: ${error instanceof Error ? error.message.slice(0, 300) : "failed"}` });
      return undefined;
    });
    skipped.push(...(skills?.skipped ?? []));
    const appUris = new Set<string>();
    for (const tool of listed.tools) {
      if (!selects(source, tool.name)) continue;
      const made = mcpManifestOf(source, tool);
      if ("refused" in made) skipped.push({ tool: tool.name, reason: made.refused });
      else {
        definitions.push(await definitionOf(tool.name, made.manifest, { upstream: { kind: "mcp", name: record.name, url, tool: tool.name, era } }));
        const app = toolUiOf(tool._meta)?.resourceUri;
        if (app && offered?.resources.some((r) => r.uri === app)) appUris.add(app);
      }
    }
    // The apps its served tools show, each read now and pinned; when they cannot be read, what was pinned stays.
    const apps =
      appUris.size ?
        await readUpstreamApps(target, era, [...appUris].sort(), { bytes: LIST_BUDGET_BYTES }).catch((error: unknown) => {
          skipped.push({ tool: "apps", reason: `could not be read: ${error instanceof Error ? error.message.slice(0, 300) : "failed"}` });
          return undefined;
        })
      : { apps: [], skipped: [] };
    skipped.push(...(apps?.skipped ?? []));
    const base = offered ?? { resources: [], resourceTemplates: [], prompts: [] };
    const offerings = offered || skills ? { ...base, ...(skills ? { skills: skills.skills } : {}), ...(apps ? { apps: apps.apps } : {}) } : undefined;
    return { url, era, definitions, skipped, ...(offerings ? { offerings } : {}) };
  },

  async call({ endpoint, request, args, credential }) {
    const target = mcpTarget(endpoint.url, request.skill, credential, request.caller, request.signal);
    const result = await callTool(target, endpoint.era, endpoint.tool, args, {
      inputSchema: request.inputSchema,
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      ...(request.inputRound ? { inputRound: request.inputRound } : {}),
      ...(request.onLog && request.logLevel ? { onLog: request.onLog, logLevel: request.logLevel } : {}),
    });
    if ("isError" in result && result.isError === true) throw toolFailure(request.skill, result);
    return result;
  },
};
