/**
 * The registry in the store: one JSON document (deployments + routing tables) under a revision
 * counter (a `VersionedDocument`), and a sorted set of heartbeat deadlines. Writes are
 * read-modify-compare-and-set, retried on conflict, and sweep expired deployments on the way.
 */
import { own } from "../json/index.js";
import { VersionedDocument } from "../store/document.js";
import type { Store } from "../store/index.js";
import { type RegistryDoc, RegistryDocSchema, emptyRegistry } from "./model.js";
import { type RegistrationInput, type RegistrationOutcome, applyRegistration, removeDeployments } from "./mutations.js";
import { pollRegistry } from "./scripts.js";

export const REGISTRY_KEYS = {
  doc: "sm:registry",
  rev: "sm:registry:rev",
  expiry: "sm:registry:expiry",
} as const;

export interface RegistryState {
  rev: number;
  doc: RegistryDoc;
}

export class RegistryRepository {
  readonly #document: VersionedDocument<RegistryDoc>;

  constructor(private readonly store: Store) {
    this.#document = new VersionedDocument(store, { doc: REGISTRY_KEYS.doc, rev: REGISTRY_KEYS.rev }, RegistryDocSchema, emptyRegistry);
  }

  /** The whole registry and its revision (admin reads and snapshot reloads). */
  read(): Promise<RegistryState> {
    return this.#document.read();
  }

  /** The revision and the deployments whose heartbeat deadline has passed: one round trip. */
  async poll(now: number): Promise<{ rev: number; expired: string[] }> {
    return this.store.run(pollRegistry, [REGISTRY_KEYS.rev, REGISTRY_KEYS.expiry], [now]);
  }

  /**
   * Registers a deployment (rules in `applyRegistration`); expired deployments are swept in the
   * same write. A TTL registration also (re)sets its heartbeat deadline.
   */
  async register(input: RegistrationInput, now: number): Promise<RegistrationOutcome> {
    let outcome: RegistrationOutcome | undefined;
    await this.mutate(now, (doc) => {
      outcome = applyRegistration(doc, input, now);
      return outcome.changed ? outcome.doc : undefined;
    });
    const { deployment } = outcome!;
    if (input.ttlSeconds) {
      await this.store.zadd(REGISTRY_KEYS.expiry, [{ member: deployment.id, score: now + input.ttlSeconds * 1000 }]);
    } else if (outcome!.changed) {
      await this.store.zrem(REGISTRY_KEYS.expiry, deployment.id);
    }
    return outcome!;
  }

  /** Removes deployments by id; returns the ids that were there. */
  async deregister(ids: string[], now: number): Promise<string[]> {
    let removed: string[] = [];
    const swept = await this.mutate(now, (doc) => {
      removed = ids.filter((id) => own(doc.deployments, id));
      return removed.length ? removeDeployments(doc, removed) : undefined;
    });
    if (ids.length) await this.store.zrem(REGISTRY_KEYS.expiry, ...ids);
    return [...new Set([...removed, ...swept.filter((id) => ids.includes(id))])].sort();
  }

  /**
   * Applies an edit (e.g. a rollout from src/routing/rollout.ts) atomically and returns the
   * resulting document. An edit that returns undefined changes nothing (no write, no new
   * revision); one that throws changes nothing either, and the error reaches the caller.
   * @example await registry.update(Date.now(), (doc) => rollback(doc, "text.summarize", { now, by: "admin" }))
   */
  async update(now: number, edit: (doc: RegistryDoc) => RegistryDoc | undefined): Promise<RegistryDoc> {
    let result: RegistryDoc | undefined;
    await this.mutate(now, (doc) => {
      const next = edit(doc);
      result = next ?? doc;
      return next;
    });
    return result!;
  }

  /**
   * Read-modify-write with compare-and-set: `change` returns the new doc, or undefined for "no
   * change". Expired deployments are removed first, so every write also cleans up; returns the
   * ids so swept.
   */
  private async mutate(now: number, change: (doc: RegistryDoc) => RegistryDoc | undefined): Promise<string[]> {
    let swept: string[] = [];
    let expired: string[] = [];
    const { changed } = await this.#document.update(async (doc) => {
      ({ expired } = await this.poll(now));
      swept = expired.filter((id) => own(doc.deployments, id));
      const live = swept.length ? removeDeployments(doc, swept) : doc;
      const next = change(live);
      return next === undefined && live === doc ? undefined : (next ?? live);
    });
    if (changed && expired.length) await this.store.zrem(REGISTRY_KEYS.expiry, ...expired);
    return swept;
  }
}
