/**
 * The `memory` driver: a tiny Redis (strings, sorted sets and lists, with millisecond expiry) in
 * the isolate's memory. It is the embedded default of `npm run dev`: one gateway isolate, no Redis.
 */
import type { ScriptData, SetOptions, Store, StoreScript, ZRangeOptions } from "./index.js";

interface Entry {
  value: string | Map<string, number> | string[];
  expiresAt?: number;
}

/** The synchronous data a memory script works on; every method mirrors the Redis command. */
export class MemoryData implements ScriptData {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #string(key: string): string | null {
    const entry = this.#live(key);
    if (!entry) return null;
    if (typeof entry.value !== "string") throw wrongType();
    return entry.value;
  }

  #zset(key: string, create: boolean): Map<string, number> | undefined {
    const entry = this.#live(key);
    if (entry && !(entry.value instanceof Map)) throw wrongType();
    if (entry) return entry.value as Map<string, number>;
    if (!create) return undefined;
    const zset = new Map<string, number>();
    this.#entries.set(key, { value: zset });
    return zset;
  }

  get(key: string): string | null {
    return this.#string(key);
  }

  set(key: string, value: string, options: SetOptions = {}): boolean {
    if (options.nx && this.#live(key)) return false;
    this.#entries.set(key, { value, expiresAt: options.px === undefined ? undefined : this.now() + options.px });
    return true;
  }

  del(...keys: string[]): number {
    let removed = 0;
    for (const key of keys) if (this.#live(key) && this.#entries.delete(key)) removed++;
    return removed;
  }

  incr(key: string): number {
    const current = this.#string(key);
    const next = (current === null ? 0 : Number(current)) + 1;
    if (!Number.isSafeInteger(next) || (current !== null && !/^-?\d+$/.test(current))) {
      throw new Error("ERR value is not an integer or out of range");
    }
    const entry = this.#live(key);
    this.#entries.set(key, { value: String(next), expiresAt: entry?.expiresAt });
    return next;
  }

  zadd(key: string, entries: Array<{ score: number; member: string }>): void {
    const zset = this.#zset(key, true)!;
    for (const { score, member } of entries) zset.set(member, score);
  }

  zrem(key: string, ...members: string[]): number {
    const zset = this.#zset(key, false);
    if (!zset) return 0;
    let removed = 0;
    for (const member of members) if (zset.delete(member)) removed++;
    if (zset.size === 0) this.#entries.delete(key);
    return removed;
  }

  /** A list, stored oldest first so that LPUSH is an append (index 0 of LRANGE is the last element). */
  #list(key: string, create: boolean): string[] | undefined {
    const entry = this.#live(key);
    if (entry && !Array.isArray(entry.value)) throw wrongType();
    if (entry) return entry.value as string[];
    if (!create) return undefined;
    const list: string[] = [];
    this.#entries.set(key, { value: list });
    return list;
  }

  /** Pushes each value to the head, in order (LPUSH); returns the new length. */
  lpush(key: string, ...values: string[]): number {
    const list = this.#list(key, true)!;
    for (const value of values) list.push(value);
    return list.length;
  }

  /** Keeps the elements from `start` to `stop` inclusive (LTRIM; negative counts from the end). */
  ltrim(key: string, start: number, stop: number): void {
    const list = this.#list(key, false);
    if (!list) return;
    // Stored tail first: head index i lives at length - 1 - i. Cut both ends in place (native, no copy of what stays).
    const from = start < 0 ? Math.max(0, list.length + start) : start;
    const to = stop < 0 ? list.length + stop : Math.min(stop, list.length - 1);
    const length = list.length;
    if (from > to) list.length = 0;
    else {
      list.length = length - from;
      list.splice(0, length - 1 - to);
    }
    if (!list.length) this.#entries.delete(key);
  }

  /** The length of a list (LLEN). */
  llen(key: string): number {
    return this.#list(key, false)?.length ?? 0;
  }

  /** The elements from `start` to `stop` inclusive, head first (LRANGE; negative counts from the end). */
  lrange(key: string, start: number, stop: number): string[] {
    const list = this.#list(key, false) ?? [];
    const from = start < 0 ? Math.max(0, list.length + start) : start;
    const to = stop < 0 ? list.length + stop : Math.min(stop, list.length - 1);
    const out: string[] = [];
    for (let i = from; i <= to; i++) out.push(list[list.length - 1 - i]!);
    return out;
  }

  /** A member's score, or undefined (ZSCORE). */
  zscore(key: string, member: string): number | undefined {
    return this.#zset(key, false)?.get(member);
  }

  /** Removes the members with min ≤ score ≤ max (ZREMRANGEBYSCORE); returns how many. */
  zremRangeByScore(key: string, min: number, max: number): number {
    const zset = this.#zset(key, false);
    if (!zset) return 0;
    let removed = 0;
    for (const [member, score] of zset) if (score >= min && score <= max && zset.delete(member)) removed++;
    if (zset.size === 0) this.#entries.delete(key);
    return removed;
  }

  /** Expires a key `ms` from now (PEXPIRE); false when there is no such key. */
  pexpire(key: string, ms: number): boolean {
    const entry = this.#live(key);
    if (!entry) return false;
    entry.expiresAt = this.now() + ms;
    return true;
  }

  /** Members with min ≤ score ≤ max, ordered as Redis orders them (score, then member), as ZRANGE … BYSCORE [REV] [LIMIT]. */
  zrangeByScore(key: string, min: number, max: number, { reverse = false, page }: ZRangeOptions = {}): string[] {
    const zset = this.#zset(key, false);
    if (!zset) return [];
    const matches: Array<[string, number]> = [];
    for (const entry of zset) if (entry[1] >= min && entry[1] <= max) matches.push(entry);
    const members = matches
      .sort(
        ([a, sa], [b, sb]) =>
          sa - sb ||
          (a < b ? -1
          : a > b ? 1
          : 0),
      )
      .map(([member]) => member);
    if (reverse) members.reverse();
    return page ? members.slice(page.offset, page.offset + page.count) : members;
  }
}

function wrongType(): Error {
  return new Error("WRONGTYPE Operation against a key holding the wrong kind of value");
}

/**
 * Creates a memory store. Each call is a fresh, empty store.
 * @example const store = memoryStore(); await store.set("k", "v", { px: 1000 })
 */
export function memoryStore(now: () => number = Date.now): Store {
  const data = new MemoryData(now);
  return {
    driver: "memory",
    get: async (key) => data.get(key),
    mget: async (...keys) => keys.map((key) => data.get(key)),
    set: async (key, value, options) => data.set(key, value, options),
    del: async (...keys) => data.del(...keys),
    incr: async (key) => data.incr(key),
    zadd: async (key, entries) => data.zadd(key, entries),
    zrem: async (key, ...members) => data.zrem(key, ...members),
    zrangeByScore: async (key, min, max, options) => data.zrangeByScore(key, min, max, options),
    run: async <Result>(script: StoreScript<Result>, keys: string[], args: Array<string | number>) => script.memory(data, keys, args.map(String)),
    ping: async () => true,
  };
}
