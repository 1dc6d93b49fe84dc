/**
 * The gateway's one call chain: a valid JSON-RPC request in, a result (or a thrown
 * `RpcError`) out. `/rpc` serves every request of a body through it, and `/mcp` every
 * `tools/call` (its `tools/list` reads the same catalog, src/gateway/catalog.ts). The chain
 * finds what is called — a built-in (src/gateway/builtins.ts) or a skill the caller may call —
 * and runs it inside the policies of src/gateway/policies.ts; it traces and audits every call.
 */
import type { Outcome } from "../outcome/index.js";
import { MAX_JSON_DEPTH, exceedsDepth } from "../json/index.js";
import { ErrorCode, type JsonRpcParams, type JsonRpcRequest, type RequestSlot, RpcError, errorText } from "../jsonrpc/index.js";
import type { RegistryView, SkillEntry } from "../registry/snapshot.js";
import type { SkillManifest } from "../skill/manifest.js";
import { RETRY_AFTER_STORE_MS, StoreUnavailable } from "../store/index.js";
import { type Context, SpanKind, inSpan, trace } from "../tracing/index.js";
import { builtins } from "./builtins.js";
import { type Call, type CallStreaming, type SkillCall, asyncJobs, compose, fallback, forward, idempotency, limits, retries, timeout } from "./policies.js";
import type { GatewayEnv, GatewayRuntime } from "./runtime.js";
import type { CallScope } from "./scope.js";

export type { CallScope } from "./scope.js";
export type { CallStreaming } from "./policies.js";

const tracer = trace.getTracer("skillmesh-gateway");

/** A skill call, outermost policy first. */
const callSkill = compose<SkillCall>([limits, asyncJobs, idempotency, retries, fallback, timeout], forward);

/**
 * A built-in, or a call refused before the skill's policies (no such skill, params too deep):
 * counted against the caller's limits like any call, then answered (or refused).
 */
const callBuiltin = (answer: () => Promise<unknown>) => compose<Call>([limits], async () => ({ ok: true, result: await answer() }));

/** The manifest that speaks for a skill (its stable version's): timeouts, TTLs, idempotency. */
function manifestOf(entry: SkillEntry): SkillManifest {
  return (entry.versions.find((d) => d.role === "stable") ?? entry.versions[0] ?? entry.degraded)!.manifest;
}

/**
 * Answers one request through the gateway, inside a `skillmesh.call` span (a child of the
 * caller's trace) that records the method, skill, version, group and how it went; the audit log
 * gets an entry for it either way.
 * @example await processJsonRpc(body, (request, slot) => invoke(request, slot, scope, gatewayRuntime(env), env))
 */
export async function invoke(request: JsonRpcRequest, slot: RequestSlot, scope: CallScope, runtime: GatewayRuntime, env: GatewayEnv, streaming: CallStreaming = {}): Promise<unknown> {
  const attributes = { "rpc.system": "jsonrpc", "rpc.method": request.method, "skillmesh.group": scope.context.group ?? "*" };
  const started = Date.now();
  const seen: { answer?: Outcome; hidden?: boolean; skill?: string } = {};
  // Deeper params would overflow the recursion of hashing (idempotency, the audit's fingerprint)
  // and serialising (forward): a skill call refuses them, and the audit records none.
  const tooDeep = exceedsDepth(request.params);
  let code = 0;
  try {
    return await inSpan(tracer, `skillmesh.call ${request.method}`, scope.trace, { kind: SpanKind.SERVER, attributes }, async (span, context) => {
      const base = { request, slot, scope, runtime, env, trace: context, ...streaming };
      const builtin = builtins.get(request.method);
      if (builtin) {
        seen.skill = request.method;
        const builtinContext = {
          view: await registryView(runtime, context),
          access: scope.access,
          caller: scope.context.caller,
          runtime,
          call: (method: string, params: JsonRpcParams) => invoke({ jsonrpc: "2.0", method, params, id: request.id ?? 0 }, slot, scope, runtime, env, streaming),
          answeredBy: scope.answeredBy,
          deadline: Date.now() + (scope.budgetMs ?? 30_000),
          delegated: !!scope.delegation,
        };
        return resultOf(await callBuiltin(() => builtin(request, builtinContext))({ ...base, deadline: Infinity }));
      }
      const entry = await registryEntry(runtime, request.method, context, scope.waitUntil);
      // A skill outside the caller's grants answers as if it did not exist (the audit log knows).
      seen.hidden = !!entry && !scope.access.allowsSkill(entry.name, entry.tags);
      // A refused call counts against the caller's limits like any other: a scan of names is not free.
      const refuse = (refusal: RpcError) => callBuiltin(() => Promise.reject(refusal))({ ...base, deadline: Infinity });
      if (!entry || seen.hidden) return resultOf(await refuse(new RpcError(ErrorCode.MethodNotFound)));
      seen.skill = entry.name;
      span.setAttribute("skillmesh.skill", entry.name);
      if (tooDeep) return resultOf(await refuse(new RpcError(ErrorCode.InvalidParams, `Invalid params: nested deeper than ${MAX_JSON_DEPTH} levels`)));
      const manifest = manifestOf(entry);
      // A job's call may take the skill's maxDurationMs (with room for retries within it).
      const budgetMs = scope.jobId ? (manifest.maxDurationMs ?? manifest.timeoutMs) + 5_000 : (scope.budgetMs ?? 2 * manifest.timeoutMs);
      const deadline = Date.now() + budgetMs;
      const answer = (seen.answer = await callSkill({ ...base, entry, manifest, deadline }));
      if (span.isRecording()) span.setAttributes({
        "skillmesh.outcome": answer.ok ? "ok" : "error",
        "skillmesh.degraded": !!answer.degraded,
        "skillmesh.replayed": !!answer.replayed,
        ...(answer.deployment ? { "skillmesh.version": answer.deployment.slice(answer.deployment.lastIndexOf("@") + 1) } : {}),
        ...(answer.ok ? {} : { "skillmesh.error_code": answer.error.code }),
      });
      if (answer.deployment) scope.answeredBy.add(answer.deployment);
      if (answer.degraded) scope.degraded = true;
      if (answer.replayed) scope.replayed = true;
      return resultOf(answer);
    });
  } catch (error) {
    code = error instanceof RpcError ? error.code : ErrorCode.InternalError;
    // The caller gets -32001; the operator needs the reason.
    if (error instanceof StoreUnavailable) console.error(`[gateway] ${request.method}: store unavailable:`, errorText(error));
    throw error;
  } finally {
    const { answer, hidden } = seen;
    const version = answer?.deployment ? answer.deployment.slice(answer.deployment.lastIndexOf("@") + 1) : "";
    // A method that names no skill (or one the caller may not see) is "(unknown)": a scan of names cannot grow the series.
    runtime.counters.call({ skill: seen.skill ?? "(unknown)", version, code, ms: Date.now() - started, replayed: !!answer?.replayed }, scope.waitUntil);
    if (runtime.config.logCalls) console.log(`[call] ${request.method} → ${answer?.deployment ?? "-"} ${code === 0 ? "ok" : code}${answer?.replayed ? " (replayed)" : ""}${answer?.degraded ? " (degraded)" : ""} ${Date.now() - started} ms`);
    runtime.audit.record(
      {
        type: "call",
        at: started,
        caller: scope.context.caller,
        method: request.method,
        code,
        ms: Date.now() - started,
        params: tooDeep ? undefined : request.params,
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

/** The result of an outcome, or its error thrown (the JSON-RPC layer answers it). */
function resultOf(outcome: Outcome): unknown {
  if (!outcome.ok) throw new RpcError(outcome.error.code, outcome.error.message, outcome.error.data);
  return outcome.result;
}

/**
 * The registry as this isolate sees it (a snapshot, revalidated at most once a second), inside
 * a `skillmesh.registry.lookup` span.
 * @example const view = await registryView(runtime, scope.trace)
 */
export function registryView(runtime: GatewayRuntime, parent: Context): Promise<RegistryView> {
  return registryLookup(parent, () => runtime.snapshot.current());
}

/**
 * One skill's routing entry (undefined: no such skill), inside a `skillmesh.registry.lookup`
 * span; on a new isolate it is read on its own while the whole view loads (`keepLoading`).
 * @example const entry = await registryEntry(runtime, "text.summarize", scope.trace, scope.waitUntil)
 */
export function registryEntry(runtime: GatewayRuntime, name: string, parent: Context, keepLoading: (loading: Promise<unknown>) => void): Promise<SkillEntry | undefined> {
  return registryLookup(parent, () => runtime.snapshot.entry(name, keepLoading));
}

/** A read of the registry in its span; a store that fails it is a -32001 with `retryAfterMs`. */
async function registryLookup<T>(parent: Context, read: () => Promise<T>): Promise<T> {
  try {
    return await inSpan(tracer, "skillmesh.registry.lookup", parent, {}, read);
  } catch (error) {
    console.error("[gateway] registry unavailable:", errorText(error));
    throw new RpcError(ErrorCode.SkillUnavailable, `The skill registry is unavailable; retry after ${RETRY_AFTER_STORE_MS / 1000} s`, {
      retryAfterMs: RETRY_AFTER_STORE_MS,
    });
  }
}
