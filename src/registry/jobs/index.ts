/**
 * Async jobs: a call accepted now and run later, on Cloudflare Workflows (src/gateway/job-runner/workflow.ts),
 * through the same call chain as a direct call. The job's record lives in the store under
 * `sm:job:<id>` (its owner, the call, its status and outcome), expires `ttlMs` after it was last
 * written, and moves only along queued → running → completed | failed, or to cancelled from
 * queued or running — each move one atomic script, so a cancel and a finish cannot both win.
 * `sm:jobs:<owner>` indexes an owner's jobs by creation time for `jobs.list`; it keeps about a
 * ttl's worth of them (pruned on each submit, expiring a ttl after the newest).
 */
import { z } from "zod";
import { CallerContextSchema } from "../../protocols/context/index.js";
import { safeJson } from "../../lib/json/index.js";
import { JsonRpcErrorObjectSchema } from "../../protocols/jsonrpc/index.js";
import { ProgressSchema } from "../../protocols/progress/index.js";
import type { Store, StoreScript } from "../../store/index.js";

export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A job as stored. */
export const JobSchema = z.object({
  id: z.string(),
  /** The caller id that submitted it: only this caller sees and controls it. */
  owner: z.string(),
  method: z.string(),
  params: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  /** Who the call runs for (user, group, trace): the submitting request's context. */
  context: CallerContextSchema,
  status: z.enum(JOB_STATUSES),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** When the record is forgotten. */
  expiresAt: z.number(),
  /** A fingerprint of the params, for a submit retried with the same `Idempotency-Key`. */
  fingerprint: z.string(),
  result: z.unknown().optional(),
  error: JsonRpcErrorObjectSchema.optional(),
  /** The deployment that answered. */
  deployment: z.string().optional(),
  /** Where the result is POSTed (signed) when the job ends. */
  callbackUrl: z.string().optional(),
  /** The skill is safe to repeat: a run cut off (its isolate died) may run again. */
  idempotent: z.boolean().optional(),
  /** The skill's last progress report while it runs (`ctx.progress`), kept at most about once a second. */
  progress: ProgressSchema.optional(),
  /** The owner's grants when it submitted (`Access.signature`): what a pipeline's steps may reach. */
  grants: z.string().optional(),
  /** The virtual server it was submitted through: its calls run behind that door (its tools' names, its guardrail). */
  server: z.string().optional(),
  /**
   * An idempotent pipeline: a transient failure is handed back to the engine, which runs it again
   * later — the steps that succeeded replay from their derived keys, the failed one runs again.
   */
  resumable: z.boolean().optional(),
  /** How many times the job was started again after its runner was lost (`recoverStrandedJobs`); only that run's runner may run it. */
  attempt: z.number().int().min(0).optional(),
  /**
   * An upstream's own task, adopted as this job (src/gateway/chain/policies.ts `adoptedTask`): the
   * upstream version that runs it — the gateway's fact, never the upstream's — and its id there.
   * No runner moves such a job: a `tasks/get` asks that version and writes down how it ended.
   */
  upstreamTask: z.object({ upstream: z.string(), version: z.string(), taskId: z.string() }).optional(),
});
export type Job = z.infer<typeof JobSchema>;

/** What a caller is shown of a job: the answer of `jobs.get` and `jobs.cancel`, an item of `jobs.list`. */
export const JobViewSchema = z.object({
  jobId: z.string(),
  status: z.enum(JOB_STATUSES),
  method: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  expiresAt: z.number(),
  /** Its result, once completed. */
  result: z.unknown().optional(),
  error: JsonRpcErrorObjectSchema.optional(),
  deployment: z.string().optional(),
  progress: ProgressSchema.optional(),
  /** The upstream (`name@version`) that runs it as a task of its own. */
  upstream: z.string().optional(),
});
export type JobView = z.infer<typeof JobViewSchema>;

/** A tool call an upstream answered with a task of its own, adopted as the caller's job `jobId`. */
export interface AdoptedTask {
  resultType: "task";
  jobId: string;
}

/**
 * Whether a call's answer is an upstream's task adopted by the chain (src/gateway/chain/policies.ts), not a result.
 * @example isAdoptedTask({ resultType: "task", jobId: "j_1" }) // true
 */
export function isAdoptedTask(answer: unknown): answer is AdoptedTask {
  const adopted = answer as Partial<AdoptedTask> | undefined;
  return adopted?.resultType === "task" && typeof adopted.jobId === "string";
}

/** The answer of `jobs.list`: a page of the caller's jobs, newest first. */
export const JobListSchema = z.object({ jobs: z.array(JobViewSchema), nextCursor: z.string().optional() });

/** The answer of a call submitted as a job (`Prefer: respond-async`, an MCP task). */
export const JobQueuedSchema = z.object({ status: z.literal("queued"), jobId: z.string() });

/**
 * The caller's view of a job.
 * @example viewOf(job) // { jobId: "j_…", status: "completed", result: 19, … }
 */
export function viewOf(job: Job): JobView {
  const { id, status, method, createdAt, updatedAt, expiresAt, result, error, deployment, progress, upstreamTask } = job;
  return {
    jobId: id,
    status,
    method,
    createdAt,
    updatedAt,
    expiresAt,
    ...(status === "completed" ? { result } : {}),
    ...(error ? { error } : {}),
    ...(deployment ? { deployment } : {}),
    ...(progress ? { progress } : {}),
    ...(upstreamTask ? { upstream: `${upstreamTask.upstream}@${upstreamTask.version}` } : {}),
  };
}

/** A finished job: no move leaves these. */
export function isFinal(status: JobStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/**
 * KEYS: job, its status. ARGV: statuses it may move from (comma-separated), the new status, the
 * new record, ttl ms. Writes both if the status is one of them; 1 if it moved, else 0. (The
 * record is built by the caller from the one it read: Lua's cjson would turn `[]` into `{}`.)
 */
export const moveJob: StoreScript<boolean> = {
  name: "jobs.move",
  lua: `
local status = redis.call('GET', KEYS[2])
if not status then return 0 end
for from in string.gmatch(ARGV[1], '[^,]+') do
  if status == from then
    redis.call('SET', KEYS[2], ARGV[2], 'PX', tonumber(ARGV[4]))
    redis.call('SET', KEYS[1], ARGV[3], 'PX', tonumber(ARGV[4]))
    return 1
  end
end
return 0
`,
  memory: (data, [key, statusKey], [from, status, job, ttl]) => {
    const current = data.get(statusKey!);
    if (current === null || !from!.split(",").includes(current)) return false;
    data.set(statusKey!, status!, { px: Number(ttl) });
    data.set(key!, job!, { px: Number(ttl) });
    return true;
  },
  fromRedis: (reply) => Number(reply) === 1,
};

/**
 * KEYS: the job, its status, its owner's index. ARGV: the record, its status, its creation time
 * (ms), ttl ms, its id. Writes the job unless its status key exists (a retried submit: 0), adds it to the
 * owner's index, and drops from the index what is older than the ttl; the index itself expires
 * a ttl after its newest job, so an owner's index holds about a ttl's worth of jobs, not every
 * job the owner ever submitted.
 */
export const createJob: StoreScript<boolean> = {
  name: "jobs.create",
  lua: `
if not redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', tonumber(ARGV[4])) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[4]))
redis.call('ZADD', KEYS[3], tonumber(ARGV[3]), ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[4]) - 1)
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[4]))
return 1
`,
  memory: (data, [key, statusKey, ownerIndex], [job, status, createdAt, ttl, id]) => {
    if (!data.set(statusKey!, status!, { nx: true, px: Number(ttl) })) return false;
    data.set(key!, job!, { px: Number(ttl) });
    data.zadd(ownerIndex!, [{ score: Number(createdAt), member: id! }]);
    data.zremRangeByScore(ownerIndex!, -Infinity, Number(createdAt) - Number(ttl) - 1);
    data.pexpire(ownerIndex!, Number(ttl));
    return true;
  },
  fromRedis: (reply) => Number(reply) === 1,
};

/**
 * How long a queued job may wait for its engine to start it before it counts as stranded.
 * @example queuedLeaseMs(30_000) // 120000
 */
export const queuedLeaseMs = (jobLeaseMs: number) => 4 * jobLeaseMs;

/** How many times a stranded job is started again before it fails. */
export const MAX_JOB_RECOVERIES = 3;

/** Job ids `jobs.list` reads at a time. */
const LIST_BATCH = 100;

/**
 * Every job a runner owes a move to, by when its lease ends: a queued job until its engine starts
 * it, a running one while its runner renews the lease. A lease that ran out is a stranded job
 * (its isolate, or the whole local mesh, went away): src/gateway/job-runner/index.ts `recoverStrandedJobs`.
 */
const LEASES_KEY = "sm:jobs:leases";
const jobKey = (id: string) => `sm:job:${id}`;
const statusKey = (id: string) => `sm:job:${id}:status`;
const ownerKey = (owner: string) => `sm:jobs:${owner}`;

/** Jobs in the store. */
export class JobStore {
  constructor(
    private readonly store: Store,
    /** How long a job's record is kept after its last change. */
    readonly ttlMs: number,
  ) {}

  /**
   * Writes a new job; false when a job with this id exists already (a retried submit).
   * @example if (!(await jobs.create(job))) job = await jobs.get(job.id)
   */
  async create(job: Job): Promise<boolean> {
    // The status key is the lock: whoever sets it first owns the id.
    return this.store.run(
      createJob,
      [jobKey(job.id), statusKey(job.id), ownerKey(job.owner)],
      [JSON.stringify(job), job.status, job.createdAt, this.ttlMs, job.id],
    );
  }

  /** A job, parsed; undefined when it is unknown, expired or unreadable. */
  async get(id: string): Promise<Job | undefined> {
    const raw = await this.store.get(jobKey(id));
    const parsed = raw === null ? undefined : JobSchema.safeParse(safeJson(raw));
    return parsed?.success ? parsed.data : undefined;
  }

  /**
   * The job when `owner` owns it, else undefined: another caller's job is not there for you.
   * The one owner check of `jobs.*` and MCP `tasks/*`.
   * @example const job = await jobs.ownedBy(jobId, scope.context.caller)
   */
  async ownedBy(id: string, owner: string): Promise<Job | undefined> {
    const job = await this.get(id);
    return job?.owner === owner ? job : undefined;
  }

  /**
   * Moves a job from one of `from` with `fields` merged in; the new record, or undefined when it
   * was elsewhere (e.g. cancelled before it started).
   * @example await jobs.move(id, ["queued"], { status: "running" }, Date.now())
   */
  async move(id: string, from: readonly JobStatus[], fields: Partial<Job> & { status: JobStatus }, now: number): Promise<Job | undefined> {
    const current = await this.get(id);
    if (!current || !from.includes(current.status)) return undefined;
    const next: Job = { ...current, ...fields, updatedAt: now, expiresAt: now + this.ttlMs };
    const moved = await this.store.run(moveJob, [jobKey(id), statusKey(id)], [from.join(","), next.status, JSON.stringify(next), this.ttlMs]);
    return moved ? next : undefined;
  }

  /**
   * Holds (or renews) a job's lease until `until`.
   * @example await jobs.lease(job.id, Date.now() + config.jobLeaseMs)
   */
  async lease(id: string, until: number): Promise<void> {
    await this.store.zadd(LEASES_KEY, [{ score: until, member: id }]);
  }

  /** Drops a job's lease: it is finished (or gone). */
  async release(id: string): Promise<void> {
    await this.store.zrem(LEASES_KEY, id);
  }

  /**
   * The jobs whose lease ran out by `now`, oldest first, at most `limit`.
   * @example for (const id of await jobs.expiredLeases(Date.now())) …
   */
  async expiredLeases(now: number, limit = 50): Promise<string[]> {
    return this.store.zrangeByScore(LEASES_KEY, -Infinity, now, { page: { offset: 0, count: limit } });
  }

  /**
   * An owner's jobs, newest first, created before `before` (a page's cursor), at most `limit`.
   * @example const { jobs, next } = await store.list("k_1", { limit: 20 }, Date.now())
   */
  async list(owner: string, options: { limit: number; before?: number; status?: JobStatus }, now: number): Promise<{ jobs: Job[]; next?: number }> {
    const max = options.before === undefined ? Infinity : options.before - 1;
    const jobs: Job[] = [];
    // Newest first, a batch of ids at a time: what is read is what the page needs (plus the expired
    // or filtered-out ones it skips), not every id of the owner's window.
    for (let offset = 0; jobs.length < options.limit; offset += LIST_BATCH) {
      const batch = await this.store.zrangeByScore(ownerKey(owner), now - this.ttlMs, max, { reverse: true, page: { offset, count: LIST_BATCH } });
      if (!batch.length) break;
      const raws = await this.store.mget(...batch.map(jobKey));
      for (const raw of raws) {
        const parsed = raw === null ? undefined : JobSchema.safeParse(safeJson(raw));
        if (!parsed?.success || parsed.data.owner !== owner) continue;
        if (options.status && parsed.data.status !== options.status) continue;
        jobs.push(parsed.data);
        if (jobs.length === options.limit) break;
      }
      if (batch.length < LIST_BATCH) break;
    }
    const last = jobs.at(-1);
    return { jobs, ...(jobs.length === options.limit && last ? { next: last.createdAt } : {}) };
  }
}
