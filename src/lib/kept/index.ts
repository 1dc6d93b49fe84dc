/**
 * A per-isolate cache of a bounded number of entries: what is derived from a request's inputs
 * (a search index for one set of grants, a listing for one package revision) is kept for the next
 * request with the same inputs, and the oldest goes first when the bound is reached — a stream of
 * callers with new inputs cannot grow an isolate's memory.
 */
export class Kept<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly max: number) {}

  /**
   * The value for `key`: kept, or made now by `make` and kept.
   * @example const index = searchIndexes.get(catalog, () => new CatalogIndex(entries))
   */
  get(key: K, make: () => V): V {
    const known = this.#entries.get(key);
    if (known !== undefined || this.#entries.has(key)) return known as V;
    const made = make();
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value as K);
    this.#entries.set(key, made);
    return made;
  }

  get size(): number {
    return this.#entries.size;
  }
}
