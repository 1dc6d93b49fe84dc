/**
 * Policy routing by capability (`skills.call`): an agent asks for a capability, not a skill. The
 * candidates are the skills with the tags asked for that the caller may call and whose input
 * schema accepts the arguments (JSON Schema, validated on the gateway with @cfworker/json-schema:
 * no code generation, so it runs on Workers); the policy drops those over its limits and ranks the
 * rest on observed numbers (declared ones until a skill has been seen enough); the best is called
 * through the whole pipeline, and the next one when it is unavailable or times out, while the
 * caller's budget lasts. The answer says who served it and why.
 */
import { accepts as schemaAccepts } from "../../lib/json-schema/index.js";
import { z } from "zod";
import { ErrorCode, type JsonRpcParams, RpcError } from "../../protocols/jsonrpc/index.js";
import type { Observed } from "../../registry/metrics/index.js";
import type { ToolSummary } from "./catalog.js";

/** Calls a skill needs in the recent windows before its observed numbers replace its declared ones. */
export const MIN_OBSERVED_CALLS = 20;
/** Failures that send the call to the next candidate (the skill could not answer, not "no"). */
const FAIL_OVER = new Set<number>([ErrorCode.SkillUnavailable, ErrorCode.SkillTimeout]);

const Weights = z.object({ cost: z.number().min(0).default(0), latency: z.number().min(0).default(0), reliability: z.number().min(0).default(0) });

export const CapabilityCallParamsSchema = z.object({
  /** A tag or tag glob, as for `skills.discover`. */
  capability: z.string().min(1).max(128).optional(),
  /** Tags (or globs) that must all match. */
  tags: z.array(z.string().min(1).max(128)).max(16).optional(),
  /** The params for the skill: by name (an object) or by position (an array). */
  arguments: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
  policy: z
    .object({
      /** What wins: the cheapest, the fastest (p95), the most reliable, or weights of the three. */
      prefer: z.union([z.enum(["cheapest", "fastest", "reliable"]), Weights]).default("reliable"),
      maxCostPerCall: z.number().min(0).optional(),
      maxP95Ms: z.number().positive().optional(),
      minSuccessRate: z.number().min(0).max(1).optional(),
    })
    .default({ prefer: "reliable" }),
});
export type CapabilityCallParams = z.infer<typeof CapabilityCallParamsSchema>;
export type CapabilityPolicy = CapabilityCallParams["policy"];

/** What a candidate is ranked on: observed when seen enough, else declared; undefined when neither says. */
export interface CandidateNumbers {
  name: string;
  costPerCall?: number;
  successRate?: number;
  p95Ms?: number;
  /** Whether the numbers are observed (else declared). */
  observed: boolean;
}

/**
 * Whether a skill's input schema accepts `args` (the JSON-RPC params it would get).
 * @example accepts(summary.inputSchema, { text: "hi" }) // true
 */
export function accepts(inputSchema: Record<string, unknown>, args: JsonRpcParams): boolean {
  return schemaAccepts(inputSchema, args);
}

/** A candidate's numbers: its observed ones once it has `MIN_OBSERVED_CALLS`, else what it declares. */
export function numbersOf(skill: ToolSummary, observed: Observed | undefined): CandidateNumbers {
  const seen = !!observed && observed.calls >= MIN_OBSERVED_CALLS;
  return {
    name: skill.name,
    ...(skill.cost?.perCall !== undefined ? { costPerCall: skill.cost.perCall } : {}),
    ...(seen ? { successRate: 1 - observed!.errorRate, ...(observed!.p95Ms !== undefined ? { p95Ms: observed!.p95Ms } : {}) } : {}),
    ...(!seen && skill.reliability?.successRate !== undefined ? { successRate: skill.reliability.successRate } : {}),
    ...(!seen && skill.reliability?.p95Ms !== undefined ? { p95Ms: skill.reliability.p95Ms } : {}),
    observed: seen,
  };
}

/**
 * Why a candidate is over the policy's limits, or undefined when it is within them. A number
 * the limit needs that nobody knows (no declared cost with `maxCostPerCall`) counts as over.
 */
export function overLimit(n: CandidateNumbers, policy: CapabilityPolicy): string | undefined {
  if (policy.maxCostPerCall !== undefined && (n.costPerCall === undefined || n.costPerCall > policy.maxCostPerCall))
    return `cost ${n.costPerCall ?? "unknown"} over ${policy.maxCostPerCall}`;
  if (policy.maxP95Ms !== undefined && (n.p95Ms === undefined || n.p95Ms > policy.maxP95Ms)) return `p95 ${n.p95Ms ?? "unknown"} ms over ${policy.maxP95Ms}`;
  if (policy.minSuccessRate !== undefined && (n.successRate === undefined || n.successRate < policy.minSuccessRate))
    return `success rate ${n.successRate ?? "unknown"} under ${policy.minSuccessRate}`;
  return undefined;
}

/**
 * Candidates best first by the policy's preference (unknown numbers rank last; ties by name, so
 * the order is stable). Weights score each number against the best candidate's (lower is better).
 * @example rank(numbers, { prefer: "cheapest" })[0].name
 */
export function rank(candidates: CandidateNumbers[], policy: CapabilityPolicy): CandidateNumbers[] {
  const cost = (n: CandidateNumbers) => n.costPerCall ?? Infinity;
  const latency = (n: CandidateNumbers) => n.p95Ms ?? Infinity;
  const failure = (n: CandidateNumbers) => 1 - (n.successRate ?? 0);
  const { prefer } = policy;
  const score =
    prefer === "cheapest" ? (n: CandidateNumbers) => [cost(n), failure(n)]
    : prefer === "fastest" ? (n: CandidateNumbers) => [latency(n), failure(n)]
    : prefer === "reliable" ? (n: CandidateNumbers) => [failure(n), latency(n)]
    : (() => {
        // Each number over the best candidate's (1 = as good as the best); unknown = twice the worst.
        const relative = (value: (n: CandidateNumbers) => number, floor: number) => {
          const known = candidates.map(value).filter(Number.isFinite);
          const best = Math.max(floor, Math.min(...known, Infinity));
          const worst = Math.max(...known, best);
          return (n: CandidateNumbers) => (Number.isFinite(value(n)) ? Math.max(floor, value(n)) / best : (2 * worst) / best);
        };
        const [c, l, f] = [relative(cost, 1e-9), relative(latency, 1), relative(failure, 1e-3)];
        return (n: CandidateNumbers) => [prefer.cost * c(n) + prefer.latency * l(n) + prefer.reliability * f(n)];
      })();
  return [...candidates].sort((a, b) => {
    const [x, y] = [score(a), score(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return (
      a.name < b.name ? -1
      : a.name > b.name ? 1
      : 0
    );
  });
}

/** Why the first candidate was chosen, in words. */
export function reasonOf(chosen: CandidateNumbers, policy: CapabilityPolicy, among: number): string {
  const by = typeof policy.prefer === "string" ? policy.prefer : `weights ${JSON.stringify(policy.prefer)}`;
  const numbers = [
    chosen.costPerCall !== undefined ? `cost ${chosen.costPerCall}` : undefined,
    chosen.successRate !== undefined ? `success rate ${Number(chosen.successRate.toFixed(4))}` : undefined,
    chosen.p95Ms !== undefined ? `p95 ${chosen.p95Ms} ms` : undefined,
  ].filter(Boolean);
  return `${by} of ${among} candidate${among === 1 ? "" : "s"}: ${numbers.join(", ") || "no numbers known"} (${chosen.observed ? "observed" : "declared"})`;
}

/**
 * Calls candidates in order until one answers: the next is tried when one is unavailable or times
 * out, while `deadline` allows; any other answer (a result, or the skill's own error) is final.
 */
export async function callInOrder(
  ranked: CandidateNumbers[],
  call: (name: string) => Promise<unknown>,
  deadline: number,
): Promise<{ result: unknown; skill: string; skipped: Array<{ skill: string; error: string }> }> {
  const skipped: Array<{ skill: string; error: string }> = [];
  for (const candidate of ranked) {
    try {
      return { result: await call(candidate.name), skill: candidate.name, skipped };
    } catch (thrown) {
      if (!(thrown instanceof RpcError) || !FAIL_OVER.has(thrown.code) || Date.now() >= deadline) throw thrown;
      skipped.push({ skill: candidate.name, error: `${thrown.code}: ${thrown.message}` });
    }
  }
  throw new RpcError(ErrorCode.SkillUnavailable, `Every candidate failed: ${skipped.map((s) => s.skill).join(", ")}; retry after 1 s`, {
    retryAfterMs: 1_000,
    skipped,
  });
}

/**
 * `skills.call` as an MCP tool (listed beside the skills): its arguments are the built-in's params,
 * its result `{result, servedBy, why, skipped?}`.
 */
export const CAPABILITY_TOOL: ToolSummary = {
  name: "skills.call",
  description:
    "Call the best skill for a capability instead of a named tool: give a capability (tag or glob, as in the tools' _meta skillmesh/tags) or tags, " +
    "the arguments, and a policy (prefer cheapest, fastest or reliable, or weights; limits maxCostPerCall, maxP95Ms, minSuccessRate). " +
    "Only skills whose input accepts the arguments are candidates; the answer says which skill and version served it and why.",
  tags: [],
  idempotent: false,
  inputSchema: z.toJSONSchema(z.object({ ...CapabilityCallParamsSchema.shape }), { io: "input" }) as Record<string, unknown>,
  outputSchema: { type: "object" },
};
