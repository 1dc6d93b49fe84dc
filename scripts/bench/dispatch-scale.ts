/**
 * `npm run bench -- --dispatch-scale 200`: N distinct skill Workers in the gateway's (local)
 * dispatch namespace, reached by name. One bundle (scripts/bench/named-subtract) is uploaded as N
 * scripts, each its own skill (`scale.s001`…) and its own isolate once called. Prints the call
 * throughput and p50 through the gateway when the calls go round the first 2 skills and when they
 * go round all N (alternating 1.5 s segments, 16 callers, Node's fetch: the median of the pairs'
 * ratios), and the workerd process's resident memory per skill Worker (its growth from 2 loaded
 * to N loaded, divided by N - 2).
 */
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { KeyCreatedSchema } from "../../src/admin/api/index.js";
import { ROOT, bundleWorker } from "../mesh/bundle.js";
import { adminCall, registerSkill, startMesh } from "../mesh/index.js";
import { pairedSummary } from "./compare.js";

const NAMED_SUBTRACT_DIR = join(ROOT, "scripts/bench/named-subtract");
const SEGMENTS = 8;
const SEGMENT_MS = 1_500;
const CONCURRENCY = 16;

const nameOf = (i: number) => `scale.s${String(i + 1).padStart(3, "0")}`;
const body = (name: string) => JSON.stringify({ jsonrpc: "2.0", method: name, params: { minuend: 42, subtrahend: 23 }, id: 1 });

/** The PIDs of this process's children now. */
function children(pid = process.pid): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Resident memory of the workerd processes under `pids` (a mesh's), in bytes. */
function workerdRss(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      if (/^Name:\s*workerd/m.test(status)) total += Number(/^VmRSS:\s*(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      // gone
    }
    total += workerdRss(children(pid));
  }
  return total;
}

/** Calls the skills round robin from `CONCURRENCY` loops for `ms`: requests a second and latencies. */
async function roundRobin(url: string, names: string[], headers: Record<string, string>, ms: number): Promise<{ rps: number; latencies: number[] }> {
  let next = 0;
  let requests = 0;
  const latencies: number[] = [];
  const until = performance.now() + ms;
  const started = performance.now();
  const loop = async () => {
    while (performance.now() < until) {
      const name = names[next++ % names.length]!;
      const t0 = performance.now();
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: body(name) });
      const text = await response.text();
      if (!text.includes('"result":19')) throw new Error(`${name} did not answer 19: ${text.slice(0, 200)}`);
      latencies.push(performance.now() - t0);
      requests++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return { rps: requests / ((performance.now() - started) / 1000), latencies };
}

const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** A mesh with `n` named subtract scripts in its dispatch namespace, each registered (so read once) and called once; its workerd's PIDs. */
async function dispatchedMesh(n: number) {
  const adminToken = randomBytes(16).toString("hex");
  const before = new Set(children());
  const mesh = await startMesh({ skills: [], adminToken, register: false, gatewayVars: { SKILLMESH_AUTH: "required" } });
  const pids = children().filter((pid) => !before.has(pid));
  try {
    const bundle = await bundleWorker(NAMED_SUBTRACT_DIR);
    const names = Array.from({ length: n }, (_, i) => nameOf(i));
    const started = Date.now();
    for (const name of names) {
      const script = `skill-${name.replace(".", "-")}`;
      mesh.scripts.put(bundle, script, "skillmesh-gateway", { SKILL_NAME: name });
      await registerSkill(mesh.gatewayUrl, adminToken, { dispatch: script });
    }
    const { key } = KeyCreatedSchema.parse(await adminCall(mesh.gatewayUrl, adminToken, "POST", "/keys", { name: "bench", skills: ["*"] }));
    const headers = { authorization: `Bearer ${key}` };
    const url = `${mesh.gatewayUrl}/rpc`;
    await roundRobin(url, names, headers, 1_000); // every script's Worker loaded and called
    return { mesh, pids, names, headers, url, registerMs: Date.now() - started };
  } catch (error) {
    await mesh.dispose();
    throw error;
  }
}

/**
 * Two meshes side by side: one with 2 dispatched skills, one with N. The call's cost is measured
 * on each mesh's first 2 skills (alternating segments: the median of the pairs' ratios), as the
 * registry benchmark (scale.ts) measures a call among 10 skills and among N; the memory per skill
 * Worker is the difference of the two workerd processes over N - 2. Then, for what it says of
 * isolates, the large mesh's calls round all N.
 */
export async function runDispatchScale(n: number): Promise<void> {
  if (n < 3) throw new Error("--dispatch-scale N: N is 3 or more");
  console.log(`Bundling (cached after the first run) and starting a mesh with 2 skills in its dispatch namespace and one with ${n} …`);
  const small = await dispatchedMesh(2);
  try {
    const large = await dispatchedMesh(n);
    try {
      console.log(`  ${n} scripts uploaded and registered in ${(large.registerMs / 1000).toFixed(1)} s (the gateway reads each one's manifest)`);
      const pairs: Array<[number, number]> = [];
      const latencies = { small: [] as number[], large: [] as number[] };
      for (let i = 0; i < SEGMENTS; i++) {
        const order = i % 2 ? ([large, small] as const) : ([small, large] as const);
        const rps = new Map<object, number>();
        for (const side of order) {
          const result = await roundRobin(side.url, side.names.slice(0, 2), side.headers, SEGMENT_MS);
          rps.set(side, result.rps);
          (side === small ? latencies.small : latencies.large).push(...result.latencies);
        }
        pairs.push([rps.get(small)!, rps.get(large)!]);
      }
      const s = pairedSummary(pairs);
      const memory = { small: workerdRss(small.pids), large: workerdRss(large.pids) };
      const all = await roundRobin(large.url, large.names, large.headers, 3_000);
      console.log(
        `\nThe trivial call through the gateway to a dispatched skill (${CONCURRENCY} callers, Node's fetch, ${SEGMENTS} pairs of ${SEGMENT_MS / 1000} s, round its first 2 skills):`,
      );
      console.log(`  mesh of 2 skill Workers: ${s.meanA.toFixed(0)} req/s, p50 ${p50(latencies.small).toFixed(2)} ms`);
      console.log(`  mesh of ${n}: ${s.meanB.toFixed(0)} req/s, p50 ${p50(latencies.large).toFixed(2)} ms`);
      console.log(
        `  ${n}/2: median ${s.median.toFixed(3)}x of the pairs (quartiles ${s.q1.toFixed(3)}–${s.q3.toFixed(3)})   (target: cost within 1.1x, i.e. >= 0.91x)`,
      );
      console.log(
        `  workerd resident memory: ${(memory.small / 2 ** 20).toFixed(0)} MiB (2 skill Workers), ${(memory.large / 2 ** 20).toFixed(0)} MiB (${n}): ${((memory.large - memory.small) / (n - 2) / 2 ** 20).toFixed(2)} MiB per skill Worker`,
      );
      console.log(
        `  the same calls round all ${n} skills: ${all.rps.toFixed(0)} req/s, p50 ${p50(all.latencies).toFixed(2)} ms (each isolate gets 1/${n} of the calls: cold caches, code not yet optimised)`,
      );
    } finally {
      await large.mesh.dispose();
    }
  } finally {
    await small.mesh.dispose();
  }
}
