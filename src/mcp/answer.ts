/** What the MCP server is told (McpOptions) and what it answers a POST with (McpAnswer). */
import type { JsonRpcResponse } from "../protocols/jsonrpc/index.js";
import type { CacheScope } from "../protocols/mcp/index.js";

export interface McpOptions {
  serverInfo: { name: string; version: string };
  /** Tools per `tools/list` page. */
  pageSize: number;
  instructions?: string;
  /** How long a 2026-07-28 client may consider `tools/list` and `server/discover` fresh (`ttlMs`). */
  listTtlMs: number;
  /** Whether shared caches may reuse a `tools/list` page: "private" when what a caller sees depends on its key. */
  listScope: CacheScope;
  /** How often a `subscriptions/listen` stream looks for changed tools (default 1 s: the registry's own poll). */
  watchMs?: number;
  /** How long a `subscriptions/listen` stream stays open before it ends gracefully (default 15 min). */
  listenMaxMs?: number;
  /** How often a quiet event stream sends a comment line (default 15 s). */
  heartbeatMs?: number;
  /** The request's signal: a stream ends (and frees what it holds) as soon as its client goes away. */
  clientGone?: AbortSignal;
  /** The compact catalog (src/mcp/compact.ts): `tools/list` lists a search, a describe and a call tool instead of every tool. */
  compact?: boolean;
  /** Code mode (src/mcp/compact.ts): search, describe with TypeScript declarations, and `code.execute` instead of `catalog.call`. */
  codeMode?: boolean;
}

/** What to send: an HTTP status and a JSON body (none for 202), or an event stream; `sessionId` for an `Mcp-Session-Id` header. */
export type McpAnswer =
  | { status: 200 | 202 | 400 | 404 | 405 | 429 | 503; body?: JsonRpcResponse | JsonRpcResponse[]; stream?: undefined; sessionId?: string }
  | { status: 200; stream: ReadableStream<Uint8Array>; body?: undefined; sessionId?: undefined };
