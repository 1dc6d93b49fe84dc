/**
 * Retries of transient failures (src/policies/failures says which): up to 2 more attempts,
 * exponential backoff with full jitter, a skill's 429 `Retry-After` honoured, and nothing started
 * that would end past the caller's deadline. Only for calls that are safe to repeat: idempotent
 * skills, or calls that carry an `Idempotency-Key`.
 *
 * Written here rather than taken from cockatiel: cockatiel creates an AbortController at module
 * load, which the Workers runtime refuses at global scope (workerd#3226, cockatiel#105), so the
 * gateway would not start.
 */
import { failureClassOf } from "../failures/index.js";
import type { Outcome } from "../outcome/index.js";
import { sleep } from "../../lib/signal/index.js";

export const MAX_RETRIES = 2;
const BASE_DELAY_MS = 50;
const MAX_DELAY_MS = 1_000;

/**
 * How long to wait before attempt `attempt + 1` after this error, or undefined when it is not
 * worth retrying (the gateway's retries, and a pipeline step's).
 * @example retryDelayMs({ code: -32005, data: { retryAfterMs: 2_000 } }, 1) // 2000
 */
export function retryDelayMs({ code, data }: { code: number; data?: unknown }, attempt: number, random = Math.random): number | undefined {
  const { retry } = failureClassOf(code);
  if (retry === "retry-after") return (data as { retryAfterMs?: number } | undefined)?.retryAfterMs ?? 1_000;
  if (retry === "never") return undefined;
  return random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt); // full jitter
}

/**
 * Runs `attempt` and retries its transient failures while the deadline allows: a retry starts
 * only if its backoff ends before `deadline` with `minAttemptMs` to spare. `attempt` gets the
 * time left, for its own timeout.
 * @example const outcome = await withRetries((timeLeftMs) => callSkill(…, timeLeftMs), { deadline: Date.now() + 2_000 })
 */
export async function withRetries(
  attempt: (timeLeftMs: number) => Promise<Outcome>,
  options: { deadline: number; minAttemptMs?: number; now?: () => number },
): Promise<Outcome> {
  const now = options.now ?? Date.now;
  const minAttemptMs = options.minAttemptMs ?? 50;
  for (let retries = 0; ; retries++) {
    const outcome = await attempt(Math.max(1, options.deadline - now()));
    const delay = !outcome.ok && retries < MAX_RETRIES ? retryDelayMs(outcome.error, retries + 1) : undefined;
    if (delay === undefined || now() + delay + minAttemptMs > options.deadline) return outcome;
    await sleep(delay);
  }
}
