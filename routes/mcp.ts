/**
 * `/mcp`: MCP over Streamable HTTP, stateless (no session state: a 2025-era `initialize` hands
 * out an `Mcp-Session-Id` that only scopes the client's request ids for `notifications/cancelled`).
 * `POST` answers one message (or a 2025-03-26 batch) with JSON, or with an event stream where the
 * request asks for one (`subscriptions/listen`); `GET` and `DELETE` are 405 (sessions need no ending). A browser page's `Origin` is
 * checked for every route of the gateway (src/browser).
 */
import { type Context, Hono } from "hono";
import { type Caller, requireCaller } from "../src/auth/index.js";
import { type SkillSummary, catalogFor, summaryOf } from "../src/gateway/catalog.js";
import { withinServer } from "../src/servers/index.js";
import { invoke, registryEntry, registryView } from "../src/gateway/invoke.js";
import { packageCatalog, readPackageFile } from "../src/gateway/packages.js";
import { searchCatalog } from "../src/gateway/search.js";
import { callerOfferings, getSkillPrompt, readSkillResource } from "../src/gateway/skill-resources.js";
import { routeKeyOf } from "../src/routing/index.js";
import { chargeCaller } from "../src/gateway/policies.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/runtime.js";
import { answerHeadersOf, callScopeOf } from "../src/gateway/scope.js";
import { ErrorCode, failure } from "../src/jsonrpc/index.js";
import { answerJson, bodyText, jsonBodyGuard } from "../src/jsonrpc/http.js";
import { type McpBackend, SESSION_HEADER, answerMcpPost } from "../src/mcp/index.js";
import { SSE_HEADERS } from "../src/sse/index.js";
import { viewOf } from "../src/jobs/index.js";

type McpEnv = GatewayEnv;

const SERVER_INFO = { name: "skillmesh-gateway", version: "0.1.0" };
const INSTRUCTIONS =
  "Every tool is a skill served by the Skillmesh gateway. Tools with idempotentHint may be retried freely; " +
  "for any other tool, send an Idempotency-Key header (with an Authorization: Bearer key) so a retry returns the first answer instead of running twice.";

type McpRouteEnv = { Bindings: McpEnv; Variables: { caller: Caller } };
export const mcpRoutes = new Hono<McpRouteEnv>();

mcpRoutes.on(["GET", "DELETE"], "/", (c) =>
  c.json(failure(null, ErrorCode.InvalidRequest, "This MCP server is stateless: POST one JSON-RPC message per request"), 405, { allow: "POST" }),
);

/**
 * Answers one MCP POST as the default server (`/mcp`) or a virtual one (`/mcp/<server>`, src/servers):
 * a virtual server narrows the caller's access to what it exposes, lists aliased tools under
 * their aliases, and says its own instructions.
 */
async function answerMcp(c: Context<McpRouteEnv>, serverName?: string): Promise<Response> {
  const runtime = gatewayRuntime(c.env);
  const scope = callScopeOf(c.req.raw.headers, c.get("caller"), (promise) => c.executionCtx.waitUntil(promise));
  if (!scope.access.allowsServer(serverName)) {
    const where = serverName ? `the virtual server ${serverName}` : "/mcp (only some virtual servers, /mcp/<server>)";
    return c.json(failure(null, ErrorCode.Unauthorized, `Forbidden: this credential may not call through ${where}`), 403);
  }
  const server = serverName === undefined ? undefined : await runtime.servers.get(serverName);
  if (serverName !== undefined && !server) return c.json(failure(null, ErrorCode.MethodNotFound, `No MCP server /mcp/${serverName}; the default one is /mcp`), 404);
  if (server) scope.access = withinServer(scope.access, server);
  // `?catalog=search`: the compact catalog (src/mcp/compact.ts), for agents facing thousands of tools.
  const catalogMode = c.req.query("catalog");
  if (catalogMode !== undefined && catalogMode !== "search" && catalogMode !== "full") {
    return c.json(failure(null, ErrorCode.InvalidRequest, `?catalog= is "search" (a search tool instead of every tool) or "full" (the default), not ${catalogMode.slice(0, 40)}`), 400);
  }
  const listed = (summary: SkillSummary) => (server && server.listedName(summary.name) !== summary.name ? { ...summary, name: server.listedName(summary.name) } : summary);
  const skillNamed = (name: string) => (server ? server.skillOf(name) : name);
  /** The skills the caller may call (by their own names: a virtual server's aliases are `listed`). */
  const callable = async () => catalogFor(await registryView(runtime, scope.trace), scope.access);
  const routeKey = routeKeyOf(scope.context);
  const backend: McpBackend = {
    catalog: async () => {
      const catalog = await callable();
      return server ? catalog.map(listed) : catalog;
    },
    skill: async (name) => {
      const skill = skillNamed(name);
      const entry = skill === undefined ? undefined : await registryEntry(runtime, skill, scope.trace, scope.waitUntil);
      return entry && scope.access.allowsSkill(entry.name, entry.tags) ? listed(summaryOf(entry)) : undefined;
    },
    // A streamed call is cancelled by its stream closing (`streaming.signal`); see routes/rpc.ts
    // for why a plain JSON call carries no signal of the request's own.
    call: (name, params, slot, streaming) => invoke({ jsonrpc: "2.0", method: skillNamed(name) ?? name, params, id: 0 }, slot, scope, runtime, c.env, streaming),
    // MCP tasks are the gateway's async jobs: the same submit as `Prefer: respond-async` on /rpc.
    submit: (name, params, slot) => invoke({ jsonrpc: "2.0", method: skillNamed(name) ?? name, params, id: 0 }, slot, { ...scope, respondAsync: true }, runtime, c.env),
    job: async (jobId) => {
      const job = await runtime.jobs.ownedBy(jobId, scope.context.caller);
      return job && viewOf(job);
    },
    // An Agent Skills package is seen by a caller that may call every Skillmesh tool it names.
    packages: () => packageCatalog(runtime, scope.access, scope.trace, routeKey),
    readAgentSkillFile: (name, path) => readPackageFile(runtime, scope, name, path, "resources/read"),
    offerings: async () => callerOfferings(runtime, await callable()),
    readResource: async (uri) => readSkillResource(runtime, scope, c.env, await callable(), uri),
    getPrompt: async (name, args) => getSkillPrompt(runtime, scope, c.env, await callable(), name, args),
    search: async (query) => {
      const hits = await searchCatalog(runtime, scope.access, scope.trace, routeKey, query);
      return server ? hits.map((hit) => (hit.kind === "tool" ? { ...hit, name: server.listedName(hit.name) } : hit)) : hits;
    },
    caller: scope.context.caller,
    admit: () => chargeCaller(runtime.store, scope),
    ...(scope.budgetMs !== undefined ? { budgetMs: scope.budgetMs } : {}),
  };
  const { config } = runtime;
  const { status, body, stream, sessionId } = await answerMcpPost(c.req.raw.headers, await bodyText(c), backend, {
    serverInfo: server ? { ...SERVER_INFO, name: `skillmesh-gateway/${server.name}` } : SERVER_INFO,
    instructions: server?.definition.instructions ?? INSTRUCTIONS,
    pageSize: config.mcpPageSize,
    listTtlMs: config.mcpListTtlMs,
    // With auth on, each key sees the tools its grants allow: no shared cache may reuse the list.
    listScope: config.auth.required ? "private" : "public",
    heartbeatMs: config.sseHeartbeatMs,
    compact: catalogMode === "search",
  });
  const headers = answerHeadersOf(scope);
  if (sessionId) headers[SESSION_HEADER] = sessionId;
  if (stream) return new Response(stream, { status, headers: { ...headers, ...SSE_HEADERS } });
  if (body === undefined) return new Response(null, { status, headers });
  return new Response(answerJson(body), { status, headers: { ...headers, "content-type": "application/json" } });
}

const caller = requireCaller((env: McpEnv) => gatewayRuntime(env));
mcpRoutes.post("/", jsonBodyGuard(), caller, (c) => answerMcp(c));
mcpRoutes.post("/:server", jsonBodyGuard(), caller, (c) => answerMcp(c, c.req.param("server")));
mcpRoutes.on(["GET", "DELETE"], "/:server", (c) =>
  c.json(failure(null, ErrorCode.InvalidRequest, "This MCP server is stateless: POST one JSON-RPC message per request"), 405, { allow: "POST" }),
);
