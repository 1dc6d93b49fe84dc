/**
 * MCP tasks over the gateway's async jobs (src/registry/jobs): the same job seen as a 2025-11-25 task
 * (experimental core: requestor-driven `params.task`, `tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel`) or as a task of the 2026-07-28 `io.modelcontextprotocol/tasks` extension
 * (server-directed `resultType: "task"`, `tasks/get` with the outcome inline, `tasks/cancel`,
 * `tasks/update`). Shapes per the 2025-11-25 schema and SEP-2663.
 */
import { z } from "zod";
import type { ToolSummary } from "../gateway/chain/catalog.js";
import { type JobStatus, JobListSchema, JobQueuedSchema, type JobView, JobViewSchema } from "../registry/jobs/index.js";
import { InputRetrySchema, type UpstreamTask } from "../protocols/mcp/index.js";
import { isToolError } from "../policies/failures/index.js";
import { sleep } from "../lib/signal/index.js";
import {
  ErrorCode,
  type JsonRpcErrorObject,
  type JsonRpcParams,
  type JsonRpcRequest,
  type RequestSlot,
  RpcError,
  parseParams,
} from "../protocols/jsonrpc/index.js";
import type { McpBackend } from "./backend.js";
import { holdLongRequest } from "./waits.js";
import type { CallToolResult, Task2025, Task2026, TaskStatus } from "../protocols/mcp/index.js";
import { toolErrorOf, toolResultOf } from "./tools.js";

export { TASKS_EXTENSION, declaresTasks } from "../protocols/mcp/index.js";
/** `_meta` key tying a 2025 `tasks/result` to its task. */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";
/** How often a client is asked to poll. */
export const POLL_INTERVAL_MS = 1_000;
/** How often a 2025 `tasks/result` looks whether its task has ended: first soon, then less often. */
const TASK_RESULT_POLL_MS = 250;
const TASK_RESULT_POLL_MAX_MS = 2_000;
/**
 * How long a `tasks/result` waits for its task at most (or the caller's `X-Timeout-Ms`, when
 * shorter): then -32004 with the task's status, and the client asks again (a new call, counted again).
 */
export const TASK_RESULT_WAIT_MS = 60_000;

export const TaskIdParamsSchema = z.object({ taskId: z.string().min(1).max(64) }).loose();
/** `tasks/update`: the caller's answers to what its task waits for, by the task's keys. */
export const TaskUpdateParamsSchema = TaskIdParamsSchema.extend({ inputResponses: InputRetrySchema.shape.inputResponses.unwrap() });
export const TasksListParamsSchema = z.object({ cursor: z.string().optional() }).loose();

/** A running job's last progress report in words: "step 2 of 5 (2/5)". */
function progressText(progress: NonNullable<JobView["progress"]>): string {
  const count = progress.total !== undefined ? `${progress.progress}/${progress.total}` : `${progress.progress}`;
  return progress.message ? `${progress.message} (${count})` : `Running (${count})`;
}

/** A job's status as a task's. */
export function taskStatusOf(status: JobStatus): TaskStatus {
  return status === "queued" || status === "running" ? "working" : status;
}

/** True for a status no task leaves. */
export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

function common(job: JobView) {
  const status = taskStatusOf(job.status);
  return {
    taskId: job.jobId,
    status,
    statusMessage:
      job.status === "queued" ? "Queued"
      : job.status === "running" ?
        job.progress ?
          progressText(job.progress)
        : "Running"
      : status === "failed" ? (job.error?.message ?? "Failed")
      : status === "cancelled" ? "Cancelled"
      : "Completed",
    createdAt: new Date(job.createdAt).toISOString(),
    lastUpdatedAt: new Date(job.updatedAt).toISOString(),
  };
}

/**
 * A job as a 2025-11-25 `Task`.
 * @example task2025Of(view) // { taskId, status: "working", createdAt, lastUpdatedAt, ttl, pollInterval }
 */
export function task2025Of(job: JobView): Task2025 {
  return { ...common(job), ttl: job.expiresAt - job.createdAt, pollInterval: POLL_INTERVAL_MS };
}

/**
 * A job as a 2026-07-28 extension `Task`; with `outcome`, the `DetailedTask` of `tasks/get`
 * (the tool result when completed, the JSON-RPC error when failed). A job that ended with the
 * tool's own error (`isToolError`) completed, its result an `isError` tool result: "failed" is
 * for a call that could not run (SEP-2663's error semantics).
 * @example task2026Of(view, toolResult) // { taskId, status: "completed", result: { content, … }, ttlMs, pollIntervalMs, … }
 */
export function task2026Of(job: JobView, outcome?: { result?: CallToolResult; error?: JsonRpcErrorObject }): Task2026 {
  const toolError = job.status === "failed" && job.error && isToolError(job.error.code) ? job.error : undefined;
  const base = {
    ...common(job),
    ...(toolError ? { status: "completed" as const, statusMessage: "Completed with a tool error" } : {}),
    ttlMs: job.expiresAt - job.createdAt,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
  if (!outcome) return base;
  if (toolError) return { ...base, result: toolErrorOf(toolError) };
  if (base.status === "completed") return { ...base, result: outcome.result };
  if (base.status === "failed") return { ...base, error: outcome.error };
  return base;
}

/**
 * A catch handler that says the jobs API's -32602 (an unknown job, a bad cursor) in the tasks
 * protocol's words; any other failure passes unchanged.
 * @example await backend.call("jobs.list", params, slot, {}).catch(inTaskWords(() => "Invalid cursor"))
 */
function inTaskWords(message: (data: unknown) => string): (thrown: unknown) => never {
  return (thrown) => {
    if (!(thrown instanceof RpcError) || thrown.code !== ErrorCode.InvalidParams) throw thrown;
    throw new RpcError(ErrorCode.InvalidParams, message(thrown.data));
  };
}

/**
 * Task creation and the `tasks/*` methods of both forms, through the gateway's built-ins
 * (`jobs.get`, `jobs.list`, `jobs.cancel`: the caller's own jobs only).
 */
export class McpTasks {
  constructor(
    private readonly backend: McpBackend,
    /** The skill a tool is, to shape a finished job's result as the tool's. */
    private readonly skillOf: (name: string) => Promise<ToolSummary | undefined>,
    private readonly pageSize: number,
  ) {}

  /**
   * Submits a tool call as an async job and answers with its task: a 2026-07-28
   * `CreateTaskResult` (`resultType: "task"`) or a 2025-11-25 one (`{task}`). The job exists (a
   * `tasks/get` finds it) before the answer leaves.
   */
  async create(skill: ToolSummary, params: JsonRpcParams, slot: RequestSlot, stateless: boolean) {
    const queued = JobQueuedSchema.parse(await this.backend.submit(skill.name, params, slot));
    const job = JobViewSchema.parse(await this.backend.call("jobs.get", { jobId: queued.jobId }, slot, {}));
    if (stateless) return { resultType: "task", ...task2026Of(job) };
    return {
      task: task2025Of(job),
      _meta: { "io.modelcontextprotocol/model-immediate-response": `${skill.name} is running as task ${job.jobId}; its result will follow.` },
    };
  }

  /**
   * The 2026-07-28 `CreateTaskResult` of a tool call an upstream runs as a task of its own, adopted
   * as the caller's job `jobId` (src/gateway/chain/policies.ts): the job exists before the answer leaves.
   */
  async adopted(jobId: string) {
    const job = await this.backend.job(jobId);
    if (!job) throw new RpcError(ErrorCode.InternalError);
    return { resultType: "task", ...task2026Of(job) };
  }

  /** Answers a `tasks/*` request of the form the era has; undefined for a method the era does not have. */
  async answer(request: JsonRpcRequest, slot: RequestSlot, stateless: boolean): Promise<unknown> {
    if (stateless && (request.method === "tasks/get" || request.method === "tasks/update" || request.method === "tasks/cancel")) {
      // A task an upstream runs, while it runs: asked there, through the one door (kind "task").
      const { taskId } = parseParams(TaskIdParamsSchema, request.params);
      const job = await this.backend.job(taskId);
      if (job?.upstream && !isTerminal(taskStatusOf(job.status))) return this.upstreamTask(request, job);
    }
    switch (request.method) {
      case "tasks/get": {
        const job = await this.job(request, slot);
        return stateless ? task2026Of(job, await this.outcomeOf(job)) : task2025Of(job);
      }
      case "tasks/cancel": {
        const job = await this.job(request, slot);
        if (!stateless && isTerminal(taskStatusOf(job.status)))
          throw new RpcError(ErrorCode.InvalidParams, `Task ${job.jobId} is already ${taskStatusOf(job.status)}`);
        const cancelled = JobViewSchema.parse(await this.backend.call("jobs.cancel", { jobId: job.jobId }, slot, {}));
        return stateless ? {} : task2025Of(cancelled); // 2026: an acknowledgement
      }
      case "tasks/update":
        if (!stateless) return undefined;
        await this.job(request, slot); // known, or -32602; this gateway's tasks never ask for input
        return {};
      case "tasks/result":
        return stateless ? undefined : this.result(request, slot);
      case "tasks/list": {
        if (stateless) return undefined;
        const { cursor } = parseParams(TasksListParamsSchema, request.params ?? {});
        const page = JobListSchema.parse(
          await this.backend
            .call("jobs.list", { limit: this.pageSize, ...(cursor ? { cursor } : {}) }, slot, {})
            .catch(inTaskWords(() => "Invalid cursor: pass the nextCursor of the previous tasks/list page")),
        );
        return { tasks: page.jobs.map(task2025Of), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
      }
    }
    return undefined;
  }

  /**
   * A `tasks/*` request about a running task that an upstream runs: `tasks/get` answers the
   * upstream's status, what it waits for and (once it ended, as written down in the job) its
   * outcome; `tasks/update` passes the caller's answers on and `tasks/cancel` the cancellation,
   * both acknowledged with `{}` — the task's state is what the next `tasks/get` says.
   */
  private async upstreamTask(request: JsonRpcRequest, job: JobView): Promise<unknown> {
    const jobId = job.jobId;
    if (request.method === "tasks/update") {
      const { inputResponses } = parseParams(TaskUpdateParamsSchema, request.params);
      await this.backend.run({ kind: "task", method: "tasks/update", jobId, inputResponses });
      return {};
    }
    if (request.method === "tasks/cancel") {
      await this.backend.run({ kind: "task", method: "tasks/cancel", jobId });
      return {};
    }
    const task = (await this.backend.run({ kind: "task", method: "tasks/get", jobId })) as UpstreamTask;
    if (isTerminal(task.status)) {
      const ended = (await this.backend.job(job.jobId)) ?? job;
      return task2026Of(ended, await this.outcomeOf(ended));
    }
    return {
      ...task2026Of(job),
      status: task.status,
      ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
      ...(task.status === "input_required" && task.inputRequests ? { inputRequests: task.inputRequests } : {}),
    };
  }

  /** The caller's job a `tasks/*` request names (-32602, in the protocol's words, when unknown or another caller's). */
  private async job(request: JsonRpcRequest, slot: RequestSlot): Promise<JobView> {
    const { taskId } = parseParams(TaskIdParamsSchema, request.params);
    return JobViewSchema.parse(
      await this.backend.call("jobs.get", { jobId: taskId }, slot, {}).catch(
        inTaskWords((data) => {
          const kept = (data as { keptHours?: number } | undefined)?.keptHours;
          return `Unknown task: ${taskId}${kept ? ` (tasks are kept ${kept} h after their last change)` : ""}`;
        }),
      ),
    );
  }

  /** A finished job as what its `tools/call` would have answered: the tool result, or (failed) the JSON-RPC error. */
  private async outcomeOf(job: JobView): Promise<{ result?: CallToolResult; error?: JsonRpcErrorObject }> {
    if (job.status === "failed" && job.error) return { error: job.error };
    if (job.status !== "completed") return {};
    const skill = (await this.skillOf(job.method)) ?? ({ outputSchema: {} } as ToolSummary);
    return { result: toolResultOf(skill, job.result) };
  }

  /**
   * The job once it has ended, read from its record (first soon, then less often), holding one of
   * the caller's few long-request slots; past `TASK_RESULT_WAIT_MS` (or the caller's budget) -32004
   * with the task's status.
   */
  private async ended(running: JobView): Promise<JobView> {
    const held = holdLongRequest(this.backend.caller);
    try {
      const waitMs = Math.min(TASK_RESULT_WAIT_MS, this.backend.budgetMs ?? TASK_RESULT_WAIT_MS);
      const deadline = Date.now() + waitMs;
      let job = running;
      for (let pollMs = TASK_RESULT_POLL_MS; !isTerminal(taskStatusOf(job.status)); pollMs = Math.min(TASK_RESULT_POLL_MAX_MS, pollMs * 2)) {
        const status = taskStatusOf(job.status);
        if (Date.now() >= deadline)
          throw new RpcError(
            ErrorCode.SkillTimeout,
            `Task ${job.jobId} is still ${status} after ${Math.round(waitMs / 1000)} s: call tasks/result again, or poll tasks/get`,
            { taskId: job.jobId, status },
          );
        held.renew();
        await sleep(Math.min(pollMs, deadline - Date.now()));
        const now = await this.backend.job(job.jobId);
        if (!now) throw new RpcError(ErrorCode.InvalidParams, `Unknown task: ${job.jobId}`);
        job = now;
      }
      return job;
    } finally {
      held.release();
    }
  }

  /**
   * `tasks/result` (2025-11-25): waits for the task to end, then answers what the `tools/call`
   * would have (a failure as an `isError` result), tied to its task in `_meta`.
   */
  private async result(request: JsonRpcRequest, slot: RequestSlot) {
    // Once through the call chain (the caller's limits, the audit log), then the record alone.
    const found = await this.job(request, slot);
    const job = isTerminal(taskStatusOf(found.status)) ? found : await this.ended(found);
    const { result, error } = await this.outcomeOf(job);
    const answer = result ?? toolErrorOf(error ?? { code: ErrorCode.Cancelled, message: `Task ${job.jobId} was cancelled` });
    return { ...answer, _meta: { ...answer._meta, [RELATED_TASK]: { taskId: job.jobId } } };
  }
}
