/**
 * The gateway's one call chain: a valid JSON-RPC request in, a result (or a thrown `RpcError`)
 * out — and every other operation a caller asks for (a resource read, a prompt get, a package's
 * file or archive, a catalog search: src/gateway/chain/operation.ts) through the same door. `/rpc`
 * serves every request of a body through `invoke`, `/mcp` every `tools/call`; the other MCP
 * methods, the well-known routes and the compact catalog go through `perform`. Both resolve what
 * is asked over the caller's catalog — a built-in (src/gateway/chain/builtins.ts), a skill, or an
 * operation's target — answer "no such thing" the same way whether it is missing or hidden
 * (charged and audited), run it inside its kind's policies (src/gateway/chain/policies.ts,
 * src/gateway/chain/operations.ts), and trace, count and audit it once (`recorded`).
 */
import type { PendingCallEntry } from "../../registry/audit/index.js";
import type { Outcome } from "../../policies/outcome/index.js";
import { type Cleared, ContentPath, ownOutcome, passed } from "../../policies/content/index.js";
import { strictestOf } from "../../policies/guardrails/index.js";
import { MAX_JSON_DEPTH, exceedsDepth } from "../../lib/json/index.js";
import { ErrorCode, type JsonRpcParams, type JsonRpcRequest, type RequestSlot, RpcError, errorText } from "../../protocols/jsonrpc/index.js";
import { StoreUnavailable } from "../../store/index.js";
import { type Attributes, type Context, type Span, SpanKind, inSpan, trace } from "../../protocols/tracing/index.js";
import { builtins } from "./builtins.js";
import { CallerCatalog } from "./caller-catalog.js";
import { callableEntry, manifestOf, registryEntry, registryView } from "./lookup.js";
import type { ExecutionRecord, Operation, OperationKind } from "./operation.js";
import { type OperationCall, pinOf } from "./answers.js";
import { OPERATIONS, notFoundOf, ownerNameOf, rowOf } from "./operations.js";
import { CODE_EXECUTE, ExecuteArgumentsSchema, scriptExecution } from "./execute.js";
import {
  type Call,
  type CallStreaming,
  type SkillCall,
  asyncJobs,
  compose,
  content,
  conversations,
  fallback,
  forward,
  idempotency,
  limits,
  type Policy,
  retries,
  throughContent,
  timeout,
} from "./policies.js";
import type { GatewayEnv, GatewayRuntime } from "./runtime.js";
import type { CallScope } from "./scope.js";

export type { CallScope } from "./scope.js";
export type { CallStreaming } from "./policies.js";
export { registryEntry, registryView } from "./lookup.js";

const tracer = trace.getTracer("skillmesh-gateway");

/** A skill call, outermost policy first. */
const callSkill = compose<SkillCall>([limits, content, conversations, asyncJobs, idempotency, retries, fallback, timeout], forward);

/**
 * A built-in, or a call refused before its policies (no such skill or resource, params too deep):
 * counted against the caller's limits like any call, then answered (or refused).
 */
const callBuiltin = (answer: () => Promise<unknown>) => compose<Call>([limits], async () => ({ ok: true, result: await answer() }));

/** Each kind of operation, outermost policy first (src/gateway/chain/operations.ts says what each is). */
const runs = Object.fromEntries(
  Object.entries(OPERATIONS).map(([kind, row]) => {
    // Every kind: charged, then through the content path (what it carries of the caller, its pin), then its own policies.
    const throughPath: Policy<OperationCall> = (call, next) => throughContent(call, next, row.carries, pinOf(call));
    return [kind, compose<OperationCall>([limits, throughPath, ...row.policies], row.answer)];
  }),
) as Record<OperationKind, (call: OperationCall) => Promise<Outcome>>;

/** What one operation's record says of it, learnt as it runs. */
interface Seen {
  /** Its outcome, once it has one. */
  answer?: Outcome;
  /** It named a skill that exists outside the caller's grants. */
  hidden?: boolean;
  /** The skill, upstream or package it went to (the counters' label). */
  owner?: string;
}

/** What an operation is, for its span, its counters and its audit entry. */
interface Recorded {
  method: string;
  kind: "tool" | OperationKind;
  /** The params fingerprinted in the audit entry (none when too deep to hash). */
  params?: unknown;
  /** What was read or got (a URI, `prompt:<name>`): the audit entry's `resource`. */
  resource?: string;
  /** A script's execution, as it ran (filled in while it runs). */
  execution?: ExecutionRecord;
}

/**
 * Runs one operation inside a `skillmesh.call` span (a child of the caller's trace) that records
 * its method, owner, version, group and how it went; then counts it (Prometheus) and writes its
 * audit entry, whatever happened: the one place every kind of operation is traced, counted and
 * audited.
 */
async function recorded<T>(
  runtime: GatewayRuntime,
  scope: CallScope,
  what: Recorded,
  run: (span: Span, context: Context, seen: Seen) => Promise<T>,
): Promise<T> {
  const attributes: Attributes = { "rpc.system": "jsonrpc", "rpc.method": what.method, "skillmesh.group": scope.context.group ?? "*" };
  if (what.kind !== "tool") attributes["skillmesh.operation"] = what.kind;
  const execution = what.execution?.id ?? scope.execution;
  if (execution) attributes["skillmesh.execution"] = execution;
  const started = Date.now();
  const seen: Seen = {};
  let code = 0;
  try {
    return await inSpan(tracer, `skillmesh.call ${what.method}`, scope.trace, { kind: SpanKind.SERVER, attributes }, (span, context) =>
      run(span, context, seen),
    );
  } catch (error) {
    code = error instanceof RpcError ? error.code : ErrorCode.InternalError;
    // The caller gets -32001; the operator needs the reason.
    if (error instanceof StoreUnavailable) console.error(`[gateway] ${what.method}: store unavailable:`, errorText(error));
    throw error;
  } finally {
    const { answer, hidden } = seen;
    const version = answer?.deployment ? answer.deployment.slice(answer.deployment.lastIndexOf("@") + 1) : "";
    // A method that names no skill (or one the caller may not see) is "(unknown)": a scan of names cannot grow the series.
    runtime.counters.call(
      {
        skill: seen.owner ?? "(unknown)",
        version,
        code,
        ms: Date.now() - started,
        replayed: !!answer?.replayed,
        kind: what.kind,
        ...(answer?.guardrail ? { guardrail: answer.guardrail } : {}),
      },
      scope.waitUntil,
    );
    if (runtime.config.logCalls)
      console.log(
        `[call] ${what.method}${what.resource ? ` ${what.resource.slice(0, 100)}` : ""} → ${answer?.deployment ?? "-"} ${code === 0 ? "ok" : code}${answer?.replayed ? " (replayed)" : ""}${answer?.degraded ? " (degraded)" : ""} ${Date.now() - started} ms`,
      );
    // Only what applies is written (a hot path: assigned, not spread).
    const entry: PendingCallEntry = {
      type: "call",
      at: started,
      caller: scope.context.caller,
      method: what.method,
      code,
      ms: Date.now() - started,
      params: what.params,
    };
    if (what.resource !== undefined) entry.resource = what.resource.slice(0, 512);
    if (scope.context.group) entry.group = scope.context.group;
    if (answer?.deployment) entry.deployment = answer.deployment;
    if (answer?.replayed) entry.replayed = true;
    if (answer?.degraded) entry.degraded = true;
    if (hidden) entry.hidden = true;
    if (answer?.guardrail) entry.guardrail = answer.guardrail;
    if (what.execution) entry.execution = { ...what.execution };
    else if (scope.execution) entry.execution = { id: scope.execution };
    runtime.audit.record(entry, scope.waitUntil);
  }
}

/**
 * Answers one JSON-RPC request (a tool call or a built-in) through the gateway.
 * @example await processJsonRpc(body, (request, slot) => invoke(request, slot, scope, gatewayRuntime(env), env))
 */
export function invoke(
  request: JsonRpcRequest,
  slot: RequestSlot,
  scope: CallScope,
  runtime: GatewayRuntime,
  env: GatewayEnv,
  streaming: CallStreaming = {},
): Promise<unknown> {
  // A script is an operation of its own (src/gateway/chain/execute.ts), audited as one; its tool calls come back here.
  if (request.method === CODE_EXECUTE) {
    const asked = ExecuteArgumentsSchema.safeParse(request.params);
    if (asked.success) return perform(scriptExecution(asked.data.code), scope, runtime, env, undefined, streaming);
  }
  // Deeper params would overflow the recursion of hashing (idempotency, the audit's fingerprint)
  // and serialising (forward): a skill call refuses them, and the audit records none.
  const tooDeep = exceedsDepth(request.params);
  return recorded(runtime, scope, { method: request.method, kind: "tool", params: tooDeep ? undefined : request.params }, async (span, context, seen) => {
    const base = { request, slot, scope, runtime, env, trace: context, deadline: Infinity, ...streaming };
    const builtin = builtins.get(request.method);
    if (builtin) {
      seen.owner = request.method;
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
      // A built-in answers in the gateway's own words (a job's result was passed when the job ran).
      return resultOf(ownOutcome(await callBuiltin(() => builtin(request, builtinContext))(base)));
    }
    if (request.method === CODE_EXECUTE)
      return resultOf(await refused(base, new RpcError(ErrorCode.InvalidParams, `Invalid params: ${CODE_EXECUTE} takes { code: "async () => { … }" }`)));
    // A skill outside the caller's grants answers as if it did not exist (the audit log knows).
    const { entry, hidden } = await callableEntry(runtime, scope, request.method, context);
    seen.hidden = hidden;
    const refuse = (refusal: RpcError) => refused(base, refusal);
    if (!entry) return resultOf(await refuse(new RpcError(ErrorCode.MethodNotFound)));
    seen.owner = entry.name;
    span.setAttribute("skillmesh.skill", entry.name);
    if (tooDeep) return resultOf(await refuse(new RpcError(ErrorCode.InvalidParams, `Invalid params: nested deeper than ${MAX_JSON_DEPTH} levels`)));
    const manifest = manifestOf(entry);
    // A job's call may take the skill's maxDurationMs (with room for retries within it).
    const budgetMs = scope.jobId ? (manifest.maxDurationMs ?? manifest.timeoutMs) + 5_000 : (scope.budgetMs ?? 2 * manifest.timeoutMs);
    const deadline = Date.now() + budgetMs;
    const path = new ContentPath(strictestOf(manifest.guardrails?.secrets, scope.guardrails?.secrets));
    const answer = (seen.answer = passed(await callSkill({ ...base, entry, manifest, deadline, content: path })));
    describeOutcome(span, answer);
    if (answer.deployment) scope.answeredBy.add(answer.deployment);
    if (answer.degraded) scope.degraded = true;
    if (answer.replayed) scope.replayed = true;
    return resultOf(answer);
  });
}

/**
 * Performs an operation that is no tool call — a resource read, a prompt get, a package's archive,
 * a catalog search — for the scope's caller: resolved over its catalog (what it cannot see is not
 * found, charged and audited as a call of a hidden skill is), then run inside its kind's policies.
 * The result is the kind's (src/gateway/chain/operations.ts: a read's checked answer, or a package
 * file's bytes). `catalog` is the request's, when it has one already.
 * @example await perform({ kind: "resource", method: "resources/read", uri: "units://table" }, scope, runtime, env)
 */
export function perform(
  operation: Operation,
  scope: CallScope,
  runtime: GatewayRuntime,
  env: GatewayEnv,
  catalog = new CallerCatalog(runtime, scope),
  streaming: CallStreaming = {},
): Promise<unknown> {
  const row = rowOf(operation);
  const params = row.audited?.(operation);
  return recorded(
    runtime,
    scope,
    { method: operation.method, kind: operation.kind, params, resource: row.resource(operation), execution: row.execution?.(operation) },
    async (span, context, seen) => {
      const base = {
        request: { jsonrpc: "2.0" as const, method: operation.method, params: params as JsonRpcParams, id: 0 },
        slot: ONE,
        scope,
        runtime,
        env,
        trace: context,
        deadline: Infinity,
        ...streaming,
        // A script's tool calls: each one through the whole chain, as the scope it is given.
        callTool: (request: JsonRpcRequest, slot: RequestSlot, inner: CallScope) => invoke(request, slot, inner, runtime, env),
      };
      const target = await row.resolve(operation, catalog);
      const notFound = () => notFoundOf(operation);
      if (!target) return resultOf(await refused(base, notFound()));
      seen.owner = ownerNameOf(target);
      span.setAttribute("skillmesh.skill", seen.owner);
      const path = new ContentPath(await catalog.secretsModeOf(target));
      const answer = (seen.answer = passed(await runs[operation.kind]({ ...base, operation, target, catalog, content: path, notFound })));
      describeOutcome(span, answer);
      if (answer.replayed) scope.replayed = true;
      return resultOf(answer);
    },
  );
}

/**
 * Refuses a call of a tool the caller has none of (missing, or outside its grants: one answer),
 * as `invoke` refuses one, with `refusal` (an MCP `tools/call` words it its own way): charged,
 * traced and audited.
 * @example await refuseUnknown("divide", new RpcError(ErrorCode.InvalidParams, "Unknown tool: divide"), scope, runtime, env)
 */
export function refuseUnknown(method: string, refusal: RpcError, scope: CallScope, runtime: GatewayRuntime, env: GatewayEnv): Promise<never> {
  return recorded(runtime, scope, { method, kind: "tool" }, async (_span, context, seen) => {
    const entry = await registryEntry(runtime, method, context, scope.waitUntil).catch(() => undefined);
    seen.hidden = !!entry;
    resultOf(await refused({ request: { jsonrpc: "2.0", method, id: 0 }, slot: ONE, scope, runtime, env, trace: context, deadline: Infinity }, refusal));
    throw refusal;
  });
}

/** A refusal: counted against the caller's limits like any call (a scan of names is not free), then thrown. */
async function refused(base: Call, refusal: RpcError): Promise<Cleared<Outcome>> {
  return ownOutcome(await callBuiltin(() => Promise.reject(refusal))({ ...base, deadline: Infinity }));
}

/** The slot of an operation: one request, never a batch element. */
const ONE: RequestSlot = { index: 0, batch: false };

/** How a call went, on its span (when a tracer records it). */
function describeOutcome(span: Span, answer: Outcome): void {
  if (!span.isRecording()) return;
  span.setAttributes({
    "skillmesh.outcome": answer.ok ? "ok" : "error",
    "skillmesh.degraded": !!answer.degraded,
    "skillmesh.replayed": !!answer.replayed,
    ...(answer.deployment ? { "skillmesh.version": answer.deployment.slice(answer.deployment.lastIndexOf("@") + 1) } : {}),
    ...(answer.ok ? {} : { "skillmesh.error_code": answer.error.code }),
  });
}

/** The result of an outcome that passed the content path, or its error thrown (the JSON-RPC layer answers it). */
function resultOf(outcome: Cleared<Outcome>): unknown {
  if (!outcome.ok) throw new RpcError(outcome.error.code, outcome.error.message, outcome.error.data);
  return outcome.result;
}
