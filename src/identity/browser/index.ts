/**
 * What a web page may do to the gateway (DNS rebinding and cross-site requests; the MCP
 * transport spec asks it of `/mcp`, and every other route is just as reachable): a request
 * with an `Origin` header must come from an allowed origin (or be the gateway's own page, the
 * dashboard), and a gateway that listens on
 * loopback answers only to a loopback `Host`. Requests without `Origin` (agents, CLIs, servers)
 * pass the first check.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { ErrorCode, failure } from "../../protocols/jsonrpc/index.js";

/** Allowed when `SKILLMESH_ALLOWED_ORIGINS` is unset: pages served from this machine only. */
const LOOPBACK_ORIGIN = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/** The allow lists (src/gateway/config: `SKILLMESH_ALLOWED_ORIGINS`, `SKILLMESH_ALLOWED_HOSTS`), lower-case; `*` allows any. */
export interface BrowserAllowLists {
  /** Origins allowed to call from a browser page; undefined: loopback pages only. */
  allowedOrigins?: string[];
  /** Host names the gateway answers to (port ignored); undefined: any. */
  allowedHosts?: string[];
}

/**
 * True when a request with this `Origin` header may be served.
 * @example isAllowedOrigin("http://evil.example", undefined) // false
 */
export function isAllowedOrigin(origin: string | null | undefined, allowed: string[] | undefined): boolean {
  if (!origin) return true;
  if (!allowed) return LOOPBACK_ORIGIN.test(origin);
  return allowed.includes("*") || allowed.includes(origin.toLowerCase());
}

/**
 * True when the `Host` header names one of the allowed host names (any port); `allowed`
 * undefined or `*` allows every host. A DNS-rebinding page reaches a loopback gateway under its
 * own host name, so a loopback gateway allows only loopback names.
 * @example isAllowedHost("evil.example:8787", ["localhost", "127.0.0.1"]) // false
 */
export function isAllowedHost(host: string | null | undefined, allowed: string[] | undefined): boolean {
  if (!allowed || allowed.includes("*")) return true;
  // No Host at all: not a browser (a browser always sends one), e.g. a pipeline's step arriving
  // by service binding. The check is there for pages, which cannot leave it out.
  if (host === null || host === undefined) return true;
  if (!host) return false;
  const name = host.toLowerCase().replace(/:\d{1,5}$/, "");
  return allowed.includes(name);
}

/**
 * The paths no other origin may call, whatever `SKILLMESH_ALLOWED_ORIGINS` says (`*` included):
 * the admin API and the dashboard. The allow list is for pages that call `/rpc` and `/mcp`; a
 * page elsewhere that could post to `/admin/ui/session` could sign a browser in as its own admin
 * (login CSRF), or sign it out.
 */
export const OWN_ORIGIN_ONLY = /^\/admin(\/|$)/;

/**
 * Middleware for every route of the gateway: 403 with a JSON-RPC error for a `Host` or an
 * `Origin` that is not allowed (for `/admin/*`, any `Origin` but the gateway's own). A request
 * `isPublic` says is for a public document skips the `Origin` check (not the `Host` one).
 * @example gateway.use(browserGuard((env) => gatewayRuntime(env).config))
 */
export function browserGuard<E extends object>(
  listsOf: (env: E) => BrowserAllowLists,
  isPublic: (method: string, path: string) => boolean = () => false,
): MiddlewareHandler<{ Bindings: E }> {
  return async (c, next) => {
    const { allowedHosts, allowedOrigins } = listsOf(c.env);
    const host = c.req.header("host");
    if (!isAllowedHost(host, allowedHosts)) {
      return c.json(failure(null, ErrorCode.InvalidRequest, `This gateway does not answer to the host ${host ?? "(none)"}`), 403);
    }
    // A public document (the same for everyone, no credential read) is any page's to read.
    if (isPublic(c.req.method, c.req.path)) return next();
    const origin = c.req.header("origin");
    // A page of the gateway itself (the dashboard) is same-origin: its host passed the check above.
    const sameOrigin = !!origin && origin.toLowerCase() === new URL(c.req.url).origin.toLowerCase();
    if (!sameOrigin && origin && OWN_ORIGIN_ONLY.test(c.req.path)) {
      return c.json(
        failure(null, ErrorCode.InvalidRequest, `Origin ${origin} may not call the admin API or the dashboard: only the gateway's own pages may`),
        403,
      );
    }
    if (!sameOrigin && !isAllowedOrigin(origin, allowedOrigins)) {
      return c.json(failure(null, ErrorCode.InvalidRequest, `Origin ${origin} is not allowed to call this gateway`), 403);
    }
    await next();
  };
}

/**
 * CORS (Hono's `cors`) for the routes a page's script calls — `/rpc`, `/mcp` and the OAuth
 * metadata — so that a browser agent or MCP client on an allowed origin (the rule of
 * `isAllowedOrigin`) gets its preflight answered and may read the answer and the `exposed`
 * headers (CORS hides all but a few). The request headers a preflight asks for are allowed as
 * asked (MCP's `Mcp-Param-*` names are the tools'); no credentials mode, since callers send
 * bearer headers, not cookies. A request without `Origin` (every agent that is not a page) skips it.
 * @example gateway.use("/rpc", browserCors((env) => gatewayRuntime(env).config, ["x-skill-version"]))
 */
export function browserCors<E extends object>(listsOf: (env: E) => BrowserAllowLists, exposed: readonly string[]): MiddlewareHandler<{ Bindings: E }> {
  const policy = cors({
    origin: (origin, c) => (isAllowedOrigin(origin, listsOf(c.env as E).allowedOrigins) ? origin : null),
    allowMethods: ["GET", "POST", "OPTIONS"],
    exposeHeaders: [...exposed],
    maxAge: 7200, // Chromium's cap: a page's calls are preflighted once per two hours, not each time
  });
  return (c, next) => (c.req.header("origin") ? policy(c, next) : next());
}
