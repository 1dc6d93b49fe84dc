/**
 * The dashboard's routes at `/admin/ui`: its assets, sign-in and sign-out, and the page (pages.ts,
 * made of the cards of cards.ts and audit-panel.ts): every skill and version (role, weight per
 * group, breaker, observed numbers and a chart of the last hour), the rollouts, recent events and
 * audit entries, the federated upstreams (their versions, health, tools and held definition
 * changes), and — for a write-level admin — controls that call the admin API. Sign-in makes the
 * admin API's own check (`checkAdmin`) and trades the credential for a session cookie
 * (src/admin/dashboard/session.ts). One small script (`app.js`), no inline code, a strict
 * Content-Security-Policy.
 */
import { type Context, Hono } from "hono";
import { checkAdmin } from "../../src/identity/auth/admin.js";
import { auditQueryOf } from "./audit-panel.js";
import { dashboardPage, ICON, signIn, unavailablePage } from "./pages.js";
import { deleteCookie, setCookie } from "hono/cookie";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { addressIdOf } from "../../src/protocols/context/index.js";
import { type GatewayEnv, gatewayRuntime } from "../../src/gateway/chain/runtime.js";
import { RETRY_AFTER_STORE_MS, routeFailureStatus } from "../../src/store/index.js";
import { UI_COOKIE, UI_SESSION_MS, endSession, sessionOf, sessionTokenOf, startSession } from "../../src/admin/dashboard/session.js";
import { deploymentsPage, upstreamHealthOf } from "../../src/admin/operator-view/index.js";
// The page's script and style, bundled as text (wrangler.toml [[rules]] type = "Text").
import SCRIPT from "../ui-assets/app.client.js";
import STYLES from "../ui-assets/style.css";

export const uiRoutes = new Hono<{ Bindings: GatewayEnv }>();

uiRoutes.use(
  secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
    // Not no-referrer: with it, browsers send `Origin: null` on the sign-in form's POST.
    referrerPolicy: "same-origin",
  }),
);
uiRoutes.use(async (c, next) => {
  await next();
  c.header("cache-control", "no-store");
});

// A page, not JSON, when something fails: a store that does not answer says so (503).
uiRoutes.onError((error, c) => {
  if (error instanceof HTTPException) return error.getResponse();
  const status = routeFailureStatus("[ui]", error);
  const message =
    status === 503 ?
      `The gateway's store is unavailable; reload in ${RETRY_AFTER_STORE_MS / 1000} s.`
    : "Something went wrong on the gateway; its log has the error.";
  c.header("cache-control", "no-store");
  return c.html(unavailablePage(message), status);
});

uiRoutes.get("/app.css", (c) => c.body(STYLES, 200, { "content-type": "text/css; charset=utf-8" }));
uiRoutes.get("/icon.svg", (c) => c.body(ICON, 200, { "content-type": "image/svg+xml" }));
uiRoutes.get("/app.js", (c) => c.body(SCRIPT, 200, { "content-type": "text/javascript; charset=utf-8" }));

/** Audits a sign-in or sign-out (the request's own method and path) under who made it. */
const audit = (c: Context<{ Bindings: GatewayEnv }>, by: string, status: number) =>
  gatewayRuntime(c.env).audit.record({ type: "admin", at: Date.now(), by, action: `${c.req.method} ${c.req.path}`, status }, (p) =>
    c.executionCtx.waitUntil(p),
  );

/** Sign-in: the credential is checked as the admin API checks it, then exchanged for a session. */
uiRoutes.post("/session", async (c) => {
  const runtime = gatewayRuntime(c.env);
  const address = await addressIdOf(c.req.header("cf-connecting-ip"));
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const key = typeof form.key === "string" ? form.key : "";
  // The admin API's own check; only the credential typed in counts: the request's own headers (an address, a stray Authorization) are not it.
  const check = await checkAdmin(runtime, new Headers({ authorization: `Bearer ${key}` }), address);
  if ("waitMs" in check)
    return c.html(signIn(`Too many failed sign-ins from this address; try again in ${Math.ceil(check.waitMs / 1000)} s.`), 429, {
      "retry-after": String(Math.ceil(check.waitMs / 1000)),
    });
  const { identity } = check;
  if (identity.level === "none") {
    audit(c, address, 401);
    return c.html(signIn("That is not an admin token or an API key with admin access."), 401);
  }
  const token = await startSession(runtime, identity);
  audit(c, identity.by, 303);
  setCookie(c, UI_COOKIE, token, {
    path: "/admin",
    httpOnly: true,
    sameSite: "Strict",
    secure: new URL(c.req.url).protocol === "https:",
    maxAge: UI_SESSION_MS / 1000,
  });
  return c.redirect("/admin/ui", 303);
});

uiRoutes.post("/logout", async (c) => {
  const runtime = gatewayRuntime(c.env);
  const token = sessionTokenOf(c);
  const session = await sessionOf(runtime, token);
  await endSession(runtime, token);
  if (session) audit(c, session.by, 303);
  deleteCookie(c, UI_COOKIE, { path: "/admin" });
  return c.redirect("/admin/ui", 303);
});

uiRoutes.get("/", async (c) => {
  const runtime = gatewayRuntime(c.env);
  const session = await sessionOf(runtime, sessionTokenOf(c));
  if (!session) return c.html(signIn());
  const registry = await deploymentsPage(runtime, { limit: 100 });
  const ids = registry.deployments.slice(0, 200).map((d) => d.id);
  const auditQuery = auditQueryOf(c.req.query());
  const [history, auditPage, keys, upstreams, packages] = await Promise.all([
    runtime.metrics.history(ids),
    runtime.audit.read(auditQuery),
    runtime.keys.list(),
    runtime.upstreams.records.views(),
    runtime.packages.list(),
  ]);
  const upstreamHealth = await upstreamHealthOf(runtime.store, upstreams);
  return c.html(dashboardPage({ session, registry, history, auditQuery, auditPage, keys, upstreams, upstreamHealth, packages }));
});
