/** `POST /rpc`: JSON-RPC 2.0, every request of a body through the one invocation pipeline. */
import { Hono } from "hono";
import { callerContextOf } from "../src/context/index.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/runtime.js";
import { type CallScope, invoke } from "../src/gateway/pipeline.js";
import { processJsonRpc } from "../src/jsonrpc/index.js";
import { jsonBodyGuard, toHttpResponse } from "../src/jsonrpc/http.js";

export const rpcRoutes = new Hono<{ Bindings: GatewayEnv }>();

rpcRoutes.post("/", jsonBodyGuard(), async (c) => {
  const runtime = gatewayRuntime(c.env);
  const scope: CallScope = {
    context: await callerContextOf(c.req.raw.headers),
    idempotencyKey: c.req.header("idempotency-key"),
    budgetMs: budgetOf(c.req.header("x-timeout-ms")),
    answeredBy: new Set(),
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
  };
  const processed = await processJsonRpc(await c.req.text(), (request, slot) => invoke(request, slot, scope, runtime, c.env));
  const headers = new Headers();
  if (scope.answeredBy.size) headers.set("x-skill-version", [...scope.answeredBy].join(", "));
  if (scope.replayed) headers.set("idempotent-replayed", "1");
  if (scope.degraded) headers.set("x-skill-degraded", "1");
  return toHttpResponse(processed, headers);
});

/** `X-Timeout-Ms`: the caller's time budget for each call, 100 ms to 120 s; anything else is ignored. */
function budgetOf(header: string | undefined): number | undefined {
  const ms = Number(header);
  return header && Number.isInteger(ms) ? Math.min(120_000, Math.max(100, ms)) : undefined;
}
