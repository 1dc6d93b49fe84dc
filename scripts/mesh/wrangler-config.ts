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
