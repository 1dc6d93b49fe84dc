/** `POST /rpc`: JSON-RPC 2.0, every request of a body through the one invocation pipeline. */
import { Hono } from "hono";
import { type Caller, requireCaller } from "../src/auth/index.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/runtime.js";
import { invoke } from "../src/gateway/pipeline.js";
import { answerHeadersOf, callScopeOf } from "../src/gateway/scope.js";
import { processJsonRpc } from "../src/jsonrpc/index.js";
import { bodyText, jsonBodyGuard, toHttpResponse } from "../src/jsonrpc/http.js";

export const rpcRoutes = new Hono<{ Bindings: GatewayEnv; Variables: { caller: Caller } }>();

rpcRoutes.post("/", jsonBodyGuard(), requireCaller((env: GatewayEnv) => gatewayRuntime(env)), async (c) => {
  const runtime = gatewayRuntime(c.env);
  const scope = callScopeOf(c.req.raw.headers, c.get("caller"), (promise) => c.executionCtx.waitUntil(promise));
  const processed = await processJsonRpc(await bodyText(c), (request, slot) => invoke(request, slot, scope, runtime, c.env));
  return toHttpResponse(processed, answerHeadersOf(scope));
});
