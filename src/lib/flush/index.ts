/**
 * Per-isolate buffers written to the store after the responses (the audit log, the observed
 * windows, the Prometheus counters): the first addition schedules one flush about `delayMs`
 * later in the request's `waitUntil`, and the additions until then ride along with it.
 */
import { sleep } from "../signal/index.js";

/** One buffer's pending flush. */
export class DelayedFlush {
  #scheduled = false;

  constructor(
    private readonly delayMs: number,
    private readonly flush: () => Promise<void>,
  ) {}

  /**
   * Schedules the flush unless one is already due.
   * @example this.#flush.schedule((promise) => ctx.waitUntil(promise))
   */
  schedule(waitUntil: (promise: Promise<unknown>) => void): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    waitUntil(
      sleep(this.delayMs).then(() => {
        this.#scheduled = false;
        return this.flush();
      }),
    );
  }
}
