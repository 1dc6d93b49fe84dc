/**
 * One kind of upstream (MCP, OpenAPI, A2A) behind one interface: how its definitions are read
 * (the sync) and how one of its tools is called (the caller's path). The kind is data — an
 * endpoint's `kind`, a record's `kind` — and `KINDS` (kinds.ts) maps it to its implementation.
 */
import { ErrorCode, RpcError } from "../../protocols/jsonrpc/index.js";
import type { UpstreamToolResult } from "../../protocols/mcp/index.js";
import { contractHashOf } from "../../registry/deployments/contract.js";
import type { UpstreamEndpoint } from "../../registry/deployments/model.js";
import type { SkillManifest } from "../../skill/manifest.js";
import type { UpstreamRequest } from "../forward/index.js";
import type { AgentConversations } from "./conversations.js";
import type { CallCredential } from "./credentials.js";
import type { Skipped, ToolSource } from "./definitions.js";
import { definitionHashOf } from "./held.js";
import type { McpEra, Offerings, UpstreamRecord, UpstreamVersion } from "./model.js";

/** Settings the upstreams need: the key that seals credentials and the URL policy. */
export interface UpstreamSettings {
  upstreamKey?: string;
  /** Why a URL may not be called, or undefined (src/federation/forward/endpoint-policy.ts). */
  urlRefusal: (url: string, what: string) => string | undefined;
  /**
   * Why a new upstream may not take this name, or undefined: an Agent Skills package's name (its
   * `skill://<name>/` URIs would meet the upstream's skills').
   */
  nameRefusal?: (name: string) => Promise<string | undefined>;
  /**
   * Why a token-exchange upstream may not send callers' access tokens to `tokenUrl`, or undefined:
   * it must be the token endpoint of an issuer the gateway trusts for its callers, or one its
   * operator configured.
   */
  exchangeRefusal?: (tokenUrl: string) => Promise<string | undefined>;
}

/** One tool read from an upstream: its name there, its manifest and endpoint, and the hash pinning both. */
export interface Definition {
  tool: string;
  manifest: SkillManifest;
  /** The manifest's hash (the deployment's `contractHash`, as callers see it). */
  contractHash: string;
  /** The hash of the manifest and the endpoint together: what is pinned and approved. */
  pinHash: string;
  endpoint: { upstream: UpstreamEndpoint };
}

/** One version's definitions as read: where it answers, its era (MCP), what it serves and skips. */
export interface DefinitionsRead {
  url: string;
  era: McpEra | undefined;
  /** An A2A agent's: who its card says it is. */
  agent?: UpstreamVersion["agent"];
  definitions: Definition[];
  skipped: Skipped[];
  /** An MCP upstream's resources, templates and prompts. */
  offerings?: Offerings;
}

/** A read of one version's definitions, as the operator, with the version's credential. */
export interface DefinitionsRequest {
  record: UpstreamRecord;
  version: string;
  /** What the operator said of every tool (tags, selection, options). */
  source: ToolSource & { operationTags?: string[] };
  credential: CallCredential;
  /** Where the definitions are: the server's URL (MCP), the card's or the document's URL, or the document itself (OpenAPI). */
  where: { url?: string | undefined; documentUrl?: string | undefined; inline?: string | Record<string, unknown> | undefined };
  signal: AbortSignal;
  /** Why a URL may not be called (the endpoint policy), or undefined. */
  urlRefusal: UpstreamSettings["urlRefusal"];
}

/** One call of a tool of an upstream of this kind, as the caller's path hands it on. */
export interface ToolCall<E extends UpstreamEndpoint = UpstreamEndpoint> {
  endpoint: E;
  request: UpstreamRequest;
  /** The arguments, checked against the pinned input schema. */
  args: Record<string, unknown>;
  /** The version's credential for this caller, with the call's trace header. */
  credential: CallCredential;
  /** Why a URL may not be called (the endpoint policy), or undefined. */
  urlRefusal: UpstreamSettings["urlRefusal"];
  /** Whose an A2A agent's tasks and contexts are. */
  conversations: AgentConversations;
}

/**
 * An upstream kind: its definitions read, and one of its tools called.
 * @example const read = await KINDS[record.kind].definitions(request)
 */
export interface UpstreamKind<E extends UpstreamEndpoint = UpstreamEndpoint> {
  definitions(request: DefinitionsRequest): Promise<DefinitionsRead>;
  call(call: ToolCall<E>): Promise<unknown>;
}

/** Thrown for an upstream registration the gateway refuses; `status` is the admin API's answer. */
export class UpstreamError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 502,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}

/** One tool read: its manifest and endpoint, each hash. */
export async function definitionOf(tool: string, manifest: SkillManifest, endpoint: { upstream: UpstreamEndpoint }): Promise<Definition> {
  return { tool, manifest, contractHash: await contractHashOf(manifest), pinHash: await definitionHashOf({ manifest, endpoint }), endpoint };
}

/**
 * An MCP tool's own failure (`isError`) as the call chain counts it: the tool failing, as an SDK
 * skill's exception is (-32603: audited, observed, counted by its breaker); the result itself
 * rides in `data.toolResult`, and an MCP caller gets it as the upstream sent it.
 */
export function toolFailure(skill: string, result: UpstreamToolResult): RpcError {
  const said = result.content.find((block): block is { type: "text"; text: string } => block.type === "text")?.text ?? "";
  return new RpcError(ErrorCode.InternalError, `${skill} reported an error${said ? `: ${said.slice(0, 300)}` : ""}`, { toolResult: result });
}
