/**
 * The gateway's per-isolate state: its settings, the store, the registry repository and
 * snapshot, the API keys, the breakers and the audit buffer, built once from the Worker's env and
 * reused by every request of the isolate.
 */
import { discoverMetadata } from "../../identity/auth/oauth.js";
import { type AnalyticsDataset, AuditLog } from "../../registry/audit/index.js";
import { BreakerBoard } from "../../policies/breaker/index.js";
import { type GatewayConfig, configOf } from "../config/index.js";
import { own } from "../../lib/json/index.js";
import { errorText } from "../../protocols/jsonrpc/index.js";
import { JobStore } from "../../registry/jobs/index.js";
import { KeyRing } from "../../identity/keys/index.js";
import { Delegations } from "../../identity/auth/delegation.js";
import { Rollouts } from "../../registry/delivery/index.js";
import { Counters } from "../../registry/metrics/prometheus.js";
import { MetricsBoard } from "../../registry/metrics/index.js";
import { RegistryRepository } from "../../registry/deployments/repository.js";
import { skillOf } from "../../registry/deployments/model.js";
import { rollback } from "../../registry/routing/edits.js";
import { RegistrySnapshot } from "../../registry/deployments/snapshot.js";
import type { Store } from "../../store/index.js";
import { Upstreams } from "../../federation/upstream/index.js";
import { Packages, type FileBucket } from "../../registry/packages/registry.js";
import { VirtualServers } from "../servers/index.js";
import { endpointRefusal } from "../../federation/forward/endpoint-policy.js";
import { storeFor } from "../../store/from-env.js";

/**
 * The gateway Worker's env: what `wrangler types` generates from wrangler.toml
 * (worker-configuration.d.ts: its vars and service bindings), the settings src/gateway/config parses, the
 * optional Analytics Engine dataset of the audit log, and the service bindings deployments
 * register with (by any name).
 */
export type GatewayEnv = Partial<Cloudflare.Env> & {
  /** Optional Workers Analytics Engine dataset every audit entry is also written to. */
  AUDIT_ANALYTICS?: unknown;
  [setting: string]: unknown;
};

/** The gateway's settings are wrong: every route answers with the problems until they are fixed. */
export class GatewayMisconfigured extends Error {
  constructor(readonly problems: string[]) {
    super(`the gateway is misconfigured: ${problems.join("; ")}`);
    this.name = "GatewayMisconfigured";
  }
}

export interface GatewayRuntime {
  config: GatewayConfig;
  store: Store;
  registry: RegistryRepository;
  snapshot: RegistrySnapshot;
  keys: KeyRing;
  breakers: BreakerBoard;
  audit: AuditLog;
  /** Async jobs' records (src/registry/jobs). */
  jobs: JobStore;
  /** Each deployment's observed calls, errors and latency (src/registry/metrics). */
  metrics: MetricsBoard;
  /** Progressive delivery: canaries raised step by step while healthy (src/registry/delivery). */
  rollouts: Rollouts;
  /** The Prometheus counters of /admin/metrics (src/registry/metrics/prometheus.ts). */
  counters: Counters;
  /** The live delegation tokens of pipelines' calls (src/identity/auth/delegation.ts). */
  delegations: Delegations;
  /** MCP servers and OpenAPI services behind the gateway, and the calls of their tools (src/federation/upstream). */
  upstreams: Upstreams;
  /** Virtual MCP servers (`/mcp/<server>`): curated sets of tools (src/gateway/servers). */
  servers: VirtualServers;
  /** Agent Skills packages: their index in the store, their files in the `AGENT_SKILL_FILES` bucket (src/registry/packages). */
  packages: Packages;
}

const runtimes = new WeakMap<Store, Omit<GatewayRuntime, "config" | "jobs" | "upstreams" | "packages">>();
/** Workers hand every request of an isolate the same env object: the per-request lookup is one map read. */
const runtimesByEnv = new WeakMap<object, GatewayRuntime>();

/**
 * The isolate's runtime for this env (built on first use). Throws `GatewayMisconfigured` when the
 * settings are wrong.
 * @example const { snapshot } = gatewayRuntime(c.env)
 */
export function gatewayRuntime(env: GatewayEnv): GatewayRuntime {
  const known = runtimesByEnv.get(env);
  if (known) return known;
  const { config, problems } = configOf(env);
  if (!config) throw new GatewayMisconfigured(problems);
  const store = storeFor(config.store);
  let shared = runtimes.get(store);
  if (!shared) {
    const registry = new RegistryRepository(store);
    const snapshotOptions = (what: string) => ({
      maxAgeMs: config.snapshotMaxAgeMs,
      onStale: (error: unknown) => console.error(`[gateway] store unreachable, serving the last ${what}:`, errorText(error)),
    });
    const snapshot = new RegistrySnapshot(registry, snapshotOptions("registry snapshot"));
    const keys = new KeyRing(store, snapshotOptions("API keys"));
    const breakers = new BreakerBoard(store, {
      // A canary whose breaker opens is rolled back: its share goes to the stable version.
      onTrip: async (deploymentId, status) => {
        const now = Date.now();
        await registry.update(skillOf(deploymentId), now, (doc) => {
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
    const metrics = new MetricsBoard(store);
    shared = {
      store,
      registry,
      snapshot,
      keys,
      breakers,
      audit,
      metrics,
      rollouts: new Rollouts(store, registry, metrics),
      counters: new Counters(store),
      delegations: new Delegations(store),
      servers: new VirtualServers(store),
    };
    runtimes.set(store, shared);
  }
  const policy = { allowPrivate: config.allowPrivateEndpoints };
  // Packages and upstreams share the skill:// namespace (a package's name, an upstream's skills' first segment): one name, one owner.
  const upstreams: Upstreams = new Upstreams(shared.store, shared.registry, {
    upstreamKey: config.upstreamKey,
    urlRefusal: (url, what) => endpointRefusal(url, policy, what),
    nameRefusal: async (name) =>
      (await packages.get(name)) ? `${name} is an Agent Skills package's name (skill://${name}/ is its); register the upstream under another name` : undefined,
    exchangeRefusal: (tokenUrl) => exchangeRefusal(tokenUrl, config),
  });
  const { registry } = shared;
  const packages: Packages = new Packages(shared.store, {
    bucket: env.AGENT_SKILL_FILES satisfies FileBucket | undefined,
    unknownTools: async (names) => {
      const docs = await registry.readSkills(names);
      return names.filter((name) => !Object.keys(docs.get(name)?.deployments ?? {}).length);
    },
    nameRefusal: async (name) =>
      (await upstreams.records.get(name)) ? `${name} is a federated upstream's name (skill://${name}/ is its skills'); name the package otherwise` : undefined,
  });
  const runtime = { ...shared, config, jobs: new JobStore(shared.store, config.jobTtlMs), upstreams, packages };
  runtimesByEnv.set(env, runtime);
  return runtime;
}

/**
 * Why a token-exchange upstream may not name `tokenUrl`, or undefined. It receives every OAuth
 * caller's access token for this gateway, so it must be the token endpoint of an issuer the
 * gateway trusts for those tokens (`SKILLMESH_OAUTH_ISSUERS`, as its metadata says), or one the
 * gateway's operator configured (`SKILLMESH_TOKEN_EXCHANGE_URLS`): never one an admin request alone names.
 * @example await exchangeRefusal("https://auth.example.com/oauth/token", config) // undefined when it is the issuer's token endpoint
 */
export async function exchangeRefusal(tokenUrl: string, config: GatewayConfig): Promise<string | undefined> {
  if (config.tokenExchangeUrls.includes(tokenUrl)) return undefined;
  const issuers = config.auth.oauth?.issuers ?? [];
  for (const issuer of issuers) {
    const metadata = await discoverMetadata(issuer).catch(() => undefined);
    if (metadata?.token_endpoint === tokenUrl) return undefined;
  }
  return issuers.length ?
      `a token-exchange tokenUrl receives each caller's access token for this gateway: it must be the token endpoint of an issuer the gateway trusts for them (${issuers.join(", ").slice(0, 300)}, as its metadata says), or one listed in SKILLMESH_TOKEN_EXCHANGE_URLS`
    : "token exchange exchanges each OAuth caller's access token for this gateway: configure OAuth (SKILLMESH_OAUTH_ISSUERS) first, and name its issuer's token endpoint (or one listed in SKILLMESH_TOKEN_EXCHANGE_URLS)";
}
