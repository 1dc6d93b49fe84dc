/**
 * Running a job: what a Workflow step does with a job id (src/gateway/job-runner/workflow.ts). The call goes
 * through the gateway's one call chain — routing, breakers, fallback, retries, the audit log — as
 * its owner, with the skill's `maxDurationMs`; its outcome is written to the job's record. A
 * `jobs.cancel` seen while it runs aborts the call (the skill sees `ctx.signal`).
 */
import type { Access } from "../../identity/auth/index.js";
import { invoke } from "../chain/invoke.js";
import { type GatewayEnv, type GatewayRuntime, gatewayRuntime } from "../chain/runtime.js";
import { type CallScope, callScopeOf } from "../chain/scope.js";
import { ErrorCode, RpcError, errorText } from "../../protocols/jsonrpc/index.js";
import { failureClassOf } from "../../policies/failures/index.js";
import { WEBHOOK_SIGNATURE_HEADER, signWebhook } from "../webhook/index.js";
import { forwardOnly } from "../../protocols/progress/index.js";
import { type Job, MAX_JOB_RECOVERIES, isFinal, queuedLeaseMs, viewOf } from "../../registry/jobs/index.js";

/** How often a running job looks for its own cancellation. */
export const JOB_CANCEL_CHECK_MS = 500;
/** How often a running job's progress is written to its record. */
export const PROGRESS_SAVE_MS = 1_000;

/** A transient failure of a resumable job, for the engine to retry (src/gateway/job-runner/workflow.ts). */
export class JobRetry extends Error {
  constructor(readonly error: RpcError) {
    super(`${error.message} (the job's engine runs it again)`);
  }
}

/**
 * Records a job as failed when its engine gave up retrying it: the last error the step threw.
 * @example await failJob(env, jobId, "…")
 */
export async function failJob(env: GatewayEnv, jobId: string, message: string): Promise<void> {
  await gatewayRuntime(env).jobs.move(jobId, ["running"], { status: "failed", error: { code: ErrorCode.SkillUnavailable, message } }, Date.now());
}

/**
 * Runs a queued job and records its outcome; a job cancelled, finished or expired meanwhile is
 * left as it is. A job found `running` was cut off (its isolate died; the engine retries the
 * step): it runs again if its skill is idempotent, else it fails — it may or may not have run,
 * and running it twice is what a non-idempotent skill must not get. A resumable job (an
 * idempotent pipeline) that fails transiently throws `JobRetry`: the engine runs it again.
 * @example await step.do("call", () => runJob(env, jobId, waitUntil))
 */
export async function runJob(env: GatewayEnv, jobId: string, waitUntil: (promise: Promise<unknown>) => void, attempt = 0): Promise<void> {
  const runtime = gatewayRuntime(env);
  const { jobs } = runtime;
  const leaseMs = runtime.config.jobLeaseMs;
  const before = await jobs.get(jobId);
  // A runner the job was taken from (started again after its lease ran out) leaves it alone.
  if (!before || (before.attempt ?? 0) !== attempt) return;
  if (before.status === "running" && !before.idempotent) {
    await jobs.move(jobId, ["running"], { status: "failed", error: { code: ErrorCode.SkillUnavailable, message: INTERRUPTED } }, Date.now());
    await jobs.release(jobId);
    return;
  }
  const job = await jobs.move(jobId, ["queued", "running"], { status: "running" }, Date.now());
  if (!job) return;
  await jobs.lease(jobId, Date.now() + leaseMs);
  let leased = Date.now();
  const cancel = new AbortController();
  const watch = setInterval(() => {
    jobs.get(jobId).then(
      (now) => now?.status === "cancelled" && cancel.abort(),
      () => {},
    );
    // The lease says this runner is alive: renewed a few times per lease.
    if (Date.now() - leased >= leaseMs / 3) {
      leased = Date.now();
      jobs.lease(jobId, leased + leaseMs).catch(() => {});
    }
  }, JOB_CANCEL_CHECK_MS);
  try {
    const scope = jobScopeOf(job, waitUntil);
    // The skill's progress, kept on the record at most every PROGRESS_SAVE_MS (the last report wins).
    let saved = 0;
    const onProgress = forwardOnly((progress) => {
      if (Date.now() - saved < PROGRESS_SAVE_MS) return;
      saved = Date.now();
      waitUntil(jobs.move(jobId, ["running"], { status: "running", progress }, saved).catch(() => undefined));
    });
    let fields: Partial<Job> & { status: Job["status"] };
    try {
      await behindItsDoor(scope, job, runtime);
      const result = await invoke({ jsonrpc: "2.0", method: job.method, params: job.params, id: 0 }, { index: 0, batch: false }, scope, runtime, env, {
        signal: cancel.signal,
        onProgress,
      });
      fields = { status: "completed", result };
    } catch (thrown) {
      const error = thrown instanceof RpcError ? thrown : new RpcError(ErrorCode.InternalError);
      // A resumable pipeline that failed for now: the engine runs the step again later (the job stays running).
      if (job.resumable && !cancel.signal.aborted && failureClassOf(error.code).retry !== "never") throw new JobRetry(error);
      fields = { status: "failed", error: error.toJSON() };
    }
    const deployment = [...scope.answeredBy][0];
    // From running only: a cancel that came first stays.
    await jobs.move(jobId, ["running"], { ...fields, ...(deployment ? { deployment } : {}) }, Date.now());
    await jobs.release(jobId);
  } finally {
    clearInterval(watch);
  }
}

/** Why a job whose skill is not idempotent failed when its runner was lost. */
const INTERRUPTED = "The job was interrupted while it ran; its skill is not idempotent, so it was not run again (it may or may not have run): submit it again";

/**
 * Recovers the jobs whose lease ran out (the gateway's scheduled handler, once a minute; every few
 * seconds under `npm run dev`): a runner that stopped renewing is gone — its isolate died, or a
 * local mesh was restarted and its job engine's instances with it. A queued job, or a running
 * one whose skill is idempotent, is started again on a new engine instance (the old runner, if it
 * ever comes back, finds the job taken: `attempt`), up to `MAX_JOB_RECOVERIES` times; a running
 * job whose skill is not idempotent fails with -32001 (it may or may not have run: the README's
 * "cut off" rule). Returns what it did, per job id.
 * @example await recoverStrandedJobs(env, Date.now()) // { "j_3f…": "started again (attempt 1)" }
 */
export async function recoverStrandedJobs(env: GatewayEnv, now: number): Promise<Record<string, string>> {
  const { jobs, config } = gatewayRuntime(env);
  const done: Record<string, string> = {};
  for (const id of await jobs.expiredLeases(now)) {
    const job = await jobs.get(id);
    if (!job || isFinal(job.status)) {
      await jobs.release(id);
      continue;
    }
    const attempt = (job.attempt ?? 0) + 1;
    const fail = async (message: string, why: string) => {
      if (await jobs.move(id, [job.status], { status: "failed", error: { code: ErrorCode.SkillUnavailable, message } }, now)) done[id] = why;
      await jobs.release(id);
    };
    if (job.status === "running" && !job.idempotent) await fail(INTERRUPTED, "failed: interrupted, not idempotent");
    else if (attempt > MAX_JOB_RECOVERIES || !env.JOBS)
      await fail(`The job's runner was lost ${attempt - 1} times; it was not started again: submit it again`, "failed: runner lost too often");
    else if (await jobs.move(id, [job.status], { status: job.status, attempt }, now)) {
      await jobs.lease(id, now + queuedLeaseMs(config.jobLeaseMs));
      try {
        await env.JOBS.create({ id: `${id}-${attempt}`, params: { jobId: id, attempt } });
        done[id] = `started again (attempt ${attempt})`;
      } catch (error) {
        console.error(`[gateway] could not start job ${id} again:`, errorText(error));
      }
    }
  }
  return done;
}

/**
 * The scope a job's call runs in: its owner, its context (user, group, trace), the one skill it
 * was submitted for (the grants were checked then), no rate limit (counted at submit).
 */
function jobScopeOf(job: Job, waitUntil: CallScope["waitUntil"]): CallScope {
  const access: Access = {
    allowsSkill: (name) => name === job.method,
    allowsGroup: () => true,
    allowsServer: () => true,
    admin: "none",
    unrestricted: false,
    signature: `job:${job.method}`,
  };
  const { userId, group, session, traceparent } = job.context;
  const headers = new Headers();
  if (userId) headers.set("x-user-id", userId);
  if (group) headers.set("x-user-group", group);
  if (session) headers.set("x-session-id", session);
  if (traceparent) headers.set("traceparent", traceparent);
  // The job's own call reaches only its method; a pipeline's steps get the owner's grants of the submit.
  return {
    ...callScopeOf(headers, { id: job.owner, access, limits: { identifier: job.owner } }, waitUntil, access),
    jobId: job.id,
    ...(job.grants ? { delegatedGrants: job.grants } : {}),
  };
}

/**
 * A job submitted through a virtual server runs behind that door again: the server's names for
 * its tools (a script calls them by those) and its secrets guardrail (its calls are held to at
 * least that). A server removed since refuses the job (-32001) rather than run it behind none.
 */
async function behindItsDoor(scope: CallScope, job: Job, runtime: GatewayRuntime): Promise<void> {
  if (job.server === undefined) return;
  const server = await runtime.servers.get(job.server);
  if (!server) throw new RpcError(ErrorCode.SkillUnavailable, `The virtual server ${job.server.slice(0, 64)} this job was submitted through is gone`);
  scope.server = server.name;
  scope.listedName = server.listedName;
  if (server.definition.guardrails) scope.guardrails = server.definition.guardrails;
}

/** A callback delivery that did not get a 2xx: the Workflow step is retried. */
export class CallbackFailed extends Error {}

/**
 * POSTs a finished job's view to its callback URL, signed as a webhook (src/gateway/webhook:
 * `X-Skillmesh-Signature: t=<ms>,v1=<HMAC-SHA256 hex>` with `SKILLMESH_CALLBACK_SECRET`);
 * redirects are not followed. Throws on anything but a 2xx.
 * @example await step.do("callback", { retries: { limit: 4, delay: "2 seconds", backoff: "exponential" } }, () => deliverCallback(env, jobId))
 */
export async function deliverCallback(env: GatewayEnv, jobId: string): Promise<void> {
  const runtime = gatewayRuntime(env);
  const job = await runtime.jobs.get(jobId);
  const secret = runtime.config.callbackSecret;
  if (!job?.callbackUrl || !secret || !isFinal(job.status)) return;
  const body = JSON.stringify(viewOf(job));
  const url = new URL(job.callbackUrl);
  const signature = await signWebhook(secret, { path: url.pathname, body });
  const response = await fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/json", [WEBHOOK_SIGNATURE_HEADER]: signature },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  if (!response.ok) throw new CallbackFailed(`${job.callbackUrl} answered HTTP ${response.status}`);
}
