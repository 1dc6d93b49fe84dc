/**
 * A gateway isolate's view of the shared circuit breakers: statuses cached for a second (a call
 * never waits for the store, except the very first call to a deployment in a new isolate),
 * successes recorded in batches at most once a second, failures recorded at once — all after the
 * response, through `waitUntil`. The state itself lives in the store (see state.ts).
 */
import { errorText } from "../jsonrpc/index.js";
import type { Store } from "../store/index.js";
import { type BreakerPolicy, type BreakerStatus, DEFAULT_BREAKER_POLICY, claimProbe, recordOutcome, statusOf } from "./state.js";

export { DEFAULT_BREAKER_POLICY, type BreakerPolicy, type BreakerStatus, statusOf } from "./state.js";

/** Breaker keys live under this prefix; the id is the deployment's `name@version`. */
export const breakerKey = (deploymentId: string) => `sm:breaker:${deploymentId}`;

/** How long a cached status is trusted, and how often batched successes are written. */
export const BREAKER_SYNC_MS = 1_000;

interface Pending {
  successes: number;
  failures: number;
  trailingFailures: number;
}

export interface BreakerBoardOptions {
  now?: () => number;
  /** Called once per trip by the isolate whose record opened the breaker. */
  onTrip?: (deploymentId: string, status: BreakerStatus) => Promise<void>;
}

export class BreakerBoard {
  readonly #cache = new Map<string, { status: BreakerStatus; at: number }>();
  readonly #pending = new Map<string, Pending & { lastFlush: number }>();
  readonly #refreshing = new Set<string>();
  readonly #now: () => number;

  constructor(
    private readonly store: Store,
    private readonly options: BreakerBoardOptions = {},
  ) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * The deployment's breaker status from the isolate's cache; a stale entry is refreshed in the
   * background (`waitUntil`). Only an unknown deployment waits for the store.
   * @example if ((await board.status(id, waitUntil)).state === "closed") …
   */
  async status(deploymentId: string, waitUntil: (p: Promise<unknown>) => void): Promise<BreakerStatus> {
    const cached = this.#cache.get(deploymentId);
    if (!cached) return this.#refresh(deploymentId);
    if (this.#now() - cached.at > BREAKER_SYNC_MS && !this.#refreshing.has(deploymentId)) {
      this.#refreshing.add(deploymentId);
      waitUntil(this.#refresh(deploymentId).finally(() => this.#refreshing.delete(deploymentId)));
    }
    return cached.status;
  }

  async #refresh(deploymentId: string): Promise<BreakerStatus> {
    try {
      const status = statusOf(await this.store.get(breakerKey(deploymentId)));
      this.#cache.set(deploymentId, { status, at: this.#now() });
      return status;
    } catch {
      // A dead store must not stop traffic: treat the breaker as closed until it answers again.
      const status = this.#cache.get(deploymentId)?.status ?? statusOf(null);
      this.#cache.set(deploymentId, { status, at: this.#now() });
      return status;
    }
  }

  /** Claims the single half-open probe of an open breaker whose open period is over. */
  async claimProbe(deploymentId: string, policy: BreakerPolicy): Promise<string | undefined> {
    const token = crypto.randomUUID();
    const claimed = await this.store.run(claimProbe, [breakerKey(deploymentId)], [this.#now(), token, policy.probeTimeoutMs]).catch(() => false);
    return claimed ? token : undefined;
  }

  /**
   * Records one call's outcome. Failures and probe results are written now; successes are
   * added up and written at most once per second. Returns the write (for `waitUntil`), if any.
   */
  record(deploymentId: string, failed: boolean, policy: BreakerPolicy, probe?: string): Promise<void> | undefined {
    const now = this.#now();
    const pending = this.#pending.get(deploymentId) ?? { successes: 0, failures: 0, trailingFailures: 0, lastFlush: now };
    this.#pending.set(deploymentId, pending);
    if (failed) {
      pending.failures++;
      pending.trailingFailures++;
    } else {
      pending.successes++;
      pending.trailingFailures = 0;
    }
    if (!failed && !probe && now - pending.lastFlush < BREAKER_SYNC_MS) return undefined;
    const batch = { successes: pending.successes, failures: pending.failures, trailingFailures: pending.trailingFailures };
    Object.assign(pending, { successes: 0, failures: 0, trailingFailures: 0, lastFlush: now });
    return this.#flush(deploymentId, batch, policy, probe);
  }

  async #flush(deploymentId: string, batch: Pending, policy: BreakerPolicy, probe?: string): Promise<void> {
    try {
      const status = await this.store.run(
        recordOutcome,
        [breakerKey(deploymentId)],
        [this.#now(), batch.successes, batch.failures, batch.trailingFailures, probe ?? "", JSON.stringify(policy)],
      );
      this.#cache.set(deploymentId, { status, at: this.#now() });
      if (status.tripped) await this.options.onTrip?.(deploymentId, status);
    } catch (error) {
      console.error(`[gateway] could not record the breaker of ${deploymentId}:`, errorText(error));
    }
  }
}
