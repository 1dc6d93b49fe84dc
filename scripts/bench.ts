/**
 * `npm run bench` — starts the local mesh and measures, in one run and side by side, the same
 * skill call made through the gateway (`POST /rpc`) and made directly to the skill Worker:
 * requests/s, p50 and p99, and the gateway/direct throughput ratio. The two are measured in
 * alternating segments so drift on the machine hits both alike.
 * Options: --seconds N per side (default 6), --concurrency N (default 16), --redis (the upstash
 * driver on a local redis-server instead of the memory store), --json (one JSON line at the end).
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { skillDirs } from "./mesh/bundle.js";
import { startMesh } from "./mesh/index.js";
import { startRedisServer } from "./redis-rest/redis-server.js";
import { startRedisRest } from "./redis-rest/serve.js";

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

const METHOD = "modbus.decode";
const BODY = JSON.stringify({ jsonrpc: "2.0", method: METHOD, params: { frame: "11 03 00 6B 00 03 76 87" }, id: 1 });

interface Sample {
  requests: number;
  errors: number;
  elapsedMs: number;
  latencies: number[];
}

/** Sends the call from `concurrency` loops for `ms`; every answer must be a JSON-RPC result. */
async function load(url: string, ms: number, sample: Sample): Promise<void> {
  const until = performance.now() + ms;
  const started = performance.now();
  const loop = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: BODY });
      const text = await response.text();
      sample.latencies.push(performance.now() - t0);
      sample.requests++;
      if (response.status !== 200 || !text.includes('"result"')) sample.errors++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  sample.elapsedMs += performance.now() - started;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function summary(sample: Sample) {
  const sorted = [...sample.latencies].sort((a, b) => a - b);
  return {
    requests: sample.requests,
    errors: sample.errors,
    rps: sample.requests / (sample.elapsedMs / 1000),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

const stops: Array<() => Promise<void>> = [];
try {
  let upstash: { url: string; token: string } | undefined;
  if (values.redis) {
    const redis = await startRedisServer();
    stops.push(() => redis.stop());
    const rest = await startRedisRest({ redisUrl: redis.url, token: randomBytes(16).toString("hex") });
    stops.push(() => rest.stop());
    upstash = { url: rest.url, token: rest.token };
  }
  const mesh = await startMesh({ skills: skillDirs(), adminToken: randomBytes(16).toString("hex"), upstash });
  stops.push(() => mesh.dispose());
  const skill = mesh.skills.find((s) => s.manifest.name === METHOD)!;
  const targets = { gateway: `${mesh.gatewayUrl}/rpc`, direct: skill.url };
  type Side = keyof typeof targets;

  console.log(`Benchmark: ${METHOD} through the gateway vs direct, ${CONCURRENCY} concurrent, ${SECONDS} s each (${SEGMENTS} alternating segments), store: ${upstash ? "upstash → redis-server" : "memory"}`);
  const warm: Sample = { requests: 0, errors: 0, elapsedMs: 0, latencies: [] };
  await load(targets.gateway, 1_000, warm);
  await load(targets.direct, 1_000, warm);

  const empty = (): Sample => ({ requests: 0, errors: 0, elapsedMs: 0, latencies: [] });
  const samples: Record<Side, Sample> = { gateway: empty(), direct: empty() };
  const order: Side[] = ["gateway", "direct"];
  for (let segment = 0; segment < SEGMENTS; segment++) {
    for (const side of segment % 2 ? [...order].reverse() : order) await load(targets[side], (SECONDS * 1000) / SEGMENTS, samples[side]);
  }
  const gateway = summary(samples.gateway);
  const direct = summary(samples.direct);

  const ratio = gateway.rps / direct.rps;
  const row = (name: string, s: ReturnType<typeof summary>) =>
    `${name.padEnd(10)}${s.rps.toFixed(0).padStart(10)}${s.p50.toFixed(2).padStart(10)}${s.p99.toFixed(2).padStart(10)}${String(s.requests).padStart(10)}${String(s.errors).padStart(8)}`;
  console.log(`\n${"".padEnd(10)}${"req/s".padStart(10)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}${"requests".padStart(10)}${"errors".padStart(8)}`);
  console.log(row("direct", direct));
  console.log(row("gateway", gateway));

  console.log(`\ngateway/direct throughput: ${ratio.toFixed(2)}x   (target >= 0.60x)   p50 added by the gateway: ${(gateway.p50 - direct.p50).toFixed(2)} ms`);
  if (values.json) console.log(JSON.stringify({ method: METHOD, concurrency: CONCURRENCY, store: upstash ? "upstash" : "memory", direct, gateway, ratio }));
  if (gateway.errors || direct.errors) process.exitCode = 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
}
