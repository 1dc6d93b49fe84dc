/** One store per isolate, built from the Worker's env on first use. */
import { DEFAULT_STORE_TIMEOUT_MS, type Store, type StoreEnv, storeChoice, withDeadline, withPrefix } from "./index.js";
import { memoryStore } from "./memory.js";
import { upstashStore } from "./upstash.js";

let cached: { signature: string; store: Store } | undefined;

/**
 * The isolate's store for this env. The memory store lives as long as the isolate, so every
 * request of the isolate sees the same data; the Upstash client is reused across requests, and
 * each of its operations has a deadline (`SKILLMESH_STORE_TIMEOUT_MS`, default 1 s).
 * @example const store = storeFromEnv(c.env)
 */
export function storeFromEnv(env: StoreEnv): Store {
  const choice = storeChoice(env);
  const prefix = env.SKILLMESH_STORE_PREFIX ?? "";
  const timeoutMs = Number(env.SKILLMESH_STORE_TIMEOUT_MS ?? DEFAULT_STORE_TIMEOUT_MS);
  const deadline = Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : DEFAULT_STORE_TIMEOUT_MS;
  const signature = `${choice.driver}|${choice.url ?? ""}|${env.UPSTASH_REDIS_REST_TOKEN ?? ""}|${prefix}|${deadline}`;
  if (cached?.signature === signature) return cached.store;
  const store = withPrefix(
    choice.driver === "memory" ? memoryStore() : withDeadline(upstashStore({ url: choice.url!, token: env.UPSTASH_REDIS_REST_TOKEN! }), deadline),
    prefix,
  );
  cached = { signature, store };
  return store;
}
