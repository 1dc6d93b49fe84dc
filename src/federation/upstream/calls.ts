/**
 * The caller's path to an upstream: a tool called (its arguments checked against the pinned input
 * schema, the version's credential for this caller, then its kind's call), a resource read, a prompt
 * got, a completion or a task asked of an MCP upstream, a task asked of an A2A agent. Implements
 * src/federation/forward's `UpstreamCaller`; every policy of the call chain is around it.
 */
import { ErrorCode, RpcError } from "../../protocols/jsonrpc/index.js";
import { SKILL_INPUT_SCHEMA, type Task } from "../../protocols/a2a/index.js";
import { schemaIssues } from "../../lib/json-schema/index.js";
import type { UpstreamEndpoint } from "../../registry/deployments/model.js";
import type { Store } from "../../store/index.js";
import type { UpstreamAsk, UpstreamCaller, UpstreamRequest } from "../forward/index.js";
import { askAgentTask } from "./a2a-client.js";
import type { AgentConversations } from "./conversations.js";
import { type CallCredential, credentialFor } from "./credentials.js";
import type { UpstreamSettings } from "./kind.js";
import { kindOf } from "./kinds.js";
import { askTask, completeAtUpstream, getUpstreamPrompt, readUpstreamResource } from "./mcp-client.js";
import { mcpTarget } from "./mcp-kind.js";
import type { UpstreamRecord } from "./model.js";
import { type UpstreamRecords, authOf } from "./records.js";

/**
 * Calls of upstreams' tools, reads and asks, for callers.
 * @example await upstreams.calls.call(endpoint, { skill: "everything.echo", version: "1.0.0", params, caller, signal })
 */
export class UpstreamCalls implements UpstreamCaller {
  constructor(
    private readonly store: Store,
    private readonly settings: UpstreamSettings,
    private readonly records: UpstreamRecords,
    private readonly conversations: AgentConversations,
  ) {}

  /** Calls an upstream's tool with the upstream version's credential for this caller (src/federation/forward's `UpstreamCaller`). */
  async call(endpoint: UpstreamEndpoint, request: UpstreamRequest): Promise<unknown> {
    const { params } = request;
    if (Array.isArray(params)) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: ${request.skill} takes named arguments (an object), not a list`);
    // Checked against the pinned input schema before anything goes upstream, as an SDK skill checks
    // its own; an A2A skill's is the gateway's own (no agent says it), as this gateway defines it now.
    const issues = schemaIssues(endpoint.kind === "a2a" ? SKILL_INPUT_SCHEMA : request.inputSchema, params ?? {});
    if (issues.length)
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Invalid params: ${issues
          .map((i) => `${i.path} ${i.message}`)
          .join("; ")
          .slice(0, 500)}`,
        { issues },
      );
    const record = await this.records.cached(endpoint.name);
    if (!record)
      throw new RpcError(ErrorCode.SkillUnavailable, `${request.skill}: its upstream ${endpoint.name} is no longer registered`, { retryAfterMs: 5_000 });
    const credential = await this.#credential(record, request);
    return kindOf(endpoint.kind).call({
      endpoint,
      request,
      args: (params ?? {}) as Record<string, unknown>,
      credential,
      urlRefusal: this.settings.urlRefusal,
      conversations: this.conversations,
    });
  }

  /**
   * Reads a resource, gets a prompt, completes an argument or asks about a task of one version of an
   * MCP upstream, with the version's credential for this caller, within `request.signal` (src/federation/forward's `UpstreamCaller`).
   * @example await upstreams.calls.ask({ upstream: "everything", version: "1.0.0" }, { method: "resources/read", params: { uri }, caller, signal })
   */
  async ask(target: { upstream: string; version: string }, request: UpstreamAsk): Promise<unknown> {
    const { upstream: name, version } = target;
    const record = await this.records.cached(name);
    const current = record?.versions[version];
    if (!record || !current?.era) throw new RpcError(ErrorCode.SkillUnavailable, `Upstream ${name} is no longer registered`, { retryAfterMs: 5_000 });
    const { caller, signal, params } = request;
    const credential = await this.#credential(record, { ...request, version });
    const mcp = mcpTarget(current.url, `Upstream ${name}`, credential, caller, signal);
    const round = request.inputRound;
    if (request.method === "tasks/get" || request.method === "tasks/update" || request.method === "tasks/cancel") {
      // Only a 2026-07-28 server answers a call with a task (SEP-2663); a version that is not one now has none.
      if (!current.era.stateless) throw new RpcError(ErrorCode.SkillUnavailable, `Upstream ${name}@${version} runs no tasks`);
      return askTask(mcp, current.era, request.method, params as { taskId: string; inputResponses?: Record<string, unknown> });
    }
    if (request.method === "resources/read") return readUpstreamResource(mcp, current.era, String(params.uri), round);
    if (request.method === "completion/complete") return completeAtUpstream(mcp, current.era, params);
    return getUpstreamPrompt(mcp, current.era, String(params.name), (params.arguments ?? {}) as Record<string, string>, round);
  }

  /**
   * Asks one version of an A2A agent about a task (`GetTask`) or to cancel it (`CancelTask`), with
   * the version's credential for this caller (`subjectToken`: its OAuth token, for a
   * `token-exchange` agent).
   * @example await upstreams.calls.askAgent({ upstream: "writer", version: "1.0.0" }, "GetTask", taskId, { caller, signal })
   */
  async askAgent(
    target: { upstream: string; version: string },
    method: "GetTask" | "CancelTask",
    taskId: string,
    { caller, signal, subjectToken }: { caller: string; signal: AbortSignal; subjectToken?: string | undefined },
  ): Promise<Task> {
    const record = await this.records.cached(target.upstream);
    const current = record?.versions[target.version];
    if (!record || !current) throw new RpcError(ErrorCode.SkillUnavailable, `Upstream ${target.upstream} is no longer registered`, { retryAfterMs: 5_000 });
    const credential = await this.#credential(record, { version: target.version, caller, signal, subjectToken });
    return askAgentTask({ url: current.url, label: `Upstream ${target.upstream}`, headers: credential.headers, signal }, method, taskId);
  }

  /** The credential of one version for one caller, with the call's trace header when it has one. */
  async #credential(
    record: UpstreamRecord,
    request: { version: string | undefined; caller: string; signal?: AbortSignal; subjectToken?: string | undefined; traceparent?: string | undefined },
  ): Promise<CallCredential> {
    const { version, caller, signal, subjectToken, traceparent } = request;
    const credential = await credentialFor(this.store, {
      secret: this.settings.upstreamKey,
      upstream: record.name,
      auth: authOf(record, version),
      caller,
      signal,
      subjectToken,
    });
    return traceparent ? { ...credential, headers: { ...credential.headers, traceparent } } : credential;
  }
}
