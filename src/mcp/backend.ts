/**
 * What the MCP server (src/mcp) needs from the gateway: the caller's catalog, its one call chain
 * for tool calls, jobs and every other operation, and who calls. routes/mcp.ts builds one per
 * request; the tests build their own.
 */
import type { ToolSummary } from "../gateway/chain/catalog.js";
import type { CallStreaming } from "../gateway/chain/policies.js";
import type { ListedOfferings } from "../gateway/chain/offerings.js";
import type { Operation } from "../gateway/chain/operation.js";
import type { PackageCatalog } from "../gateway/chain/packages.js";
import type { JobView } from "../registry/jobs/index.js";
import type { JsonRpcParams, RequestSlot, RpcError } from "../protocols/jsonrpc/index.js";
import type { LogLevels } from "./log-levels.js";
import type { Replies } from "./replies.js";
import type { RequestStates } from "./request-state.js";
import type { ResourceSubscriptions } from "./subscriptions.js";

/** What a caller may use besides tools, as MCP's lists show it. */
export interface McpCatalog {
  /** The resources, resource templates and prompts offered to the caller. */
  offerings(): Promise<ListedOfferings>;
  /** The Agent Skills packages the caller sees, each at the version it is served. */
  packages(): Promise<PackageCatalog>;
  /** What serves a resource to the caller now (a subscribed one is updated when this changes); undefined when it may not read it. */
  servedBy(uri: string): Promise<string | undefined>;
  /** A token that changes whenever what `servedBy` answers may have (the registry, the packages served). */
  revision(): Promise<string>;
}

/** What the MCP server needs from the gateway. */
export interface McpBackend {
  /** The tools the caller may call, as this server lists them. */
  tools(): Promise<ToolSummary[]>;
  /**
   * One skill as the catalog lists it (undefined: none, or not for this caller), without needing
   * the whole catalog: a new isolate answers a `tools/call` before its registry has loaded.
   */
  skill(name: string): Promise<ToolSummary | undefined>;
  /** The caller's resources, prompts and packages (listings: not charged, as `tools/list` is not). */
  catalog(): McpCatalog;
  /** Calls a skill (or a built-in, such as `jobs.get`) through the gateway's call chain; a failure is a thrown `RpcError`. */
  call(name: string, params: JsonRpcParams, slot: RequestSlot, streaming: CallStreaming): Promise<unknown>;
  /**
   * Performs any other operation (a resource read, a prompt get, a search, a change to the
   * caller's own session or the opening of its stream) through the same chain:
   * resolved for this caller, charged, traced and audited; a failure (not found included) is a thrown `RpcError`.
   */
  run(operation: Operation): Promise<unknown>;
  /** Refuses a call of a tool this caller has none of, as the call chain refuses one: charged and audited; always throws `refusal`. */
  refuse(name: string, refusal: RpcError): Promise<never>;
  /** Submits a skill call as an async job (src/registry/jobs): `{status, jobId}`. */
  submit(name: string, params: JsonRpcParams, slot: RequestSlot): Promise<unknown>;
  /** The caller's job as it stands, read from the store (not a call: a waiting `tasks/result` polls it). */
  job(jobId: string): Promise<JobView | undefined>;
  /** The upstreams' request states this caller holds handles of (src/mcp/request-state.ts). */
  requestStates: RequestStates;
  /** This caller's replies to the requests the gateway sent on its 2025 calls' streams (src/mcp/replies.ts). */
  replies: Replies;
  /** The log levels this caller's 2025 sessions set (src/mcp/log-levels.ts). */
  logLevels: LogLevels;
  /** The resources this caller's 2025 sessions subscribed to (src/mcp/subscriptions.ts). */
  subscriptions: ResourceSubscriptions;
  /** Who calls (the caller id of the request): a 2025 `notifications/cancelled` reaches only its own calls. */
  caller: string;
  /** The caller's budget (`X-Timeout-Ms`), if it sent one: how long a waiting `tasks/result` may wait. */
  budgetMs?: number;
}
