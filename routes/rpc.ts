/** `POST /rpc`: JSON-RPC 2.0, every request of a body through the one invocation pipeline. */
import { Hono } from "hono";
import { callerIdOf, type CallerContext, validTraceparent } from "../src/context/index.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/runtime.js";
import { type CallScope, invoke } from "../src/gateway/pipeline.js";
import { processJsonRpc } from "../src/jsonrpc/index.js";
import { jsonBodyGuard, toHttpResponse } from "../src/jsonrpc/http.js";

export const rpcRoutes = new Hono<{ Bindings: GatewayEnv }>();

rpcRoutes.post("/", jsonBodyGuard(), async (c) => {
  const runtime = gatewayRuntime(c.env);
  const scope: CallScope = { context: await callerContextOf(c.req.raw.headers), answeredBy: new Set() };
  const processed = await processJsonRpc(await c.req.text(), (request) => invoke(request, scope, runtime, c.env));
  const headers = new Headers();
  if (scope.answeredBy.size) headers.set("x-skill-version", [...scope.answeredBy].join(", "));
  return toHttpResponse(processed, headers);
});

/**
 * The caller context of a gateway request, from its headers: `X-User-Id`, `X-User-Group`,
 * `X-Session-Id`, the caller's bearer key (hashed) and `traceparent` (a new one if absent).
 */
export async function callerContextOf(headers: Headers): Promise<CallerContext> {
  const clip = (value: string | null, max: number) => (value ? value.slice(0, max) : undefined);
  return {
    userId: clip(headers.get("x-user-id"), 256),
    group: clip(headers.get("x-user-group"), 64),
    session: clip(headers.get("x-session-id") ?? headers.get("mcp-session-id"), 256),
    caller: await callerIdOf(headers.get("authorization")),
    traceparent: childTraceparent(validTraceparent(headers.get("traceparent"))),
  };
}

/** A W3C traceparent for the hop to the skill: same trace (or a new one), a new span id. */
function childTraceparent(parent: string | undefined): string {
  const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const [, traceId = hex(16), , flags = "01"] = parent?.split("-") ?? [];
  return `00-${traceId}-${hex(8)}-${flags}`;
}
