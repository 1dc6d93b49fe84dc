/**
 * `npm run bench -- --scale 10000`: the registry at scale. Starts meshes with one real skill
 * (subtract) and registers N synthetic skills through the admin API — manifests with ~2 KB of
 * schema, 8 registrations in flight — then prints, at 10 skills and at N:
 *   registration time per 1,000 (and the last 1,000 against the first);
 *   subtract's call throughput and p50 through the gateway (Node's fetch), and its throughput under wrk when wrk is installed;
 *   the call right after a registry change (the one that reloads the isolate's view), next to
 *   the call after it;
 *   MCP tools/list and skills.list (every page) and skills.discover by exact tag and by glob;
 *   a burst of 100 registrations at once;
 *   the gateway isolate's JS heap after a GC (V8 inspector);
 *   with --redis, the first call and the first tools/list of a new gateway isolate on the large registry.
 * The two sizes are two meshes side by side (own registries), their calls measured in
 * alternating segments.
 * With --redis, the store is Upstash against a local redis-server (scripts/redis-rest).
 */
import { randomBytes } from "node:crypto";
import { type Mesh, startMesh } from "../mesh/index.js";
import { startLocalUpstash } from "../redis-rest/serve.js";
import { registerSynthetic } from "../mesh/synthetic.js";
import { type GatewayInspector, inspectGateway } from "./inspector.js";
import { pairedRuns, pairedSummary } from "./compare.js";
import { addSample, empty, load, summary } from "./load.js";
import { SUBTRACT_DIR, TRIVIAL, TRIVIAL_CALL } from "./trivial.js";
import { hasWrk } from "./wrk.js";

/** The V8 inspectors of the two meshes' Workers (small, large). */
const INSPECTOR_PORTS = [9239, 9240] as const;

const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const IN_FLIGHT = 8;
/** Call segments per registry, alternating (1 s each): the ratio is the median of the pairs'. */
const CALL_SEGMENTS = 12;
/** Pairs of 2 s wrk runs for the same ratio under wrk (when it is installed). */
const WRK_PAIRS = 12;
const CONCURRENCY = 16;
const CHANGES = 20;

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
  /** The first call after a registry change (the one that reloads), median and slowest of CHANGES. */
  afterChangeMs: { median: number; max: number };
  /** The call after it (nothing to reload), for comparison. */
  unchangedMs: { median: number; max: number };
  toolsListMs: number;
  toolsListPages: number;
  skillsListMs: number;
  skillsListPages: number;
  discoverExactMs: number;
  discoverGlobMs: number;
  heapMb?: number;
  errors: number;
}

/** Reads every page of a listing (`method` on `url`, following `nextCursor`): how long it took, and how many pages. */
async function everyPage(
  url: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ ms: number; pages: number }> {
  let pages = 0;
  const ms = await timed(async () => {
    let cursor: string | undefined;
    do {
      const { json } = await post(url, { jsonrpc: "2.0", method, params: { ...params, ...(cursor ? { cursor } : {}) }, id: ++pages }, headers);
      if (!json.result) throw new Error(`${method}: ${JSON.stringify(json)}`);
      cursor = json.result.nextCursor;
    } while (cursor);
  });
  return { ms, pages };
}

/** Measures calls, a change's effect, listing and discovery at the registry's current size. */
async function measure(mesh: Mesh, registerOne: () => Promise<void>, inspector: GatewayInspector | undefined): Promise<Snapshot> {
  const rpc = `${mesh.gatewayUrl}/rpc`;
  let errors = 0;

  // The admin write invalidates the isolate's snapshot, so the first call after a change is the
  // one that polls and reloads: its latency is the change's cost, next to a call without one.
  const subtract = async () => {
    const t0 = performance.now();
    const { status, json } = await post(rpc, TRIVIAL_CALL);
    if (status !== 200 || json.result !== 19) errors++;
    return performance.now() - t0;
  };
  const afterChange: number[] = [];
  const unchanged: number[] = [];
  for (let change = 0; change < CHANGES; change++) {
    await registerOne();
    afterChange.push(await subtract());
    unchanged.push(await subtract());
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

  const toolsList = await everyPage(`${mesh.gatewayUrl}/mcp`, "tools/list", {}, MCP_HEADERS);
  const skillsList = await everyPage(rpc, "skills.list", { limit: 1_000 });
  const discover = async (capability: string) => {
    const { json } = await post(rpc, { jsonrpc: "2.0", method: "skills.discover", params: { capability }, id: 1 });
    if (!Array.isArray(json.result)) throw new Error(`skills.discover: ${JSON.stringify(json)}`);
  };
  await discover("bench.group7"); // the first after a change builds the tag index
  const discoverExactMs = await timed(() => discover("bench.group7"));
  const discoverGlobMs = await timed(() => discover("bench.only99*")); // 111 of 10,000 skills; scans every distinct tag
  return {
    afterChangeMs: { median: median(afterChange), max: Math.max(...afterChange) },
    unchangedMs: { median: median(unchanged), max: Math.max(...unchanged) },
    toolsListMs: toolsList.ms,
    toolsListPages: toolsList.pages,
    skillsListMs: skillsList.ms,
    skillsListPages: skillsList.pages,
    discoverExactMs,
    discoverGlobMs,
    heapMb: await inspector?.heapMb(),
    errors,
  };
}

/** Runs the scale benchmark with `target` synthetic skills. */
export async function runScale(target: number, redis: boolean): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  try {
    let upstash: { url: string; token: string } | undefined;
    if (redis) {
      const local = await startLocalUpstash(undefined, { ownProcess: true }); // its own process, as Upstash is: the load generator shares this one
      stops.push(() => local.stop());
      upstash = { url: local.url, token: local.token };
    }
    // Two meshes side by side, each with its own registry: 10 skills, and `target`. Their calls
    // are measured in alternating segments, so drift on the machine hits both alike.
    const adminToken = randomBytes(16).toString("hex");
    const meshes: Mesh[] = [];
    const inspectors: Array<GatewayInspector | undefined> = [];
    console.log("Starting two meshes (a small and a large registry) …");
    for (const [i, prefix] of ["small:", "large:"].entries()) {
      const mesh = await startMesh({
        skills: [SUBTRACT_DIR],
        adminToken,
        upstash,
        inspectorPort: INSPECTOR_PORTS[i],
        gatewayVars: { SKILLMESH_STORE_PREFIX: prefix },
      });
      stops.push(() => mesh.dispose());
      meshes.push(mesh);
      const inspector = await inspectGateway(INSPECTOR_PORTS[i]!, mesh.gatewayUrl);
      stops.push(async () => inspector?.close());
      inspectors.push(inspector);
    }
    const [smallMesh, largeMesh] = meshes as [Mesh, Mesh];
    const binding = smallMesh.skills[0]!.binding;
    // Synthetic skill numbers run on across both meshes: every registration is a new skill.
    let next = 0;
    const register = async (mesh: Mesh, count: number, inFlight = 1) => {
      const from = next;
      next += count;
      await registerSynthetic(mesh.gatewayUrl, adminToken, binding, from, next, inFlight);
    };
    const store = upstash ? "upstash → redis-server" : "memory";
    console.log(`Scale benchmark: ${target} synthetic skills (~2 KB of schema each) registered ${IN_FLIGHT} at a time; store: ${store}`);

    await register(smallMesh, 9);
    const perThousand: number[] = [];
    let registered = 0;
    while (registered < target) {
      const batch = Math.min(1_000, target - registered);
      const ms = await timed(() => register(largeMesh, batch, IN_FLIGHT));
      registered += batch;
      perThousand.push((ms / batch) * 1000);
      process.stdout.write(`  ${registered} registered: ${(ms / batch).toFixed(2)} s per 1,000\n`);
    }
    const burstMs = await timed(() => register(largeMesh, 100, 100));

    console.log("Measuring calls on both registries, then registry changes …");
    const sides = meshes.map((mesh, i) => ({ name: ["small", "large"][i]!, url: `${mesh.gatewayUrl}/rpc`, body: TRIVIAL, headers: () => ({}) }));
    for (const side of sides) await load(side, 2_000, empty(), CONCURRENCY); // warm the JIT and the connections
    // Each pair of segments sees the same machine: the median of the pairs' ratios cancels the
    // drift that a ratio of two totals keeps (one build read 1.05x to 1.11x by 4-segment totals).
    const samples = sides.map(() => empty());
    const pairs: Array<[number, number]> = [];
    for (let segment = 0; segment < CALL_SEGMENTS; segment++) {
      const rps = [0, 0];
      for (const i of segment % 2 ? [1, 0] : [0, 1]) {
        const one = empty();
        await load(sides[i]!, 1_000, one, CONCURRENCY);
        rps[i] = summary(one).rps;
        addSample(samples[i]!, one);
      }
      pairs.push([rps[1]!, rps[0]!]); // [large, small]: the pair's b/a is what a call costs more on the large registry
    }
    const [smallCalls, largeCalls] = samples.map(summary) as [ReturnType<typeof summary>, ReturnType<typeof summary>];
    const callCost = pairedSummary(pairs);
    const small = await measure(smallMesh, () => register(smallMesh, 1), inspectors[0]);
    const large = await measure(largeMesh, () => register(largeMesh, 1), inspectors[1]);
    const counts = [10, target + 100 + 1];

    // New isolates on the large registry (the store outlives them): a first call reads its own
    // skill while the whole registry loads beside it; a first tools/list needs the whole of it.
    let coldMs: number | undefined;
    let coldListMs: number | undefined;
    if (upstash) {
      const cold = () => startMesh({ skills: [SUBTRACT_DIR], adminToken, upstash, register: false, gatewayVars: { SKILLMESH_STORE_PREFIX: "large:" } });
      const [forCall, forList] = [await cold(), await cold()];
      stops.push(
        () => forCall.dispose(),
        () => forList.dispose(),
      );
      coldMs = await timed(async () => {
        const { json } = await post(`${forCall.gatewayUrl}/rpc`, TRIVIAL_CALL);
        if (json.result !== 19) throw new Error(`the first call of a new isolate failed: ${JSON.stringify(json)}`);
      });
      coldListMs = await timed(async () => {
        const { json } = await post(`${forList.gatewayUrl}/mcp`, { jsonrpc: "2.0", method: "tools/list", params: {}, id: 1 }, MCP_HEADERS);
        if (!json.result) throw new Error(`the first tools/list of a new isolate failed: ${JSON.stringify(json)}`);
      });
    }

    // wrk loads the gateway harder than Node's fetch (which shares a core with it): the same
    // ratio, measured the way --trivial measures the hot path. Last, so that the store's work after
    // 6,000 calls/s (their audit entries and counters; the local Upstash fell behind once) overlaps nothing measured.
    const wrkCost = (await hasWrk()) ? await pairedRuns(sides[1]!, sides[0]!, { pairs: WRK_PAIRS, seconds: 2 }) : undefined;

    const row = (label: string, a: string, b: string, note = "") => console.log(`${label.padEnd(34)}${a.padStart(14)}${b.padStart(14)}  ${note}`);
    console.log("");
    row("", `${counts[0]} skills`, `${counts[1]} skills`);
    row(
      "calls/s (subtract via gateway)",
      smallCalls.rps.toFixed(0),
      largeCalls.rps.toFixed(0),
      `call cost ratio ${callCost.median.toFixed(2)}x (aim <= 1.1x; median of ${CALL_SEGMENTS} pairs of 1 s, quartiles ${callCost.q1.toFixed(2)}–${callCost.q3.toFixed(2)})`,
    );
    if (wrkCost)
      row(
        "calls/s under wrk -c16",
        wrkCost.meanB.toFixed(0),
        wrkCost.meanA.toFixed(0),
        `call cost ratio ${wrkCost.median.toFixed(2)}x (median of ${WRK_PAIRS} pairs of 2 s, quartiles ${wrkCost.q1.toFixed(2)}–${wrkCost.q3.toFixed(2)})`,
      );
    row("call p50 ms", smallCalls.p50.toFixed(2), largeCalls.p50.toFixed(2));
    const pair = (m: { median: number; max: number }) => `${m.median.toFixed(1)}/${m.max.toFixed(1)}`;
    row("call after a change ms (med/max)", pair(small.afterChangeMs), pair(large.afterChangeMs), `(aim < 10 ms; ${CHANGES} changes)`);
    row("the next call ms (med/max)", pair(small.unchangedMs), pair(large.unchangedMs), "(nothing to reload)");
    row(
      "tools/list, every page ms",
      `${small.toolsListMs.toFixed(0)} (${small.toolsListPages})`,
      `${large.toolsListMs.toFixed(0)} (${large.toolsListPages})`,
      "(pages)",
    );
    row(
      "skills.list, every page ms",
      `${small.skillsListMs.toFixed(0)} (${small.skillsListPages})`,
      `${large.skillsListMs.toFixed(0)} (${large.skillsListPages})`,
      "(pages of 1,000)",
    );
    row("skills.discover exact tag ms", small.discoverExactMs.toFixed(1), large.discoverExactMs.toFixed(1));
    row("skills.discover glob ms", small.discoverGlobMs.toFixed(1), large.discoverGlobMs.toFixed(1));
    row("gateway JS heap after GC MB", small.heapMb?.toFixed(1) ?? "n/a", large.heapMb?.toFixed(1) ?? "n/a", "(Workers allow 128 MB)");
    if (coldMs !== undefined) row("first call of a new isolate ms", "", coldMs.toFixed(0), "(reads its own skill; the whole registry loads beside it)");
    if (coldListMs !== undefined) row("first tools/list of a new isolate ms", "", coldListMs.toFixed(0), "(waits for the whole registry)");
    const first = perThousand[0]!;
    const last = perThousand.at(-1)!;
    console.log(
      `\nregistration s per 1,000: first ${(first / 1000).toFixed(1)}, last ${(last / 1000).toFixed(1)} (last/first ${(last / first).toFixed(2)}x, aim <= 1.5x); all: ${perThousand.map((ms) => (ms / 1000).toFixed(1)).join(" ")}`,
    );
    console.log(`100 registrations at once: ${burstMs.toFixed(0)} ms (${(burstMs / 100).toFixed(1)} ms each)`);
    const errors = small.errors + large.errors + smallCalls.errors + largeCalls.errors;
    console.log(`errors: ${errors}`);
    if (errors) process.exitCode = 1;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}
