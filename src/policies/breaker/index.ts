/**
 * A gateway isolate's view of the shared circuit breakers: statuses cached for a second (a call
 * never waits for the store, except the very first call to a deployment in a new isolate),
 * successes recorded in batches at most once a second, failures recorded at once — all after the
 * response, through `waitUntil`. The state itself lives in the store (see state.ts).
 */
import { errorText } from "../../protocols/jsonrpc/index.js";
import type { Store } from "../../store/index.js";
import { type BreakerPolicy, type BreakerRecord, type BreakerStatus, claimProbe, recordOutcome, statusOf } from "./state.js";

export { DEFAULT_BREAKER_POLICY, type BreakerPolicy, type BreakerStatus, statusOf } from "./state.js";

/** Breaker keys live under this prefix; the id is the deployment's `name@version`. */
export const breakerKey = (deploymentId: string) => `sm:breaker:${deploymentId}`;

/** How long a cached status is trusted, and how often batched successes are written. */
export const BREAKER_SYNC_MS = 1_000;

interface Pending {
  successes: number;
  lastFlush: number;
}

export interface BreakerBoardOptions {
  now?: () => number;
  /** Called once per trip by the isolate whose record opened the breaker. */
  onTrip?: (deploymentId: string, status: BreakerStatus) => Promise<void>;
}

export class BreakerBoard {
  readonly #cache = new Map<string, { status: BreakerStatus; at: number }>();
  readonly #pending = new Map<string, Pending>();
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

  /**
   * Claims the single half-open probe of an open breaker whose open period is over, for
   * `caller` (refused while that caller's own failed probe bars it).
   */
  async claimProbe(deploymentId: string, policy: BreakerPolicy, caller: string): Promise<string | undefined> {
    const token = crypto.randomUUID();
    const claimed = await this.store.run(claimProbe, [breakerKey(deploymentId)], [this.#now(), token, policy.probeTimeoutMs, caller]).catch(() => false);
    return claimed ? token : undefined;
  }

  /**
   * Records one call's outcome: a success (`failedBy` undefined) or a failure of the caller
   * `failedBy`. Failures and probe results are written now; successes are added up and written
   * at most once per second. Returns the write (for `waitUntil`), if any.
   * @example const write = board.record(id, failed ? principal : undefined, policy, probe)
   */
  record(deploymentId: string, failedBy: string | undefined, policy: BreakerPolicy, probe?: string): Promise<void> | undefined {
    const now = this.#now();
    const pending = this.#pending.get(deploymentId) ?? { successes: 0, lastFlush: now };
    this.#pending.set(deploymentId, pending);
    if (failedBy === undefined) pending.successes++;
    if (failedBy === undefined && !probe && now - pending.lastFlush < BREAKER_SYNC_MS) return undefined;
    const successes = pending.successes;
    Object.assign(pending, { successes: 0, lastFlush: now });
    return this.#flush(deploymentId, { successes, failedBy, probe }, policy);
  }

  /**
   * Frees a claimed probe whose call says nothing about the deployment (the caller's own
   * deadline cut it short), so the next call can probe at once.
   */
  releaseProbe(deploymentId: string, policy: BreakerPolicy, probe: string): Promise<void> {
    return this.#flush(deploymentId, { successes: 0, probe }, policy);
  }

  async #flush(deploymentId: string, record: BreakerRecord, policy: BreakerPolicy): Promise<void> {
    try {
      const status = await this.store.run(
        recordOutcome,
        [breakerKey(deploymentId)],
        [this.#now(), record.successes, record.failedBy ?? "", record.probe ?? "", JSON.stringify(policy)],
      );
      this.#cache.set(deploymentId, { status, at: this.#now() });
      if (status.tripped) await this.options.onTrip?.(deploymentId, status);
    } catch (error) {
      console.error(`[gateway] could not record the breaker of ${deploymentId}:`, errorText(error));
    }
  }
}
