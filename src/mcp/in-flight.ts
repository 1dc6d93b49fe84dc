/** Which 2025-era tool calls this isolate runs, so a `notifications/cancelled` can find its own call and only it. */
import { Cancellation } from "../lib/signal/index.js";

/**
 * The tool calls this isolate is running, by caller, session and request id, for
 * `notifications/cancelled` (2025 era: a separate POST names the request to stop). A cancellation
 * that reaches another isolate than its call finds nothing here: closing the stream is the way
 * that always works.
 */
const inFlight = new Map<string, Set<Cancellation>>();

/** The key of a caller's request in one session. */
export function inFlightKey(caller: string, session: string, id: string | number): string {
  return `${caller}\n${session}\n${typeof id}:${id}`;
}

/**
 * Registers a running call under `key`; the returned function takes it off again.
 * @example const done = trackCall(key, cancellation); try { … } finally { done() }
 */
export function trackCall(key: string, cancellation: Cancellation): () => void {
  inFlight.set(key, (inFlight.get(key) ?? new Set()).add(cancellation));
  return () => {
    const calls = inFlight.get(key);
    if (calls?.delete(cancellation) && !calls.size) inFlight.delete(key);
  };
}

/**
 * The calls running under `key`: one to cancel, or several (an ambiguous cancel), or none.
 * @example const calls = callsUnder(inFlightKey(caller, session, 7))
 */
export function callsUnder(key: string): ReadonlySet<Cancellation> | undefined {
  return inFlight.get(key);
}
