/**
 * The gateway Worker (wrangler.toml `main`): mounts the route modules. Anything that escapes a
 * route becomes a well-formed JSON error without a stack.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { browserCors, browserGuard } from "../src/identity/browser/index.js";
import { isDiscoveryRequest } from "../src/gateway/discovery/index.js";
import { discoveryRoutes } from "./discovery.js";
import { configOf } from "../src/gateway/config/index.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/chain/runtime.js";
import { ANSWER_HEADERS } from "../src/gateway/chain/scope.js";
import { drainUnreadBody } from "../src/protocols/jsonrpc/http.js";
import { ErrorCode, errorText, failure } from "../src/protocols/jsonrpc/index.js";
import { a2aRoutes } from "./a2a.js";
import { adminRoutes } from "./admin/index.js";
import { healthRoutes } from "./health.js";
import { mcpRoutes } from "./mcp.js";
import { SESSION_HEADER } from "../src/mcp/index.js";
import { recoverStrandedJobs } from "../src/gateway/job-runner/index.js";
import { rpcRoutes } from "./rpc.js";
import { uiRoutes } from "./ui/index.js";
import { upstreamCredentialRoutes } from "./upstream-credentials.js";
import { recordSync } from "../src/federation/upstream/sync.js";
import { wellKnownRoutes } from "./well-known.js";

const gateway = new Hono<{ Bindings: GatewayEnv }>();

// Outermost: a body left unread by a refusal is read before the answer goes out.
gateway.use(drainUnreadBody());

// Settings that do not parse: every route says which (and /healthz too), nothing runs half-configured.
gateway.use(async (c, next) => {
  const { problems } = configOf(c.env);
  if (!problems) return next();
  const message = `The gateway is misconfigured: ${problems.join("; ")}`;
  if (c.req.path === "/healthz") return c.json({ status: "misconfigured", problems }, 503);
  return c.json(failure(null, ErrorCode.SkillUnavailable, message, { problems }), 503);
});

// Before any route: a web page (cross-site, or DNS-rebound to a local gateway) gets nothing.
gateway.use(browserGuard((env: GatewayEnv) => gatewayRuntime(env).config, isDiscoveryRequest));
// The discovery documents: public, any page may read them (their own CORS, before the pages' one).
gateway.route("/", discoveryRoutes);
// A page that passed the guard may read what it called (CORS), on the routes meant for agents:
// the answer, its call headers, and the OAuth challenge of a 401 (a browser MCP client follows it).
const pageCors = browserCors((env: GatewayEnv) => gatewayRuntime(env).config, [...ANSWER_HEADERS, "www-authenticate", SESSION_HEADER]);
for (const path of ["/rpc", "/mcp", "/mcp/*", "/.well-known/*", "/a2a/*"]) gateway.use(path, pageCors);

gateway.route("/rpc", rpcRoutes);
gateway.route("/mcp", mcpRoutes);
// Before the admin API: its sign-in page is the one /admin path that needs no credential.
gateway.route("/admin/ui", uiRoutes);
gateway.route("/admin", adminRoutes);
gateway.route("/healthz", healthRoutes);
gateway.route("/upstreams", upstreamCredentialRoutes);
gateway.route("/.well-known", wellKnownRoutes);
gateway.route("/a2a", a2aRoutes);
gateway.get("/", (c) =>
  c.json({
    name: "skillmesh-gateway",
    rpc: "POST /rpc",
    mcp: "POST /mcp",
    a2a: "POST /a2a/<agent>",
    health: "GET /healthz",
    admin: "/admin/deployments (bearer token)",
  }),
);

gateway.notFound((c) =>
  c.json(failure(null, ErrorCode.MethodNotFound, `No route ${c.req.method} ${c.req.path}; JSON-RPC is served at POST /rpc, MCP at POST /mcp`), 404),
);
gateway.onError((error, c) => {
  if (error instanceof HTTPException) return error.getResponse(); // a ready answer, e.g. an unreadable body
  console.error("[gateway] unhandled:", error);
  return c.json(failure(null, ErrorCode.InternalError), 500);
});

/**
 * Whether `scheduled` was called by a Cron Trigger: a Worker bound to the gateway (a pipeline)
 * may call any function of its module over Workers RPC, `scheduled` too, and what it passes
 * arrives as a plain object or a stub — never as the runtime's ScheduledController.
 */
function isCronTrigger(controller: unknown): boolean {
  return typeof controller === "object" && controller !== null && Object.getPrototypeOf(controller)?.constructor?.name === "ScheduledController";
}

/**
 * The Cron Trigger (wrangler.toml `[triggers]`, once a minute): judges every running rollout
 * and moves it on, or back (src/registry/delivery), recovers the async jobs whose runner was lost
 * (src/gateway/job-runner/index.ts), and reads again the definitions of upstreams not read for
 * `SKILLMESH_UPSTREAM_REFRESH_MS` (src/federation/upstream: changes are held for approval, and audited).
 */
async function scheduled(controller: ScheduledController, env: GatewayEnv, ctx: ExecutionContext): Promise<void> {
  if (!isCronTrigger(controller)) return void console.error("[gateway] refused a scheduled event that no Cron Trigger sent (a bound Worker's RPC call)");
  const tick = async () => {
    const verdicts = await gatewayRuntime(env).rollouts.tick(Date.now());
    for (const [skill, verdict] of Object.entries(verdicts)) if (verdict.type !== "hold") console.log(`[rollout] ${skill}: ${verdict.type}: ${verdict.reason}`);
  };
  const recover = async () => {
    for (const [job, what] of Object.entries(await recoverStrandedJobs(env, Date.now()))) console.log(`[jobs] ${job}: ${what}`);
  };
  const refresh = async () => {
    const runtime = gatewayRuntime(env);
    const reports = await runtime.upstreams.sync.refreshDue(runtime.config.upstreamRefreshMs, Date.now());
    recordSync(runtime.audit, reports, "refresh", (p) => ctx.waitUntil(p));
    if (reports.some((r) => r.held.length || r.removed.length)) runtime.snapshot.invalidate();
    await runtime.audit.flushNow();
  };
  ctx.waitUntil(tick().catch((error) => console.error("[rollout] tick failed:", errorText(error))));
  ctx.waitUntil(refresh().catch((error) => console.error("[upstream] refresh failed:", errorText(error))));
  ctx.waitUntil(recover().catch((error) => console.error("[jobs] recovery failed:", errorText(error))));
}

export default { fetch: gateway.fetch, scheduled } satisfies ExportedHandler<GatewayEnv>;
// Declared egress: where the local dispatch namespace's scripts send their requests
// (src/federation/dispatch/local.ts), and where the namespace's outbound Worker reports refusals (workers/egress).
export { EgressAudit, SkillEgress } from "./egress.js";
// The Workflow class of async jobs (wrangler.toml [[workflows]]).
export { JobWorkflow } from "../src/gateway/job-runner/workflow.js";
