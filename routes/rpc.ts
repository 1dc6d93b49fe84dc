/**
 * `POST /rpc`: JSON-RPC 2.0, every request of a body through the one call chain (src/gateway/chain/invoke.ts); a JSON
 * answer, or an event stream with progress when the caller accepts `text/event-stream`.
 */
import { Hono } from "hono";
import { type Caller, requireCaller } from "../src/identity/auth/index.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/chain/runtime.js";
import { invoke } from "../src/gateway/chain/invoke.js";
import { answerHeadersOf } from "../src/gateway/chain/scope.js";
import { processJsonRpc } from "../src/protocols/jsonrpc/index.js";
import { enter } from "./enter.js";
import { answerJson, bodyText, jsonBodyGuard, toHttpResponse } from "../src/protocols/jsonrpc/http.js";
import { progressRelay } from "../src/protocols/progress/index.js";
import { SSE_HEADERS, acceptsEventStream, sseStream } from "../src/protocols/sse/index.js";
import { anySignal } from "../src/lib/signal/index.js";

const RPC_DOOR = { kind: "rpc" } as const;

export const rpcRoutes = new Hono<{ Bindings: GatewayEnv; Variables: { caller: Caller } }>();

rpcRoutes.post(
  "/",
  jsonBodyGuard(),
  requireCaller((env: GatewayEnv) => gatewayRuntime(env)),
  async (c) => {
    const runtime = gatewayRuntime(c.env);
    const scope = enter(c, RPC_DOOR);
    if (scope instanceof Response) return scope;
    const body = await bodyText(c);
    // No cancellation signal on a plain JSON call: workerd fires request.signal for streamed
    // responses only, and combining signals costs a fifth of a trivial call's throughput.
    if (!acceptsEventStream(c.req.raw.headers)) {
      const processed = await processJsonRpc(body, (request, slot) => invoke(request, slot, scope, runtime, c.env));
      return toHttpResponse(processed, answerHeadersOf(scope));
    }
    // Accept: text/event-stream: each call's progress as a notifications/progress event (with the
    // call's id), heartbeats while quiet, then the response (or batch) as the last event.
    const stream = sseStream(async (sse) => {
      // The stream closing is the cancellation (request.signal too, where the runtime fires it).
      const signal = anySignal([c.req.raw.signal, sse.signal]);
      const processed = await processJsonRpc(body, (request, slot) => {
        const onProgress = progressRelay(sse, { id: request.id });
        return invoke(request, slot, scope, runtime, c.env, { onProgress, signal });
      });
      if (processed !== undefined && !sse.signal.aborted) sse.sendJson(answerJson(processed));
    }, runtime.config.sseHeartbeatMs);
    return new Response(stream, { headers: SSE_HEADERS });
  },
);
