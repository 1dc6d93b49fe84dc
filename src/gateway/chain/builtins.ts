/**
 * The gateway's own methods, answered without calling a skill: `skills.list`, `skills.discover`
 * (`{capability?, tags?}`) and `rpc.discover` (OpenRPC) from the registry view, each showing only
 * the skills the caller may call; and `jobs.get`, `jobs.list`, `jobs.cancel` for the caller's
 * own async jobs (src/registry/jobs).
 */
import { z } from "zod";
import type { Access } from "../../identity/auth/index.js";
import { JOB_STATUSES, type Job, isFinal, viewOf } from "../../registry/jobs/index.js";
import { ErrorCode, type JsonRpcParams, type JsonRpcRequest, RpcError, parseParams } from "../../protocols/jsonrpc/index.js";
import { type CapabilityCallParams, CapabilityCallParamsSchema, accepts, callInOrder, numbersOf, overLimit, rank, reasonOf } from "./capability.js";
import { discoverIn } from "../../registry/deployments/discovery.js";
import type { RegistryView } from "../../registry/deployments/snapshot.js";
import { positionalMapper } from "../../skill/index.js";
import type { Observed } from "../../registry/metrics/index.js";
import { type ToolSummary, allowedOf, catalogFor, summarize } from "./catalog.js";
import { openRpcDocument } from "./openrpc.js";
import { type Page, pageOf } from "../../protocols/paging/index.js";
import type { GatewayRuntime } from "./runtime.js";

/** What a built-in sees of its call. */
export interface BuiltinContext {
  view: RegistryView;
  access: Access;
  /** The caller id: jobs belong to it. */
  caller: string;
  runtime: GatewayRuntime;
  /** Calls a method through the whole pipeline, as this request (policy routing calls skills so). */
  call: (method: string, params: JsonRpcParams) => Promise<unknown>;
  /** The deployments that have answered this request so far (`name@version`). */
  answeredBy: ReadonlySet<string>;
  /** When the caller stops waiting (`X-Timeout-Ms`, else 30 s). */
  deadline: number;
  /** Set when a pipeline's step calls (with its call's delegation token): `jobs.*` are not its to use. */
  delegated?: boolean;
}

type Builtin = (request: JsonRpcRequest, context: BuiltinContext) => Promise<unknown>;

/** Most skills one answer of `skills.list`, `skills.discover` or `rpc.discover` lists, paged or not, and the most candidates `skills.call` weighs. */
export const MAX_LISTED = 1_000;

const JobIdParams = z.object({ jobId: z.string().min(1).max(64) });
const JobListParams = z.object({
  status: z.enum(JOB_STATUSES).optional(),
  limit: z.number().int().min(1).max(100).default(20),
  /** The `nextCursor` of the previous page. */
  cursor: z.string().regex(/^\d+$/).optional(),
});

/**
 * Summaries with what was observed of each skill (all its deployments together) beside what it
 * declares; the observed numbers are read at most every few seconds per isolate (src/registry/metrics).
 */
async function withObserved(summaries: ToolSummary[], { view, runtime }: BuiltinContext): Promise<Array<ToolSummary & { observed?: Observed }>> {
  const groups = Object.fromEntries(summaries.map((s) => [s.name, view.tools.get(s.name)?.versions.map((d) => d.id) ?? []]));
  const observed = await runtime.metrics.observed(groups).catch(() => undefined); // a store outage hides the numbers, not the list
  return summaries.map((s) => (observed?.[s.name] ? { ...s, observed: observed[s.name] } : s));
}

/**
 * `skills.call`: the capability's candidates the caller may call and whose input accepts the
 * arguments, within the policy's limits, best first; called through the pipeline until one answers.
 */
async function callByCapability(params: CapabilityCallParams, context: BuiltinContext) {
  const { view, access, runtime } = context;
  if (!params.capability && !params.tags?.length) throw new RpcError(ErrorCode.InvalidParams, "Invalid params: skills.call needs a capability or tags");
  const matching = allowedOf(summarize(discoverIn(view, { capability: params.capability, tags: params.tags })), access);
  // Each candidate costs a schema check and its numbers: at 10,000 candidates ~200 ms of CPU a call.
  if (matching.length > MAX_LISTED) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: the capability matches ${matching.length} skills, more than one call weighs (${MAX_LISTED}): narrow it (a longer tag, or several tags)`,
      {
        count: matching.length,
        maxCandidates: MAX_LISTED,
      },
    );
  }
  const fitting = matching.filter((skill) => accepts(skill.inputSchema, params.arguments));
  const groups = Object.fromEntries(fitting.map((s) => [s.name, view.tools.get(s.name)?.versions.map((d) => d.id) ?? []]));
  const observed = await runtime.metrics.observed(groups).catch(() => ({}) as Record<string, Observed>);
  const numbers = fitting.map((skill) => numbersOf(skill, observed[skill.name]));
  const within = numbers.filter((n) => !overLimit(n, params.policy));
  if (!within.length) {
    const why =
      !matching.length ? "no skill the caller may call has that capability"
      : !fitting.length ? "no candidate's input schema accepts the arguments"
      : `every candidate is over the policy's limits (${numbers.map((n) => `${n.name}: ${overLimit(n, params.policy)}`).join("; ")})`;
    throw new RpcError(ErrorCode.MethodNotFound, `No skill for this call: ${why}`, { candidates: matching.map((s) => s.name) });
  }
  const ranked = rank(within, params.policy);
  const served = await callInOrder(ranked, (name) => context.call(name, params.arguments), context.deadline);
  const version = [...context.answeredBy]
    .reverse()
    .find((id) => id.startsWith(`${served.skill}@`))
    ?.slice(served.skill.length + 1);
  const chosen = ranked.find((n) => n.name === served.skill)!;
  return {
    result: served.result,
    servedBy: { skill: served.skill, ...(version ? { version } : {}) },
    why: reasonOf(chosen, params.policy, ranked.length),
    ...(served.skipped.length ? { skipped: served.skipped } : {}),
  };
}

/**
 * Refuses `jobs.*` to a pipeline's step: a pipeline acts as its caller for the skills it declares,
 * never on the caller's jobs (their results, their cancellation).
 */
function refuseToSteps(request: JsonRpcRequest, { delegated }: BuiltinContext): void {
  if (delegated) throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method} is not available to a pipeline's steps`);
}

/** The caller's own job, or -32602 as if it did not exist (another caller's job is not there for you). */
async function ownJob(request: JsonRpcRequest, context: BuiltinContext): Promise<Job> {
  refuseToSteps(request, context);
  const { caller, runtime } = context;
  const { jobId } = builtinParams(JobIdParams, request);
  const job = await runtime.jobs.ownedBy(jobId, caller);
  const keptHours = Math.round(runtime.jobs.ttlMs / 3_600_000);
  if (!job) throw new RpcError(ErrorCode.InvalidParams, `Unknown job: ${jobId} (jobs are kept ${keptHours} h after their last change)`, { keptHours });
  return job;
}

/**
 * Paging of the listing built-ins: with `limit` or `cursor` the answer is a page (`{skills,
 * nextCursor?}`; for `rpc.discover` the document with `x-nextCursor`); without, the whole list.
 */
const ListPageParams = z.object({
  limit: z.number().int().min(1).max(MAX_LISTED).optional(),
  /** The `nextCursor` of the previous page. */
  cursor: z.string().min(1).max(1_024).optional(),
});
type ListPage = z.output<typeof ListPageParams>;

// By position: capability, tags, then the paging (positional params fill keys in this order).
const DiscoverParams = z
  .object({
    capability: z.string().min(1).max(128).optional(),
    tags: z.array(z.string().min(1).max(128)).max(16).optional(),
  })
  .extend(ListPageParams.shape);

/** The skills a listing built-in answers with: a page when the caller asked for one. */
type Listed<T> = Page<T> & { paged: boolean };

/**
 * What a listing built-in answers: a page when asked for one, else the whole list — unless it
 * holds more than `MAX_LISTED` skills (at 10,000 skills with 2 KB of schema each, one answer
 * would be 20 MB, and a few at once fill a Worker's 128 MB): then -32602, telling how to page.
 * @example listed("skills.list", catalog, { limit: 100 }) // { items: [...100], paged: true, nextCursor: "…" }
 */
function listed<T extends { name: string }>(method: string, all: T[], { limit, cursor }: ListPage): Listed<T> {
  if (limit !== undefined || cursor !== undefined) return { ...pageOf(all, limit ?? MAX_LISTED, cursor), paged: true };
  if (all.length > MAX_LISTED) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid params: ${method} matches ${all.length} skills, more than one answer lists (${MAX_LISTED}): page with {"limit": ${MAX_LISTED}} and then {"cursor": <nextCursor>}, or narrow with skills.discover {capability, tags}`,
      { count: all.length, maxListed: MAX_LISTED },
    );
  }
  return { items: all, paged: false };
}

/** `skills.list` and `skills.discover`: the summaries (with what was observed of them), as an array or a page. */
async function skillsAnswer(listing: Listed<ToolSummary>, context: BuiltinContext) {
  const skills = await withObserved(listing.items, context);
  if (!listing.paged) return skills;
  return listing.nextCursor ? { skills, nextCursor: listing.nextCursor } : { skills };
}

/** Validates a built-in's params with the same by-name / by-position rules as a skill. */
function builtinParams<T extends z.ZodType>(schema: T, request: JsonRpcRequest): z.output<T> {
  return parseParams(schema, positionalMapper(schema)(request.params));
}

/** The gateway's own methods, by name (a Map: a method named `constructor` is no built-in). */
export const builtins: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  [
    "skills.list",
    async (request, context) => skillsAnswer(listed("skills.list", catalogFor(context.view, context.access), builtinParams(ListPageParams, request)), context),
  ],
  [
    "skills.discover",
    async (request, context) => {
      const params = builtinParams(DiscoverParams, request);
      return skillsAnswer(listed("skills.discover", allowedOf(summarize(discoverIn(context.view, params)), context.access), params), context);
    },
  ],
  [
    "rpc.discover",
    async (request, { view, access }) => {
      const { items, nextCursor } = listed("rpc.discover", catalogFor(view, access), builtinParams(ListPageParams, request));
      // An OpenRPC document has no paging of its own: the next page's cursor is an extension field.
      return { ...openRpcDocument(items), ...(nextCursor ? { "x-nextCursor": nextCursor } : {}) };
    },
  ],
  ["skills.call", (request, context) => callByCapability(builtinParams(CapabilityCallParamsSchema, request), context)],
  ["jobs.get", async (request, context) => viewOf(await ownJob(request, context))],
  [
    "jobs.cancel",
    async (request, context) => {
      const job = await ownJob(request, context);
      if (isFinal(job.status)) return viewOf(job); // finished: nothing to cancel, the answer says how it ended
      const cancelled = await context.runtime.jobs.move(
        job.id,
        ["queued", "running"],
        { status: "cancelled", error: { code: ErrorCode.Cancelled, message: "Cancelled by its caller" } },
        Date.now(),
      );
      return viewOf(cancelled ?? (await ownJob(request, context)));
    },
  ],
  [
    "jobs.list",
    async (request, context) => {
      refuseToSteps(request, context);
      const { caller, runtime } = context;
      const { status, limit, cursor } = builtinParams(JobListParams, request);
      const page = await runtime.jobs.list(caller, { limit, status, ...(cursor ? { before: Number(cursor) } : {}) }, Date.now());
      return { jobs: page.jobs.map(viewOf), ...(page.next !== undefined ? { nextCursor: String(page.next) } : {}) };
    },
  ],
]);
