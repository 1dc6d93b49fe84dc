/**
 * Code mode's operation (`code.execute`): an agent's script run in a fresh sandboxed isolate
 * (src/gateway/code-mode), over exactly the tools its caller may call through the door it came in
 * by. The script is the caller's content (the content path scans it); each of its tool calls is
 * `invoke` as the caller — grants, rate and quota (each call counts), canary by its group, breaker
 * and fallback, guardrail, pins, audit — named by the execution (its id on the entry and the span,
 * its span their parent). A retried execution with the same `Idempotency-Key` replays the first
 * one's answer, and each of its tool calls has a key of its own (the execution's and the call's
 * index), so a script run again after a failure runs no side effect twice.
 */
import { ErrorCode, type JsonRpcErrorObject, RpcError } from "../../protocols/jsonrpc/index.js";
import { DEFAULT_IDEMPOTENCY_TTL_MS, fingerprintOf } from "../../policies/idempotency/index.js";
import { checkLimits } from "../../policies/ratelimit/index.js";
import { z } from "zod";
import { randomHex, sha256Hex } from "../../lib/hash/index.js";
import { UTF8_ENCODER } from "../../lib/utf8/index.js";
import { CODE_LOADER_BINDING, type SandboxLimits, type SandboxRun, runInSandbox } from "../code-mode/sandbox.js";
import { ScriptRefused, bindableNamespace, meteredScript } from "../code-mode/script.js";
import { namespaceOf } from "../code-mode/api.js";
import type { OperationCall } from "./answers.js";
import type { ScriptExecution } from "./operation.js";
import { CallerCatalog } from "./caller-catalog.js";
import { accessOfSignature } from "../../identity/auth/access.js";
import type { ToolSummary } from "./catalog.js";
import type { InputRequests } from "../../protocols/mcp/index.js";
import type { Outcome } from "../../policies/outcome/index.js";
import type { CallScope } from "./scope.js";
import { type Handler, type Policy, once, submitted } from "./policies.js";

/** The tool that runs a script, on `/mcp` (code mode) and as a method on `/rpc`. */
export const CODE_EXECUTE = "code.execute";

/** `code.execute`'s arguments. */
export const ExecuteArgumentsSchema = z.strictObject({ code: z.string().min(1) });

/**
 * The operation of one script, as a door asks for it (its execution's id fresh).
 * @example await perform(scriptExecution("async () => modbus.decode({ frame })"), scope, runtime, env)
 */
export const scriptExecution = (code: string, method: string = CODE_EXECUTE): ScriptExecution => ({
  kind: "execute",
  method,
  code,
  ran: { id: `x_${randomHex(12)}`, calls: 0 },
});

/** What one script may use. */
export const SCRIPT_LIMITS = {
  /** Tool calls per script (refused past it: the script fails, whatever it did with the refusal). */
  calls: 500,
  /** Loop iterations and function calls (the endless loop's limit where the runtime enforces no CPU limit). */
  steps: 10_000_000,
  /** Characters of one tool call's arguments, as JSON. */
  argumentsChars: 1024 * 1024,
  sandbox: { wallMs: 30_000, cpuMs: 5_000, resultChars: 1024 * 1024, logLines: 100, logLineChars: 1_000 } satisfies SandboxLimits,
} as const;

/** Scripts running now in this isolate, by caller. */
const running = new Map<string, number>();

/**
 * A caller's scripts: so many per window (`SKILLMESH_CODE_MODE_RATE`, counted in the store), so
 * many at once in this isolate (`SKILLMESH_CODE_MODE_AT_ONCE`); past either, -32005.
 */
export const scriptLimits: Policy<OperationCall> = async (call, next) => {
  const caller = call.scope.context.caller;
  const { rate, atOnce } = call.runtime.config.codeMode;
  const decision = await checkLimits(call.runtime.store, { identifier: `code:${caller}`, rate });
  if (decision && !decision.allowed)
    throw new RpcError(ErrorCode.RateLimited, `Rate limited: this caller's scripts are used up; retry after ${Math.ceil(decision.retryAfterMs / 1000)} s`, {
      retryAfterMs: decision.retryAfterMs,
      limit: "scripts",
    });
  const now = running.get(caller) ?? 0;
  if (now >= atOnce)
    throw new RpcError(ErrorCode.RateLimited, `Rate limited: this caller already runs ${atOnce} scripts at once`, {
      retryAfterMs: 1_000,
      limit: "scripts at once",
    });
  running.set(caller, now + 1);
  try {
    return await next(call);
  } finally {
    const left = (running.get(caller) ?? 1) - 1;
    if (left) running.set(caller, left);
    else running.delete(caller);
  }
};

/**
 * `Prefer: respond-async`: the script runs as a job (src/registry/jobs) — its tool calls' progress
 * on the job, `jobs.cancel` stopping it — and the caller gets `{status: "queued", jobId}` now.
 * A script is not taken for idempotent: a job whose runner was lost while it ran fails.
 */
export const scriptJobs: Policy<OperationCall> = (call, next) =>
  call.scope.respondAsync && !call.scope.jobId ? submitted(call, { idempotent: false }) : next(call);

/**
 * Idempotent replay of a whole execution: a retry with the same `Idempotency-Key` (and the same
 * script) gets the first execution's answer; the key's other script is -32003.
 */
export const scriptReplay: Policy<OperationCall> = (call, next) => {
  const wallMs = SCRIPT_LIMITS.sandbox.wallMs;
  const code = call.operation.kind === "execute" ? call.operation.code : "";
  return once(call, CODE_EXECUTE, { code }, { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS, pendingTtlMs: wallMs + 5_000, waitMs: Math.min(wallMs + 500, 15_000) }, next);
};

/** A tool call's answer as the sandbox reads it (JSON). */
const answered = (result: unknown) => JSON.stringify({ ok: true, result });
const refusedWith = (error: JsonRpcErrorObject) => JSON.stringify({ ok: false, error });
const refusal = (code: number, message: string, data?: unknown) => refusedWith(new RpcError(code, message, data).toJSON());

/**
 * Runs the script: its namespaces those of the tools the caller may call, each tool call through the
 * chain as the caller; answers `{ result, logs, calls, execution }`, or an error naming what failed
 * or which limit the script went past (and how many tool calls it had made: their effects stand).
 */
export const execute: Handler<OperationCall> = async (call) => {
  const { operation } = call;
  if (operation.kind !== "execute") throw new RpcError(ErrorCode.InternalError);
  operation.ran.bytes = UTF8_ENCODER.encode(operation.code).length;
  operation.ran.script = operation.code;
  const loader = (call.env as Record<string, unknown>)[CODE_LOADER_BINDING] as WorkerLoader | undefined;
  if (typeof loader?.load !== "function")
    return {
      ok: false,
      error: new RpcError(ErrorCode.SkillUnavailable, `Code mode is not enabled on this gateway (no ${CODE_LOADER_BINDING} Worker Loader binding)`).toJSON(),
    };
  const run = await ScriptRun.of(call, operation);
  let script;
  try {
    script = meteredScript(operation.code, namespacesOf([...run.tools.keys()]), SCRIPT_LIMITS.steps);
  } catch (error) {
    if (!(error instanceof ScriptRefused)) throw error;
    return { ok: false, error: new RpcError(ErrorCode.InvalidParams, error.message).toJSON() };
  }
  const limits = { ...SCRIPT_LIMITS.sandbox, wallMs: Math.min(SCRIPT_LIMITS.sandbox.wallMs, call.scope.budgetMs ?? Infinity) };
  return run.outcomeOf(await runInSandbox(loader, script, (name, argsJson) => run.toolCall(name, argsJson), limits, call.signal));
};

/** One execution as it runs: the tools it may call, its tool calls' scope, what was approved, and where it stopped. */
class ScriptRun {
  /** Set once the script went past its tool calls: every later call is refused, and the script fails. */
  #pastLimit?: string;
  /** A destructive call the caller is to approve in its next round (2026-07-28): nothing more runs in this one. */
  #awaiting?: { index: number; fingerprint: string; request: InputRequests[string] };

  private constructor(
    private readonly call: OperationCall,
    private readonly operation: ScriptExecution,
    /** The tools the script may call, by the names the door lists them under. */
    readonly tools: Map<string, ToolSummary>,
    /** The scope of each tool call: the caller's (a job's: its owner's grants of the submit), named by the execution. */
    private readonly inner: CallScope,
    /** The calls approved so far, by index, each with the fingerprint of what was approved. */
    private readonly approved: Map<number, string>,
  ) {}

  /**
   * The run of `operation`: the caller's tools (under a virtual server's aliases), and its tool
   * calls' key — the execution's: the client's `Idempotency-Key`, or for a 2026-07-28 caller that
   * may be asked to approve one of the gateway's, kept for its next round.
   */
  static async of(call: OperationCall, operation: ScriptExecution): Promise<ScriptRun> {
    const { scope } = call;
    // A job's own scope reaches code.execute only: its script calls as the owner could when it
    // submitted it (behind the virtual server it came in by: the grants' signature says so).
    const owner = scope.jobId && scope.delegatedGrants ? { ...scope, access: accessOfSignature(scope.delegatedGrants) } : scope;
    const catalog = owner === scope ? call.catalog : new CallerCatalog(call.runtime, owner);
    const listedName = scope.listedName ?? ((name: string) => name);
    const tools = new Map((await catalog.tools()).map((tool) => [listedName(tool.name), tool]));
    const round = operation.approvals?.round;
    const kept = round?.state === undefined ? undefined : executionStateOf(round.state);
    const clientKey = scope.idempotencyKey;
    const key =
      kept?.key ??
      (clientKey !== undefined ? `${CODE_EXECUTE}/${(await sha256Hex(clientKey)).slice(0, 40)}`
      : round && scope.context.caller !== "anonymous" ? `${CODE_EXECUTE}/${randomHex(20)}`
      : undefined);
    const inner: CallScope = {
      ...owner,
      execution: operation.ran.id,
      trace: call.trace,
      idempotencyKey: key,
      respondAsync: false,
      callbackUrl: undefined,
    };
    return new ScriptRun(call, operation, tools, inner, approvedIn(kept, round?.responses));
  }

  /** One tool call of the script (the sandbox's host stub): its answer, or its refusal, as JSON. */
  async toolCall(name: string, argsJson: string): Promise<string> {
    const index = this.operation.ran.calls++;
    if (this.#pastLimit) return refusal(ErrorCode.InvalidRequest, this.#pastLimit);
    if (this.#awaiting) return refusal(ErrorCode.InvalidRequest, AWAITING_APPROVAL);
    if (index >= SCRIPT_LIMITS.calls) {
      this.#pastLimit = `The script made more than ${SCRIPT_LIMITS.calls} tool calls`;
      return refusal(ErrorCode.InvalidRequest, this.#pastLimit);
    }
    if (name === CODE_EXECUTE) return refusal(ErrorCode.InvalidParams, "A script cannot run another script");
    if (argsJson.length > SCRIPT_LIMITS.argumentsChars)
      return refusal(ErrorCode.InvalidParams, `The arguments of ${name.slice(0, 100)} are larger than ${SCRIPT_LIMITS.argumentsChars} characters of JSON`);
    let params: unknown;
    try {
      params = JSON.parse(argsJson);
    } catch {
      return refusal(ErrorCode.InvalidParams, "The arguments are not JSON");
    }
    if (params === null || typeof params !== "object" || Array.isArray(params))
      return refusal(ErrorCode.InvalidParams, `${name.slice(0, 100)} takes one arguments object`);
    // Only the tools the caller may call here: a built-in (jobs.*, skills.*) is not one of them.
    const tool = this.tools.get(name);
    if (!tool) return refusal(ErrorCode.MethodNotFound, `Unknown tool: ${name.slice(0, 200)}; catalog.search finds the tools you may call`);
    const refused = isDestructive(tool) ? await this.#approval(name, tool, index, params, argsJson) : undefined;
    if (refused) return refused;
    if (this.call.signal?.aborted) return refusal(ErrorCode.Cancelled, "The script was cancelled");
    try {
      const request = { jsonrpc: "2.0" as const, method: tool.name, params: params as Record<string, unknown>, id: index };
      const result = await this.call.callTool(request, { index, batch: true }, this.inner);
      // A long script's progress: each tool call it made (a job keeps the last on its record).
      this.call.relays?.onProgress?.({ progress: this.operation.ran.calls, message: `${tool.name} answered` });
      return answered(result);
    } catch (error) {
      if (error instanceof RpcError) return refusedWith(error.toJSON());
      console.error(`[gateway] ${CODE_EXECUTE}: a tool call failed unexpectedly, answered as -32603:`, error);
      return refusal(ErrorCode.InternalError, "Internal error");
    }
  }

  /**
   * The caller's approval of one destructive call: approved in an earlier round for this very call,
   * or asked now on a 2025 stream; undefined when it may run, else its refusal. A 2026-07-28 caller
   * is asked in its next round: the execution stops here.
   */
  async #approval(name: string, tool: ToolSummary, index: number, params: unknown, argsJson: string): Promise<string | undefined> {
    const approvals = this.operation.approvals;
    const fingerprint = await fingerprintOf({ tool: tool.name, params });
    if (this.approved.get(index) === fingerprint) return undefined;
    const request = approvalRequest(name, argsJson);
    const key = `approve-${index}`;
    if (approvals?.ask) {
      // The question carries the script's arguments to the caller: through the content path, as any answer.
      const question = await this.call.content.kept(request, "answer");
      if (question.withheld) return refusal(ErrorCode.InvalidRequest, `The approval of ${name.slice(0, 100)} was withheld by the secrets guardrail`);
      return isApproval((await approvals.ask({ [key]: question.value }))[key]) ? undefined : (
          refusal(ErrorCode.InvalidRequest, `The caller declined ${name.slice(0, 100)}`)
        );
    }
    if (approvals?.round) {
      this.#awaiting = { index, fingerprint, request };
      return refusal(ErrorCode.InvalidRequest, AWAITING_APPROVAL);
    }
    return refusal(
      ErrorCode.InvalidRequest,
      `${name.slice(0, 100)} is destructive: it runs only with its caller's approval, and this request cannot be asked for it (an MCP client that declares elicitation can); call it directly`,
      { needsApproval: true },
    );
  }

  /**
   * The execution's outcome once the sandbox is done: a 2026-07-28 caller's next round (the
   * execution's key and what it approved kept for it), the script's result, or its failure — a
   * script past a limit failed whatever it made of the refusal, its tool calls named, not reported
   * as its success.
   */
  outcomeOf(run: SandboxRun): Outcome {
    if (this.#awaiting) {
      const { index, fingerprint, request } = this.#awaiting;
      const key = this.inner.idempotencyKey;
      const state: ExecutionState = { ...(key ? { key } : {}), approved: Object.fromEntries(this.approved), asked: { [index]: fingerprint } };
      return { ok: true, result: { resultType: "input_required", inputRequests: { [`approve-${index}`]: request }, requestState: JSON.stringify(state) } };
    }
    const done = { execution: this.operation.ran.id, calls: this.operation.ran.calls, logs: run.logs };
    if (this.#pastLimit) return { ok: false, error: new RpcError(ErrorCode.InvalidRequest, this.#pastLimit, done).toJSON() };
    if (this.call.signal?.aborted) return { ok: false, error: new RpcError(ErrorCode.Cancelled, "The script was cancelled", done).toJSON() };
    if (!run.ok) return { ok: false, error: new RpcError(run.timedOut ? ErrorCode.SkillTimeout : ErrorCode.InvalidParams, run.error, done).toJSON() };
    return { ok: true, result: { result: JSON.parse(run.resultJson) as unknown, ...done } };
  }
}

/** What a script's tool calls hear while the execution waits for its caller's approval. */
const AWAITING_APPROVAL = "The script waits for its caller's approval of a destructive tool call: nothing more runs in this round";

/** A tool that says it destroys: `destructiveHint` declared true (MCP's default for a tool that declares nothing is not taken as a claim). */
const isDestructive = (tool: ToolSummary): boolean => tool.annotations?.destructiveHint === true && tool.annotations.readOnlyHint !== true;

/** The elicitation that asks the caller to approve one destructive call. */
function approvalRequest(name: string, argsJson: string): InputRequests[string] {
  const args = argsJson.length > 500 ? `${argsJson.slice(0, 500)}…` : argsJson;
  return {
    method: "elicitation/create",
    params: {
      message: `[${CODE_EXECUTE}] The script asks to call ${name.slice(0, 100)}, which is marked destructive, with ${args}. Approve this call?`,
      requestedSchema: { type: "object", properties: { approve: { type: "boolean", title: `Run ${name.slice(0, 100)}` } }, required: ["approve"] },
    },
  };
}

/** An elicitation's answer that approves: accepted, with \`approve: true\`. */
const isApproval = (answer: Record<string, unknown> | undefined): boolean =>
  answer?.action === "accept" && (answer.content as { approve?: unknown } | undefined)?.approve === true;

/** What an execution keeps between a 2026-07-28 caller's rounds (in the store, behind a handle): its calls' key, the calls approved and the one asked about. */
const ExecutionStateSchema = z.object({
  key: z.string().optional(),
  approved: z.record(z.string(), z.string()),
  asked: z.record(z.string(), z.string()),
});
type ExecutionState = z.infer<typeof ExecutionStateSchema>;

function executionStateOf(state: string): ExecutionState {
  try {
    return ExecutionStateSchema.parse(JSON.parse(state));
  } catch {
    throw new RpcError(ErrorCode.InvalidParams, "Invalid params: requestState is not one of code.execute's");
  }
}

/** The calls approved so far (by index, each with what was approved): the kept ones, and those this round's answers approve. */
function approvedIn(state: ExecutionState | undefined, responses: Record<string, Record<string, unknown>> | undefined): Map<number, string> {
  const approved = new Map(Object.entries(state?.approved ?? {}).map(([index, fingerprint]) => [Number(index), fingerprint]));
  for (const [index, fingerprint] of Object.entries(state?.asked ?? {}))
    if (isApproval(responses?.[`approve-${index}`])) approved.set(Number(index), fingerprint);
  return approved;
}

/** The namespaces a script binds as constants: those of the tools' names that can be. */
const namespacesOf = (names: string[]): string[] => [...new Set(names.map((name) => namespaceOf(name).namespace))].filter(bindableNamespace);
