/**
 * How the gateway treats each way a skill call can fail, decided once: whether it counts
 * against the deployment's circuit breaker, whether it is worth another attempt, and whether
 * its answer may be stored for an `Idempotency-Key` replay. The breaker (src/gateway/chain/policies),
 * the retries (src/policies/retry, and a pipeline step's `retries`) and the replays (src/policies/idempotency) all read this table.
 */
import { ErrorCode } from "../../protocols/jsonrpc/index.js";

export interface FailureClass {
  /** The deployment broke (not the caller, not back-pressure): the breaker counts it. */
  breaker: boolean;
  /** Another attempt may succeed: `backoff` (exponential, jittered), `retry-after` (the skill said when), or `never`. */
  retry: "backoff" | "retry-after" | "never";
  /** The answer is deterministic (it says something about the request): kept for replays. */
  replay: boolean;
}

/** The transient failures; every other error (the skill's own, bad input, …) is a stored, final answer. */
const CLASSES: ReadonlyMap<number, FailureClass> = new Map<number, FailureClass>([
  // The skill threw or broke its own schema: its fault, but the same input would break it again.
  [ErrorCode.InternalError, { breaker: true, retry: "never", replay: false }],
  // Unreachable, 5xx, not JSON-RPC, no healthy deployment left.
  [ErrorCode.SkillUnavailable, { breaker: true, retry: "backoff", replay: false }],
  // The skill's own timeout (a timeout of the caller's budget is marked `cutByCaller` and counts for nothing).
  [ErrorCode.SkillTimeout, { breaker: true, retry: "backoff", replay: false }],
  // The skill's 429, or the caller's own limits: back-pressure, never the deployment's failure.
  [ErrorCode.RateLimited, { breaker: false, retry: "retry-after", replay: false }],
  // The caller went away: nothing to retry for, nothing to keep (a retried request runs again).
  [ErrorCode.Cancelled, { breaker: false, retry: "never", replay: false }],
]);

const FINAL: FailureClass = { breaker: false, retry: "never", replay: true };

/**
 * The class of an error code.
 * @example failureClassOf(-32004) // { breaker: true, retry: "backoff", replay: false }
 */
export function failureClassOf(code: number): FailureClass {
  return CLASSES.get(code) ?? FINAL;
}

/**
 * Whether an error is the tool's own answer — an application code (outside JSON-RPC's reserved
 * -32768…-32000) or arguments it refused (-32602) — rather than a failure to run it. A 2026-07-28
 * task that ends with one completes with an `isError` result; any other error fails it (SEP-2663).
 * @example isToolError(1) // true: the skill said no
 * @example isToolError(-32603) // false: it threw
 */
export function isToolError(code: number): boolean {
  return code === ErrorCode.InvalidParams || code > -32000 || code < -32768;
}

/** One error code as callers meet it: the reference's error table (docs/reference.md) is generated from these. */
export interface ErrorCodeDoc {
  code: number;
  /** What it means to a caller. */
  meaning: string;
  /** The fields of its `data`, if any. */
  data?: string;
}

/**
 * Every error code the gateway answers, JSON-RPC 2.0's own first. `npm run reference` writes the
 * table, with each code's class from `failureClassOf` (breaker, retried, kept for replays).
 */
export const ERROR_CODE_DOCS: readonly ErrorCodeDoc[] = [
  { code: ErrorCode.ParseError, meaning: "the body is not JSON" },
  {
    code: ErrorCode.InvalidRequest,
    meaning:
      "not a JSON-RPC 2.0 request; also an invalid `Idempotency-Key` or one without `Authorization: Bearer`, a batch over 100, a body over 1 MiB (HTTP 413), not JSON or compressed (415), an unreadable body (400), a refused `Origin` or `Host` (403)",
  },
  { code: ErrorCode.MethodNotFound, meaning: "no such skill or built-in, or one outside the caller's grants (it is not there for them)" },
  {
    code: ErrorCode.InvalidParams,
    meaning: "params the skill's input schema refuses (each issue names its field), nested deeper than 64 levels, or a handler's `InputError`",
    data: "`issues`; `keptHours` for an unknown job",
  },
  { code: ErrorCode.InternalError, meaning: "the skill threw, broke its own output schema, or answered more than 8 MiB" },
  {
    code: ErrorCode.SkillUnavailable,
    meaning: "skill unavailable: unreachable, 5xx, an answer broken off mid-body, every breaker open, or the registry or the store cannot be read",
    data: "`retryAfterMs`",
  },
  {
    code: ErrorCode.IdempotencyInFlight,
    meaning:
      "an earlier request with this `Idempotency-Key` is still running; on `/mcp` in a 2025 revision also `resources/read` of a resource the caller has none of (missing or hidden: one answer; 2026-07-28 says -32602)",
    data: "`retryAfterMs`; `uri` for a resource",
  },
  { code: ErrorCode.IdempotencyMismatch, meaning: "this `Idempotency-Key` was used with other params" },
  {
    code: ErrorCode.SkillTimeout,
    meaning: "the skill timed out (its `timeoutMs`, or the caller's `X-Timeout-Ms` budget: then `cutByCaller`, which counts for nothing)",
    data: "`timeoutMs`, `cutByCaller`",
  },
  {
    code: ErrorCode.RateLimited,
    meaning: "rate limited: the caller's rate or quota (`data.limit`), or the skill's own HTTP 429",
    data: "`retryAfterMs`, `limit`",
  },
  {
    code: ErrorCode.Unauthorized,
    meaning: "no, an unknown, revoked, expired or foreign credential (HTTP 401); a token without grants or a read-only admin key writing (HTTP 403)",
  },
  { code: ErrorCode.Cancelled, meaning: "cancelled: the caller closed its stream, sent `notifications/cancelled`, or disconnected" },
  { code: -32020, meaning: "`/mcp`: an MCP header disagrees with the body (HTTP 400)" },
  {
    code: -32021,
    meaning:
      "`/mcp` (2026-07-28): the method needs a client capability the request did not declare, such as the tasks extension for `tasks/*`, or the elicitation, sampling or roots an upstream's tool asks for (HTTP 400)",
    data: "`requiredCapabilities` (the client capabilities it needs)",
  },
  { code: -32022, meaning: "`/mcp`: unsupported protocol version (HTTP 400)", data: "`supported`, `requested`" },
];

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date; 1 s when absent or unreadable.
 * @example retryAfterMsOf("2") // 2000
 */
export function retryAfterMsOf(value: string | null, now = Date.now()): number {
  if (value && /^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = value ? Date.parse(value) : NaN;
  return Number.isNaN(date) ? 1000 : Math.max(0, date - now);
}
