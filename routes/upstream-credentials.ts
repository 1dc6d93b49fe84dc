/**
 * `/upstreams/:name/credential`: a caller's own token for a `per-caller` upstream (src/federation/upstream).
 * `PUT {"token": "…"}` stores it sealed, for this caller only; `GET` says whether one is stored
 * (never the token); `DELETE` forgets it. The caller authenticates as on `/rpc` and `/mcp`; its
 * Skillmesh credential is never sent upstream, only this token is. It is a door of its own
 * (src/gateway/chain/door.ts): a key limited to virtual servers and a pipeline's delegation token are
 * refused here. Each request is an operation of the one call chain (kind `credential`): resolved
 * to a per-caller upstream one of whose tools the caller may call (else 404, the same answer for
 * one that does not exist), charged, traced, counted and audited — never with the token.
 */
import { Hono, type Context } from "hono";
import { type Caller, requireCaller } from "../src/identity/auth/index.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/chain/runtime.js";
import { answerHeadersOf } from "../src/gateway/chain/scope.js";
import { ErrorCode, describeIssues, failure } from "../src/protocols/jsonrpc/index.js";
import { bodyText, jsonBodyGuard } from "../src/protocols/jsonrpc/http.js";
import { safeJson } from "../src/lib/json/index.js";
import { CallerCredentialSchema } from "../src/federation/upstream/model.js";
import { enter } from "./enter.js";
import { performed } from "./performed.js";

type CredentialEnv = { Bindings: GatewayEnv; Variables: { caller: Caller } };
export const upstreamCredentialRoutes = new Hono<CredentialEnv>();

upstreamCredentialRoutes.use(
  "/:name/credential",
  requireCaller((env: GatewayEnv) => gatewayRuntime(env)),
);

const CREDENTIAL_DOOR = { kind: "credential" } as const;

/** Runs one request on the caller's credential for upstream `:name` through the call chain, answering its result or its refusal. */
async function credentialRequest(c: Context<CredentialEnv>, verb: "PUT" | "GET" | "DELETE", token?: string): Promise<Response> {
  if (c.get("caller").id === "anonymous")
    return c.json(failure(null, ErrorCode.Unauthorized, "A credential of your own needs an identified caller: send Authorization: Bearer <your key>"), 401);
  const scope = enter(c, CREDENTIAL_DOOR);
  if (scope instanceof Response) return scope;
  const upstream = c.req.param("name")!;
  const operation = { kind: "credential", method: `${verb} /upstreams/credential`, verb, upstream, ...(token !== undefined ? { token } : {}) } as const;
  const notFound = `No upstream ${upstream.slice(0, 64)} you may call takes a credential of its callers`;
  const answer = await performed<object>(c, scope, operation, notFound);
  return answer instanceof Response ? answer : c.json(answer, 200, answerHeadersOf(scope));
}

upstreamCredentialRoutes.put("/:name/credential", jsonBodyGuard(), async (c) => {
  const parsed = CallerCredentialSchema.safeParse(safeJson(await bodyText(c)));
  if (!parsed.success)
    return c.json(failure(null, ErrorCode.InvalidParams, 'Invalid credential: send {"token": "…"}', { issues: describeIssues(parsed.error) }), 400);
  return credentialRequest(c, "PUT", parsed.data.token);
});
upstreamCredentialRoutes.get("/:name/credential", (c) => credentialRequest(c, "GET"));
upstreamCredentialRoutes.delete("/:name/credential", (c) => credentialRequest(c, "DELETE"));
