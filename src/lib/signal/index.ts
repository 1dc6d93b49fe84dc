/**
 * Abort signals combined cheaply. `AbortSignal.any` is the standard way, but in workerd it cost
 * an MCP 2025 call (the forward's timeout combined with the client's cancellation) about a tenth
 * of its throughput under `npm run bench`; a controller with one listener per input does the
 * same job for the two or three signals of one call.
 */

/**
 * A signal that aborts when the first of `signals` aborts, with that signal's reason (what
 * `AbortSignal.any` does).
 * @example const signal = anySignal([AbortSignal.timeout(5_000), request.signal])
 */
export function anySignal(signals: readonly AbortSignal[]): AbortSignal {
  const aborted = signals.find((signal) => signal.aborted);
  if (aborted) return AbortSignal.abort(aborted.reason);
  const controller = new AbortController();
  const abort = function (this: AbortSignal) {
    controller.abort(this.reason);
  };
  for (const signal of signals) signal.addEventListener("abort", abort, { once: true });
  return controller.signal;
}

/**
 * Resolves after `ms`, or at once when `signal` aborts (the caller checks which).
 * @example await sleep(250, request.signal)
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => (clearTimeout(timer), resolve());
    // The listener goes when the timer fires: a loop of sleeps on one long-lived signal keeps none.
    const timer = setTimeout(() => (signal?.removeEventListener("abort", onAbort), resolve()), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The promise's outcome, or `onTimeout()`'s error thrown once `ms` have passed (one timer,
 * cleared when the promise settles): a deadline for a call that takes no signal, such as a
 * Workers RPC call.
 * @example const text = await withTimeout(binding.skillmeshCall(call), 5_000, () => new Error("too slow"))
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  // One promise and one timer (Promise.race and finally made four promises a call).
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });
}

/** How often `Cancellation.watch` looks for a cancel. */
export const CANCEL_POLL_MS = 100;

/**
 * A call that another request may cancel (MCP 2025's `notifications/cancelled` arrives in a
 * request of its own, as does the gateway's cancel at a skill). Workers forbid one request to
 * touch another's I/O, so the cancelling request only flags the call and runs what the call's
 * work registered to be told (`onCancel`: each in the cancelling request's own I/O, e.g. a
 * Workers RPC call to the skill), and the running request sees the flag itself — when its answer
 * comes, or through `watch()`, a signal of its own that polls the flag.
 * @example const cancellation = new Cancellation(); running.set(id, cancellation); … await running.get(id)?.cancel()
 */
export class Cancellation {
  #cancelled = false;
  readonly #tellers = new Set<() => unknown>();

  /** Whether the call was cancelled. */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** In the cancelling request: flags the call and tells whoever registered; settles once they were told. */
  async cancel(): Promise<void> {
    if (this.#cancelled) return;
    this.#cancelled = true;
    await Promise.allSettled([...this.#tellers].map(async (tell) => tell()));
  }

  /**
   * Registers how to tell the call's work that it is cancelled; returns the unregister.
   * @example const forget = cancellation.onCancel(() => binding.skillmeshCancel(id)); try { … } finally { forget() }
   */
  onCancel(tell: () => unknown): () => void {
    this.#tellers.add(tell);
    return () => void this.#tellers.delete(tell);
  }

  /**
   * A signal of the running request's own that aborts within `pollMs` of a cancel: a controller
   * and a timer, made only for work that needs a signal (an HTTP hop, a handler reading
   * `ctx.signal`); `stop()` ends the polling.
   * @example const watched = cancellation.watch(); try { await fetch(url, { signal: watched.signal }) } finally { watched.stop() }
   */
  watch(pollMs = CANCEL_POLL_MS): { signal: AbortSignal; stop: () => void } {
    const controller = new AbortController();
    const abort = () => controller.abort(new DOMException("The call was cancelled by its caller", "AbortError"));
    if (this.#cancelled) {
      abort();
      return { signal: controller.signal, stop: () => {} };
    }
    const timer = setInterval(() => {
      if (!this.#cancelled) return;
      clearInterval(timer);
      abort();
    }, pollMs);
    return { signal: controller.signal, stop: () => clearInterval(timer) };
  }
}
