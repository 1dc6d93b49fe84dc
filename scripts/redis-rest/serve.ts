/** Runs the Redis REST endpoint as a Node server (used by tests, `npm run dev -- --redis`, bench). */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { serve } from "@hono/node-server";
import { createClient, type RedisClientType } from "redis";
import { redisRestApp } from "./index.js";
import { freePort, startRedisServer } from "./redis-server.js";

export interface RunningRedisRest {
  /** Base URL for `UPSTASH_REDIS_REST_URL`. */
  url: string;
  token: string;
  /** A client on the same Redis, for tests and `INFO` reads. */
  client: RedisClientType;
  stop(): Promise<void>;
}

/**
 * Connects to `redisUrl` and serves the REST protocol on 127.0.0.1 (`port` 0 = any free port).
 * @example const rest = await startRedisRest({ redisUrl: "redis://127.0.0.1:6379", token: "dev" })
 */
export async function startRedisRest(options: { redisUrl: string; token: string; port?: number }): Promise<RunningRedisRest> {
  // No offline queue: while redis-server is down a command fails at once (as Upstash answers an
  // error) instead of waiting for a reconnect that may never come.
  const client = createClient({ url: options.redisUrl, disableOfflineQueue: true }) as RedisClientType;
  client.on("error", () => {}); // reconnects on its own; errors surface per command
  await client.connect();
  const app = redisRestApp(client, options.token);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    token: options.token,
    client,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // A client whose redis-server is gone would wait for a reconnect to say goodbye: drop it.
      if (client.isReady) await client.quit().catch(() => {});
      else client.destroy();
    },
  };
}

/** The REST endpoint (cli.ts) in a Node process of its own; resolves once it listens. */
async function startRedisRestProcess(options: { redisUrl: string; token: string }): Promise<RunningRedisRest> {
  const cli = new URL("./cli.ts", import.meta.url).pathname;
  const child = spawn(process.execPath, ["--import", "tsx", cli, "--redis", options.redisUrl, "--port", String(await freePort()), "--token", options.token], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  try {
    for await (const line of createInterface({ input: child.stdout! })) {
      const url = /on (http:\/\/\S+)/.exec(line)?.[1];
      if (url) {
        const client = createClient({ url: options.redisUrl }) as RedisClientType;
        client.on("error", () => {});
        await client.connect();
        return {
          url,
          token: options.token,
          client,
          stop: async () => {
            child.kill("SIGINT");
            await exited;
            await client.quit().catch(() => client.destroy());
          },
        };
      }
    }
    throw new Error(`the Redis REST endpoint exited (${await exited}) before it listened`);
  } catch (error) {
    child.kill();
    throw error;
  }
}

/**
 * A throwaway `redis-server` with the REST endpoint in front of it: what `npm run dev -- --redis`,
 * `npm run bench -- --redis` and the tests use as "Upstash". `stop()` stops both. With
 * `ownProcess` the endpoint runs in a Node process of its own, as Upstash is a service of its own:
 * the benchmarks use it, so their load generator does not hold up its event loop.
 * @example const local = await startLocalUpstash(); startMesh({ upstash: local, … })
 */
export async function startLocalUpstash(
  token = randomBytes(16).toString("hex"),
  options: { ownProcess?: boolean } = {},
): Promise<RunningRedisRest & { redisUrl: string; redisPid: number }> {
  const redis = await startRedisServer();
  try {
    const rest = options.ownProcess ? await startRedisRestProcess({ redisUrl: redis.url, token }) : await startRedisRest({ redisUrl: redis.url, token });
    return {
      ...rest,
      redisUrl: redis.url,
      redisPid: redis.pid,
      stop: async () => {
        await rest.stop();
        await redis.stop();
      },
    };
  } catch (error) {
    await redis.stop();
    throw error;
  }
}
