/**
 * Forwarding one call to a skill deployment, by service binding, dispatch namespace or URL, within its timeout, and
 * reading the answer back as JSON-RPC. Every way a skill can fail becomes an `RpcError` a model
 * can act on; nothing of the skill's internals leaks.
 */
import type { StreamResponse } from "../../protocols/a2a/index.js";
import { BodyTooLarge, MAX_ANSWER_BYTES, answerTooLargeMessage, boundedText } from "../../lib/body/index.js";
import { CONTEXT_HEADER, type CallerContext, encodeContext } from "../../protocols/context/index.js";
import { BINDING_PATH, BINDING_URL, CALL_KEY_HEADER, DELEGATION_HEADER, SIGNATURE_HEADER, hopSigningKey, signHop } from "../../protocols/hop/index.js";
import { SKILL_CANCEL_METHOD, SKILL_RPC_METHOD, type SkillRpc, isMissingRpcMethod } from "../../protocols/hop/rpc.js";
import { NAMESPACE_BINDING, ScriptNotFound, namespaceOf } from "../dispatch/index.js";
import type { EgressParams } from "../egress/index.js";
import { retryAfterMsOf } from "../../policies/failures/index.js";
import { safeJson } from "../../lib/json/index.js";
import { ErrorCode, type JsonRpcParams, RpcError, errorText, resultOfAnswer } from "../../protocols/jsonrpc/index.js";
import type { InputRound, TaskMethod } from "../../protocols/mcp/index.js";
import { PROGRESS_METHOD, type Progress } from "../../protocols/progress/index.js";
import { LOG_LEVEL_HEADER, LOG_METHOD, type LogLevel } from "../../protocols/logging/index.js";
import type { Deployment, UpstreamEndpoint } from "../../registry/deployments/model.js";
import { acceptsEventStream, sseData } from "../../protocols/sse/index.js";
import { type Cancellation, anySignal, withTimeout } from "../../lib/signal/index.js";

/** The gateway's env, as far as forwarding cares: service bindings by name. */
export type BindingEnv = Record<string, unknown>;

/**
 * Who calls an upstream's tool (src/federation/upstream): the gateway itself, with the upstream's credential
 * (never the caller's), reading the answer within `signal`. Passed in from above, so forwarding
 * knows nothing of upstreams' records and secrets.
 */
export interface UpstreamCaller {
  /** Calls a tool (the deployment's endpoint) for a caller. */
  call(endpoint: UpstreamEndpoint, request: UpstreamRequest): Promise<unknown>;
  /** Reads a resource, gets a prompt, completes an argument or asks about a task of one version of an MCP upstream, for a caller. */
  ask(target: { upstream: string; version: string }, request: UpstreamAsk): Promise<unknown>;
}

/** One read or get of an MCP upstream's resource or prompt, a completion of its argument, or a request about its task, as the gateway asks it. */
export interface UpstreamAsk {
  /** A read or get, a completion, or a request about one of the upstream's tasks (its id in `params.taskId`). */
  method: "resources/read" | "prompts/get" | "completion/complete" | TaskMethod;
  params: Record<string, unknown>;
  /** Whose read it is: picks a `per-caller` upstream credential. Never sent upstream. */
  caller: string;
  /** The caller's OAuth access token, for a `token-exchange` upstream to exchange. */
  subjectToken?: string;
  traceparent?: string;
  signal: AbortSignal;
  /** A 2026-07-28 caller's part of a multi round-trip (a read or get may ask for input too, SEP-2322). */
  inputRound?: InputRound;
}

/** One call of an upstream's tool, as `forwardCall` hands it on. */
export interface UpstreamRequest {
  /** The skill called (`everything.echo`), for messages. */
  skill: string;
  /** The upstream version it is a tool of: whose credential it is called with. */
  version: string;
  params?: JsonRpcParams;
  /** Whose call it is: picks a `per-caller` upstream credential. Never sent upstream. */
  caller: string;
  /** The caller's OAuth access token, for a `token-exchange` upstream to exchange. */
  subjectToken?: string;
  traceparent?: string;
  /** The tool's input schema (2026-07-28 `Mcp-Param-*` headers). */
  inputSchema: Record<string, unknown>;
  onProgress?: (progress: Progress) => void;
  /** An A2A caller's: the agent's own stream events (an A2A agent's skill only). */
  onAgentEvent?: (event: StreamResponse) => void;
  /** An MCP 2026-07-28 caller's part of a multi round-trip (what it can answer, its answers). */
  inputRound?: InputRound;
  /** Set when the caller wants the tool's log messages: the least severe it wants, and where they go. */
  logLevel?: LogLevel;
  onLog?: (message: unknown) => void;
  signal: AbortSignal;
}

/** How long a caller is told to wait after a skill's transport failure. */
export const RETRY_AFTER_UNAVAILABLE_MS = 1_000;

export interface ForwardRequest {
  method: string;
  params?: JsonRpcParams;
  context: CallerContext;
  /** This attempt's timeout; default the deployment's `timeoutMs`. */
  timeoutMs?: number;
  /** The gateway's private key to sign the call with (`SKILLMESH_HOP_KEY`), if it has one. */
  hopKey?: string;
  /** Set when the caller wants progress: the skill is asked to stream, its reports come here. */
  onProgress?: (progress: Progress) => void;
  /** An A2A caller's: a federated agent's own stream events (src/protocols/a2a), as they come. */
  onAgentEvent?: (event: StreamResponse) => void;
  /** Aborted when the caller cancels (disconnects, closes its stream): the hop is aborted too. */
  signal?: AbortSignal;
  /** Set when another request may cancel the call (MCP 2025's notifications/cancelled): the skill is told. */
  cancellation?: Cancellation;
  /** For a pipeline: the token its steps call the gateway with, as this caller (src/identity/auth/delegation.ts). */
  delegation?: string;
  /** For a pipeline: the key its steps derive their `Idempotency-Key`s from. */
  callKey?: string;
  /** Calls an upstream's tool (a deployment whose endpoint is `upstream`). */
  upstreams?: UpstreamCaller;
  /** The caller's OAuth access token, for a `token-exchange` upstream (never sent to a skill). */
  subjectToken?: string;
  /** An MCP 2026-07-28 caller's part of a multi round-trip: only an upstream's tool uses it. */
  inputRound?: InputRound;
  /** Set when the caller wants log messages (an MCP caller's level): only an upstream's tool sends them. */
  logLevel?: LogLevel | undefined;
  onLog?: ((message: unknown) => void) | undefined;
}

/**
 * Calls a deployment and returns its result, or throws the `RpcError` for its failure:
 * the skill's own JSON-RPC error as is; -32004 on timeout; -32005 on HTTP 429 (with the skill's
 * `Retry-After`); -32001 for a transport failure (unreachable, 5xx, not JSON-RPC).
 * @example const result = await forwardCall(deployment, { method, params, context }, env)
 */
export async function forwardCall(deployment: Deployment, call: ForwardRequest, env: BindingEnv): Promise<unknown> {
  const timeoutMs = call.timeoutMs ?? deployment.manifest.timeoutMs;
  const { endpoint } = deployment;
  if ("upstream" in endpoint) return watched(deployment, call, timeoutMs, (signal) => upstreamCall(deployment, endpoint.upstream, call, signal));
  // A Worker the gateway holds by name: a service binding, or a script of its dispatch namespace.
  const workerName =
    "binding" in endpoint ? endpoint.binding
    : "dispatch" in endpoint ? `dispatch:${endpoint.dispatch}`
    : undefined;
  const binding =
    "binding" in endpoint ? bindingOf(deployment, endpoint.binding, env)
    : "dispatch" in endpoint ? await dispatched(deployment, endpoint.dispatch, env)
    : undefined;
  const url = "url" in endpoint ? endpoint.url : BINDING_URL;
  const hop = await hopOf(call, deployment);
  // A call with a signal, or that streams, goes over HTTP: its abort reaches the skill as a
  // cancelled subrequest, its progress and log messages on the skill's event stream (src/protocols/hop/rpc.ts).
  if (binding && !call.signal && !streams(call) && !httpOnlyBindings.has(workerName!)) {
    const text = await overRpc(deployment, binding as unknown as SkillRpc, hop, timeoutMs, call.cancellation);
    if (text !== undefined) return resultOf(deployment, 200, text);
    httpOnlyBindings.add(workerName!); // nothing ran: the Worker has no such method
  }
  const fetcher = binding ? (input: string, init: RequestInit) => binding.fetch(input, init) : (input: string, init: RequestInit) => fetch(input, init);
  return watched(deployment, call, timeoutMs, async (signal) => {
    const { status, text } = await overHttp(deployment, fetcher, url, hop, call, signal);
    return resultOf(deployment, status, text);
  });
}

/**
 * Runs one attempt with a signal that aborts it at `timeoutMs` or when the caller cancels: one
 * native timer, no controller, timer and race of our own per call. An abort is -32004 (the
 * timeout) or -32007 (the caller), whatever the attempt threw when it was cut.
 */
async function watched(deployment: Deployment, call: ForwardRequest, timeoutMs: number, attempt: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const watching = call.cancellation?.watch();
  const cancels = [call.signal, watching?.signal].filter((s): s is AbortSignal => !!s);
  const signal = cancels.length ? anySignal([timeout, ...cancels]) : timeout;
  try {
    return await attempt(signal);
  } catch (thrown) {
    if (cancels.some((s) => s.aborted)) throw cancelled(deployment);
    if (timeout.aborted && !(thrown instanceof RpcError)) throw timedOut(deployment, timeoutMs);
    throw thrown;
  } finally {
    watching?.stop();
  }
}

/** An upstream's tool, called by whoever the gateway passed in; -32001 when none was. */
function upstreamCall(deployment: Deployment, endpoint: UpstreamEndpoint, call: ForwardRequest, signal: AbortSignal): Promise<unknown> {
  if (!call.upstreams) throw unavailable(deployment, "is an upstream's tool, which this caller cannot reach");
  const { context } = call;
  return call.upstreams.call(endpoint, {
    skill: deployment.name,
    version: deployment.version,
    params: call.params,
    caller: context.caller,
    ...(call.subjectToken ? { subjectToken: call.subjectToken } : {}),
    ...(context.traceparent ? { traceparent: context.traceparent } : {}),
    inputSchema: deployment.manifest.inputSchema,
    ...(call.onProgress ? { onProgress: call.onProgress } : {}),
    ...(call.onAgentEvent ? { onAgentEvent: call.onAgentEvent } : {}),
    ...(call.inputRound ? { inputRound: call.inputRound } : {}),
    ...(call.onLog && call.logLevel ? { onLog: call.onLog, logLevel: call.logLevel } : {}),
    signal,
  });
}

/** What one attempt sends, on either transport: the JSON-RPC request and the headers that go with it. */
interface Hop {
  body: string;
  headers: Record<string, string>;
}

/** Bindings (by name) whose Worker turned out not to serve the RPC hop: this isolate calls them over HTTP. */
const httpOnlyBindings = new Set<string>();

/** The request of an attempt: its body, the caller context and trace, and the signature with a hop key. */
async function hopOf(call: ForwardRequest, deployment: Deployment): Promise<Hop> {
  const headers: Record<string, string> = { [CONTEXT_HEADER]: encodeContext(call.context) };
  if (call.context.traceparent) headers.traceparent = call.context.traceparent;
  if (call.delegation) headers[DELEGATION_HEADER] = call.delegation;
  if (call.callKey) headers[CALL_KEY_HEADER] = call.callKey;
  const body = JSON.stringify({ jsonrpc: "2.0", method: call.method, params: call.params, id: 1 });
  if (call.hopKey) {
    // Over RPC too the signature covers a POST to the binding's path, so the skill checks one thing.
    const { endpoint } = deployment;
    const path = "url" in endpoint ? new URL(endpoint.url).pathname : BINDING_PATH;
    const parts = {
      method: "POST",
      path,
      deployment: deployment.id,
      body,
      context: headers[CONTEXT_HEADER]!,
      delegation: call.delegation ?? "",
      callKey: call.callKey ?? "",
    };
    headers[SIGNATURE_HEADER] = await signHop(await hopSigningKey(call.hopKey), parts);
  }
  return { body, headers };
}

/**
 * The attempt as a Workers RPC call of the skill's module (src/protocols/hop/rpc.ts): its answer's text,
 * or undefined when the Worker does not serve the RPC hop (then nothing ran). Past `timeoutMs`
 * the gateway stops waiting (-32004); the skill aborts its `ctx.signal` then too. A call that
 * another request may cancel carries a `cancelId`, which that request sends the skill; once
 * cancelled, whatever the skill answers the call is -32007 (nothing for its breaker).
 */
async function overRpc(deployment: Deployment, binding: SkillRpc, hop: Hop, timeoutMs: number, cancellation?: Cancellation): Promise<string | undefined> {
  if (cancellation?.cancelled) throw cancelled(deployment);
  const cancelId = cancellation ? crypto.randomUUID() : undefined;
  const forget = cancelId ? cancellation!.onCancel(() => binding[SKILL_CANCEL_METHOD](cancelId)) : undefined;
  let text: unknown;
  try {
    text = await withTimeout(binding[SKILL_RPC_METHOD]({ ...hop, timeoutMs, ...(cancelId ? { cancelId } : {}) }), timeoutMs, () =>
      timedOut(deployment, timeoutMs),
    );
  } catch (thrown) {
    if (cancellation?.cancelled) throw cancelled(deployment);
    if (isMissingRpcMethod(thrown)) return undefined;
    if (thrown instanceof RpcError) throw thrown; // the timeout
    const overLimit = limitExceeded(deployment, thrown);
    if (overLimit) throw overLimit;
    // The skill's isolate failed the call (an exception past the SDK): a transport failure.
    console.error(`[gateway] ${deployment.id} failed its RPC call:`, errorText(thrown));
    throw unavailable(deployment, "is unreachable");
  } finally {
    forget?.();
  }
  if (cancellation?.cancelled) throw cancelled(deployment);
  if (typeof text !== "string") throw unavailable(deployment, "answered its RPC call without a JSON-RPC response");
  // The SDK refuses to send more; a Worker of its own making might.
  if (text.length > MAX_ANSWER_BYTES) throw tooLarge(deployment);
  return text;
}

/** The attempt as an HTTP request (a URL, or a binding whose Worker does not serve the RPC hop): its status and body. */
async function overHttp(
  deployment: Deployment,
  fetcher: (url: string, init: RequestInit) => Promise<Response>,
  url: string,
  hop: Hop,
  call: ForwardRequest,
  signal: AbortSignal,
): Promise<{ status: number; text: string }> {
  const headers = {
    ...hop.headers,
    "content-type": "application/json",
    ...(streams(call) ? { accept: "text/event-stream, application/json" } : {}),
    ...(call.onLog && call.logLevel ? { [LOG_LEVEL_HEADER]: call.logLevel } : {}),
  };
  let response: Response;
  try {
    // A redirect is not followed: it would re-send the body and the caller context elsewhere.
    response = await fetcher(url, { method: "POST", headers, body: hop.body, signal, redirect: "manual" });
  } catch (thrown) {
    if (thrown instanceof RpcError || signal.aborted) throw thrown;
    const overLimit = limitExceeded(deployment, thrown);
    if (overLimit) throw overLimit;
    console.error(`[gateway] ${deployment.id} unreachable:`, thrown);
    throw unavailable(deployment, "is unreachable");
  }
  if (response.status === 429) {
    const retryAfterMs = retryAfterMsOf(response.headers.get("retry-after"));
    throw new RpcError(ErrorCode.RateLimited, `${deployment.name} is rate limited; retry after ${Math.ceil(retryAfterMs / 1000)} s`, { retryAfterMs });
  }
  try {
    const text =
      streams(call) && response.body && acceptsEventStream(response.headers, "content-type") ?
        await finalMessageOf(response.body as ReadableStream<Uint8Array>, call)
      : await boundedText(response, MAX_ANSWER_BYTES);
    return { status: response.status, text };
  } catch (thrown) {
    // Not worth a retry: the same call gets the same answer. A fault of the skill, so its breaker hears of it.
    if (thrown instanceof BodyTooLarge) throw tooLarge(deployment);
    if (thrown instanceof RpcError || signal.aborted) throw thrown; // a timeout or a cancellation: forwardCall says which
    // The connection broke mid-answer: a transport failure, like an unreachable skill.
    console.error(`[gateway] ${deployment.id} broke off its answer:`, errorText(thrown));
    throw unavailable(deployment, "broke off its answer");
  }
}

/** The result of a skill's answer, or its error thrown: its own JSON-RPC error as is, anything but a JSON-RPC response -32001. */
function resultOf(deployment: Deployment, status: number, text: string): unknown {
  return resultOfAnswer(status, safeJson(text), {
    notAnAnswer: (what) => unavailable(deployment, what),
    failed: (error) => new RpcError(error.code, error.message, error.data),
  });
}

/** Whether a call streams: its caller wants the skill's progress or log messages as they come. */
function streams(call: Pick<ForwardRequest, "onProgress" | "onLog" | "logLevel">): boolean {
  return !!call.onProgress || !!(call.onLog && call.logLevel);
}

/** Relays a streaming skill's progress events and log messages, and returns its last other message: the JSON-RPC response. */
async function finalMessageOf(body: ReadableStream<Uint8Array>, { onProgress, onLog }: Pick<ForwardRequest, "onProgress" | "onLog">): Promise<string> {
  let final = "";
  for await (const data of sseData(body, MAX_ANSWER_BYTES)) {
    const message = safeJson(data) as { method?: unknown; params?: unknown } | undefined;
    // Each checked where it is relayed.
    if (message?.method === PROGRESS_METHOD) onProgress?.(message.params as Progress);
    else if (message?.method === LOG_METHOD) onLog?.(message.params);
    else final = data;
  }
  return final;
}

/**
 * The deployment's Worker in the gateway's dispatch namespace, under its manifest's limits and
 * egress; -32001 when the gateway has no namespace or the namespace no such script.
 */
async function dispatched(deployment: Deployment, script: string, env: BindingEnv): Promise<Fetcher> {
  const namespace = namespaceOf(env);
  if (!namespace) throw unavailable(deployment, `is not reachable from this gateway (no dispatch namespace ${NAMESPACE_BINDING})`);
  const { limits } = deployment.manifest;
  try {
    return await namespace.worker(script, { ...(limits ? { limits } : {}), egress: egressParamsOf(deployment) });
  } catch (thrown) {
    if (thrown instanceof ScriptNotFound) throw unavailable(deployment, `is not in the dispatch namespace (no script ${script})`);
    console.error(`[gateway] ${deployment.id}: dispatch to ${script} failed:`, errorText(thrown));
    throw unavailable(deployment, "is unreachable");
  }
}

/**
 * What a dispatched deployment's outbound is told: whose requests they are and the hosts its
 * registered manifest declares (none declared, none reached).
 * @example egressParamsOf(deployment) // { deployment: "web.fetch@1.0.0", hosts: ["api.example.com"] }
 */
export function egressParamsOf(deployment: Deployment): EgressParams {
  return { deployment: deployment.id, hosts: deployment.manifest.egress ?? [] };
}

/** The deployment's service binding, or -32001 when this gateway has none by that name. */
function bindingOf(deployment: Deployment, name: string, env: BindingEnv): Fetcher {
  const binding = Object.hasOwn(env, name) ? (env[name] as Fetcher | undefined) : undefined;
  if (!binding || typeof binding.fetch !== "function") {
    throw new RpcError(ErrorCode.SkillUnavailable, `${deployment.name} is not reachable from this gateway (no binding ${name})`, {
      retryAfterMs: RETRY_AFTER_UNAVAILABLE_MS,
    });
  }
  return binding;
}

/**
 * The error for a call the runtime stopped at one of the skill's per-call limits (a dispatched
 * skill's `limits`: "exceeded CPU time limit", "Too many subrequests"), or undefined for any other
 * failure. -32603: the skill's own fault, counted by its breaker, and not retried (the same call
 * would spend the same again).
 */
function limitExceeded(deployment: Deployment, thrown: unknown): RpcError | undefined {
  const message = errorText(thrown);
  const { limits } = deployment.manifest;
  if (/CPU time limit|exceeded CPU/i.test(message)) {
    return new RpcError(ErrorCode.InternalError, `${deployment.name} exceeded its CPU limit${limits?.cpuMs ? ` (${limits.cpuMs} ms a call)` : ""}`);
  }
  if (/too many subrequests|subrequest limit/i.test(message)) {
    return new RpcError(
      ErrorCode.InternalError,
      `${deployment.name} made more subrequests than its limit${limits?.subRequests ? ` (${limits.subRequests} a call)` : ""}`,
    );
  }
  return undefined;
}

function cancelled(deployment: Deployment): RpcError {
  return new RpcError(ErrorCode.Cancelled, `The call to ${deployment.name} was cancelled by its caller`);
}

function timedOut(deployment: Deployment, timeoutMs: number): RpcError {
  return new RpcError(ErrorCode.SkillTimeout, `${deployment.name} did not answer within ${timeoutMs} ms; retry later or with a smaller input`, { timeoutMs });
}

function tooLarge(deployment: Deployment): RpcError {
  return new RpcError(ErrorCode.InternalError, answerTooLargeMessage(deployment.name));
}

function unavailable(deployment: Deployment, what: string): RpcError {
  return new RpcError(ErrorCode.SkillUnavailable, `${deployment.name} ${what}; retry after ${RETRY_AFTER_UNAVAILABLE_MS / 1000} s`, {
    retryAfterMs: RETRY_AFTER_UNAVAILABLE_MS,
  });
}
