/**
 * `/upstreams/:name/credential`: a caller's own token for a `per-caller` upstream (src/upstream).
 * `PUT {"token": "…"}` stores it sealed, for this caller only; `GET` says whether one is stored
 * (never the token); `DELETE` forgets it. The caller authenticates as on `/rpc` and `/mcp`; its
 * Skillmesh credential is never sent upstream, only this token is.
 */
import { Hono, type Context } from "hono";
import { type Caller, requireCaller } from "../src/auth/index.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/runtime.js";
import { ErrorCode, describeIssues, failure } from "../src/jsonrpc/index.js";
import { bodyText, jsonBodyGuard } from "../src/jsonrpc/http.js";
import { safeJson } from "../src/json/index.js";
import { callerTokenStoredAt, removeCallerToken, storeCallerToken } from "../src/upstream/credentials.js";
import { CallerCredentialSchema } from "../src/upstream/model.js";

type CredentialEnv = { Bindings: GatewayEnv; Variables: { caller: Caller } };
export const upstreamCredentialRoutes = new Hono<CredentialEnv>();

upstreamCredentialRoutes.use("/:name/credential", requireCaller((env: GatewayEnv) => gatewayRuntime(env)));

/** The per-caller upstream named, or the answer that refuses the request. */
async function perCallerUpstream(c: Context<CredentialEnv>): Promise<{ name: string; caller: string } | Response> {
  const name = c.req.param("name")!;
  const caller = c.get("caller").id;
  if (caller === "anonymous") return c.json(failure(null, ErrorCode.Unauthorized, "A credential of your own needs an identified caller: send Authorization: Bearer <your key>"), 401);
  const record = await gatewayRuntime(c.env).upstreams.cached(name);
  // The same answer for an upstream that does not exist and one a caller brings no token to: nothing to learn by scanning.
  if (record?.auth.type !== "per-caller") return c.json(failure(null, ErrorCode.MethodNotFound, `No upstream ${name} takes a credential of its callers`), 404);
  return { name, caller };
}

upstreamCredentialRoutes.put("/:name/credential", jsonBodyGuard(), async (c) => {
  const target = await perCallerUpstream(c);
  if (target instanceof Response) return target;
  const parsed = CallerCredentialSchema.safeParse(safeJson(await bodyText(c)));
  if (!parsed.success) return c.json(failure(null, ErrorCode.InvalidParams, 'Invalid credential: send {"token": "…"}', { issues: describeIssues(parsed.error) }), 400);
  const runtime = gatewayRuntime(c.env);
  if (!runtime.config.upstreamKey) return c.json(failure(null, ErrorCode.SkillUnavailable, "This gateway cannot keep credentials (no SKILLMESH_UPSTREAM_KEY)"), 503);
  await storeCallerToken(runtime.store, runtime.config.upstreamKey, target.name, target.caller, parsed.data.token);
  return c.json({ upstream: target.name, stored: true });
});

upstreamCredentialRoutes.get("/:name/credential", async (c) => {
  const target = await perCallerUpstream(c);
  if (target instanceof Response) return target;
  const at = await callerTokenStoredAt(gatewayRuntime(c.env).store, target.name, target.caller);
  return c.json({ upstream: target.name, stored: at !== undefined, ...(at !== undefined ? { storedAt: new Date(at).toISOString() } : {}) });
});

upstreamCredentialRoutes.delete("/:name/credential", async (c) => {
  const target = await perCallerUpstream(c);
  if (target instanceof Response) return target;
  return c.json({ upstream: target.name, removed: await removeCallerToken(gatewayRuntime(c.env).store, target.name, target.caller) });
});
