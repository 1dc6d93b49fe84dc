/**
 * The gateway's one invocation pipeline: a valid JSON-RPC request in, a result (or a thrown
 * `RpcError`) out. `/rpc` serves every request of a body through it, and `/mcp` every
 * `tools/call` (its `tools/list` reads the same catalog, src/gateway/catalog.ts). Built-in
 * methods (src/gateway/builtins.ts) are answered as they are; every other method is a skill the
 * caller may call, routed and forwarded.
 */
import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from "../breaker/index.js";
import { forwardCall } from "../forward/index.js";
import {
  DEFAULT_IDEMPOTENCY_TTL_MS,
  type Outcome,
  fingerprintOf,
  idempotencyKeyOf,
  isValidClientKey,
  runOnce,
} from "../idempotency/index.js";
import { MAX_JSON_DEPTH, exceedsDepth } from "../json/index.js";
import { ErrorCode, type JsonRpcRequest, type RequestSlot, RpcError, errorText } from "../jsonrpc/index.js";
import { checkLimits } from "../ratelimit/index.js";
import type { Deployment } from "../registry/model.js";
import type { RegistryView, SkillEntry } from "../registry/snapshot.js";
import { withRetries } from "../retry/index.js";
import { selectDeployment } from "../routing/index.js";
import type { SkillManifest } from "../skill/manifest.js";
import { type Context, SpanKind, inSpan, outgoingTraceparent, trace } from "../tracing/index.js";
import { builtins } from "./builtins.js";
import type { GatewayEnv, GatewayRuntime } from "./runtime.js";
import type { CallScope } from "./scope.js";

export type { CallScope } from "./scope.js";

const tracer = trace.getTracer("skillmesh-gateway");

/** How long a caller waits when the store (registry, idempotency keys) cannot be read. */
const RETRY_AFTER_STORE_MS = 2_000;

/** A skill call's outcome, and whether it was replayed from an earlier request. */
type Answer = Outcome & { replayed?: boolean };

/**
 * Answers one request through the gateway, inside a `skillmesh.call` span (a child of the
 * caller's trace) that records the method, skill, version, group and how it went; the audit log
 * gets an entry for it either way.
 * @example await processJsonRpc(body, (request, slot) => invoke(request, slot, scope, gatewayRuntime(env), env))
 */
export async function invoke(request: JsonRpcRequest, slot: RequestSlot, scope: CallScope, runtime: GatewayRuntime, env: GatewayEnv): Promise<unknown> {
  const attributes = { "rpc.system": "jsonrpc", "rpc.method": request.method, "skillmesh.group": scope.context.group ?? "*" };
  const started = Date.now();
  const seen: { answer?: Answer; hidden?: boolean } = {};
  let code = 0;
  try {
    return await inSpan(tracer, `skillmesh.call ${request.method}`, scope.trace, { kind: SpanKind.SERVER, attributes }, async (span, context) => {
      await enforceLimits(scope, runtime);
      const view = await registryView(runtime, context);
      const builtin = builtins.get(request.method);
      if (builtin) return builtin(request, view, scope.access);
      const entry = view.skills.get(request.method);
      // A skill outside the caller's grants answers as if it did not exist (the audit log knows).
      seen.hidden = !!entry && !scope.access.allowsSkill(entry.name, entry.tags);
      if (!entry || seen.hidden) throw new RpcError(ErrorCode.MethodNotFound);
      span.setAttribute("skillmesh.skill", entry.name);
      // Deeper params would overflow the recursion of hashing (idempotency) and serialising (forward).
      if (exceedsDepth(request.params)) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: nested deeper than ${MAX_JSON_DEPTH} levels`);
      const answer = (seen.answer = await runPolicies(entry, request, slot, scope, (timeLeftMs) => callSkill(entry, request, scope, runtime, env, timeLeftMs, context), runtime));
      span.setAttributes({
        "skillmesh.outcome": answer.ok ? "ok" : "error",
        "skillmesh.degraded": !!answer.degraded,
        "skillmesh.replayed": !!answer.replayed,
        ...(answer.deployment ? { "skillmesh.version": answer.deployment.slice(answer.deployment.lastIndexOf("@") + 1) } : {}),
        ...(answer.ok ? {} : { "skillmesh.error_code": answer.error.code }),
      });
      if (answer.deployment) scope.answeredBy.add(answer.deployment);
      if (answer.degraded) scope.degraded = true;
      if (answer.replayed) scope.replayed = true;
      if (!answer.ok) throw new RpcError(answer.error.code, answer.error.message, answer.error.data);
      return answer.result;
    });
  } catch (error) {
    code = error instanceof RpcError ? error.code : ErrorCode.InternalError;
    throw error;
  } finally {
    const { answer, hidden } = seen;
    runtime.audit.record(
      {
        type: "call",
        at: started,
        caller: scope.context.caller,
        method: request.method,
        code,
        ms: Date.now() - started,
        params: request.params,
        ...(scope.context.group ? { group: scope.context.group } : {}),
        ...(answer?.deployment ? { deployment: answer.deployment } : {}),
        ...(answer?.replayed ? { replayed: true } : {}),
        ...(answer?.degraded ? { degraded: true } : {}),
        ...(hidden ? { hidden: true } : {}),
      },
      scope.waitUntil,
    );
  }
}

/**
 * Counts the call against the caller's rate and quota (every request that reaches the pipeline,
 * built-ins included), or refuses it with -32005 and `retryAfterMs`.
 */
async function enforceLimits(scope: CallScope, runtime: GatewayRuntime): Promise<void> {
  const decision = await checkLimits(runtime.store, scope.limits);
  if (!decision) return;
  scope.rateLimit = decision;
  if (decision.allowed) return;
  const seconds = Math.ceil(decision.retryAfterMs / 1000);
  throw new RpcError(ErrorCode.RateLimited, `Rate limited: this caller's ${decision.refusedBy} is used up; retry after ${seconds} s`, {
    retryAfterMs: decision.retryAfterMs,
    limit: decision.refusedBy,
  });
}

/**
 * The registry as this isolate sees it (a snapshot, revalidated at most once a second), inside
 * a `skillmesh.registry.lookup` span.
 * @example const view = await registryView(runtime, scope.trace)
 */
export async function registryView(runtime: GatewayRuntime, parent: Context): Promise<RegistryView> {
  try {
    return await inSpan(tracer, "skillmesh.registry.lookup", parent, {}, () => runtime.snapshot.current());
  } catch (error) {
    console.error("[gateway] registry unavailable:", errorText(error));
    throw new RpcError(ErrorCode.SkillUnavailable, `The skill registry is unavailable; retry after ${RETRY_AFTER_STORE_MS / 1000} s`, {
      retryAfterMs: RETRY_AFTER_STORE_MS,
    });
  }
}

/** Errors that count against a deployment's breaker: it broke, not the caller (429 is back-pressure). */
const BREAKER_FAILURES: ReadonlySet<number> = new Set([ErrorCode.InternalError, ErrorCode.SkillUnavailable, ErrorCode.SkillTimeout]);

/**
 * What one forwarded call tells the deployment's breaker: a failure (it broke), a success
 * (it answered, bad input included: -32602 is the caller's problem), or nothing — a timeout
 * that came from the caller's own budget (`X-Timeout-Ms`, or what retries left of it) rather
 * than the skill's `timeoutMs` says nothing about the skill.
 */
function breakerVerdict(outcome: Outcome, cutByCaller: boolean): "failure" | "success" | "none" {
  if (outcome.ok) return "success";
  if (outcome.error.code === ErrorCode.SkillTimeout && cutByCaller) return "none";
  return BREAKER_FAILURES.has(outcome.error.code) ? "failure" : "success";
}

/** A deployment chosen to answer, and the probe token when it answers as a half-open probe. */
interface Choice {
  deployment: Deployment;
  probe?: string;
}

/** The skill's breaker policy: the defaults with the manifest's overrides. */
function policyOf(deployment: Deployment): BreakerPolicy {
  return { ...DEFAULT_BREAKER_POLICY, ...deployment.manifest.breaker };
}

/**
 * The fallback chain: the routed deployment; if its breaker is open, the stable version (for a
 * canary); if that is open too, the degraded deployment. An open breaker whose period is over
 * lets one probe through (claimed atomically, so one isolate probes). With every breaker open:
 * how long until one may let a probe through.
 */
async function choose(entry: SkillEntry, routed: Deployment | undefined, scope: CallScope, runtime: GatewayRuntime): Promise<Choice | { retryAfterMs: number }> {
  const stable = entry.versions.find((d) => d.role === "stable");
  const chain = [...new Set([routed, routed?.role === "canary" ? stable : undefined, entry.degraded].filter((d): d is Deployment => !!d))];
  let retryAt = Infinity;
  for (const deployment of chain) {
    const status = await runtime.breakers.status(deployment.id, scope.waitUntil);
    if (status.state === "closed") return { deployment };
    if (Date.now() >= status.openUntil) {
      const probe = await runtime.breakers.claimProbe(deployment.id, policyOf(deployment), await scope.principal());
      if (probe) return { deployment, probe };
    }
    retryAt = Math.min(retryAt, status.openUntil);
  }
  return { retryAfterMs: Number.isFinite(retryAt) ? Math.max(1_000, retryAt - Date.now()) : 5_000 };
}

/** Routes one call, walks the fallback chain, forwards; every failure becomes an `Outcome`. */
async function callSkill(
  entry: SkillEntry,
  request: JsonRpcRequest,
  scope: CallScope,
  runtime: GatewayRuntime,
  env: GatewayEnv,
  timeLeftMs: number,
  parent: Context,
): Promise<Outcome> {
  const { context } = scope;
  const stickyKey = context.userId ?? (context.caller !== "anonymous" ? context.caller : undefined);
  const choice = await choose(entry, selectDeployment(entry, { group: context.group, stickyKey }) ?? entry.degraded, scope, runtime);
  if (!("deployment" in choice)) {
    const seconds = Math.ceil(choice.retryAfterMs / 1000);
    return { ok: false, error: { code: ErrorCode.SkillUnavailable, message: `${request.method} is unavailable: no healthy deployment is left; retry after ${seconds} s`, data: { retryAfterMs: choice.retryAfterMs } } };
  }
  const { deployment, probe } = choice;
  const degraded = deployment.role === "degraded" ? { degraded: true } : {};
  const attributes = { "skillmesh.deployment": deployment.id, "skillmesh.role": deployment.role };
  const timeoutMs = Math.max(1, Math.min(deployment.manifest.timeoutMs, timeLeftMs));
  const cutByCaller = timeoutMs < deployment.manifest.timeoutMs;
  const outcome = await inSpan(tracer, "skillmesh.forward", parent, { kind: SpanKind.CLIENT, attributes }, async (span): Promise<Outcome> => {
    try {
      const traceparent = outgoingTraceparent(span, parent);
      const result = await forwardCall(deployment, { method: request.method, params: request.params, context: { ...context, traceparent }, timeoutMs }, env);
      return { ok: true, result, deployment: deployment.id, ...degraded };
    } catch (error) {
      let failure = error instanceof RpcError ? error : new RpcError(ErrorCode.InternalError);
      if (failure.code === ErrorCode.SkillTimeout && cutByCaller) {
        failure = new RpcError(ErrorCode.SkillTimeout, `${deployment.name} did not answer within the ${timeoutMs} ms left of this call's budget (X-Timeout-Ms)`, { timeoutMs });
      }
      span.setAttribute("skillmesh.error_code", failure.code);
      return { ok: false, error: failure.toJSON(), deployment: deployment.id, ...degraded };
    }
  });
  const policy = policyOf(deployment);
  const verdict = breakerVerdict(outcome, cutByCaller);
  const write =
    verdict === "none"
      ? probe && runtime.breakers.releaseProbe(deployment.id, policy, probe)
      : runtime.breakers.record(deployment.id, verdict === "failure" ? await scope.principal() : undefined, policy, probe);
  if (write) scope.waitUntil(write);
  return outcome;
}

/** The manifest that speaks for a skill (its stable version's): timeouts, TTLs, idempotency. */
function manifestOf(entry: SkillEntry): SkillManifest {
  return (entry.versions.find((d) => d.role === "stable") ?? entry.versions[0] ?? entry.degraded)!.manifest;
}

/**
 * The policies around one skill call, outermost first: idempotent replay (with an
 * `Idempotency-Key`), then retries (for calls safe to repeat), each attempt within the caller's
 * budget (`X-Timeout-Ms`, else twice the skill's timeout).
 */
async function runPolicies(
  entry: SkillEntry,
  request: JsonRpcRequest,
  slot: RequestSlot,
  scope: CallScope,
  attempt: (timeLeftMs: number) => Promise<Outcome>,
  runtime: GatewayRuntime,
): Promise<Answer> {
  const manifest = manifestOf(entry);
  const deadline = Date.now() + (scope.budgetMs ?? 2 * manifest.timeoutMs);
  const safeToRepeat = manifest.idempotent || scope.idempotencyKey !== undefined;
  const run = () => (safeToRepeat ? withRetries(attempt, { deadline }) : attempt(deadline - Date.now()));
  if (scope.idempotencyKey === undefined) return run();

  const clientKey = scope.idempotencyKey;
  if (!isValidClientKey(clientKey)) throw new RpcError(ErrorCode.InvalidRequest, "Idempotency-Key must be 1-255 visible ASCII characters");
  // Keys are scoped to the caller's key: without one, callers would read and poison each other's answers.
  if (scope.context.caller === "anonymous") {
    throw new RpcError(ErrorCode.InvalidRequest, "Idempotency-Key needs an identified caller: send Authorization: Bearer <your key> with it");
  }
  // A batch element's key is the header's plus its position: one header covers a whole batch.
  const key = await idempotencyKeyOf(entry.name, scope.context.caller, clientKey, slot.batch ? slot.index : undefined);
  const options = {
    ttlMs: (manifest.idempotencyTtlSeconds ?? 0) * 1000 || DEFAULT_IDEMPOTENCY_TTL_MS,
    pendingTtlMs: deadline - Date.now() + 5_000,
    waitMs: Math.min(deadline - Date.now() + 500, 15_000),
  };
  const fingerprint = await fingerprintOf(request.params ?? null);
  try {
    const { outcome, replayed } = await runOnce(runtime.store, key, fingerprint, options, run);
    return replayed ? { ...outcome, replayed } : outcome;
  } catch (error) {
    if (error instanceof RpcError) throw error;
    // Without the store the key cannot be honoured; running anyway could run the skill twice.
    console.error("[gateway] idempotency store unavailable:", errorText(error));
    throw new RpcError(ErrorCode.SkillUnavailable, `The Idempotency-Key cannot be checked right now; retry after ${RETRY_AFTER_STORE_MS / 1000} s`, {
      retryAfterMs: RETRY_AFTER_STORE_MS,
    });
  }
}
