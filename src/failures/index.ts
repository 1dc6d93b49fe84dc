/**
 * How the gateway treats each way a skill call can fail, decided once: whether it counts
 * against the deployment's circuit breaker, whether it is worth another attempt, and whether
 * its answer may be stored for an `Idempotency-Key` replay. The breaker (src/gateway/policies),
 * the retries (src/retry, and a pipeline step's `retries`) and the replays (src/idempotency) all read this table.
 */
import { ErrorCode } from "../jsonrpc/index.js";

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
