/**
 * A gateway isolate's view of the registry. A call reads the snapshot in memory; at most once
 * per `maxAgeMs` one call polls the store (revision + heartbeat deadlines, one round trip) and
 * only a changed revision reloads the document. When the store is down the last snapshot keeps
 * serving.
 */
import { own } from "../json/index.js";
import { compareSemver } from "./semver.js";
import type { Deployment, RegistryDoc, RoutingTable } from "./model.js";
import type { RegistryRepository } from "./repository.js";

/** Everything the gateway needs to route one skill. */
export interface SkillEntry {
  name: string;
  /** Routable deployments (stable and canaries), newest version first. */
  versions: Deployment[];
  /** The fallback, if one is registered. */
  degraded?: Deployment;
  routes: RoutingTable;
}

/** An immutable, indexed registry view. */
export class RegistryView {
  readonly skills: ReadonlyMap<string, SkillEntry>;

  constructor(
    readonly rev: number,
    readonly doc: RegistryDoc,
    expired: ReadonlySet<string> = new Set(),
  ) {
    const skills = new Map<string, SkillEntry>();
    const live = Object.values(doc.deployments)
      .filter((d) => !expired.has(d.id))
      .sort((a, b) => compareSemver(b.version, a.version));
    for (const deployment of live) {
      const entry = skills.get(deployment.name) ?? { name: deployment.name, versions: [], routes: own(doc.routes, deployment.name) ?? {} };
      if (deployment.role === "degraded") entry.degraded ??= deployment;
      else entry.versions.push(deployment);
      skills.set(deployment.name, entry);
    }
    this.skills = skills;
  }

  /** Live deployments, every role. */
  deployments(): Deployment[] {
    return [...this.skills.values()].flatMap((s) => (s.degraded ? [...s.versions, s.degraded] : s.versions));
  }
}

export interface SnapshotOptions {
  /** How long a snapshot is trusted before the next call polls the store. */
  maxAgeMs?: number;
  now?: () => number;
  /** Called with a store error when the snapshot could not be refreshed (it keeps serving). */
  onStale?: (error: unknown) => void;
}

/** Revalidation interval: registry changes reach every isolate within this (plus one call). */
export const SNAPSHOT_MAX_AGE_MS = 1_000;

export class RegistrySnapshot {
  #view: RegistryView | undefined;
  #checkedAt = -Infinity;
  #expiredKey = "";
  /** Polls under way in this isolate (each request polls on its own). */
  #polls = 0;
  /** Bumped by `invalidate()`; the view is current when it was read at the latest generation. */
  #generation = 0;
  #viewGeneration = 0;
  readonly #maxAgeMs: number;
  readonly #now: () => number;

  constructor(
    private readonly repository: RegistryRepository,
    private readonly options: SnapshotOptions = {},
  ) {
    this.#maxAgeMs = options.maxAgeMs ?? SNAPSHOT_MAX_AGE_MS;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The current view: from memory when fresh, else after one poll (a reload only when the
   * revision moved). Throws only when there has never been a snapshot and the store fails.
   * @example const view = await snapshot.current(); view.skills.get("text.summarize")
   */
  async current(): Promise<RegistryView> {
    if (this.#view && this.#now() - this.#checkedAt < this.#maxAgeMs) return this.#view;
    // A request must not await another request's I/O (workerd cancels it, or the request hangs
    // when the other one ends first): while one request polls, the others keep the view they
    // have — unless this isolate knows it is outdated (it wrote since), then each polls itself.
    if (this.#view && this.#polls > 0 && this.#viewGeneration === this.#generation) return this.#view;
    this.#polls++;
    try {
      return await this.#revalidate();
    } finally {
      this.#polls--;
    }
  }

  /** The view is outdated (this isolate wrote to the registry): every call polls until one has. */
  invalidate(): void {
    this.#checkedAt = -Infinity;
    this.#generation++;
  }

  async #revalidate(): Promise<RegistryView> {
    const now = this.#now();
    const generation = this.#generation;
    try {
      const { rev, expired } = await this.repository.poll(now);
      const expiredKey = expired.join("\n");
      if (!this.#view || rev !== this.#view.rev) {
        const state = await this.repository.read();
        this.#view = new RegistryView(state.rev, state.doc, new Set(expired));
      } else if (expiredKey !== this.#expiredKey) {
        this.#view = new RegistryView(this.#view.rev, this.#view.doc, new Set(expired));
      }
      this.#expiredKey = expiredKey;
      // A poll that began before this isolate's last write may have read the old registry.
      if (generation === this.#generation) this.#checkedAt = now;
      this.#viewGeneration = Math.max(this.#viewGeneration, generation);
      return this.#view;
    } catch (error) {
      if (!this.#view) throw error;
      this.options.onStale?.(error);
      this.#checkedAt = now; // do not hammer a dead store: try again after maxAgeMs
      return this.#view;
    }
  }
}
