/** Starts and stops a throwaway `redis-server` on a free loopback port (tests, dev, bench). */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";

export interface RunningRedis {
  url: string;
  port: number;
  /** The process id (tests stop and continue it to make the store hang). */
  pid: number;
  stop(): Promise<void>;
}

/** The path of `redis-server`, or undefined when it is not installed. */
export function findRedisServer(): string | undefined {
  try {
    return execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `redis-server` without persistence on a free port and waits until it answers.
 * @example const redis = await startRedisServer(); …; await redis.stop()
 */
export async function startRedisServer(): Promise<RunningRedis> {
  const binary = findRedisServer();
  if (!binary) throw new Error("redis-server is not installed (Debian: apt-get install -y redis-server)");
  const port = await freePort();
  const child: ChildProcess = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
    const poll = setInterval(() => {
      if (output.includes("Ready to accept connections")) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      }
    }, 20);
  });
  child.removeAllListeners("exit");
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(); // already gone (a kill reports a signal, not a code)
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
