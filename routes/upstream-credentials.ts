/**
 * `/upstreams/:name/credential`: a caller's own token for a `per-caller` upstream (src/upstream).
 * `PUT {"token": "…"}` stores it sealed, for this caller only; `GET` says whether one is stored
 * (never the token); `DELETE` forgets it. The caller authenticates as on `/rpc` and `/mcp`; its
 * Skillmesh credential is never sent upstream, only this token is. It is a door of its own
 * (src/gateway/door.ts): a key limited to virtual servers and a pipeline's delegation token are
 * refused here, and a caller manages a credential only for an upstream it may call a tool of.
 */
import { Hono, type Context } from "hono";
import { type Caller, requireCaller } from "../src/auth/index.js";
import { CallerCatalog } from "../src/gateway/caller-catalog.js";
import { accessThrough } from "../src/gateway/door.js";
import { upstreamsOfView } from "../src/gateway/offerings.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/runtime.js";
import { callScopeOf } from "../src/gateway/scope.js";
import { ErrorCode, describeIssues, failure } from "../src/jsonrpc/index.js";
import { bodyText, jsonBodyGuard } from "../src/jsonrpc/http.js";
import { safeJson } from "../src/json/index.js";
import { callerTokenStoredAt, removeCallerToken, storeCallerToken } from "../src/upstream/credentials.js";
import { CallerCredentialSchema } from "../src/upstream/model.js";
import { authOf } from "../src/upstream/index.js";

type CredentialEnv = { Bindings: GatewayEnv; Variables: { caller: Caller } };
export const upstreamCredentialRoutes = new Hono<CredentialEnv>();

upstreamCredentialRoutes.use(
  "/:name/credential",
  requireCaller((env: GatewayEnv) => gatewayRuntime(env)),
);

const CREDENTIAL_DOOR = { kind: "credential" } as const;

/** The per-caller upstream named, if this caller may call one of its tools, or the answer that refuses the request. */
async function perCallerUpstream(c: Context<CredentialEnv>): Promise<{ name: string; caller: string } | Response> {
  const name = c.req.param("name")!;
  const caller = c.get("caller");
  if (caller.id === "anonymous")
    return c.json(failure(null, ErrorCode.Unauthorized, "A credential of your own needs an identified caller: send Authorization: Bearer <your key>"), 401);
  const entered = accessThrough(caller, CREDENTIAL_DOOR);
  if ("refused" in entered) return c.json(failure(null, ErrorCode.Unauthorized, entered.refused), 403);
  const runtime = gatewayRuntime(c.env);
  const record = await runtime.upstreams.cached(name);
  const scope = callScopeOf(c.req.raw.headers, caller, (p) => c.executionCtx.waitUntil(p), entered.access);
  const perCaller = record && Object.keys(record.versions).some((version) => authOf(record, version).type === "per-caller");
  const tools = perCaller ? (upstreamsOfView(await new CallerCatalog(runtime, scope).view()).get(name) ?? []) : [];
  // The same answer for an upstream that does not exist, one a caller brings no token to, and one
  // whose tools the caller may not call: nothing to learn by scanning.
  if (!tools.some((tool) => entered.access.allowsSkill(tool.name, tool.tags)))
    return c.json(failure(null, ErrorCode.MethodNotFound, `No upstream ${name.slice(0, 64)} you may call takes a credential of its callers`), 404);
  return { name, caller: caller.id };
}

upstreamCredentialRoutes.put("/:name/credential", jsonBodyGuard(), async (c) => {
  const target = await perCallerUpstream(c);
  if (target instanceof Response) return target;
  const parsed = CallerCredentialSchema.safeParse(safeJson(await bodyText(c)));
  if (!parsed.success)
    return c.json(failure(null, ErrorCode.InvalidParams, 'Invalid credential: send {"token": "…"}', { issues: describeIssues(parsed.error) }), 400);
  const runtime = gatewayRuntime(c.env);
  if (!runtime.config.upstreamKey)
    return c.json(failure(null, ErrorCode.SkillUnavailable, "This gateway cannot keep credentials (no SKILLMESH_UPSTREAM_KEY)"), 503);
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
