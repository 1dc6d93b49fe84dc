/**
 * One test client for the gateway's three wires, as clients speak them: `/rpc` (JSON-RPC 2.0), `/mcp`
 * (or `/mcp/<server>`) in both eras — 2025-11-25 with its version header, 2026-07-28 stateless with
 * the `Mcp-Method`/`Mcp-Name` headers and `_meta` every request carries — and the admin API. Each
 * answers `post`'s `{ status, headers, json }`.
 */
import { admin, post } from "./fixtures.js";

/** What a request may add: the caller's API key (sent as a bearer), and headers of its own. */
export interface WireOptions {
  key?: string | undefined;
  headers?: Record<string, string>;
  /** The MCP path: `/mcp` unless a virtual server's (`/mcp/<server>`). */
  path?: string;
  /** A 2026-07-28 request's `_meta` fields besides the version and capabilities. */
  meta?: Record<string, unknown>;
  /** The request's JSON-RPC id (1 unless named). */
  id?: string | number;
}

/** The MCP revisions the gateway speaks, as the tests name them. */
export const ERAS = { "2025": "2025-11-25", "2026": "2026-07-28" } as const;

const bearer = (key: string | undefined): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});

/**
 * A client of one gateway; `defaults.key` is the caller's unless a request names another.
 * @example const wire = wireOf(mesh.gatewayUrl, { key }); (await wire.rpc("subtract", { minuend: 5, subtrahend: 3 })).json.result // 2
 */
export function wireOf(gatewayUrl: string, defaults: { key?: string } = {}) {
  const auth = (options: WireOptions) => bearer(options.key ?? defaults.key);
  return {
    /** A JSON-RPC request on `/rpc` (no `params` when undefined). */
    rpc: (method: string, params?: unknown, options: WireOptions = {}) =>
      post(
        `${gatewayUrl}/rpc`,
        { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }), id: options.id ?? 1 },
        { ...auth(options), ...options.headers },
      ),
    /** An MCP request as a 2025-11-25 client sends it (stateless: no handshake needed). */
    mcp2025: (method: string, params: unknown = {}, options: WireOptions = {}) =>
      post(
        `${gatewayUrl}${options.path ?? "/mcp"}`,
        { jsonrpc: "2.0", id: options.id ?? 1, method, params },
        { "mcp-protocol-version": ERAS["2025"], accept: "application/json, text/event-stream", ...auth(options), ...options.headers },
      ),
    /** An MCP request as a 2026-07-28 client sends it: its headers, and `_meta` with the version and capabilities. */
    mcp2026: (method: string, params: Record<string, unknown> = {}, options: WireOptions = {}) =>
      post(
        `${gatewayUrl}${options.path ?? "/mcp"}`,
        {
          jsonrpc: "2.0",
          id: options.id ?? 1,
          method,
          params: {
            ...params,
            _meta: { "io.modelcontextprotocol/protocolVersion": ERAS["2026"], "io.modelcontextprotocol/clientCapabilities": {}, ...options.meta },
          },
        },
        {
          "mcp-protocol-version": ERAS["2026"],
          "mcp-method": method,
          // Mcp-Name mirrors the tool's or prompt's name, the resource's URI, or the task's id.
          ...(typeof params.name === "string" ? { "mcp-name": params.name }
          : typeof params.uri === "string" ? { "mcp-name": params.uri }
          : typeof params.taskId === "string" ? { "mcp-name": params.taskId }
          : {}),
          accept: "application/json, text/event-stream",
          ...auth(options),
          ...options.headers,
        },
      ),
    /** An admin API request with the admin token (or `token`). */
    admin: (method: string, path: string, body?: unknown, token?: string) => admin(gatewayUrl, method, path, body, token),
  };
}
