/**
 * A JSON document in the store under a revision counter (the registry, the API keys): read in
 * two GETs, written by read-modify-compare-and-set so two writers at once never lose a write,
 * and parsed with its zod schema on every read (data read back from the store is checked, not
 * trusted).
 */
import type { z } from "zod";
import { type Store, type StoreScript, StoreUnavailable, afterConflict } from "./index.js";

/** Writers that lose a compare-and-set retry; n concurrent writers need up to n rounds. */
const MAX_CAS_ATTEMPTS = 30;

/**
 * KEYS: doc, rev. ARGV: expected rev, new doc. Writes the doc and bumps the revision only if the
 * revision is still the expected one. Returns the new revision, or -1 on a conflict.
 */
export const compareAndSetDoc: StoreScript<number> = {
  name: "document.compareAndSet",
  lua: `
local rev = tonumber(redis.call('GET', KEYS[2]) or '0')
if rev ~= tonumber(ARGV[1]) then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
return redis.call('INCR', KEYS[2])
`,
  memory: (data, [docKey, revKey], [expected, doc]) => {
    const rev = Number(data.get(revKey!) ?? "0");
    if (rev !== Number(expected)) return -1;
    data.set(docKey!, doc!);
    return data.incr(revKey!);
  },
  fromRedis: (reply) => Number(reply),
};

export interface DocumentState<T> {
  rev: number;
  doc: T;
}

export class VersionedDocument<T> {
  constructor(
    private readonly store: Store,
    readonly keys: { doc: string; rev: string },
    private readonly schema: z.ZodType<T>,
    private readonly empty: () => T,
  ) {}

  /** The revision alone: one GET (what a snapshot polls). */
  async revision(): Promise<number> {
    return Number((await this.store.get(this.keys.rev)) ?? "0");
  }

  /** The document and its revision. */
  async read(): Promise<DocumentState<T>> {
    // Revision first: a write between the two reads makes the next poll see a newer revision.
    const rev = await this.revision();
    const raw = await this.store.get(this.keys.doc);
    return { rev, doc: raw ? this.schema.parse(JSON.parse(raw)) : this.empty() };
  }

  /**
   * Applies `edit` atomically: it gets the current document and returns the new one, or
   * undefined for "no change" (no write, no new revision); it may be called again after a
   * conflict, so it must not have effects of its own. An edit that throws changes nothing and
   * the error reaches the caller.
   * @example await keys.update((doc) => ({ ...doc, keys: { ...doc.keys, [id]: record } }))
   */
  async update(edit: (doc: T) => T | undefined | Promise<T | undefined>): Promise<DocumentState<T> & { changed: boolean }> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const { rev, doc } = await this.read();
      const next = await edit(doc);
      if (next === undefined) return { rev, doc, changed: false };
      const written = await this.store.run(compareAndSetDoc, [this.keys.doc, this.keys.rev], [rev, JSON.stringify(next)]);
      if (written !== -1) return { rev: written, doc: next, changed: true };
      await afterConflict(attempt);
    }
    throw new StoreUnavailable("compare-and-set", new Error(`the store kept conflicting with other writers of ${this.keys.doc}`));
  }
}
