/**
 * MCP tasks over the gateway's async jobs (src/jobs): the same job seen as a 2025-11-25 task
 * (experimental core: requestor-driven `params.task`, `tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel`) or as a task of the 2026-07-28 `io.modelcontextprotocol/tasks` extension
 * (server-directed `resultType: "task"`, `tasks/get` with the outcome inline, `tasks/cancel`,
 * `tasks/update`). Shapes per the 2025-11-25 schema and SEP-2663.
 */
import { z } from "zod";
import type { JobStatus, JobView } from "../jobs/index.js";
import type { JsonRpcErrorObject } from "../jsonrpc/index.js";

/** The extension's name, in client and server capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** `_meta` key tying a 2025 `tasks/result` to its task. */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";
/** How often a client is asked to poll. */
export const POLL_INTERVAL_MS = 1_000;

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

export const TaskIdParamsSchema = z.object({ taskId: z.string().min(1).max(64) }).loose();
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
      : job.status === "running" ? (job.progress ? progressText(job.progress) : "Running")
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
export function task2025Of(job: JobView) {
  return { ...common(job), ttl: job.expiresAt - job.createdAt, pollInterval: POLL_INTERVAL_MS };
}

/**
 * A job as a 2026-07-28 extension `Task`; with `outcome`, the `DetailedTask` of `tasks/get`
 * (the tool result when completed, the JSON-RPC error when failed).
 * @example task2026Of(view, toolResult) // { taskId, status: "completed", result: { content, … }, ttlMs, pollIntervalMs, … }
 */
export function task2026Of(job: JobView, outcome?: { result?: object; error?: JsonRpcErrorObject }) {
  const base = { ...common(job), ttlMs: job.expiresAt - job.createdAt, pollIntervalMs: POLL_INTERVAL_MS };
  if (!outcome) return base;
  if (base.status === "completed") return { ...base, result: outcome.result };
  if (base.status === "failed") return { ...base, error: outcome.error };
  return base;
}

/** Whether a 2026-07-28 request's client capabilities declare the tasks extension. */
export function declaresTasks(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
}
