/** One store per isolate, built from the Worker's env on first use. */
import { type Store, type StoreEnv, storeChoice, withPrefix } from "./index.js";
import { memoryStore } from "./memory.js";
import { upstashStore } from "./upstash.js";

let cached: { signature: string; store: Store } | undefined;

/**
 * The isolate's store for this env. The memory store lives as long as the isolate, so every
 * request of the isolate sees the same data; the Upstash client is reused across requests.
 * @example const store = storeFromEnv(c.env)
 */
export function storeFromEnv(env: StoreEnv): Store {
  const choice = storeChoice(env);
  const prefix = env.SKILLMESH_STORE_PREFIX ?? "";
  const signature = `${choice.driver}|${choice.url ?? ""}|${env.UPSTASH_REDIS_REST_TOKEN ?? ""}|${prefix}`;
  if (cached?.signature === signature) return cached.store;
  const store = withPrefix(
    choice.driver === "memory" ? memoryStore() : upstashStore({ url: choice.url!, token: env.UPSTASH_REDIS_REST_TOKEN! }),
    prefix,
  );
  cached = { signature, store };
  return store;
}
