/**
 * `/mcp`: MCP over Streamable HTTP, stateless (a 2025-era `initialize` hands out an
 * `Mcp-Session-Id` that carries what the client declared; the little a session keeps — its log
 * level, its resource subscriptions — is in the store under the caller).
 * `POST` answers one message (or a 2025-03-26 batch) with JSON, or with an event stream where the
 * request asks for one (`subscriptions/listen`); `GET` opens a 2025 session's stream of what changed
 * (list changes, subscribed resources' updates); `DELETE` is 405 (sessions need no ending). A browser page's `Origin` is
 * checked for every route of the gateway (src/identity/browser).
 */
import { type Context, Hono } from "hono";
import { type Caller, requireCaller } from "../src/identity/auth/index.js";
import { CallerCatalog } from "../src/gateway/chain/caller-catalog.js";
import { type ToolSummary, summaryOf } from "../src/gateway/chain/catalog.js";
import { invoke, perform, refuseUnknown } from "../src/gateway/chain/invoke.js";
import { callableEntry } from "../src/gateway/chain/lookup.js";
import { listedOf } from "../src/gateway/chain/offerings.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/chain/runtime.js";
import { answerHeadersOf } from "../src/gateway/chain/scope.js";
import type { CatalogHit } from "../src/lib/catalog-search/index.js";
import { ErrorCode, failure } from "../src/protocols/jsonrpc/index.js";
import { answerJson, bodyText, jsonBodyGuard } from "../src/protocols/jsonrpc/http.js";
import {
  type McpBackend,
  type McpOptions,
  SESSION_HEADER,
  answerMcpGet,
  answerMcpPost,
  logLevelsOf,
  renamedOf,
  repliesOf,
  requestStatesOf,
  resourceSubscriptionsOf,
} from "../src/mcp/index.js";
import { SSE_HEADERS } from "../src/protocols/sse/index.js";
import { viewOf } from "../src/registry/jobs/index.js";
import { serverInfoOf } from "../src/gateway/discovery/index.js";
import { enter } from "./enter.js";

type McpEnv = GatewayEnv;

const INSTRUCTIONS =
  "Every tool is a skill served by the Skillmesh gateway. Tools with idempotentHint may be retried freely; " +
  "for any other tool, send an Idempotency-Key header (with an Authorization: Bearer key) so a retry returns the first answer instead of running twice.";

type McpRouteEnv = { Bindings: McpEnv; Variables: { caller: Caller } };
export const mcpRoutes = new Hono<McpRouteEnv>();

mcpRoutes.delete("/", (c) =>
  c.json(failure(null, ErrorCode.InvalidRequest, "This MCP server keeps no session to end: POST one JSON-RPC message per request"), 405, {
    allow: "GET, POST",
  }),
);

/**
 * Answers one MCP POST as the default server (`/mcp`) or a virtual one (`/mcp/<server>`, src/gateway/servers):
 * a virtual server is a door that narrows the caller's access to what it exposes
 * (src/gateway/chain/door.ts), lists aliased tools under their aliases, and says its own instructions.
 */
async function answerMcp(c: Context<McpRouteEnv>, serverName?: string): Promise<Response> {
  const runtime = gatewayRuntime(c.env);
  const server = serverName === undefined ? undefined : await runtime.servers.get(serverName);
  // A credential that may not use this server learns nothing of whether it exists.
  const scope = enter(c, { kind: "mcp", ...(serverName !== undefined ? { serverName } : {}), ...(server ? { server } : {}) });
  if (scope instanceof Response) return scope;
  if (serverName !== undefined && !server)
    return c.json(failure(null, ErrorCode.MethodNotFound, `No MCP server /mcp/${serverName}; the default one is /mcp`), 404);
  if (server) {
    scope.server = server.name;
    scope.listedName = server.listedName;
    if (server.definition.guardrails) scope.guardrails = server.definition.guardrails;
  }
  // `?catalog=search`: the compact catalog (src/mcp/compact.ts), for agents facing thousands of tools;
  // `?catalog=code`: code mode, the same search and describe and a script runner over the tools.
  const catalogMode = c.req.query("catalog");
  if (catalogMode !== undefined && catalogMode !== "search" && catalogMode !== "code" && catalogMode !== "full") {
    return c.json(
      failure(
        null,
        ErrorCode.InvalidRequest,
        `?catalog= is "search" (a search tool instead of every tool), "code" (search, describe and code.execute) or "full" (the default), not ${catalogMode.slice(0, 40)}`,
      ),
      400,
    );
  }
  // The same renamed summary each time: a listen stream compares tools by identity.
  const listed = (summary: ToolSummary) =>
    server && server.listedName(summary.name) !== summary.name ? renamedOf(summary, server.listedName(summary.name)) : summary;
  const skillNamed = (name: string) => (server ? server.skillOf(name) : name);
  const called = (name: string) => skillNamed(name) ?? name;
  const catalogOf = () => new CallerCatalog(runtime, scope);
  const backend: McpBackend = {
    tools: async () => {
      const tools = await catalogOf().tools();
      return server ? tools.map(listed) : tools;
    },
    skill: async (name) => {
      const skill = skillNamed(name);
      const { entry } = skill === undefined ? {} : await callableEntry(runtime, scope, skill);
      return entry && listed(summaryOf(entry));
    },
    catalog: () => {
      const catalog = catalogOf();
      return {
        offerings: async () => listedOf(await catalog.offerings()),
        packages: () => catalog.packages(),
        servedBy: (uri) => catalog.servedBy(uri),
        revision: () => catalog.revision(),
      };
    },
    // A streamed call is cancelled by its stream closing (`streaming.signal`); see routes/rpc.ts
    // for why a plain JSON call carries no signal of the request's own.
    call: (name, params, slot, streaming) => invoke({ jsonrpc: "2.0", method: called(name), params, id: 0 }, slot, scope, runtime, c.env, streaming),
    run: async (operation) => {
      const done = await perform(operation, scope, runtime, c.env);
      // A search's tool hits are named as this server lists them.
      return server && operation.kind === "search" ?
          (done as CatalogHit[]).map((hit) => (hit.kind === "tool" ? { ...hit, name: server.listedName(hit.name) } : hit))
        : done;
    },
    refuse: (name, refusal) => refuseUnknown(called(name), refusal, scope, runtime, c.env),
    // MCP tasks are the gateway's async jobs: the same submit as `Prefer: respond-async` on /rpc.
    submit: (name, params, slot) => invoke({ jsonrpc: "2.0", method: called(name), params, id: 0 }, slot, { ...scope, respondAsync: true }, runtime, c.env),
    job: async (jobId) => {
      const job = await runtime.jobs.ownedBy(jobId, scope.context.caller);
      return job && viewOf(job);
    },
    requestStates: requestStatesOf(runtime.store, scope.context.caller),
    replies: repliesOf(runtime.store, scope.context.caller),
    logLevels: logLevelsOf(runtime.store, scope.context.caller),
    subscriptions: resourceSubscriptionsOf(runtime.store, scope.context.caller),
    caller: scope.context.caller,
    ...(scope.budgetMs !== undefined ? { budgetMs: scope.budgetMs } : {}),
  };
  const { config } = runtime;
  const options: McpOptions = {
    serverInfo: serverInfoOf(server?.name),
    instructions: server?.definition.instructions ?? INSTRUCTIONS,
    pageSize: config.mcpPageSize,
    listTtlMs: config.mcpListTtlMs,
    // With auth on, each key sees the tools its grants allow: no shared cache may reuse the list.
    listScope: config.auth.required ? "private" : "public",
    heartbeatMs: config.sseHeartbeatMs,
    clientGone: c.req.raw.signal,
    compact: catalogMode === "search" || catalogMode === "code",
    codeMode: catalogMode === "code",
  };
  // GET: a 2025 session's own stream (what changed); POST: one message.
  const { status, body, stream, sessionId } =
    c.req.method === "GET" ?
      await answerMcpGet(c.req.raw.headers, backend, options)
    : await answerMcpPost(c.req.raw.headers, await bodyText(c), backend, options);
  const headers = answerHeadersOf(scope);
  if (sessionId) headers[SESSION_HEADER] = sessionId;
  if (stream) return new Response(stream, { status, headers: { ...headers, ...SSE_HEADERS } });
  if (body === undefined) return new Response(null, { status, headers });
  return new Response(answerJson(body), { status, headers: { ...headers, "content-type": "application/json" } });
}

const caller = requireCaller((env: McpEnv) => gatewayRuntime(env));
mcpRoutes.post("/", jsonBodyGuard(), caller, (c) => answerMcp(c));
mcpRoutes.post("/:server", jsonBodyGuard(), caller, (c) => answerMcp(c, c.req.param("server")));
mcpRoutes.get("/", caller, (c) => answerMcp(c));
mcpRoutes.get("/:server", caller, (c) => answerMcp(c, c.req.param("server")));
mcpRoutes.delete("/:server", (c) =>
  c.json(failure(null, ErrorCode.InvalidRequest, "This MCP server keeps no session to end: POST one JSON-RPC message per request"), 405, {
    allow: "GET, POST",
  }),
);
