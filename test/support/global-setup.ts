/**
 * Starts what the tests share: a real `redis-server` with the Upstash REST endpoint in front of
 * it, and warm wrangler bundles of every Worker (so test files start the mesh in about a second).
 * A missing redis-server fails the run: the Redis driver is never silently skipped.
 */
import "vitest";
import type { TestProject } from "vitest/node";
import { bundleAll, skillDirs } from "../../scripts/mesh/bundle.js";
import { startRedisServer } from "../../scripts/redis-rest/redis-server.js";
import { startRedisRest } from "../../scripts/redis-rest/serve.js";
import { FIXTURE_SKILLS } from "./fixtures.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
    redisRestUrl: string;
    redisRestToken: string;
  }
}

export default async function setup(project: TestProject) {
  const redis = await startRedisServer();
  const rest = await startRedisRest({ redisUrl: redis.url, token: "test-token" });
  project.provide("redisUrl", redis.url);
  project.provide("redisRestUrl", rest.url);
  project.provide("redisRestToken", rest.token);
  await bundleAll([".", ...skillDirs(), ...FIXTURE_SKILLS]);
  return async () => {
    await rest.stop();
    await redis.stop();
  };
}
