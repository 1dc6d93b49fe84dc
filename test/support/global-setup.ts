/**
 * Starts what the tests share: a real `redis-server` with the Upstash REST endpoint in front of
 * it. A missing redis-server fails the run: the Redis driver is never silently skipped. Worker
 * bundles are made on demand by the meshes the test files start (cached, and built aside then
 * moved in, so two files may ask for the same one): a run of one file bundles only its Workers.
 */
import "vitest";
import type { TestProject } from "vitest/node";
import { startLocalUpstash } from "../../scripts/redis-rest/serve.js";

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
  return () => redis.stop();
}
