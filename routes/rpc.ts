/** `POST /rpc`: JSON-RPC 2.0, every request of a body through the one invocation pipeline. */
import { Hono } from "hono";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/runtime.js";
import { invoke } from "../src/gateway/pipeline.js";
import { answerHeadersOf, callScopeOf } from "../src/gateway/scope.js";
import { processJsonRpc } from "../src/jsonrpc/index.js";
import { bodyText, jsonBodyGuard, toHttpResponse } from "../src/jsonrpc/http.js";

export const rpcRoutes = new Hono<{ Bindings: GatewayEnv }>();

rpcRoutes.post("/", jsonBodyGuard(), async (c) => {
  const runtime = gatewayRuntime(c.env);
  const scope = await callScopeOf(c.req.raw.headers, (promise) => c.executionCtx.waitUntil(promise));
  const processed = await processJsonRpc(await bodyText(c), (request, slot) => invoke(request, slot, scope, runtime, c.env));
  return toHttpResponse(processed, answerHeadersOf(scope));
});
