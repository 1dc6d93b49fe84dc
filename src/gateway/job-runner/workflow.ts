/**
 * The Workflow behind async jobs (wrangler.toml `[[workflows]]`, binding `JOBS`): one instance per
 * job, named by the job id, whose first step runs the call (src/gateway/job-runner/index.ts) and second posts the
 * callback. The engine keeps it going past the isolate that accepted the job. A call's failures
 * are the gateway's call chain's to retry, as for a direct call (runJob records them, it does not
 * throw); the engine's retries of the call step are for a step cut off with its isolate (runJob
 * decides whether such a run may be repeated), and for a resumable job — an idempotent skill
 * pipeline — that failed transiently: it runs again, its succeeded steps replaying.
 */
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";
import type { GatewayEnv } from "../chain/runtime.js";
import { deliverCallback, failJob, runJob } from "./index.js";

export interface JobParams {
  jobId: string;
  /** Set on an instance that starts a stranded job again (src/gateway/job-runner/index.ts `recoverStrandedJobs`). */
  attempt?: number;
}

export class JobWorkflow extends WorkflowEntrypoint<GatewayEnv, JobParams> {
  override async run(event: Readonly<WorkflowEvent<JobParams>>, step: WorkflowStep): Promise<void> {
    // The step's own limit is above any skill's maxDurationMs (1 h): the call chain times the call.
    try {
      await step.do("call", { retries: { limit: 2, delay: "1 second", backoff: "exponential" }, timeout: "65 minutes" }, async () => {
        await runJob(this.env, event.payload.jobId, (promise) => this.ctx.waitUntil(promise), event.payload.attempt ?? 0);
        return null;
      });
    } catch (error) {
      // The engine gave up on a resumable job (src/gateway/job-runner/index.ts JobRetry): it failed with its last error.
      await step.do("give up", async () => {
        await failJob(this.env, event.payload.jobId, error instanceof Error ? error.message : "The job failed");
        return null;
      });
    }
    // Its own step, retried by the engine with backoff: a receiver that is down gets it later.
    await step.do("callback", { retries: { limit: 4, delay: "2 seconds", backoff: "exponential" }, timeout: "30 seconds" }, async () => {
      await deliverCallback(this.env, event.payload.jobId);
      return null;
    });
  }
}
