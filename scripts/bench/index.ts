/**
 * `npm run bench` — starts the local mesh and measures, in one run and side by side:
 *   direct      modbus.decode called on the skill Worker itself
 *   gateway     the same call through the gateway (POST /rpc) with an API key (auth is on, as
 *               deployed; every gateway side carries a key without limits)
 *   ratelimited the same call with a key that has a rate limit (never reached): the limit's cost
 *   idempotent  the same call through the gateway with a fresh Idempotency-Key each time
 *   plain/canary text.summarize through the gateway, default group (one version) vs a group split
 *               50/50 between 1.0.0 and 2.0.0 by the canary table
 *   mcp         modbus.decode as an MCP tools/call through the gateway (POST /mcp)
 *   mcp-sdk     the same tools/call on the official MCP SDK's stateless server on Node, hosting
 *               the skill's own handler and schemas (mcp-sdk-server.ts, its own process)
 * requests/s, p50 and p99 per side, the ratios, and with --redis the Redis commands per call
 * (INFO commandstats before and after each side). Sides run in alternating segments so drift on
 * the machine hits them alike.
 * Options: --seconds N per side (default 6), --concurrency N (default 16), --redis, --json.
 */
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { RedisClientType } from "redis";
import { skillDirs } from "../mesh/bundle.js";
import { startMesh } from "../mesh/index.js";
import { startLocalUpstash } from "../redis-rest/serve.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "6" },
    concurrency: { type: "string", default: "16" },
    redis: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const SEGMENTS = 3;

const MODBUS = JSON.stringify({ jsonrpc: "2.0", method: "modbus.decode", params: { frame: "11 03 00 6B 00 03 76 87" }, id: 1 });
const SUMMARIZE = JSON.stringify({ jsonrpc: "2.0", method: "text.summarize", params: { text: "Meters speak Modbus. Gateways route calls. Skills answer.", sentences: 1 }, id: 1 });

const MCP_CALL = JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "modbus.decode", arguments: { frame: "11 03 00 6B 00 03 76 87" } }, id: 1 });
const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };

/** Starts the SDK reference server in its own Node process; resolves its URL. */
async function startSdkServer(stops: Array<() => Promise<void>>): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", new URL("./mcp-sdk-server.ts", import.meta.url).pathname], { stdio: ["ignore", "pipe", "inherit"] });
  stops.push(async () => void child.kill());
  for await (const line of createInterface({ input: child.stdout! })) {
    const { port } = JSON.parse(line) as { port: number };
    return `http://127.0.0.1:${port}/`;
  }
  throw new Error("the MCP SDK reference server did not start");
}

interface Side {
  name: string;
  url: string;
  body: string;
  headers: () => Record<string, string>;
}

interface Sample {
  requests: number;
  errors: number;
  elapsedMs: number;
  latencies: number[];
  commands: number;
}

const empty = (): Sample => ({ requests: 0, errors: 0, elapsedMs: 0, latencies: [], commands: 0 });

/** Sends the side's call from `concurrency` loops for `ms`; every answer must be a JSON-RPC result. */
async function load(side: Side, ms: number, sample: Sample): Promise<void> {
  const until = performance.now() + ms;
  const started = performance.now();
  const loop = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const response = await fetch(side.url, { method: "POST", headers: { "content-type": "application/json", ...side.headers() }, body: side.body });
      const text = await response.text();
      sample.latencies.push(performance.now() - t0);
      sample.requests++;
      if (response.status !== 200 || !text.includes('"result"')) sample.errors++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  sample.elapsedMs += performance.now() - started;
}

/** Total Redis commands executed so far (INFO commandstats), not counting INFO itself. */
async function redisCommands(client: RedisClientType): Promise<number> {
  const info = await client.info("commandstats");
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (match[1] !== "info") total += Number(match[2]);
  return total;
}

function summary(sample: Sample) {
  const sorted = [...sample.latencies].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return {
    requests: sample.requests,
    errors: sample.errors,
    rps: sample.requests / (sample.elapsedMs / 1000),
    p50: at(50),
    p99: at(99),
    commandsPerCall: sample.requests ? sample.commands / sample.requests : NaN,
  };
}

const stops: Array<() => Promise<void>> = [];
try {
  let upstash: { url: string; token: string } | undefined;
  let client: RedisClientType | undefined;
  if (values.redis) {
    const local = await startLocalUpstash();
    stops.push(() => local.stop());
    upstash = { url: local.url, token: local.token };
    client = local.client;
  }
  const adminToken = randomBytes(16).toString("hex");
  const mesh = await startMesh({ skills: skillDirs(), adminToken, upstash, gatewayVars: { SKILLMESH_AUTH: "required" } });
  stops.push(() => mesh.dispose());
  const adminCall = async (path: string, body: unknown) => {
    const response = await fetch(`${mesh.gatewayUrl}/admin${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${await response.text()}`);
    return (await response.json()) as { key: string };
  };
  await adminCall("/skills/text.summarize/canary", { version: "2.0.0", groups: { bench: 50 } });
  const key = `Bearer ${(await adminCall("/keys", { name: "bench", skills: ["*"], groups: ["bench"] })).key}`;
  const limitedKey = `Bearer ${(await adminCall("/keys", { name: "bench-limited", skills: ["*"], rate: "999999999/min" })).key}`;

  const rpc = `${mesh.gatewayUrl}/rpc`;
  let user = 0;
  const sides: Side[] = [
    { name: "direct", url: mesh.skills.find((s) => s.manifest.name === "modbus.decode")!.url, body: MODBUS, headers: () => ({}) },
    { name: "gateway", url: rpc, body: MODBUS, headers: () => ({ authorization: key }) },
    { name: "ratelimited", url: rpc, body: MODBUS, headers: () => ({ authorization: limitedKey }) },
    { name: "idempotent", url: rpc, body: MODBUS, headers: () => ({ "idempotency-key": randomUUID(), authorization: key }) },
    { name: "plain", url: rpc, body: SUMMARIZE, headers: () => ({ "x-user-id": `u${user++}`, authorization: key }) },
    { name: "canary", url: rpc, body: SUMMARIZE, headers: () => ({ "x-user-id": `u${user++}`, "x-user-group": "bench", authorization: key }) },
    { name: "mcp", url: `${mesh.gatewayUrl}/mcp`, body: MCP_CALL, headers: () => ({ ...MCP_HEADERS, authorization: key }) },
    { name: "mcp-sdk", url: await startSdkServer(stops), body: MCP_CALL, headers: () => MCP_HEADERS },
  ];
  const store = upstash ? "upstash → redis-server" : "memory";
  console.log(`Benchmark: ${sides.map((s) => s.name).join(", ")}; ${CONCURRENCY} concurrent, ${SECONDS} s per side in ${SEGMENTS} alternating segments; store: ${store}`);
  for (const side of sides) await load(side, 500, empty()); // warm every isolate and cache

  const samples = new Map(sides.map((side) => [side.name, empty()]));
  for (let segment = 0; segment < SEGMENTS; segment++) {
    for (const side of segment % 2 ? [...sides].reverse() : sides) {
      const before = client ? await redisCommands(client) : 0;
      await load(side, (SECONDS * 1000) / SEGMENTS, samples.get(side.name)!);
      if (client) {
        await new Promise((r) => setTimeout(r, 100)); // let waitUntil writes of this side land
        samples.get(side.name)!.commands += (await redisCommands(client)) - before;
      }
    }
  }

  const results = Object.fromEntries(sides.map((side) => [side.name, summary(samples.get(side.name)!)]));
  const header = ["", "req/s", "p50 ms", "p99 ms", "requests", "errors", ...(client ? ["redis cmd/call"] : [])];
  console.log(`\n${header.map((h, i) => (i ? h.padStart(i === 6 ? 16 : 10) : h.padEnd(13))).join("")}`);
  for (const side of sides) {
    const r = results[side.name]!;
    const cells = [r.rps.toFixed(0), r.p50.toFixed(2), r.p99.toFixed(2), String(r.requests), String(r.errors)];
    console.log(`${side.name.padEnd(13)}${cells.map((c) => c.padStart(10)).join("")}${client ? r.commandsPerCall.toFixed(2).padStart(16) : ""}`);
  }
  const ratio = (a: string, b: string) => results[a]!.rps / results[b]!.rps;
  console.log(`
gateway/direct throughput:    ${ratio("gateway", "direct").toFixed(2)}x   (target >= 0.60x)   p50 added by the gateway: ${(results.gateway!.p50 - results.direct!.p50).toFixed(2)} ms
ratelimited/gateway throughput: ${ratio("ratelimited", "gateway").toFixed(2)}x  (target >= 0.90x)   a key with a rate limit vs a key without
idempotent/gateway throughput: ${ratio("idempotent", "gateway").toFixed(2)}x
canary/plain throughput:       ${ratio("canary", "plain").toFixed(2)}x
mcp/mcp-sdk throughput:        ${ratio("mcp", "mcp-sdk").toFixed(2)}x   (target >= 2x)   MCP gateway vs the SDK's stateless Node server
mcp/gateway throughput:        ${ratio("mcp", "gateway").toFixed(2)}x   (MCP tools/call vs the same call on /rpc)`);
  if (values.json) console.log(JSON.stringify({ concurrency: CONCURRENCY, store, results }));
  if (Object.values(results).some((r) => r.errors)) process.exitCode = 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
}
