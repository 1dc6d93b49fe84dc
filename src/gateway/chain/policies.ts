/**
 * The policies around one call, each a small function that wraps the next one (the cockatiel
 * idea): a `Policy` gets the call and `next`, and returns an `Outcome` — it may refuse, replay,
 * repeat, reroute or time the call, but it knows nothing of the policies around it. The call chain
 * (src/gateway/chain/invoke.ts) only assembles them; a new policy is a new function in the list.
 *
 *   limits → content path → conversations (an agent's tasks) → async jobs → idempotency → retries → fallback (breakers) → timeout → forward
 */
import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from "../../policies/breaker/index.js";
import { failureClassOf } from "../../policies/failures/index.js";
import { endpointRefusal } from "../../federation/forward/endpoint-policy.js";
import { forwardCall } from "../../federation/forward/index.js";
import {
  DEFAULT_IDEMPOTENCY_TTL_MS,
  type IdempotencyOptions,
  fingerprintOf,
  idempotencyKeyOf,
  isValidClientKey,
  runOnce,
} from "../../policies/idempotency/index.js";
import type { Outcome } from "../../policies/outcome/index.js";
import { ErrorCode, type JsonRpcRequest, type RequestSlot, RpcError, errorText } from "../../protocols/jsonrpc/index.js";
import type { LogLevel } from "../../protocols/logging/index.js";
import { checkLimits } from "../../policies/ratelimit/index.js";
import { type ContentRelays, type ContentSinks, ContentPath, type PinCheck } from "../../policies/content/index.js";
import type { Deployment } from "../../registry/deployments/model.js";
import type { ToolEntry } from "../../registry/deployments/snapshot.js";
import { withRetries } from "../../policies/retry/index.js";
import { routedDeployment } from "../../registry/routing/index.js";
import type { Cancellation } from "../../lib/signal/index.js";
import type { SkillManifest } from "../../skill/manifest.js";
import { RETRY_AFTER_STORE_MS, StoreUnavailable } from "../../store/index.js";
import { type Context, SpanKind, inSpan, outgoingTraceparent, trace } from "../../protocols/tracing/index.js";
import type { GatewayEnv, GatewayRuntime } from "./runtime.js";
import type { CallScope } from "./scope.js";
import { type AdoptedTask, queuedLeaseMs } from "../../registry/jobs/index.js";
import { type InputRound, type TaskStarted, isTaskStarted } from "../../protocols/mcp/index.js";
import { conversationsOf } from "../../protocols/a2a/index.js";
import { callableEntry } from "./lookup.js";

const tracer = trace.getTracer("skillmesh-gateway");

/**
 * What a streaming caller adds to a call: where its progress, logs and an agent's events go (its
 * sinks, src/policies/content: each takes only what passed the content path), and when it gave up.
 */
export interface CallStreaming extends ContentSinks {
  /** Aborted when the caller cancels: the forwarded call is aborted, the skill sees `ctx.signal`. */
  readonly signal?: AbortSignal;
  /** Set when another request may cancel the call (MCP 2025's notifications/cancelled): the skill is told, it sees `ctx.signal`. */
  readonly cancellation?: Cancellation;
  /** An MCP 2026-07-28 caller's part of a multi round-trip: relayed to a federated MCP tool only. */
  readonly inputRound?: InputRound;
  /** Set with `onLog`: the least severe log message the caller wants (a federated MCP tool only). */
  readonly logLevel?: LogLevel;
}

/** One call on its way through the policies: what was asked, by whom, and until when. */
export interface Call extends CallStreaming {
  readonly request: JsonRpcRequest;
  readonly slot: RequestSlot;
  readonly scope: CallScope;
  readonly runtime: GatewayRuntime;
  readonly env: GatewayEnv;
  /** The trace context of the call's span. */
  readonly trace: Context;
  /** When the caller stops waiting (`X-Timeout-Ms`, else twice the skill's timeout). */
  readonly deadline: number;
  /** The call's content path (src/policies/content): how strict it is, and what it found. */
  readonly content?: ContentPath;
  /** What the skill, upstream or agent relays into while the call runs: made by the content path from the sinks above. */
  readonly relays?: ContentRelays;
}

/** A call to a skill (a built-in has neither entry nor manifest). */
export interface SkillCall extends Call {
  readonly entry: ToolEntry;
  /** The manifest that speaks for the skill (its stable version's): timeouts, TTLs, idempotency. */
  readonly manifest: SkillManifest;
  /** One attempt's deployment and probe token (set by `fallback`). */
  readonly deployment?: Deployment;
  readonly probe?: string;
  /** One attempt's timeout (set by `timeout`). */
  readonly timeoutMs?: number;
}

export type Handler<C extends Call> = (call: C) => Promise<Outcome>;
export type Policy<C extends Call = SkillCall> = (call: C, next: Handler<C>) => Promise<Outcome>;

/**
 * Wraps a handler in policies, the first outermost.
 * @example const run = compose([limits, idempotency, retries, fallback, timeout], forward); await run(call)
 */
export function compose<C extends Call>(policies: ReadonlyArray<Policy<C>>, handler: Handler<C>): Handler<C> {
  return policies.reduceRight<Handler<C>>((next, policy) => (call) => policy(call, next), handler);
}

/**
 * Counts the call against the caller's rate and quota, or refuses it with -32005 and
 * `retryAfterMs` (the decision also becomes the response's `RateLimit` headers).
 */
export const limits = async <C extends Call>(call: C, next: Handler<C>): Promise<Outcome> => {
  await chargeCaller(call.runtime.store, call.scope);
  return next(call);
};

/** What a call carries of its caller's content, and the call with that content (redacted) in its place. */
export interface CallerContent<C extends Call> {
  of(call: C): unknown;
  with(call: C, content: unknown): C;
}

/**
 * The content path (src/policies/content) around the rest of a call: what the caller sends (`carried`)
 * passes it on its way out — redacted, or refused before anything is sent — what the skill,
 * upstream or agent relays while the call runs passes it on its way to the caller's sinks, and so
 * does the outcome (checked against its pin first, when it has one). The call's `content` says how
 * strict it is: the strictest of what the tool's owner (a skill's manifest, an upstream's
 * registration) and the door say.
 * @example const outcome = await throughContent(call, next, TOOL_CONTENT)
 */
export async function throughContent<C extends Call>(call: C, next: Handler<C>, carried?: CallerContent<C>, pin?: PinCheck): Promise<Outcome> {
  const path = call.content ?? new ContentPath("off");
  let sending = call;
  if (path.scanning && carried) {
    const content = carried.of(call);
    const sent = await path.sent(content);
    if ("refusal" in sent) return sent.refusal;
    if (sent.value !== content) sending = carried.with(call, sent.value);
  }
  // A call that relays nothing (no sink: a plain JSON call) is passed on as it is.
  const relays = path.relays(call);
  return path.answer(await next(relays ? { ...sending, relays } : sending), pin);
}

/**
 * What a tool call carries of its caller: its arguments, and its answers to an upstream's input
 * requests (a 2026-07-28 round).
 */
const TOOL_CONTENT: CallerContent<SkillCall> = {
  of: (call) => (call.inputRound?.inputResponses ? { params: call.request.params, inputResponses: call.inputRound.inputResponses } : call.request.params),
  with: (call, content) => {
    if (!call.inputRound?.inputResponses) return { ...call, request: { ...call.request, params: content as JsonRpcRequest["params"] } };
    const { params, inputResponses } = content as { params: JsonRpcRequest["params"]; inputResponses: InputRound["inputResponses"] };
    return { ...call, request: { ...call.request, params }, inputRound: { ...call.inputRound, inputResponses } };
  },
};

/**
 * An A2A agent's tasks and contexts are their callers' (the agent sees one client, the gateway, so
 * only the gateway can keep callers apart): a call of an agent's skill that continues a task or a
 * context, or refers to a task, reaches the agent only when each is this caller's — a task one of
 * its calls started, while it may still call the tool that started it; a context no other caller
 * started. Anything else is "Task not found" (-32602, `data.taskNotFound`; the A2A door answers it
 * as A2A's TaskNotFoundError), exactly as for a task that does not exist, and nothing is sent.
 */
export const conversations: Policy = async (call, next) => {
  const endpoint = call.entry.versions[0]?.endpoint ?? call.entry.degraded?.endpoint;
  const agent = endpoint && "upstream" in endpoint && endpoint.upstream.kind === "a2a" ? endpoint.upstream.name : undefined;
  if (!agent) return next(call);
  const { taskIds, contextId } = conversationsOf(call.request.params);
  const { runtime, scope } = call;
  const caller = scope.context.caller;
  const mayStillCall = async (tool: string) => tool === call.entry.name || !!(await callableEntry(runtime, scope, tool, call.trace)).entry;
  for (const taskId of taskIds) {
    const task = await runtime.upstreams.conversations.task(agent, taskId);
    if (!task || task.caller !== caller || !(await mayStillCall(task.tool))) return taskNotFound(taskId);
  }
  const context = contextId === undefined ? undefined : await runtime.upstreams.conversations.context(agent, contextId);
  if (context && context.caller !== caller) return taskNotFound(contextId!);
  return next(call);
};

/** The answer for a task or context that is not the caller's (or not at all): one answer for both. */
function taskNotFound(id: string): Outcome {
  return { ok: false, error: new RpcError(ErrorCode.InvalidParams, `Task not found: ${id.slice(0, 200)}`, { taskNotFound: id.slice(0, 256) }).toJSON() };
}

/** A tool call's content path: right after `limits`, so a refused call is charged. */
export const content: Policy = (call, next) => throughContent(call, next, TOOL_CONTENT);

/**
 * Counts one call against the scope's rate and quota, or throws -32005 with `retryAfterMs` (the
 * decision also becomes the response's `RateLimit` headers). What `limits` does for every call,
 * and MCP for a long request that calls no skill (`subscriptions/listen`).
 * @example await chargeCaller(runtime.store, scope)
 */
export async function chargeCaller(store: GatewayRuntime["store"], scope: CallScope): Promise<void> {
  const decision = await checkLimits(store, scope.limits);
  if (decision) scope.rateLimit = decision;
  if (!decision || decision.allowed) return;
  const seconds = Math.ceil(decision.retryAfterMs / 1000);
  throw new RpcError(ErrorCode.RateLimited, `Rate limited: this caller's ${decision.refusedBy} is used up; retry after ${seconds} s`, {
    retryAfterMs: decision.retryAfterMs,
    limit: decision.refusedBy,
  });
}

/**
 * The request's `Idempotency-Key`, if any, once it is known to be usable: well-formed, and from
 * an identified caller (keys are scoped to the caller: anonymous callers would read and poison
 * each other's answers and jobs).
 */
function checkedClientKey(scope: CallScope): string | undefined {
  const clientKey = scope.idempotencyKey;
  if (clientKey === undefined) return undefined;
  if (!isValidClientKey(clientKey)) throw new RpcError(ErrorCode.InvalidRequest, "Idempotency-Key must be 1-255 visible ASCII characters");
  if (scope.context.caller === "anonymous") {
    throw new RpcError(ErrorCode.InvalidRequest, "Idempotency-Key needs an identified caller: send Authorization: Bearer <your key> with it");
  }
  return clientKey;
}

/**
 * `Prefer: respond-async`: the call becomes a job (src/registry/jobs) run later on Workflows through this
 * same call chain, and the caller gets `{status: "queued", jobId}` now. A submit retried with the
 * same `Idempotency-Key` gets the same job (other params: -32003).
 */
export const asyncJobs: Policy = async (call, next) => {
  const { scope } = call;
  if (call.manifest.jobOnly && !scope.respondAsync && !scope.jobId) {
    throw new RpcError(
      ErrorCode.InvalidRequest,
      `Invalid Request: ${call.manifest.name} runs only as an async job: send Prefer: respond-async (or call jobs.submit)`,
    );
  }
  if (!scope.respondAsync || scope.jobId) return next(call);
  return submitted(call, { idempotent: call.manifest.idempotent, resumable: !!(call.manifest.pipeline && call.manifest.idempotent) });
};

/**
 * Accepts a call as an async job (src/registry/jobs): its record created and its Workflow
 * instance started; the caller gets `{status: "queued", jobId}` (a keyed retry the same job).
 * `idempotent`: the job may be started again when its runner is lost while it runs; `resumable`:
 * its failures for now are retried by the engine (an idempotent pipeline's steps replay).
 * @example return submitted(call, { idempotent: false })
 */
export async function submitted(call: Call, job: { idempotent: boolean; resumable?: boolean }): Promise<Outcome> {
  const { scope, request, slot, runtime, env } = call;
  // A job outlives the call: a pipeline's delegation token must not start work that runs on without it.
  if (scope.delegation)
    throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: a pipeline's step cannot be submitted as an async job (Prefer: respond-async)");
  if (!env.JOBS)
    throw new RpcError(ErrorCode.SkillUnavailable, "Async jobs are not available on this gateway (no JOBS Workflow binding)", { retryAfterMs: 60_000 });
  const owner = scope.context.caller;
  const fingerprint = await fingerprintOf(request.params ?? null);
  const clientKey = checkedClientKey(scope);
  const { callbackUrl } = scope;
  if (callbackUrl !== undefined) {
    const refusal = endpointRefusal(callbackUrl, { allowPrivate: runtime.config.allowPrivateEndpoints }, "X-Callback-Url");
    if (refusal) throw new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${refusal}`);
    if (!runtime.config.callbackSecret)
      throw new RpcError(
        ErrorCode.InvalidRequest,
        "Invalid Request: this gateway sends no callbacks (SKILLMESH_CALLBACK_SECRET, which signs them, is not set)",
      );
  }
  // A keyed submit has an id of its own, so a retry finds the job it started.
  const id =
    clientKey === undefined ?
      `j_${crypto.randomUUID().replaceAll("-", "")}`
    : `j_${(await idempotencyKeyOf(request.method, owner, clientKey, slot.batch ? slot.index : undefined)).slice(-32)}`;
  const now = Date.now();
  const jobs = runtime.jobs;
  const record = {
    id,
    owner,
    method: request.method,
    params: request.params,
    context: scope.context,
    status: "queued" as const,
    createdAt: now,
    updatedAt: now,
    expiresAt: now + jobs.ttlMs,
    fingerprint,
    idempotent: job.idempotent,
    grants: scope.access.signature,
    ...(job.resumable ? { resumable: true } : {}),
    ...(scope.server !== undefined ? { server: scope.server } : {}),
    ...(callbackUrl ? { callbackUrl } : {}),
  };
  if (!(await jobs.create(record))) {
    const existing = await jobs.get(id);
    if (existing && existing.fingerprint !== fingerprint) {
      throw new RpcError(ErrorCode.IdempotencyMismatch, "This Idempotency-Key was already used with other params; use a new key for a new request");
    }
    scope.queued = true;
    return { ok: true, result: { status: existing?.status ?? "queued", jobId: id }, replayed: true };
  }
  try {
    // Until its engine starts it: a job whose engine never does (a local mesh restarted) is recovered.
    await jobs.lease(id, now + queuedLeaseMs(runtime.config.jobLeaseMs));
    await env.JOBS.create({ id, params: { jobId: id } });
  } catch (error) {
    console.error(`[gateway] could not start job ${id}:`, errorText(error));
    await jobs.move(
      id,
      ["queued"],
      { status: "failed", error: { code: ErrorCode.SkillUnavailable, message: "The job could not be started; submit it again" } },
      Date.now(),
    );
    throw new RpcError(ErrorCode.SkillUnavailable, "The job could not be started; retry after 1 s", { retryAfterMs: 1_000 });
  }
  scope.queued = true;
  return { ok: true, result: { status: "queued", jobId: id } };
}

/**
 * An upstream's task, adopted as the caller's job: its record says who owns it and which upstream
 * version runs it (the gateway's own facts, never the upstream's), and the caller's task id is
 * the job's; a `tasks/*` on it reaches that version as the caller (src/gateway/chain/operations.ts, kind "task").
 * No runner holds it, so it takes no lease.
 */
async function adoptedTask(call: SkillCall, runBy: { upstream: string; version: string; deployment: string }, started: TaskStarted): Promise<AdoptedTask> {
  const { scope, runtime, request } = call;
  const now = Date.now();
  const id = `j_${crypto.randomUUID().replaceAll("-", "")}`;
  const created = await runtime.jobs.create({
    id,
    owner: scope.context.caller,
    method: request.method,
    params: request.params,
    context: scope.context,
    status: "running",
    createdAt: now,
    updatedAt: now,
    expiresAt: now + runtime.jobs.ttlMs,
    fingerprint: await fingerprintOf(request.params ?? null),
    deployment: runBy.deployment,
    upstreamTask: { upstream: runBy.upstream, version: runBy.version, taskId: started.taskId },
  });
  if (!created) throw new RpcError(ErrorCode.InternalError);
  return { resultType: "task", jobId: id };
}

/**
 * Idempotent replay for calls with an `Idempotency-Key` (src/policies/idempotency): the first call with a
 * key runs, later ones get its answer (`replayed`); keys belong to one identified caller, and a
 * batch element's key is the header's plus its position, so one header covers a whole batch.
 */
export const idempotency: Policy = async (call, next) => {
  const { manifest, entry, request, deadline } = call;
  // A round that brings the caller's answers to an upstream's questions is a new exchange: the
  // key stands for the call's first round, and a later one is neither replayed nor kept under it.
  const answering = call.inputRound?.inputResponses !== undefined || call.inputRound?.requestState !== undefined;
  if (answering) return next(call);
  return once(
    call,
    entry.name,
    request.params ?? null,
    {
      ttlMs: (manifest.idempotencyTtlSeconds ?? 0) * 1000 || DEFAULT_IDEMPOTENCY_TTL_MS,
      pendingTtlMs: deadline - Date.now() + 5_000,
      waitMs: Math.min(deadline - Date.now() + 500, 15_000),
    },
    next,
  );
};

/**
 * Runs a call at most once per `Idempotency-Key` of its caller, for `what` (a skill's name, or
 * `code.execute`): the first runs, a retry with the same `params` gets its outcome (`replayed`),
 * other params -32003; without a key, it just runs. A store that cannot answer is -32001: running
 * anyway could run it twice.
 * @example return once(call, "code.execute", { code }, options, next)
 */
export async function once<C extends Call>(call: C, what: string, params: unknown, options: IdempotencyOptions, next: Handler<C>): Promise<Outcome> {
  const { scope, slot } = call;
  const clientKey = checkedClientKey(scope);
  if (clientKey === undefined) return next(call);
  const key = await idempotencyKeyOf(what, scope.context.caller, clientKey, slot.batch ? slot.index : undefined);
  try {
    const { outcome, replayed } = await runOnce(call.runtime.store, key, await fingerprintOf(params), options, () => next(call));
    return replayed ? { ...outcome, replayed } : outcome;
  } catch (error) {
    if (!(error instanceof StoreUnavailable)) throw error;
    console.error("[gateway] idempotency store unavailable:", errorText(error));
    throw new RpcError(ErrorCode.SkillUnavailable, `The Idempotency-Key cannot be checked right now; retry after ${RETRY_AFTER_STORE_MS / 1000} s`, {
      retryAfterMs: RETRY_AFTER_STORE_MS,
    });
  }
}

/** Retries of transient failures (src/policies/retry), for calls safe to repeat: idempotent skills, or calls with a key. */
export const retries: Policy = (call, next) => {
  const safeToRepeat = call.manifest.idempotent || call.scope.idempotencyKey !== undefined;
  return safeToRepeat ? withRetries(() => next(call), { deadline: call.deadline }) : next(call);
};

/**
 * What one forwarded call tells the deployment's breaker: a failure (it broke), a success (it
 * answered, bad input included: -32602 is the caller's problem), or nothing — a timeout that
 * came from the caller's own budget rather than the skill's `timeoutMs` says nothing about the
 * skill (`timeout` marks it `data.cutByCaller`).
 */
export function breakerVerdict(outcome: Outcome): "failure" | "success" | "none" {
  if (outcome.ok) return "success";
  const { code, data } = outcome.error;
  if (code === ErrorCode.SkillTimeout && (data as { cutByCaller?: unknown } | undefined)?.cutByCaller === true) return "none";
  if (code === ErrorCode.Cancelled) return "none"; // the caller left: the skill was neither right nor wrong
  return failureClassOf(code).breaker ? "failure" : "success";
}

/** The skill's breaker policy: the defaults with the manifest's overrides. */
function breakerPolicyOf(deployment: Deployment): BreakerPolicy {
  return { ...DEFAULT_BREAKER_POLICY, ...deployment.manifest.breaker };
}

/**
 * Routing and the fallback chain (src/registry/routing, src/policies/breaker): the routed deployment (by group and
 * sticky key); if its breaker is open, the stable version (for a canary); if that is open too,
 * the degraded deployment. An open breaker whose period is over lets one probe through (claimed
 * atomically, so one isolate probes). The attempt's outcome is recorded against the breaker of
 * the deployment that answered, charged to the caller. With every breaker open: -32001 and when
 * to retry.
 */
export const fallback: Policy = async (call, next) => {
  const { scope, runtime, entry, request } = call;
  const routed = routedDeployment(entry, scope.routeKey);
  const stable = entry.versions.find((d) => d.role === "stable");
  const chain = [...new Set([routed, routed?.role === "canary" ? stable : undefined, entry.degraded].filter((d): d is Deployment => !!d))];
  let retryAt = Infinity;
  for (const deployment of chain) {
    const status = await runtime.breakers.status(deployment.id, scope.waitUntil);
    let probe: string | undefined;
    if (status.state !== "closed") {
      if (Date.now() >= status.openUntil) probe = await runtime.breakers.claimProbe(deployment.id, breakerPolicyOf(deployment), await scope.principal());
      if (!probe) {
        retryAt = Math.min(retryAt, status.openUntil);
        continue;
      }
    }
    const started = Date.now();
    const outcome = await next({ ...call, deployment, probe });
    const policy = breakerPolicyOf(deployment);
    const verdict = breakerVerdict(outcome);
    // Observed numbers count what the breaker counts, per caller as the breaker charges them; a call its caller cut short says nothing.
    if (verdict !== "none") runtime.metrics.record(deployment.id, verdict === "success", Date.now() - started, await scope.principal(), scope.waitUntil);
    const write =
      verdict === "none" ?
        probe && runtime.breakers.releaseProbe(deployment.id, policy, probe)
      : runtime.breakers.record(deployment.id, verdict === "failure" ? await scope.principal() : undefined, policy, probe);
    if (write) scope.waitUntil(write);
    return outcome;
  }
  const retryAfterMs = Number.isFinite(retryAt) ? Math.max(1_000, retryAt - Date.now()) : 5_000;
  const message = `${request.method} is unavailable: no healthy deployment is left; retry after ${Math.ceil(retryAfterMs / 1000)} s`;
  return { ok: false, error: { code: ErrorCode.SkillUnavailable, message, data: { retryAfterMs } } };
};

/**
 * Each attempt's timeout: the deployment's `timeoutMs`, or what is left of the caller's budget
 * when that is shorter — then a -32004 says so (`data.cutByCaller`), and is the caller's outcome.
 */
export const timeout: Policy = async (call, next) => {
  const { manifest } = call.deployment!;
  // A job may run for the skill's maxDurationMs: nobody is waiting on a connection.
  const limit = call.scope.jobId ? (manifest.maxDurationMs ?? manifest.timeoutMs) : manifest.timeoutMs;
  const timeoutMs = Math.max(1, Math.min(limit, call.deadline - Date.now()));
  const outcome = await next({ ...call, timeoutMs });
  if (timeoutMs >= limit || outcome.ok || outcome.error.code !== ErrorCode.SkillTimeout) return outcome;
  // Whose budget it was: the caller's X-Timeout-Ms, a job's, or the default one retries share.
  const budget =
    call.scope.jobId ? "this job's budget (maxDurationMs)"
    : call.scope.budgetMs !== undefined ? "this call's budget (X-Timeout-Ms)"
    : "this call's budget (twice the skill's timeoutMs, retries included)";
  const message = `${call.deployment!.name} did not answer within the ${timeoutMs} ms left of ${budget}`;
  return { ...outcome, error: { code: ErrorCode.SkillTimeout, message, data: { timeoutMs, cutByCaller: true } } };
};

/**
 * The innermost handler: forwards the attempt to its deployment (src/federation/forward) inside a
 * `skillmesh.forward` span, and turns every way it can fail into an `Outcome`. A deployment its
 * operator registered as a pipeline gets a delegation token for this attempt, withdrawn when it
 * ends (src/identity/auth/delegation.ts); a store that cannot issue one fails the call (-32001), not the
 * pipeline's breaker.
 */
export const forward: Handler<SkillCall> = async (call) => {
  const deployment = call.deployment!;
  const delegation = deployment.pipeline ? await issueDelegation(call, deployment) : undefined;
  try {
    return await forwardInSpan(call, deployment, delegation?.token);
  } finally {
    if (delegation)
      await delegation
        .end()
        .catch((error) =>
          console.error(`[gateway] could not withdraw the delegation token of a ${deployment.id} call (it expires at the call's deadline):`, errorText(error)),
        );
  }
};

/**
 * A token for a pipeline's steps, standing for this call's caller: its id, grants, limits and
 * user, narrowed to the skills the pipeline declares (and those of any pipeline the call is
 * already a step of), until the call's deadline.
 */
function issueDelegation(call: SkillCall, deployment: Deployment) {
  const { scope } = call;
  const { caller, userId, group, session } = scope.context;
  const steps = deployment.manifest.pipeline?.steps ?? [];
  const context = { ...(userId ? { userId } : {}), ...(group ? { group } : {}), ...(session ? { session } : {}) };
  return call.runtime.delegations.issue(
    {
      caller,
      // A job's call is scoped to its one method, but its pipeline's steps get what its owner had at submit.
      grants: scope.delegatedGrants ?? scope.delegation?.grants ?? scope.access.signature,
      pipeline: deployment.id,
      steps: [...(scope.delegation?.steps ?? []), steps],
      limits: scope.limits,
      context,
      expiresAt: call.deadline,
    },
    Date.now(),
  );
}

function forwardInSpan(call: SkillCall, deployment: Deployment, delegation: string | undefined): Promise<Outcome> {
  const degraded = deployment.role === "degraded" ? { degraded: true } : {};
  const attributes = { "skillmesh.deployment": deployment.id, "skillmesh.role": deployment.role };
  return inSpan(tracer, "skillmesh.forward", call.trace, { kind: SpanKind.CLIENT, attributes }, async (span): Promise<Outcome> => {
    try {
      const { scope } = call;
      const traceparent = outgoingTraceparent(span, call.trace);
      const context = { ...scope.context, traceparent };
      const forwarded = {
        method: call.request.method,
        params: call.request.params,
        context,
        timeoutMs: call.timeoutMs,
        hopKey: call.runtime.config.hopKey,
        upstreams: call.runtime.upstreams.calls,
        ...(scope.subjectToken ? { subjectToken: scope.subjectToken } : {}),
        // What the call relays goes through the content path to the caller's sinks.
        ...call.relays,
        signal: call.signal,
        cancellation: call.cancellation,
        inputRound: call.inputRound,
        logLevel: call.logLevel,
        // A pipeline's steps come back to the gateway as this caller, each with a key derived from
        // the call's own (a job's id stands for one): a retried pipeline replays the steps that
        // succeeded instead of running them again.
        ...(delegation ?
          {
            delegation,
            ...(scope.context.caller !== "anonymous" && (scope.idempotencyKey ?? scope.jobId) ? { callKey: scope.idempotencyKey ?? scope.jobId } : {}),
          }
        : {}),
      };
      const answer = await forwardCall(deployment, forwarded, call.env);
      // An upstream that runs the call as a task of its own (a caller that declared the tasks extension).
      const upstream = "upstream" in deployment.endpoint ? deployment.endpoint.upstream.name : undefined;
      const result =
        upstream && isTaskStarted(answer) ? await adoptedTask(call, { upstream, version: deployment.version, deployment: deployment.id }, answer) : answer;
      return { ok: true, result, deployment: deployment.id, ...degraded };
    } catch (error) {
      if (!(error instanceof RpcError)) console.error(`[gateway] ${deployment.id}: unexpected error while forwarding, answered as -32603:`, error);
      const failure = error instanceof RpcError ? error : new RpcError(ErrorCode.InternalError);
      span.setAttribute("skillmesh.error_code", failure.code);
      return { ok: false, error: failure.toJSON(), deployment: deployment.id, ...degraded };
    }
  });
}
