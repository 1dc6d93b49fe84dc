/**
 * Forwarding one call to a skill deployment, by service binding or URL, within its timeout, and
 * reading the answer back as JSON-RPC. Every way a skill can fail becomes an `RpcError` a model
 * can act on; nothing of the skill's internals leaks.
 */
import { CALL_KEY_HEADER, DELEGATION_HEADER } from "../auth/delegation.js";
import { BodyTooLarge, boundedText } from "../body/index.js";
import { CONTEXT_HEADER, type CallerContext, encodeContext } from "../context/index.js";
import { SIGNATURE_HEADER, signHop } from "../hop/index.js";
import { safeJson } from "../json/index.js";
import { ErrorCode, JsonRpcResponseSchema, type JsonRpcParams, RpcError, errorText } from "../jsonrpc/index.js";
import { PROGRESS_METHOD, type Progress } from "../progress/index.js";
import type { Deployment } from "../registry/model.js";
import { acceptsEventStream, sseData } from "../sse/index.js";
import { anySignal } from "../signal/index.js";

/** The gateway's env, as far as forwarding cares: service bindings by name. */
export type BindingEnv = Record<string, unknown>;

/** How long a caller is told to wait after a skill's transport failure. */
export const RETRY_AFTER_UNAVAILABLE_MS = 1_000;

/**
 * The largest answer the gateway reads from a skill (a JSON body, or one event of a stream): a
 * skill that sends more is cut off with -32603, instead of the gateway isolate (128 MB for every
 * call it serves) reading, parsing and re-serialising it.
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export interface ForwardRequest {
  method: string;
  params?: JsonRpcParams;
  context: CallerContext;
  /** This attempt's timeout; default the deployment's `timeoutMs`. */
  timeoutMs?: number;
  /** The secret to sign the call with (`SKILLMESH_HOP_SECRET`), if the gateway has one. */
  hopSecret?: string;
  /** Set when the caller wants progress: the skill is asked to stream, its reports come here. */
  onProgress?: (progress: Progress) => void;
  /** Aborted when the caller cancels (disconnects, closes its stream): the hop is aborted too. */
  signal?: AbortSignal;
  /** For a pipeline: the token its steps call the gateway with, as this caller (src/auth/delegation.ts). */
  delegation?: string;
  /** For a pipeline: the key its steps derive their `Idempotency-Key`s from. */
  callKey?: string;
}

/**
 * Calls a deployment and returns its result, or throws the `RpcError` for its failure:
 * the skill's own JSON-RPC error as is; -32004 on timeout; -32005 on HTTP 429 (with the skill's
 * `Retry-After`); -32001 for a transport failure (unreachable, 5xx, not JSON-RPC).
 * @example const result = await forwardCall(deployment, { method, params, context }, env)
 */
export async function forwardCall(deployment: Deployment, call: ForwardRequest, env: BindingEnv): Promise<unknown> {
  const timeoutMs = call.timeoutMs ?? deployment.manifest.timeoutMs;
  // One native timer that aborts the hop: no controller, timer and race of our own per call.
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = call.signal ? anySignal([timeout, call.signal]) : timeout;
  try {
    return await send(deployment, call, env, signal);
  } catch (thrown) {
    if (call.signal?.aborted) throw new RpcError(ErrorCode.Cancelled, `The call to ${deployment.name} was cancelled by its caller`);
    if (timeout.aborted && !(thrown instanceof RpcError)) {
      throw new RpcError(ErrorCode.SkillTimeout, `${deployment.name} did not answer within ${timeoutMs} ms; retry later or with a smaller input`, { timeoutMs });
    }
    throw thrown;
  }
}

async function send(deployment: Deployment, call: ForwardRequest, env: BindingEnv, signal: AbortSignal): Promise<unknown> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    [CONTEXT_HEADER]: encodeContext(call.context),
  };
  if (call.context.traceparent) headers.traceparent = call.context.traceparent;
  if (call.delegation) headers[DELEGATION_HEADER] = call.delegation;
  if (call.callKey) headers[CALL_KEY_HEADER] = call.callKey;
  if (call.onProgress) headers.accept = "text/event-stream, application/json";
  const body = JSON.stringify({ jsonrpc: "2.0", method: call.method, params: call.params, id: 1 });
  const url = urlOf(deployment);
  if (call.hopSecret) {
    headers[SIGNATURE_HEADER] = await signHop(call.hopSecret, { method: "POST", path: new URL(url).pathname, body, context: headers[CONTEXT_HEADER]! });
  }

  let response: Response;
  try {
    // A redirect is not followed: it would re-send the body and the caller context elsewhere.
    response = await fetcherOf(deployment, env)(url, { method: "POST", headers, body, signal, redirect: "manual" });
  } catch (thrown) {
    if (thrown instanceof RpcError || signal.aborted) throw thrown;
    console.error(`[gateway] ${deployment.id} unreachable:`, thrown);
    throw unavailable(deployment, "is unreachable");
  }
  if (response.status === 429) {
    const retryAfterMs = retryAfterMsOf(response.headers.get("retry-after"));
    throw new RpcError(ErrorCode.RateLimited, `${deployment.name} is rate limited; retry after ${Math.ceil(retryAfterMs / 1000)} s`, { retryAfterMs });
  }
  let text: string;
  try {
    text = call.onProgress && response.body && acceptsEventStream(response.headers, "content-type") ? await finalMessageOf(response.body, call.onProgress) : await boundedText(response, MAX_ANSWER_BYTES);
  } catch (thrown) {
    // Not worth a retry: the same call gets the same answer. A fault of the skill, so its breaker hears of it.
    if (thrown instanceof BodyTooLarge) throw new RpcError(ErrorCode.InternalError, `${deployment.name} answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, the largest answer the gateway reads`);
    if (thrown instanceof RpcError || signal.aborted) throw thrown; // a timeout or a cancellation: forwardCall says which
    // The connection broke mid-answer: a transport failure, like an unreachable skill.
    console.error(`[gateway] ${deployment.id} broke off its answer:`, errorText(thrown));
    throw unavailable(deployment, "broke off its answer");
  }
  const parsed = safeJson(text);
  const answer = JsonRpcResponseSchema.safeParse(parsed);
  if (!answer.success || (response.status !== 200 && !("error" in answer.data))) {
    throw unavailable(deployment, `answered HTTP ${response.status} without a JSON-RPC response`);
  }
  if ("error" in answer.data) {
    const { code, message, data } = answer.data.error;
    throw new RpcError(code, message, data);
  }
  return answer.data.result;
}

/** Relays a streaming skill's progress events and returns its last other message: the JSON-RPC response. */
async function finalMessageOf(body: ReadableStream<Uint8Array>, onProgress: (progress: Progress) => void): Promise<string> {
  let final = "";
  for await (const data of sseData(body, MAX_ANSWER_BYTES)) {
    const message = safeJson(data) as { method?: unknown; params?: unknown } | undefined;
    if (message?.method === PROGRESS_METHOD) onProgress(message.params as Progress); // checked where it is relayed
    else final = data;
  }
  return final;
}

function fetcherOf(deployment: Deployment, env: BindingEnv): (url: string, init: RequestInit) => Promise<Response> {
  const { endpoint } = deployment;
  if ("url" in endpoint) return (url, init) => fetch(url, init);
  const binding = Object.hasOwn(env, endpoint.binding) ? (env[endpoint.binding] as Fetcher | undefined) : undefined;
  if (!binding || typeof binding.fetch !== "function") {
    throw new RpcError(ErrorCode.SkillUnavailable, `${deployment.name} is not reachable from this gateway (no binding ${endpoint.binding})`, {
      retryAfterMs: RETRY_AFTER_UNAVAILABLE_MS,
    });
  }
  return (url, init) => binding.fetch(url, init);
}

function urlOf(deployment: Deployment): string {
  return "url" in deployment.endpoint ? deployment.endpoint.url : "https://skill.internal/";
}

function unavailable(deployment: Deployment, what: string): RpcError {
  return new RpcError(ErrorCode.SkillUnavailable, `${deployment.name} ${what}; retry after ${RETRY_AFTER_UNAVAILABLE_MS / 1000} s`, {
    retryAfterMs: RETRY_AFTER_UNAVAILABLE_MS,
  });
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date; 1 s when absent or unreadable.
 * @example retryAfterMsOf("2") // 2000
 */
export function retryAfterMsOf(value: string | null, now = Date.now()): number {
  if (value && /^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = value ? Date.parse(value) : NaN;
  return Number.isNaN(date) ? 1000 : Math.max(0, date - now);
}
