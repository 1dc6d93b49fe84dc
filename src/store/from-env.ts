/** One store per isolate, built from the Worker's env on first use. */
import { type Store, type StoreEnv, storeChoice } from "./index.js";
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
  const signature = `${choice.driver}|${choice.url ?? ""}|${env.UPSTASH_REDIS_REST_TOKEN ?? ""}`;
  if (cached?.signature === signature) return cached.store;
  const store =
    choice.driver === "memory"
      ? memoryStore()
      : upstashStore({ url: choice.url!, token: env.UPSTASH_REDIS_REST_TOKEN! });
  cached = { signature, store };
  return store;
}
