/**
 * Starts what the tests share: a real `redis-server` with the Upstash REST endpoint in front of
 * it, and warm wrangler bundles of every Worker (so test files start the mesh in about a second).
 * A missing redis-server fails the run: the Redis driver is never silently skipped.
 */
import "vitest";
import type { TestProject } from "vitest/node";
import { bundleAll, skillDirs } from "../../scripts/mesh/bundle.js";
import { startLocalUpstash } from "../../scripts/redis-rest/serve.js";
import { ALL_FIXTURES, TRACING_FIXTURES } from "./fixtures.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
    redisRestUrl: string;
    redisRestToken: string;
  }
}

export default async function setup(project: TestProject) {
  const redis = await startLocalUpstash("test-token");
  project.provide("redisUrl", redis.redisUrl);
  project.provide("redisRestUrl", redis.url);
  project.provide("redisRestToken", redis.token);
  await bundleAll([".", ...skillDirs(), ...ALL_FIXTURES, ...Object.values(TRACING_FIXTURES)]);
  return () => redis.stop();
}
