/**
 * `/admin/*`: the operator's API, one file per resource, each mounted here with `app.route()`.
 * Every route needs `Authorization: Bearer $SKILLMESH_ADMIN_TOKEN` or an API key with admin access
 * (`read`: GET only; `write`: all), src/identity/auth/admin.ts; anything else is 401 (403 for a
 * read-only key that tries to write). A refusal of any layer is answered once, in `onError`
 * (respond.ts, `refusalOf`).
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
// Generated from the admin API's zod schemas by `npm run reference` (scripts/admin-openapi.ts).
import openApiDocument from "../../src/admin/api/openapi.json";
import { UI_HEADER, endAllSessions, sessionOf, sessionTokenOf } from "../../src/admin/dashboard/session.js";
import { redactedUrls } from "../../src/federation/upstream/definitions.js";
import { gatewayRuntime } from "../../src/gateway/chain/runtime.js";
import { checkAdmin } from "../../src/identity/auth/admin.js";
import { allowsAdmin } from "../../src/identity/auth/index.js";
import { safeJson } from "../../src/lib/json/index.js";
import { addressIdOf } from "../../src/protocols/context/index.js";
import { RETRY_AFTER_STORE_MS, routeFailureStatus } from "../../src/store/index.js";
import { auditRoutes } from "./audit.js";
import { deploymentRoutes } from "./deployments.js";
import { keyRoutes } from "./keys.js";
import { metricRoutes } from "./metrics.js";
import { packageRoutes } from "./packages.js";
import { type AdminEnv, adminError, refusalOf } from "./respond.js";
import { serverRoutes } from "./servers.js";
import { skillRoutes } from "./skills.js";
import { upstreamRoutes } from "./upstreams.js";

export const adminRoutes = new Hono<AdminEnv>();

adminRoutes.use("*", async (c, next) => {
  const runtime = gatewayRuntime(c.env);
  const action = `${c.req.method} ${c.req.path}`;
  const audit = (entry: { by: string; status: number }) =>
    runtime.audit.record({ type: "admin", at: Date.now(), action, ...entry }, (p) => c.executionCtx.waitUntil(p));
  // The one admin check (the dashboard's sign-in makes it too): an address that failed too often lately is not even looked at.
  const presented = c.req.header("authorization") !== undefined;
  const address = presented ? await addressIdOf(c.req.header("cf-connecting-ip")) : undefined;
  const check = await checkAdmin(runtime, c.req.raw.headers, address);
  if ("waitMs" in check) {
    c.header("retry-after", String(Math.ceil(check.waitMs / 1000)));
    return adminError(c, 429, `Too many failed admin credentials from this address; retry after ${Math.ceil(check.waitMs / 1000)} s`);
  }
  let { level, by } = check.identity;
  // The dashboard's session cookie (src/admin/dashboard/session.ts) stands for the credential it was opened with.
  const session = level === "none" && !c.req.header("authorization") ? await sessionOf(runtime, sessionTokenOf(c)) : undefined;
  if (session) {
    if (c.req.method !== "GET" && c.req.header(UI_HEADER) !== "1")
      return adminError(c, 403, `Forbidden: a change made with the dashboard's session needs the ${UI_HEADER} header`);
    ({ level, by } = session);
  }
  if (level === "none") {
    // A wrong credential (not a missing one) was counted against its address; it is audited under it.
    if (address) audit({ by: address, status: 401 });
    c.header("www-authenticate", 'Bearer realm="skillmesh-admin"');
    return adminError(c, 401, "Unauthorized: send Authorization: Bearer <SKILLMESH_ADMIN_TOKEN> or an API key with admin access");
  }
  if (!allowsAdmin(level, c.req.method)) {
    audit({ by, status: 403 });
    return adminError(c, 403, "Forbidden: this key may only read the admin API (admin: read)");
  }
  c.set("by", by);
  await next();
  if (c.req.method !== "GET") audit({ by, status: c.res.status }); // every change, whoever made it and how it went
  // A read-only admin never sees a credential in a URL (an upstream's, a skill's, a token URL), whichever route answers.
  if (level === "read" && c.res.headers.get("content-type")?.startsWith("application/json")) {
    const body = safeJson(await c.res.text());
    const headers = new Headers(c.res.headers);
    headers.delete("content-length");
    c.res = new Response(JSON.stringify(redactedUrls(body)), { status: c.res.status, headers });
  }
});

adminRoutes.onError((error, c) => {
  if (error instanceof HTTPException) return error.getResponse(); // a ready answer, e.g. an unreadable body
  const refusal = refusalOf(error);
  if (refusal) return adminError(c, refusal.status, refusal.message, refusal.details);
  const status = routeFailureStatus("[admin]", error);
  return adminError(c, status, status === 503 ? `The registry store is unavailable; retry in ${RETRY_AFTER_STORE_MS / 1000} s` : "Internal error");
});

adminRoutes.route("/deployments", deploymentRoutes);
adminRoutes.route("/skills", skillRoutes);
adminRoutes.route("/upstreams", upstreamRoutes);
adminRoutes.route("/servers", serverRoutes);
adminRoutes.route("/agent-skills", packageRoutes);
adminRoutes.route("/keys", keyRoutes);
adminRoutes.route("/metrics", metricRoutes);
adminRoutes.route("/audit", auditRoutes);

/** Signs every dashboard session out (each stands for a credential; this ends them all at once). */
adminRoutes.delete("/sessions", async (c) => {
  await endAllSessions(gatewayRuntime(c.env));
  return c.json({ ended: true });
});

/** The admin API as an OpenAPI 3.1 document (src/admin/api/openapi.json). */
adminRoutes.get("/openapi.json", (c) => c.json(openApiDocument));

adminRoutes.notFound((c) =>
  adminError(
    c,
    404,
    "Unknown admin route: GET|POST /admin/deployments, DELETE /admin/deployments/:name@:version, GET /admin/skills/:name, GET|POST /admin/upstreams, GET|DELETE /admin/upstreams/:name, POST /admin/upstreams/:name/{refresh,approve}, GET /admin/servers, PUT|DELETE /admin/servers/:name, POST /admin/skills/:name/{canary,promote,rollback,rollout}, POST /admin/skills/:name/rollout/{pause,resume,abort}, PUT /admin/skills/:name/routes, GET|POST /admin/keys, PATCH|DELETE /admin/keys/:id, DELETE /admin/sessions, GET|POST /admin/agent-skills, GET|DELETE /admin/agent-skills/:name, POST /admin/agent-skills/:name/{canary,promote,rollback}, GET /admin/audit, GET /admin/metrics, GET /admin/openapi.json (all of them), the dashboard at /admin/ui",
  ),
);
