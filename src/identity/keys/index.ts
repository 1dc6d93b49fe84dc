/**
 * API keys: the credentials a gateway issues to callers and admins. A key is shown once, when
 * it is created (`sm_` + 43 base64url characters: the prefix lets secret scanners find a leaked
 * one), and stored only as its SHA-256. The keys are one document in the store under a revision
 * counter; every gateway isolate keeps a snapshot of the active ones, polled once a second, so
 * checking a key costs no store round trip and an edit or a revocation reaches every isolate
 * within about a second.
 */
import { z } from "zod";
import { KeyGrantsSchema, type KeyUpdateRequest, type KeyView } from "./schema.js";
import { randomHex, sha256Hex } from "../../lib/hash/index.js";
import { own } from "../../lib/json/index.js";
import { PolledSnapshot, type SnapshotOptions } from "../../lib/snapshot/index.js";
import { VersionedDocument } from "../../store/document.js";
import type { Store } from "../../store/index.js";

/** What every key starts with. */
export const KEY_PREFIX = "sm_";

export const KeyIdSchema = z.string().regex(/^k_[0-9a-f]{12}$/, "a key id is k_ and 12 hex digits");

/** A key as stored: its grants, and the SHA-256 of its secret. */
export const ApiKeySchema = KeyGrantsSchema.extend({
  id: KeyIdSchema,
  name: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  hint: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  revokedAt: z.number().optional(),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const KeysDocSchema = z.object({ keys: z.record(KeyIdSchema, ApiKeySchema) });
export type KeysDoc = z.infer<typeof KeysDocSchema>;

export const KEYS_STORE_KEYS = { doc: "sm:keys", rev: "sm:keys:rev" } as const;

/** A key that is not there (by id or name): the admin API answers 404. */
export class KeyNotFound extends Error {
  constructor(which: string) {
    super(`No key ${which}; GET /admin/keys lists them`);
    this.name = "KeyNotFound";
  }
}

/** The active keys of one snapshot, by the hash of their secret and by id. */
export interface KeysView {
  byHash: ReadonlyMap<string, ApiKey>;
  byId: ReadonlyMap<string, ApiKey>;
}

/**
 * A key as the admin API shows it: no secret, no hash.
 * @example viewOf(record).hint // "sm_Ab3d…x9Yz"
 */
export function viewOf(record: ApiKey): KeyView {
  const { hash: _hash, ...view } = record;
  return view;
}

function randomBase64url(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export class KeyRing {
  readonly #document: VersionedDocument<KeysDoc>;
  readonly #snapshot: PolledSnapshot<number, KeysView>;

  constructor(store: Store, options: SnapshotOptions = {}) {
    this.#document = new VersionedDocument(store, KEYS_STORE_KEYS, KeysDocSchema, () => ({ keys: {} }));
    this.#snapshot = new PolledSnapshot(
      {
        poll: () => this.#document.revision(),
        versionOf: (rev) => String(rev),
        load: async () => {
          const { doc } = await this.#document.read();
          const active = Object.values(doc.keys).filter((key) => key.revokedAt === undefined);
          return { byHash: new Map(active.map((key) => [key.hash, key])), byId: new Map(active.map((key) => [key.id, key])) };
        },
      },
      options,
    );
  }

  /**
   * The active key whose secret has this SHA-256, from this isolate's snapshot (revalidated at
   * most once a second).
   * @example const key = await ring.find(await sha256Hex(bearer))
   */
  async find(hash: string): Promise<ApiKey | undefined> {
    return (await this.#snapshot.current()).byHash.get(hash);
  }

  /**
   * The active key with this id, from this isolate's snapshot: undefined once it is revoked.
   * @example const key = await ring.byId("k_0123456789ab")
   */
  async byId(id: string): Promise<ApiKey | undefined> {
    return (await this.#snapshot.current()).byId.get(id);
  }

  /** Every key, revoked ones included (they stay, for the audit log's sake). */
  async list(): Promise<ApiKey[]> {
    const { doc } = await this.#document.read();
    return Object.values(doc.keys).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  /**
   * Issues a key: returns the secret (shown once) and the stored record.
   * @example const { key } = await ring.create({ name: "agent-x", skills: ["text.*"], tags: [], groups: [] }, Date.now())
   */
  async create(grants: z.output<typeof KeyGrantsSchema> & { name: string }, now: number): Promise<{ key: string; record: ApiKey }> {
    const key = `${KEY_PREFIX}${randomBase64url(32)}`;
    const record: ApiKey = {
      ...grants,
      id: `k_${randomHex(6)}`,
      hash: await sha256Hex(key),
      hint: `${key.slice(0, 7)}…${key.slice(-4)}`,
      createdAt: now,
      updatedAt: now,
    };
    await this.#document.update((doc) => {
      if (Object.values(doc.keys).some((k) => k.name === record.name && k.revokedAt === undefined)) {
        throw new KeyConflict(`an active key named ${record.name} exists; pick another name or revoke it first`);
      }
      return { keys: { ...doc.keys, [record.id]: record } };
    });
    this.#snapshot.invalidate();
    return { key, record };
  }

  /** Changes a key's name or grants (`null` clears an optional grant). */
  async update(which: string, changes: KeyUpdateRequest, now: number): Promise<ApiKey> {
    return this.#edit(which, (key) => {
      const next: ApiKey = { ...key, updatedAt: now };
      for (const [field, value] of Object.entries(changes) as Array<[keyof KeyUpdateRequest, unknown]>) {
        if (value === undefined) continue;
        if (value === null) delete (next as Partial<ApiKey>)[field];
        else (next as Record<string, unknown>)[field] = value;
      }
      return next;
    });
  }

  /** Revokes a key: it stops working on every isolate within about a second. */
  async revoke(which: string, now: number): Promise<ApiKey> {
    return this.#edit(which, (key) => (key.revokedAt === undefined ? { ...key, revokedAt: now, updatedAt: now } : key));
  }

  async #edit(which: string, change: (key: ApiKey) => ApiKey): Promise<ApiKey> {
    let edited: ApiKey | undefined;
    await this.#document.update((doc) => {
      const key = own(doc.keys, which) ?? Object.values(doc.keys).find((k) => k.name === which && k.revokedAt === undefined);
      if (!key) throw new KeyNotFound(which);
      edited = change(key);
      return edited === key ? undefined : { keys: { ...doc.keys, [key.id]: edited } };
    });
    this.#snapshot.invalidate();
    return edited!;
  }
}

/** Two active keys may not share a name (the CLI finds keys by name): the admin API answers 409. */
export class KeyConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KeyConflict";
  }
}
