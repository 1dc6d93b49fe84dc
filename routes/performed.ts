/**
 * How the routes that answer plain HTTP (not JSON-RPC) turn an operation of the one call chain
 * into an answer: what it answers, or the HTTP status of its refusal.
 */
import type { Context } from "hono";
import { perform } from "../src/gateway/chain/invoke.js";
import type { Operation } from "../src/gateway/chain/operation.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/chain/runtime.js";
import { type CallScope, answerHeadersOf } from "../src/gateway/chain/scope.js";
import { ErrorCode, RpcError, failure } from "../src/protocols/jsonrpc/index.js";

/**
 * What an operation answers through the call chain, or the HTTP answer of its refusal: a used-up
 * rate is 429 (with its RateLimit and Retry-After headers), nothing by that name for this caller
 * 404 (`notFound` says so), an outage 503.
 * @example const file = await performed<ServedFile>(c, scope, { kind: "archive", method: "GET /.well-known/agent-skills", package: "x" })
 */
export async function performed<T>(
  c: Pick<Context<{ Bindings: GatewayEnv }>, "env" | "json">,
  scope: CallScope,
  operation: Operation,
  notFound = "Not found",
): Promise<T | Response> {
  try {
    return (await perform(operation, scope, gatewayRuntime(c.env), c.env)) as T;
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    if (error.code === ErrorCode.RateLimited) return c.json(failure(null, error.code, error.message, error.data), 429, answerHeadersOf(scope));
    if (error.code !== ErrorCode.InvalidParams) return c.json(failure(null, error.code, error.message, error.data), 503, answerHeadersOf(scope));
    return c.json(failure(null, ErrorCode.MethodNotFound, notFound), 404, answerHeadersOf(scope));
  }
}
