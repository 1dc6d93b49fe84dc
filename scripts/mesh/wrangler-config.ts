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
  services?: Array<{ binding: string; service: string }>;
}

/**
 * A wrangler.toml as wrangler reads it.
 * @example readWranglerConfig(join(ROOT, "wrangler.toml")).name // "skillmesh-gateway"
 */
export function readWranglerConfig(configPath: string): WranglerConfig {
  return unstable_readConfig({ config: configPath }) as WranglerConfig;
}

/** The Miniflare options of the Worker a wrangler.toml describes, as `wrangler dev` would start it. */
export function miniflareOptionsOfConfig(configPath: string): WorkerOptions {
  return (unstable_getMiniflareWorkerOptions(configPath) as { workerOptions: WorkerOptions }).workerOptions;
}
