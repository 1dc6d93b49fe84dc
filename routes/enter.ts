/**
 * How a route that acts for a caller lets it in: through its door (src/gateway/chain/door.ts), which
 * says what the caller may do there, into the one scope of the request. A scope is made only with
 * a door's access, so a new route cannot give a caller more than its door allows.
 */
import type { Context } from "hono";
import type { Caller } from "../src/identity/auth/index.js";
import { type Door, accessThrough } from "../src/gateway/chain/door.js";
import { type CallScope, callScopeOf } from "../src/gateway/chain/scope.js";
import { ErrorCode, failure } from "../src/protocols/jsonrpc/index.js";

/**
 * The request's scope through `door`, or the 403 that refuses its caller there.
 * @example const scope = enter(c, { kind: "rpc" }); if (scope instanceof Response) return scope
 */
export function enter(c: Pick<Context<{ Variables: { caller: Caller } }>, "get" | "json" | "req" | "executionCtx">, door: Door): CallScope | Response {
  const caller = c.get("caller");
  const entered = accessThrough(caller, door);
  if ("refused" in entered) return c.json(failure(null, ErrorCode.Unauthorized, entered.refused), 403);
  return callScopeOf(c.req.raw.headers, caller, (promise) => c.executionCtx.waitUntil(promise), entered.access);
}
