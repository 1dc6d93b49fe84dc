/** One store per isolate, built from the gateway's settings (src/gateway/config) on first use. */
import { type Store, type StoreDriver, withDeadline, withOutageGate, withPrefix } from "./index.js";
import { memoryStore } from "./memory.js";
import { upstashStore } from "./upstash.js";

/** Which store, and how to reach it: the `store` part of the gateway's settings (src/gateway/config). */
export interface StoreSettings {
  driver: StoreDriver;
  /** Upstash's REST URL and token (the upstash driver). */
  url?: string;
  token?: string;
  /** Put before every key, so several gateways can share one Redis. */
  prefix: string;
  /** Each operation's deadline (upstash). */
  timeoutMs: number;
}

let cached: { signature: string; store: Store } | undefined;

/**
 * The isolate's store for these settings. The memory store lives as long as the isolate, so
 * every request of the isolate sees the same data; the Upstash client is reused across requests,
 * each of its operations has a deadline (`SKILLMESH_STORE_TIMEOUT_MS`), and once one has hung the
 * isolate takes the store for down for a couple of seconds (`withOutageGate`).
 * @example const store = storeFor(config.store)
 */
export function storeFor(settings: StoreSettings): Store {
  const signature = JSON.stringify(settings);
  if (cached?.signature === signature) return cached.store;
  const { driver, url, token, prefix, timeoutMs } = settings;
  const store = withPrefix(driver === "memory" ? memoryStore() : withOutageGate(withDeadline(upstashStore({ url: url!, token: token! }), timeoutMs)), prefix);
  cached = { signature, store };
  return store;
}
