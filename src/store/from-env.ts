/** One store per isolate, built from the gateway's settings (src/config) on first use. */
import type { GatewayConfig } from "../config/index.js";
import { type Store, withDeadline, withOutageGate, withPrefix } from "./index.js";
import { memoryStore } from "./memory.js";
import { upstashStore } from "./upstash.js";

let cached: { signature: string; store: Store } | undefined;

/**
 * The isolate's store for these settings. The memory store lives as long as the isolate, so
 * every request of the isolate sees the same data; the Upstash client is reused across requests,
 * each of its operations has a deadline (`SKILLMESH_STORE_TIMEOUT_MS`), and once one has hung the
 * isolate takes the store for down for a couple of seconds (`withOutageGate`).
 * @example const store = storeFor(config.store)
 */
export function storeFor(settings: GatewayConfig["store"]): Store {
  const signature = JSON.stringify(settings);
  if (cached?.signature === signature) return cached.store;
  const { driver, url, token, prefix, timeoutMs } = settings;
  const store = withPrefix(driver === "memory" ? memoryStore() : withOutageGate(withDeadline(upstashStore({ url: url!, token: token! }), timeoutMs)), prefix);
  cached = { signature, store };
  return store;
}
