/** Servers nobody here wrote (and fixture servers), started as child processes for a test and stopped after it. */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../../scripts/mesh/bundle.js";
import { freePort } from "../../scripts/mesh/index.js";

export interface RunningProcess {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const NODE = process.execPath;
const bin = (path: string) => join(ROOT, "node_modules", path);

/** Polls `url` until it answers at all (any status), or fails after `timeoutMs`. */
async function answering(url: string, child: ChildProcess, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited (${child.exitCode}): ${output()}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms: ${output()}`);
}

/**
 * The servers this test process started and has not seen exit: killed when it exits, so a test
 * file ended before its `stop()` finished (a hook's timeout) leaves no server behind.
 */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

async function run(args: (port: number) => string[], env: Record<string, string>, probe: (port: number) => string, port?: number): Promise<RunningProcess> {
  const chosen = port ?? (await freePort("127.0.0.1"));
  const child = spawn(NODE, args(chosen), { cwd: ROOT, env: { ...process.env, ...env, PORT: String(chosen) }, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 3_000).unref();
    });
  try {
    await answering(probe(chosen), child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${chosen}`, port: chosen, stop };
}

/**
 * `@modelcontextprotocol/server-everything` in Streamable HTTP mode (a 2025 server with sessions): `url` + `/mcp`; on `port` to restart one;
 * `env` added to its environment (its `get-env` tool answers it).
 */
export function startServerEverything(port?: number, env: Record<string, string> = {}): Promise<RunningProcess> {
  return run(
    () => [bin("@modelcontextprotocol/server-everything/dist/index.js"), "streamableHttp"],
    env,
    (p) => `http://127.0.0.1:${p}/mcp`,
    port,
  );
}

/** The A2A agent of scripts/a2a-agent.ts as a program (the federating guide's), its card at `url` + `/.well-known/agent-card.json`. */
export function startA2aAgentProcess(port?: number): Promise<RunningProcess> {
  return run(
    (p) => [bin("tsx/dist/cli.mjs"), "scripts/a2a-agent.ts", String(p)],
    {},
    (p) => `http://127.0.0.1:${p}/.well-known/agent-card.json`,
    port,
  );
}

/** `@modelcontextprotocol/server-map`, the MCP Apps example server (a tool with a `ui://` app), over Streamable HTTP at `url` + `/mcp`; on `port` if given. */
export function startMapServer(port?: number): Promise<RunningProcess> {
  return run(
    () => [bin("@modelcontextprotocol/server-map/dist/index.js")],
    {},
    (p) => `http://127.0.0.1:${p}/mcp`,
    port,
  );
}

/** Prism mocking an OpenAPI document from its own examples and schemas. */
export function startPrism(document: string, port?: number): Promise<RunningProcess> {
  return run(
    (p) => [bin("@stoplight/prism-cli/dist/index.js"), "mock", "-h", "127.0.0.1", "-p", String(p), document],
    {},
    (p) => `http://127.0.0.1:${p}/`,
    port,
  );
}

/** The v2-SDK fixture server (test/fixtures/upstreams/v2-server.ts), as upstream version `version`; on `port` to restart one. */
export async function startV2Server(version: string, port?: number): Promise<RunningProcess> {
  const tsx = bin("tsx/dist/cli.mjs");
  return run(
    () => [tsx, join(ROOT, "test/fixtures/upstreams/v2-server.ts")],
    { UPSTREAM_VERSION: version },
    (port) => `http://127.0.0.1:${port}/seen`,
    port,
  );
}

/** The conformance suite's content and prompt fixtures as an MCP server (test/fixtures/upstreams/conformance-server.ts). */
export async function startConformanceServer(): Promise<RunningProcess> {
  const tsx = bin("tsx/dist/cli.mjs");
  return run(
    () => [tsx, join(ROOT, "test/fixtures/upstreams/conformance-server.ts")],
    {},
    (port) => `http://127.0.0.1:${port}/mcp`,
  );
}
