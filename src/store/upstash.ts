/**
 * The `upstash` driver: Redis through `@upstash/redis` (the Upstash REST protocol). In
 * production it talks to Upstash; locally and in CI to scripts/redis-rest in front of a real
 * `redis-server`.
 */
import { Redis } from "@upstash/redis/cloudflare";
import type { Store, StoreScript } from "./index.js";

export interface UpstashStoreOptions {
  url: string;
  token: string;
  /** Retries of a failed HTTP request (the client's default of 5 makes a dead Redis slow to notice). */
  retries?: number;
}

/**
 * Creates an Upstash-backed store.
 * @example const store = upstashStore({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN })
 */
export function upstashStore({ url, token, retries = 1 }: UpstashStoreOptions): Store {
  const redis = new Redis({
    url,
    token,
    automaticDeserialization: false, // values are our own strings; no JSON guessing
    // Our values are UTF-8 text (JSON, ids, numbers), which JSON carries as is: base64 (the
    // client's default, for binary values) made every reply a third larger and decoded it byte by
    // byte in JS — a registry catch-up's 200 KB MGETs missed the store deadline under load.
    responseEncoding: false,
    enableTelemetry: false,
    // Auto-pipelining would merge commands of concurrent requests into one fetch, and a Worker
    // request cannot use another request's I/O (it fails or hangs under load).
    enableAutoPipelining: false,
    retry: { retries, backoff: (attempt) => 20 * 2 ** attempt },
  });
  const scripts = new Map<string, ReturnType<Redis["createScript"]>>();

  return {
    driver: "upstash",
    get: async (key) => (await redis.get<string>(key)) ?? null,
    mget: async (...keys) => (keys.length === 0 ? [] : await redis.mget<Array<string | null>>(...keys)),
    set: async (key, value, { px, nx } = {}) => {
      // The client's SetCommandOptions is a union that rejects `undefined` members: build it.
      const options = { ...(px !== undefined ? { px } : {}), ...(nx ? { nx: true } : {}) } as Parameters<Redis["set"]>[2];
      return (await redis.set(key, value, options)) === "OK";
    },
    del: async (...keys) => (keys.length === 0 ? 0 : await redis.del(...keys)),
    incr: async (key) => await redis.incr(key),
    zadd: async (key, entries) => {
      const [first, ...rest] = entries;
      if (first) await redis.zadd(key, first, ...rest);
    },
    zrem: async (key, ...members) => (members.length === 0 ? 0 : await redis.zrem(key, ...members)),
    // With REV, Redis takes the bounds highest first.
    zrangeByScore: async (key, min, max, { reverse = false, page } = {}) => {
      const [from, to] = [scoreBound(reverse ? max : min), scoreBound(reverse ? min : max)];
      return page ?
          await redis.zrange<string[]>(key, from, to, { byScore: true, rev: reverse, offset: page.offset, count: page.count })
        : await redis.zrange<string[]>(key, from, to, { byScore: true, rev: reverse });
    },
    run: async <Result>(script: StoreScript<Result>, keys: string[], args: Array<string | number>) => {
      let compiled = scripts.get(script.name);
      if (!compiled) {
        compiled = redis.createScript(script.lua);
        scripts.set(script.name, compiled);
      }
      return script.fromRedis(await compiled.exec(keys, args.map(String)));
    },
    ping: async () => (await redis.ping()) === "PONG",
  };
}

/** Redis spells infinite score bounds "-inf" / "+inf" (JSON has no Infinity). */
function scoreBound(score: number): number | "-inf" | "+inf" {
  return (
    score === -Infinity ? "-inf"
    : score === Infinity ? "+inf"
    : score
  );
}
