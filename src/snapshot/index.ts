/**
 * A gateway isolate's copy of a document kept in the store (the registry, the API keys): served
 * from memory, revalidated at most once per `maxAgeMs` by one small poll, rebuilt only when the
 * poll says it changed, and kept serving when the store is down.
 */

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

export class PolledSnapshot<Polled, View> {
  #view: View | undefined;
  #version = "";
  #checkedAt = -Infinity;
  /** Polls under way in this isolate (each request polls on its own). */
  #polls = 0;
  /** Bumped by `invalidate()`; the view is current when it was read at the latest generation. */
  #generation = 0;
  #viewGeneration = 0;
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
    // have — unless this isolate knows it is outdated (it wrote since), then each polls itself.
    if (this.#view !== undefined && this.#polls > 0 && this.#viewGeneration === this.#generation) return this.#view;
    this.#polls++;
    try {
      return await this.#revalidate();
    } finally {
      this.#polls--;
    }
  }

  /** The view is outdated (this isolate wrote to the store): every call polls until one has. */
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
