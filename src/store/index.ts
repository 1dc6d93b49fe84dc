/**
 * The store: one small Redis-shaped interface with two drivers, `memory` (embedded, per isolate)
 * and `upstash` (Redis over the Upstash REST protocol). Multi-step operations that must be atomic
 * are `StoreScript`s: Lua for Redis, and a synchronous twin for the memory driver (a JS isolate
 * runs it without interleaving, which is what Redis gives a Lua script). One conformance suite
 * (test/store.conformance.test.ts) holds both drivers to the same behaviour.
 */
import { ErrorCode, RpcError, errorText } from "../protocols/jsonrpc/index.js";
import { mapConcurrently } from "../lib/pool/index.js";
import { sleep } from "../lib/signal/index.js";

export type StoreDriver = "memory" | "upstash";

/**
 * The synchronous data a memory script works on (the memory driver's `MemoryData`); each method
 * mirrors the Redis command of its name.
 */
export interface ScriptData {
  get(key: string): string | null;
  set(key: string, value: string, options?: SetOptions): boolean;
  del(...keys: string[]): number;
  incr(key: string): number;
  pexpire(key: string, ms: number): boolean;
  zadd(key: string, entries: Array<{ score: number; member: string }>): void;
  zrem(key: string, ...members: string[]): number;
  zscore(key: string, member: string): number | undefined;
  zremRangeByScore(key: string, min: number, max: number): number;
  zrangeByScore(key: string, min: number, max: number, options?: ZRangeOptions): string[];
  lpush(key: string, ...values: string[]): number;
  ltrim(key: string, start: number, stop: number): void;
  llen(key: string): number;
  lrange(key: string, start: number, stop: number): string[];
}

/** An atomic multi-step operation. `lua` runs in Redis; `memory` is its twin on `ScriptData`. */
export interface StoreScript<Result> {
  /** For logs and errors. */
  name: string;
  lua: string;
  memory: (data: ScriptData, keys: string[], args: string[]) => Result;
  /** Turns the raw Redis reply into the same value `memory` returns. */
  fromRedis: (reply: unknown) => Result;
}

export interface SetOptions {
  /** Expire after this many milliseconds. */
  px?: number;
  /** Only set when the key does not exist. */
  nx?: boolean;
}

/** How `zrangeByScore` reads: highest score first, and a page of `count` members after `offset` (ZRANGE … REV LIMIT). */
export interface ZRangeOptions {
  reverse?: boolean;
  page?: { offset: number; count: number };
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
  /** Members with min ≤ score ≤ max, lowest score first (highest first with `reverse`), all or one `page`. */
  zrangeByScore(key: string, min: number, max: number, options?: ZRangeOptions): Promise<string[]>;
  /** Runs an atomic script. */
  run<Result>(script: StoreScript<Result>, keys: string[], args: Array<string | number>): Promise<Result>;
  /** Round-trip check for health probes. */
  ping(): Promise<boolean>;
}

/** How long a caller is told to wait when the store fails. */
export const RETRY_AFTER_STORE_MS = 2_000;

/**
 * A store operation that failed, did not answer within the store's deadline, or kept losing its
 * compare-and-set to other writers. It is an
 * `RpcError` (-32001 with `retryAfterMs`): a request path with no better answer for a broken
 * store (a call served from the last snapshot, a breaker assumed closed) gives the caller this
 * one, never a bare -32603. Why it failed is its `cause`, for logs, never for the caller.
 * @example throw new StoreUnavailable("GET", new Error("GET did not answer within 300 ms"), true)
 */
export class StoreUnavailable extends RpcError {
  constructor(
    operation: string,
    cause: unknown,
    /** The store did not answer in time (rather than answering an error). */
    readonly hung = false,
  ) {
    super(ErrorCode.SkillUnavailable, `The gateway's store is unavailable; retry after ${RETRY_AFTER_STORE_MS / 1000} s`, {
      retryAfterMs: RETRY_AFTER_STORE_MS,
    });
    this.name = "StoreUnavailable";
    this.cause = cause instanceof Error ? cause : new Error(`${operation} failed: ${String(cause)}`);
  }
}

/**
 * The HTTP status of a failure a route has no answer of its own for, logged for the operator: 503
 * for a store outage (its reason in a line), 500 for anything else (a bug: logged whole).
 * @example return c.json({ error }, routeFailureStatus("[admin]", error))
 */
export function routeFailureStatus(tag: string, error: unknown): 503 | 500 {
  if (error instanceof StoreUnavailable) {
    console.error(tag, errorText(error));
    return 503;
  }
  console.error(`${tag} unexpected error:`, error);
  return 500;
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

/** Runs one store operation (named for errors and logs) on behalf of a wrapper. */
type Interceptor = <R>(operation: string, run: () => Promise<R>) => Promise<R>;

/** The same store with every operation run through `intercept`. */
function intercepted(store: Store, intercept: Interceptor): Store {
  const op =
    <A extends unknown[], R>(operation: string, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      intercept(operation, () => fn(...args));
  return {
    driver: store.driver,
    get: op("GET", store.get),
    mget: op("MGET", store.mget),
    set: op("SET", store.set),
    del: op("DEL", store.del),
    incr: op("INCR", store.incr),
    zadd: op("ZADD", store.zadd),
    zrem: op("ZREM", store.zrem),
    zrangeByScore: op("ZRANGE", store.zrangeByScore),
    run: <Result>(script: StoreScript<Result>, keys: string[], args: Array<string | number>) => intercept(script.name, () => store.run(script, keys, args)),
    ping: op("PING", store.ping),
  };
}

/**
 * The same store with a deadline on every operation: past `ms`, or when the operation fails, it
 * throws `StoreUnavailable` (`hung` when it was the deadline; the operation itself may still
 * finish). A store that hangs — a stopped Redis, a proxy that accepts and never answers — then
 * costs an operation at most `ms`, and each caller goes on with what it knows (the last
 * snapshot, a breaker assumed closed) or answers -32001.
 * @example const store = withDeadline(upstashStore(opts), 1_000)
 */
export function withDeadline(store: Store, ms: number): Store {
  return intercepted(store, (operation, run) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new StoreHung(operation, ms)), ms)));
    return Promise.race([run(), late])
      .catch((error: unknown) => {
        throw new StoreUnavailable(operation, error, error instanceof StoreHung);
      })
      .finally(() => clearTimeout(timer));
  });
}

/** An operation that ran past the store's deadline (the cause of a `hung` StoreUnavailable). */
class StoreHung extends Error {
  constructor(operation: string, ms: number) {
    super(`${operation} did not answer within ${ms} ms`);
  }
}

/**
 * The same store (wrapped by `withDeadline`) taken for down once an operation has hung: for the
 * next `coolDownMs` every operation fails at once with `StoreUnavailable`, then a single one goes
 * through as a probe (the others still fail at once) and its outcome decides — an answer, even an
 * error, means the store is back; another deadline, down for another `coolDownMs`. Without it a
 * hanging store cost every call one deadline per store operation on its path (a keyed call with a
 * rate limit: three, in series); with it, about one call per isolate and cool-down pays one.
 * A refusing store needs no gate: it fails fast by itself.
 * @example const store = withOutageGate(withDeadline(upstashStore(opts), 1_000))
 */
export function withOutageGate(store: Store, coolDownMs = RETRY_AFTER_STORE_MS, now: () => number = Date.now): Store {
  let downUntil: number | undefined;
  // When the probe under way began: a probe whose request workerd cancelled never settles, so
  // past `coolDownMs` it counts for nothing and another operation may probe.
  let probeStartedAt: number | undefined;
  return intercepted(store, async (operation, run) => {
    const probing = probeStartedAt !== undefined && now() - probeStartedAt < coolDownMs;
    if (downUntil !== undefined && (probing || now() < downUntil)) {
      throw new StoreUnavailable(operation, new Error(`${operation} not sent: the store hung within the last ${coolDownMs} ms`), true);
    }
    const probe = downUntil !== undefined;
    const startedAt = now();
    if (probe) probeStartedAt = startedAt;
    try {
      const result = await run();
      downUntil = undefined;
      return result;
    } catch (error) {
      const hung = error instanceof StoreUnavailable && error.hung;
      if (hung) downUntil = now() + coolDownMs;
      else if (probe) downUntil = undefined;
      throw error;
    } finally {
      if (probe && probeStartedAt === startedAt) probeStartedAt = undefined;
    }
  });
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
    zrangeByScore: (key, min, max, options) => store.zrangeByScore(k(key), min, max, options),
    run: (script, keys, args) => store.run(script, keys.map(k), args),
    ping: () => store.ping(),
  };
}
