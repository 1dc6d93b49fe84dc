/**
 * wrangler's configuration readers, typed with the fields this project reads. wrangler declares
 * their results with types from `@cloudflare/workers-utils`, whose declarations it does not ship:
 * without this, every field read from a wrangler.toml would be `any` to the type checker.
 */
import type { WorkerOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler";

/** What this project reads of a wrangler.toml. */
export interface WranglerConfig {
  name?: string;
  main?: string;
  workers_dev?: boolean;
  vars?: Record<string, string | undefined>;
  services?: Array<{ binding: string; service: string; entrypoint?: string }>;
  dispatch_namespaces?: Array<{ binding: string; namespace: string; outbound?: { service: string; parameters?: string[] } }>;
  /** The environments (`[env.<name>]`) the file defines. */
  definedEnvironments?: string[];
}

/**
 * A wrangler.toml as wrangler reads it: its top level, or with `env` the environment
 * `[env.<env>]` (wrangler warns when the file defines none of that name: see `environmentOf`).
 * @example readWranglerConfig(join(ROOT, "wrangler.toml")).name // "skillmesh-gateway"
 */
export function readWranglerConfig(configPath: string, env?: string): WranglerConfig {
  return unstable_readConfig({ config: configPath, ...(env ? { env } : {}) }) as WranglerConfig;
}

/**
 * `env` when the wrangler.toml defines that environment, else undefined (its top level is what
 * deploys there): a skill without an `[env.staging]` is the same Worker in staging.
 * @example environmentOf("skills/web-digest/wrangler.toml", "staging") // "staging"
 */
export function environmentOf(configPath: string, env: string | undefined): string | undefined {
  return env && readWranglerConfig(configPath).definedEnvironments?.includes(env) ? env : undefined;
}

/** The Miniflare options of the Worker a wrangler.toml describes, as `wrangler dev` would start it. */
export function miniflareOptionsOfConfig(configPath: string): WorkerOptions {
  return (unstable_getMiniflareWorkerOptions(configPath) as { workerOptions: WorkerOptions }).workerOptions;
}

/**
 * The bindings of a wrangler configuration, by field, that reach past a dispatch namespace's
 * outbound Worker or around it: Durable Objects and mTLS certificates (Cloudflare's docs: the
 * outbound Worker does not intercept their fetches), and every binding that gives a Worker a way
 * out or a capability of its own — another Worker or namespace, a container, a browser, a
 * database connection, a queue, a workflow, a dynamic Worker loader, storage, AI, mail, analytics.
 */
const BINDING_FIELDS = [
  "durable_objects",
  "mtls_certificates",
  "services",
  "dispatch_namespaces",
  "containers",
  "browser",
  "hyperdrive",
  "vpc_services",
  "vpc_networks",
  "worker_loaders",
  "queues",
  "workflows",
  "kv_namespaces",
  "r2_buckets",
  "d1_databases",
  "vectorize",
  "ai",
  "ai_search",
  "ai_search_namespaces",
  "images",
  "stream",
  "media",
  "send_email",
  "analytics_engine_datasets",
  "pipelines",
  "secrets_store_secrets",
  "artifacts",
  "flagship",
  "ratelimits",
  "tail_consumers",
  "streaming_tail_consumers",
  "logfwdr",
  "version_metadata",
  "assets",
  "migrations",
  "unsafe",
] as const;

/** True when a configuration field holds anything (wrangler fills the absent ones with empty lists and objects). */
function declared(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.values(value).some(declared);
  return true;
}

/**
 * Why a skill's configuration may not go into a dispatch namespace, or undefined: there a Worker
 * may bind nothing but its vars, its secrets and the gateway (a service binding named
 * `gatewayName`), so every request it makes passes the outbound Worker that holds it to its
 * declared egress. `npm run deploy` and the local namespace refuse the others.
 * @example dispatchedBindingsRefusal(readWranglerConfig("skills/x/wrangler.toml"), "skillmesh-gateway") // "it declares durable_objects …"
 */
export function dispatchedBindingsRefusal(config: WranglerConfig, gatewayName: string): string | undefined {
  const fields = config as unknown as Record<string, unknown>;
  const others = (config.services ?? []).filter((service) => service.service !== gatewayName);
  const found = BINDING_FIELDS.filter((field) => (field === "services" ? others.length > 0 : declared(fields[field])));
  if (!found.length) return undefined;
  return `it declares ${found.join(", ")}${others.length ? ` (a service binding to ${others.map((s) => s.service).join(", ")})` : ""}: a Worker in the dispatch namespace may bind only its vars, its secrets and the gateway (${gatewayName}), or its requests would go past the outbound Worker that holds it to its declared egress`;
}
