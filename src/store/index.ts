/**
 * The store: one small Redis-shaped interface with two drivers, `memory` (embedded, per isolate)
 * and `upstash` (Redis over the Upstash REST protocol). Multi-step operations that must be atomic
 * are `StoreScript`s: Lua for Redis, and a synchronous twin for the memory driver (a JS isolate
 * runs it without interleaving, which is what Redis gives a Lua script). One conformance suite
 * (test/store.conformance.test.ts) holds both drivers to the same behaviour.
 */
import type { MemoryData } from "./memory.js";
import { mapConcurrently } from "../pool/index.js";
import { sleep } from "../signal/index.js";

export type StoreDriver = "memory" | "upstash";

/** An atomic multi-step operation. `lua` runs in Redis; `memory` is its twin for `MemoryData`. */
export interface StoreScript<Result> {
  /** For logs and errors. */
  name: string;
  lua: string;
  memory: (data: MemoryData, keys: string[], args: string[]) => Result;
  /** Turns the raw Redis reply into the same value `memory` returns. */
  fromRedis: (reply: unknown) => Result;
}

export interface SetOptions {
  /** Expire after this many milliseconds. */
  px?: number;
  /** Only set when the key does not exist. */
  nx?: boolean;
}

export interface Store {
  readonly driver: StoreDriver;
  get(key: string): Promise<string | null>;
  /** Several keys in one round trip (MGET), in order; null where a key has no value. */
  mget(...keys: string[]): Promise<Array<string | null>>;
  /** Returns false when `nx` was given and the key existed. */
  set(key: string, value: string, options?: SetOptions): Promise<boolean>;
  /** Returns how many keys were removed. */
  del(...keys: string[]): Promise<number>;
  incr(key: string): Promise<number>;
  /** Adds or updates members of a sorted set. */
  zadd(key: string, entries: Array<{ score: number; member: string }>): Promise<void>;
  zrem(key: string, ...members: string[]): Promise<number>;
  /** Members with min ≤ score ≤ max, lowest score first. */
  zrangeByScore(key: string, min: number, max: number): Promise<string[]>;
  /** Runs an atomic script. */
  run<Result>(script: StoreScript<Result>, keys: string[], args: Array<string | number>): Promise<Result>;
  /** Round-trip check for health probes. */
  ping(): Promise<boolean>;
}

/** A store operation that did not answer within the store's deadline. */
export class StoreTimeout extends Error {
  constructor(operation: string, ms: number) {
    super(`the store did not answer ${operation} within ${ms} ms`);
    this.name = "StoreTimeout";
  }
}

/** Default deadline of one store operation: long past Redis's normal latency, short for a caller. */
export const DEFAULT_STORE_TIMEOUT_MS = 1_000;

/**
 * Waits after a compare-and-set lost to another writer: full jitter, exponential up to 200 ms,
 * which spreads the losers out so that one of them wins next.
 * @example if (written === -1) await afterConflict(attempt)
 */
export function afterConflict(attempt: number): Promise<void> {
  return sleep(Math.random() * Math.min(200, 5 * 2 ** attempt));
}

/** Keys per MGET of `mgetInBatches`: ~250 KB of 2 KB skill documents, well inside an operation's deadline. */
const MGET_BATCH = 100;
/** MGETs in flight at once: a Worker request may keep only six connections open. */
const MGETS_IN_FLIGHT = 4;

/**
 * MGET of any number of keys, in batches, a few at a time; values in the order of the keys.
 * @example const states = await mgetInBatches(store, ids.map(breakerKey))
 */
export async function mgetInBatches(store: Pick<Store, "mget">, keys: string[]): Promise<Array<string | null>> {
  const starts = Array.from({ length: Math.ceil(keys.length / MGET_BATCH) }, (_, i) => i * MGET_BATCH);
  const batches = await mapConcurrently(starts, MGETS_IN_FLIGHT, (start) => store.mget(...keys.slice(start, start + MGET_BATCH)));
  return batches.flat();
}

/**
 * The same store with a deadline on every operation: past `ms` it throws `StoreTimeout` (the
 * operation itself may still finish). A store that hangs — a stopped Redis, a proxy that
 * accepts and never answers — then costs a call at most `ms`, and each caller goes on with what
 * it knows (the last snapshot, a breaker assumed closed) or answers -32001.
 * @example const store = withDeadline(upstashStore(opts), 1_000)
 */
export function withDeadline(store: Store, ms: number): Store {
  const bounded =
    <A extends unknown[], R>(operation: string, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new StoreTimeout(operation, ms)), ms)));
      return Promise.race([fn(...args), late]).finally(() => clearTimeout(timer));
    };
  return {
    driver: store.driver,
    get: bounded("GET", store.get),
    mget: bounded("MGET", store.mget),
    set: bounded("SET", store.set),
    del: bounded("DEL", store.del),
    incr: bounded("INCR", store.incr),
    zadd: bounded("ZADD", store.zadd),
    zrem: bounded("ZREM", store.zrem),
    zrangeByScore: bounded("ZRANGE", store.zrangeByScore),
    run: <Result>(script: StoreScript<Result>, keys: string[], args: Array<string | number>) => bounded(script.name, () => store.run(script, keys, args))(),
    ping: bounded("PING", store.ping),
  };
}

/**
 * The same store with every key (script keys included) under `prefix`: several meshes, or
 * several test files, can share one Redis without seeing each other's data.
 * @example const store = withPrefix(upstashStore(opts), "staging:")
 */
export function withPrefix(store: Store, prefix: string): Store {
  if (!prefix) return store;
  const k = (key: string) => prefix + key;
  return {
    driver: store.driver,
    get: (key) => store.get(k(key)),
    mget: (...keys) => store.mget(...keys.map(k)),
    set: (key, value, options) => store.set(k(key), value, options),
    del: (...keys) => store.del(...keys.map(k)),
    incr: (key) => store.incr(k(key)),
    zadd: (key, entries) => store.zadd(k(key), entries),
    zrem: (key, ...members) => store.zrem(k(key), ...members),
    zrangeByScore: (key, min, max) => store.zrangeByScore(k(key), min, max),
    run: (script, keys, args) => store.run(script, keys.map(k), args),
    ping: () => store.ping(),
  };
}
