/**
 * The gateway's per-isolate state: the store, the registry repository and snapshot, the API
 * keys and the breakers, built once from the Worker's env and reused by every request of the
 * isolate.
 */
import type { AdminEnv } from "../auth/admin.js";
import { type AnalyticsDataset, AuditLog } from "../audit/index.js";
import { BreakerBoard } from "../breaker/index.js";
import type { BrowserGuardEnv } from "../browser/index.js";
import { own } from "../json/index.js";
import { errorText } from "../jsonrpc/index.js";
import { KeyRing } from "../keys/index.js";
import { RegistryRepository } from "../registry/repository.js";
import { rollback } from "../routing/rollout.js";
import { RegistrySnapshot } from "../registry/snapshot.js";
import { SNAPSHOT_MAX_AGE_MS } from "../snapshot/index.js";
import type { Store, StoreEnv } from "../store/index.js";
import { storeFromEnv } from "../store/from-env.js";

export interface GatewayEnv extends StoreEnv, BrowserGuardEnv, AdminEnv {
  /** Registry revalidation interval in ms (default 1000). */
  SKILLMESH_SNAPSHOT_MAX_AGE_MS?: string;
  /** Optional Workers Analytics Engine dataset every audit entry is also written to. */
  AUDIT_ANALYTICS?: unknown;
  /** Service bindings to skills, by the names deployments register with. */
  [binding: string]: unknown;
}

export interface GatewayRuntime {
  store: Store;
  registry: RegistryRepository;
  snapshot: RegistrySnapshot;
  keys: KeyRing;
  breakers: BreakerBoard;
  audit: AuditLog;
}

const runtimes = new WeakMap<Store, GatewayRuntime>();
/** Workers hand every request of an isolate the same env object: the per-request lookup is one map read. */
const runtimesByEnv = new WeakMap<object, GatewayRuntime>();

/**
 * The isolate's runtime for this env (built on first use).
 * @example const { snapshot } = gatewayRuntime(c.env)
 */
export function gatewayRuntime(env: GatewayEnv): GatewayRuntime {
  const known = runtimesByEnv.get(env);
  if (known) return known;
  const store = storeFromEnv(env);
  let runtime = runtimes.get(store);
  if (!runtime) {
    const registry = new RegistryRepository(store);
    const maxAgeMs = Number(env.SKILLMESH_SNAPSHOT_MAX_AGE_MS ?? SNAPSHOT_MAX_AGE_MS);
    const snapshotOptions = (what: string) => ({
      maxAgeMs: Number.isFinite(maxAgeMs) && maxAgeMs >= 0 ? maxAgeMs : SNAPSHOT_MAX_AGE_MS,
      onStale: (error: unknown) => console.error(`[gateway] store unreachable, serving the last ${what}:`, errorText(error)),
    });
    const snapshot = new RegistrySnapshot(registry, snapshotOptions("registry snapshot"));
    const keys = new KeyRing(store, snapshotOptions("API keys"));
    const breakers = new BreakerBoard(store, {
      // A canary whose breaker opens is rolled back: its share goes to the stable version.
      onTrip: async (deploymentId, status) => {
        const now = Date.now();
        await registry.update(now, (doc) => {
          const deployment = own(doc.deployments, deploymentId);
          if (deployment?.role !== "canary") return undefined;
          const routed = Object.values(own(doc.routes, deployment.name) ?? {}).some((weights) => (weights[deployment.version] ?? 0) > 0);
          if (!routed) return undefined; // nothing to roll back: no write, no event
          const reason = `breaker opened (${status.reason}): ${deployment.version} rolled back automatically`;
          return rollback(doc, deployment.name, { now, by: "breaker", version: deployment.version, reason });
        });
        snapshot.invalidate();
      },
    });
    const audit = new AuditLog(store, env.AUDIT_ANALYTICS as AnalyticsDataset | undefined);
    runtime = { store, registry, snapshot, keys, breakers, audit };
    runtimes.set(store, runtime);
  }
  runtimesByEnv.set(env, runtime);
  return runtime;
}
