/**
 * The gateway's own methods, answered without calling a skill: `skills.list`, `skills.discover`
 * (`{capability?, tags?}`) and `rpc.discover` (OpenRPC) from the registry view, each showing only
 * the skills the caller may call; and `jobs.get`, `jobs.list`, `jobs.cancel` for the caller's
 * own async jobs (src/jobs).
 */
import { z } from "zod";
import type { Access } from "../auth/index.js";
import { JOB_STATUSES, type Job, isFinal, viewOf } from "../jobs/index.js";
import { ErrorCode, type JsonRpcRequest, RpcError, parseParams } from "../jsonrpc/index.js";
import { discoverIn } from "../registry/discovery.js";
import type { RegistryView } from "../registry/snapshot.js";
import { positionalMapper } from "../skill/index.js";
import type { Observed } from "../metrics/index.js";
import { type SkillSummary, allowedOf, catalogFor, summarize } from "./catalog.js";
import { openRpcDocument } from "./openrpc.js";
import type { GatewayRuntime } from "./runtime.js";

/** What a built-in sees of its call. */
export interface BuiltinContext {
  view: RegistryView;
  access: Access;
  /** The caller id: jobs belong to it. */
  caller: string;
  runtime: GatewayRuntime;
}

type Builtin = (request: JsonRpcRequest, context: BuiltinContext) => Promise<unknown>;

const JobIdParams = z.object({ jobId: z.string().min(1).max(64) });
const JobListParams = z.object({
  status: z.enum(JOB_STATUSES).optional(),
  limit: z.number().int().min(1).max(100).default(20),
  /** The `nextCursor` of the previous page. */
  cursor: z.string().regex(/^\d+$/).optional(),
});

/**
 * Summaries with what was observed of each skill (all its deployments together) beside what it
 * declares; the observed numbers are read at most every few seconds per isolate (src/metrics).
 */
async function withObserved(summaries: SkillSummary[], { view, runtime }: BuiltinContext): Promise<Array<SkillSummary & { observed?: Observed }>> {
  const groups = Object.fromEntries(summaries.map((s) => [s.name, view.skills.get(s.name)?.versions.map((d) => d.id) ?? []]));
  const observed = await runtime.metrics.observed(groups).catch(() => undefined); // a store outage hides the numbers, not the list
  return summaries.map((s) => (observed?.[s.name] ? { ...s, observed: observed[s.name] } : s));
}

/** The caller's own job, or -32602 as if it did not exist (another caller's job is not there for you). */
async function ownJob(request: JsonRpcRequest, { caller, runtime }: BuiltinContext): Promise<Job> {
  const { jobId } = builtinParams(JobIdParams, request);
  const job = await runtime.jobs.get(jobId);
  if (!job || job.owner !== caller) throw new RpcError(ErrorCode.InvalidParams, `Unknown job: ${jobId} (jobs are kept ${Math.round(runtime.jobs.ttlMs / 3_600_000)} h after their last change)`);
  return job;
}

const DiscoverParams = z.object({
  capability: z.string().min(1).max(128).optional(),
  tags: z.array(z.string().min(1).max(128)).max(16).optional(),
});

/** Validates a built-in's params with the same by-name / by-position rules as a skill. */
function builtinParams<T extends z.ZodType>(schema: T, request: JsonRpcRequest): z.output<T> {
  return parseParams(schema, positionalMapper(schema)(request.params));
}

/** The gateway's own methods, by name (a Map: a method named `constructor` is no built-in). */
export const builtins: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  [
    "skills.list",
    async (request, context) => {
      builtinParams(z.object({}), request);
      return withObserved(catalogFor(context.view, context.access), context);
    },
  ],
  ["skills.discover", async (request, context) => withObserved(allowedOf(summarize(discoverIn(context.view, builtinParams(DiscoverParams, request))), context.access), context)],
  [
    "rpc.discover",
    async (request, { view, access }) => {
      builtinParams(z.object({}), request);
      return openRpcDocument(catalogFor(view, access));
    },
  ],
  ["jobs.get", async (request, context) => viewOf(await ownJob(request, context))],
  [
    "jobs.cancel",
    async (request, context) => {
      const job = await ownJob(request, context);
      if (isFinal(job.status)) return viewOf(job); // finished: nothing to cancel, the answer says how it ended
      const cancelled = await context.runtime.jobs.move(job.id, ["queued", "running"], { status: "cancelled", error: { code: ErrorCode.Cancelled, message: "Cancelled by its caller" } }, Date.now());
      return viewOf(cancelled ?? (await ownJob(request, context)));
    },
  ],
  [
    "jobs.list",
    async (request, { caller, runtime }) => {
      const { status, limit, cursor } = builtinParams(JobListParams, request);
      const page = await runtime.jobs.list(caller, { limit, status, ...(cursor ? { before: Number(cursor) } : {}) }, Date.now());
      return { jobs: page.jobs.map(viewOf), ...(page.next !== undefined ? { nextCursor: String(page.next) } : {}) };
    },
  ],
]);
