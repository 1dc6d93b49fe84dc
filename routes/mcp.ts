/**
 * `/mcp`: MCP over Streamable HTTP, stateless (no sessions, no SSE). `POST` answers one message
 * (or a 2025-03-26 batch) with JSON; `GET` and `DELETE` are 405. A browser page's `Origin` must
 * be allowed (`SKILLMESH_ALLOWED_ORIGINS`, default loopback only), else 403.
 */
import { Hono } from "hono";
import { catalogOf, invoke, registryView } from "../src/gateway/pipeline.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/runtime.js";
import { answerHeadersOf, callScopeOf } from "../src/gateway/scope.js";
import { ErrorCode, failure } from "../src/jsonrpc/index.js";
import { jsonBodyGuard } from "../src/jsonrpc/http.js";
import { type McpBackend, answerMcpPost } from "../src/mcp/index.js";
import { allowedOriginsOf, isAllowedOrigin } from "../src/mcp/origin.js";

export interface McpEnv extends GatewayEnv {
  /** Comma-separated origins allowed to call `/mcp` from a browser, or `*`. Default: loopback only. */
  SKILLMESH_ALLOWED_ORIGINS?: string;
  /** Tools per `tools/list` page (default 100). */
  SKILLMESH_MCP_PAGE_SIZE?: string;
}

const SERVER_INFO = { name: "skillmesh-gateway", version: "0.1.0" };
const INSTRUCTIONS =
  "Every tool is a skill served by the Skillmesh gateway. Tools with idempotentHint may be retried freely; " +
  "for any other tool, send an Idempotency-Key header so a retry returns the first answer instead of running twice.";

export const mcpRoutes = new Hono<{ Bindings: McpEnv }>();

mcpRoutes.use(async (c, next) => {
  const origin = c.req.header("origin");
  if (!isAllowedOrigin(origin, allowedOriginsOf(c.env.SKILLMESH_ALLOWED_ORIGINS))) {
    return c.json(failure(null, ErrorCode.InvalidRequest, `Origin ${origin} is not allowed to call this MCP server`), 403);
  }
  await next();
});

mcpRoutes.on(["GET", "DELETE"], "/", (c) =>
  c.json(failure(null, ErrorCode.InvalidRequest, "This MCP server is stateless: POST one JSON-RPC message per request"), 405, { allow: "POST" }),
);

mcpRoutes.post("/", jsonBodyGuard(), async (c) => {
  const runtime = gatewayRuntime(c.env);
  const scope = await callScopeOf(c.req.raw.headers, (promise) => c.executionCtx.waitUntil(promise));
  const backend: McpBackend = {
    catalog: async () => catalogOf(await registryView(runtime, scope.trace)),
    call: (name, params, slot) => invoke({ jsonrpc: "2.0", method: name, params, id: 0 }, slot, scope, runtime, c.env),
  };
  const pageSize = Number(c.env.SKILLMESH_MCP_PAGE_SIZE) || 100;
  const { status, body } = await answerMcpPost(c.req.raw.headers, await c.req.text(), backend, { serverInfo: SERVER_INFO, pageSize, instructions: INSTRUCTIONS });
  const headers = answerHeadersOf(scope);
  if (body === undefined) return new Response(null, { status, headers });
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers });
});
