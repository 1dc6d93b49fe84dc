/**
 * A gateway isolate's copy of a document kept in the store (the registry, the API keys): served
 * from memory, revalidated at most once per `maxAgeMs` by one small poll, rebuilt only when the
 * poll says it changed, and kept serving when the store is down.
 */
import { sleep } from "../signal/index.js";

/** Where a snapshot comes from. */
export interface SnapshotSource<Polled, View> {
  /** One small read that says what the store holds now (a revision, say), relative to the view this isolate has. */
  poll(now: number, current: View | undefined): Promise<Polled>;
  /** A string that changes exactly when the view must be rebuilt. */
  versionOf(polled: Polled): string;
  /** Builds the view for `polled`; `previous` is the view it replaces, if any. */
  load(polled: Polled, previous: View | undefined): Promise<View>;
}

export interface SnapshotOptions {
  /** How long a view is trusted before the next call polls the store. */
  maxAgeMs?: number;
  now?: () => number;
  /** Called with a store error when the view could not be revalidated (it keeps serving). */
  onStale?: (error: unknown) => void;
}

/** Revalidation interval: changes reach every isolate within this (plus one call). */
export const SNAPSHOT_MAX_AGE_MS = 1_000;

/** How often a call waiting for another call's poll looks whether it has landed. */
const SHARED_POLL_STEP_MS = 5;
/** How long a call waits for another call's poll before it polls itself (that request may be gone). */
const SHARED_POLL_WAIT_MS = 5_000;

/** One call's revalidation, as other calls of the isolate see it. */
interface Poll {
  /** The isolate's write generation when it began: it sees every write before. */
  readonly generation: number;
  readonly startedAt: number;
  done: boolean;
  /** Why it failed, when it left no view. */
  error?: unknown;
}

export class PolledSnapshot<Polled, View> {
  #view: View | undefined;
  #version = "";
  #checkedAt = -Infinity;
  /** Bumped by `invalidate()`; the view is current when it was read at the latest generation. */
  #generation = 0;
  #viewGeneration = 0;
  /** The latest poll begun, while it is under way: other calls keep their view, or wait for it. */
  #latestPoll: Poll | undefined;
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(
    private readonly source: SnapshotSource<Polled, View>,
    private readonly options: SnapshotOptions = {},
  ) {
    this.#maxAgeMs = options.maxAgeMs ?? SNAPSHOT_MAX_AGE_MS;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The current view: from memory when fresh, else after one poll (a rebuild only when the poll
   * says it changed). Throws only when there has never been a view and the store fails.
   * @example const view = await snapshot.current()
   */
  async current(): Promise<View> {
    if (this.#view !== undefined && this.#now() - this.#checkedAt < this.#maxAgeMs) return this.#view;
    // A request must not await another request's I/O (workerd cancels it, or the request hangs
    // when the other one ends first): while one request polls, the others keep the view they
    // have — unless this isolate knows it is outdated (it wrote since): then it waits for a poll
    // begun since the write, or begins one.
    // A poll whose request was cancelled never ends here: past SHARED_POLL_WAIT_MS it counts for nothing.
    const underWay =
      this.#latestPoll && !this.#latestPoll.done && this.#now() - this.#latestPoll.startedAt <= SHARED_POLL_WAIT_MS ? this.#latestPoll : undefined;
    if (this.#view !== undefined && underWay && this.#viewGeneration === this.#generation) return this.#view;
    // No view yet (a new isolate), or outdated by this isolate's write, and a poll begun since is
    // under way: it brings what this call needs. Wait for it on this request's own timer (reading
    // a field, not the other request's I/O) instead of loading the same again — a burst of calls
    // on a new isolate would each read the whole registry, 10,000 skills each.
    if (underWay?.generation === this.#generation) {
      const shared = await this.#outcomeOf(underWay);
      if (shared) return shared;
    }
    const poll: Poll = (this.#latestPoll = { generation: this.#generation, startedAt: this.#now(), done: false });
    try {
      return await this.#revalidate();
    } catch (error) {
      poll.error = error;
      throw error;
    } finally {
      poll.done = true;
      if (this.#latestPoll === poll) this.#latestPoll = undefined;
    }
  }

  /**
   * What another call's poll came to: the view it left (stale if it failed, as that call got), or
   * its error when there is still no view; undefined when it is overdue (that request may be gone).
   */
  async #outcomeOf(poll: Poll): Promise<View | undefined> {
    for (;;) {
      await sleep(SHARED_POLL_STEP_MS);
      if (poll.done) {
        if (this.#view !== undefined) return this.#view;
        throw poll.error;
      }
      if (this.#now() - poll.startedAt > SHARED_POLL_WAIT_MS) return undefined;
    }
  }

  /** Whether this isolate has a view yet (it may be stale): a new isolate has none until its first load lands. */
  get loaded(): boolean {
    return this.#view !== undefined;
  }

  /** The view is outdated (this isolate wrote to the store): no call is served it until a poll begun since lands. */
  invalidate(): void {
    this.#checkedAt = -Infinity;
    this.#generation++;
  }

  async #revalidate(): Promise<View> {
    const now = this.#now();
    const generation = this.#generation;
    try {
      const polled = await this.source.poll(now, this.#view);
      const version = this.source.versionOf(polled);
      if (this.#view === undefined || version !== this.#version) {
        this.#view = await this.source.load(polled, this.#view);
        this.#version = version;
      }
      // A poll that began before this isolate's last write may have read the old document.
      if (generation === this.#generation) this.#checkedAt = now;
      this.#viewGeneration = Math.max(this.#viewGeneration, generation);
      return this.#view;
    } catch (error) {
      if (this.#view === undefined) throw error;
      this.options.onStale?.(error);
      this.#checkedAt = now; // do not hammer a dead store: try again after maxAgeMs
      return this.#view;
    }
  }
}
