/**
 * The gateway's per-isolate state: the store, the registry repository and the registry snapshot,
 * built once from the Worker's env and reused by every request of the isolate.
 */
import { RegistryRepository } from "../registry/repository.js";
import { RegistrySnapshot, SNAPSHOT_MAX_AGE_MS } from "../registry/snapshot.js";
import type { Store, StoreEnv } from "../store/index.js";
import { storeFromEnv } from "../store/from-env.js";

export interface GatewayEnv extends StoreEnv {
  /** Bearer token of `/admin/*`. Unset: the admin API refuses every call. */
  SKILLMESH_ADMIN_TOKEN?: string;
  /** Registry revalidation interval in ms (default 1000). */
  SKILLMESH_SNAPSHOT_MAX_AGE_MS?: string;
  /** Service bindings to skills, by the names deployments register with. */
  [binding: string]: unknown;
}

export interface GatewayRuntime {
  store: Store;
  registry: RegistryRepository;
  snapshot: RegistrySnapshot;
}

const runtimes = new WeakMap<Store, GatewayRuntime>();

/**
 * The isolate's runtime for this env (built on first use).
 * @example const { snapshot } = gatewayRuntime(c.env)
 */
export function gatewayRuntime(env: GatewayEnv): GatewayRuntime {
  const store = storeFromEnv(env);
  let runtime = runtimes.get(store);
  if (!runtime) {
    const registry = new RegistryRepository(store);
    const maxAgeMs = Number(env.SKILLMESH_SNAPSHOT_MAX_AGE_MS ?? SNAPSHOT_MAX_AGE_MS);
    const snapshot = new RegistrySnapshot(registry, {
      maxAgeMs: Number.isFinite(maxAgeMs) && maxAgeMs >= 0 ? maxAgeMs : SNAPSHOT_MAX_AGE_MS,
      onStale: (error) => console.error("[gateway] registry store unreachable, serving the last snapshot:", errorText(error)),
    });
    runtime = { store, registry, snapshot };
    runtimes.set(store, runtime);
  }
  return runtime;
}

/** An error's message without its stack, for logs that might be shipped elsewhere. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
