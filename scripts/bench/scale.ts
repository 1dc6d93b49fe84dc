/**
 * `npm run bench -- --scale 10000`: the registry at scale. Starts the mesh with one real skill
 * (subtract) and registers N synthetic skills through the admin API — manifests with ~2 KB of
 * schema, 8 registrations in flight — then prints, at 10 skills and at N:
 *   registration time per 1,000 (and the last 1,000 against the first);
 *   subtract's call throughput and p50 through the gateway;
 *   the call right after a registry change (the one that reloads the isolate's view), next to
 *   the call after it;
 *   MCP tools/list (every page) and skills.discover by exact tag and by glob;
 *   a burst of 100 registrations at once;
 *   the gateway isolate's JS heap after a GC (V8 inspector), and the workerd process's RSS.
 * With --redis, the store is Upstash against a local redis-server (scripts/redis-rest).
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { WebSocket } from "undici";
import { ROOT } from "../mesh/bundle.js";
import { type Mesh, registerSkill, startMesh } from "../mesh/index.js";
import { startLocalUpstash } from "../redis-rest/serve.js";
import type { SkillManifest } from "../../src/skill/manifest.js";
import { empty, load, summary } from "./load.js";

const INSPECTOR_PORT = 9239;
const IN_FLIGHT = 8;
const CALL_SECONDS = 4;
const CONCURRENCY = 16;
const CHANGES = 20;

/** A synthetic manifest with a realistic schema: 12 described properties, about 2 KB. */
function syntheticManifest(i: number): SkillManifest {
  const properties = Object.fromEntries(
    Array.from({ length: 12 }, (_, p) => [
      `field_${p}`,
      { type: p % 3 ? "string" : "number", description: `Field ${p} of synthetic skill ${i}: what the caller passes, in a sentence or two, as real manifests do.` },
    ]),
  );
  return {
    name: `bench.s${i}`,
    version: "1.0.0",
    description: `Synthetic skill ${i} of the scale benchmark: it routes to subtract.`,
    tags: [`bench.group${i % 100}`, "bench.all", `bench.only${i}`],
    idempotent: true,
    degraded: false,
    timeoutMs: 5_000,
    inputSchema: { type: "object", properties, required: ["field_0"], additionalProperties: false },
    outputSchema: { type: "number" },
  };
}

interface Inspector {
  heapMb(): Promise<number>;
  close(): void;
}

/** The gateway isolate's used JS heap after a full GC, through workerd's V8 inspector. */
async function inspectGateway(): Promise<Inspector | undefined> {
  try {
    const targets = (await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json`)).json()) as Array<{ title?: string; id?: string; webSocketDebuggerUrl: string }>;
    const target = targets.find((t) => `${t.title ?? ""} ${t.id ?? ""}`.includes("gateway"));
    if (!target) return undefined;
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.addEventListener("open", resolve);
      socket.addEventListener("error", reject);
    });
    let id = 0;
    const pending = new Map<number, (result: unknown) => void>();
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) pending.get(message.id)?.(message.result);
    });
    const send = (method: string) => new Promise<unknown>((resolve) => (pending.set(++id, resolve), socket.send(JSON.stringify({ id, method }))));
    return {
      async heapMb() {
        await send("HeapProfiler.collectGarbage");
        const { usedSize } = (await send("Runtime.getHeapUsage")) as { usedSize: number };
        return usedSize / 2 ** 20;
      },
      close: () => socket.close(),
    };
  } catch {
    return undefined;
  }
}

/** RSS of the workerd processes (every Worker of the mesh), in MB; undefined off Linux. */
function workerdRssMb(): number | undefined {
  try {
    let total = 0;
    for (const pid of readFileSync("/proc/self/task/" + process.pid + "/children", "utf8").trim().split(/\s+/).filter(Boolean)) {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      if (!/^Name:\s*workerd/m.test(status)) continue;
      total += Number(/^VmRSS:\s*(\d+)/m.exec(status)?.[1] ?? 0) / 1024;
    }
    return total || undefined;
  } catch {
    return undefined;
  }
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

/** Time of one function, in ms. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

interface Snapshot {
  skills: number;
  rps: number;
  p50: number;
  /** The first call after a registry change (the one that reloads), median and slowest of CHANGES. */
  afterChangeMs: { median: number; max: number };
  /** The call after it (nothing to reload), for comparison. */
  unchangedMs: { median: number; max: number };
  toolsListMs: number;
  toolsListPages: number;
  discoverExactMs: number;
  discoverGlobMs: number;
  heapMb?: number;
  rssMb?: number;
  errors: number;
}

/** Measures calls, a change's effect, listing and discovery at the registry's current size. */
async function measure(mesh: Mesh, adminToken: string, binding: string, skills: number, nextIndex: () => number, inspector: Inspector | undefined): Promise<Snapshot> {
  const rpc = `${mesh.gatewayUrl}/rpc`;
  const side = { name: "subtract", url: rpc, body: JSON.stringify({ jsonrpc: "2.0", method: "subtract", params: [42, 23], id: 1 }), headers: () => ({}) };
  await load(side, 2_000, empty(), CONCURRENCY); // warm the JIT and the connections
  const sample = empty();
  await load(side, CALL_SECONDS * 1000, sample, CONCURRENCY);
  const calls = summary(sample);
  let errors = calls.errors;

  // The admin write invalidates the isolate's snapshot, so the first call after a change is the
  // one that polls and reloads: its latency is the change's cost, next to a call without one.
  const subtract = async () => {
    const t0 = performance.now();
    const { status, json } = await post(rpc, { jsonrpc: "2.0", method: "subtract", params: [42, 23], id: 1 });
    if (status !== 200 || json.result !== 19) errors++;
    return performance.now() - t0;
  };
  const afterChange: number[] = [];
  const unchanged: number[] = [];
  for (let change = 0; change < CHANGES; change++) {
    await registerSkill(mesh.gatewayUrl, adminToken, { binding }, { manifest: syntheticManifest(nextIndex()) });
    afterChange.push(await subtract());
    unchanged.push(await subtract());
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

  const mcpHeaders = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
  let pages = 0;
  const toolsListMs = await timed(async () => {
    let cursor: string | undefined;
    do {
      const { json } = await post(`${mesh.gatewayUrl}/mcp`, { jsonrpc: "2.0", method: "tools/list", params: cursor ? { cursor } : {}, id: ++pages }, mcpHeaders);
      if (!json.result) throw new Error(`tools/list: ${JSON.stringify(json)}`);
      cursor = json.result.nextCursor;
    } while (cursor);
  });
  const discover = async (capability: string) => {
    const { json } = await post(rpc, { jsonrpc: "2.0", method: "skills.discover", params: { capability }, id: 1 });
    if (!Array.isArray(json.result)) throw new Error(`skills.discover: ${JSON.stringify(json)}`);
  };
  await discover("bench.group7"); // the first after a change builds the tag index
  const discoverExactMs = await timed(() => discover("bench.group7"));
  const discoverGlobMs = await timed(() => discover("bench.only99*")); // 111 of 10,000 skills; scans every distinct tag
  return {
    skills,
    rps: calls.rps,
    p50: calls.p50,
    afterChangeMs: { median: median(afterChange), max: Math.max(...afterChange) },
    unchangedMs: { median: median(unchanged), max: Math.max(...unchanged) },
    toolsListMs,
    toolsListPages: pages,
    discoverExactMs,
    discoverGlobMs,
    heapMb: await inspector?.heapMb(),
    rssMb: workerdRssMb(),
    errors,
  };
}

/** Runs the scale benchmark with `target` synthetic skills. */
export async function runScale(target: number, redis: boolean): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  try {
    let upstash: { url: string; token: string } | undefined;
    if (redis) {
      const local = await startLocalUpstash();
      stops.push(() => local.stop());
      upstash = { url: local.url, token: local.token };
    }
    const adminToken = randomBytes(16).toString("hex");
    const mesh = await startMesh({ skills: [join(ROOT, "test/fixtures/skills/subtract")], adminToken, upstash, inspectorPort: INSPECTOR_PORT });
    stops.push(() => mesh.dispose());
    const inspector = await inspectGateway();
    stops.push(async () => inspector?.close());
    const binding = mesh.skills[0]!.binding;
    let next = 0;
    const register = () => registerSkill(mesh.gatewayUrl, adminToken, { binding }, { manifest: syntheticManifest(next++) });
    const store = upstash ? "upstash → redis-server" : "memory";
    console.log(`Scale benchmark: ${target} synthetic skills (~2 KB of schema each) registered ${IN_FLIGHT} at a time; store: ${store}`);

    for (let i = 0; i < 9; i++) await register();
    const small = await measure(mesh, adminToken, binding, next + 1, () => next++, inspector);

    const perThousand: number[] = [];
    while (next < target) {
      const batch = Math.min(1_000, target - next);
      const ms = await timed(async () => {
        let left = batch;
        await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
          while (left > 0) {
            left--;
            await register();
          }
        }));
      });
      perThousand.push((ms / batch) * 1000);
      process.stdout.write(`  ${next} registered: ${((ms / batch) * 1000 / 1000).toFixed(1)} s per 1,000\n`);
    }
    const burstMs = await timed(() => Promise.all(Array.from({ length: 100 }, register)));
    const large = await measure(mesh, adminToken, binding, next + 1, () => next++, inspector);

    const row = (label: string, a: string, b: string, note = "") => console.log(`${label.padEnd(34)}${a.padStart(12)}${b.padStart(12)}  ${note}`);
    console.log("");
    row("", `${small.skills} skills`, `${large.skills} skills`);
    row("calls/s (subtract via gateway)", small.rps.toFixed(0), large.rps.toFixed(0), `cost ratio ${(small.rps / large.rps).toFixed(2)}x (aim <= 1.1x)`);
    row("call p50 ms", small.p50.toFixed(2), large.p50.toFixed(2));
    const pair = (m: { median: number; max: number }) => `${m.median.toFixed(1)}/${m.max.toFixed(1)}`;
    row("call after a change ms (med/max)", pair(small.afterChangeMs), pair(large.afterChangeMs), `(aim < 10 ms; ${CHANGES} changes)`);
    row("the next call ms (med/max)", pair(small.unchangedMs), pair(large.unchangedMs), "(nothing to reload)");
    row("tools/list, every page ms", `${small.toolsListMs.toFixed(0)} (${small.toolsListPages})`, `${large.toolsListMs.toFixed(0)} (${large.toolsListPages})`, "(pages)");
    row("skills.discover exact tag ms", small.discoverExactMs.toFixed(1), large.discoverExactMs.toFixed(1));
    row("skills.discover glob ms", small.discoverGlobMs.toFixed(1), large.discoverGlobMs.toFixed(1));
    row("gateway JS heap after GC MB", small.heapMb?.toFixed(1) ?? "n/a", large.heapMb?.toFixed(1) ?? "n/a", "(Workers allow 128 MB)");
    row("workerd RSS MB (whole mesh)", small.rssMb?.toFixed(0) ?? "n/a", large.rssMb?.toFixed(0) ?? "n/a");
    const first = perThousand[0]!;
    const last = perThousand.at(-1)!;
    console.log(`\nregistration s per 1,000: first ${(first / 1000).toFixed(1)}, last ${(last / 1000).toFixed(1)} (last/first ${(last / first).toFixed(2)}x, aim <= 1.5x); all: ${perThousand.map((ms) => (ms / 1000).toFixed(1)).join(" ")}`);
    console.log(`100 registrations at once: ${burstMs.toFixed(0)} ms (${(burstMs / 100).toFixed(1)} ms each)`);
    const errors = small.errors + large.errors;
    console.log(`errors: ${errors}`);
    if (errors) process.exitCode = 1;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}
