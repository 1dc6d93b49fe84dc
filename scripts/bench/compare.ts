/**
 * `npm run bench -- --compare REV [--pairs N] [--seconds N] [--route mcp]`: the gateway as it is in
 * the working tree against the gateway at git revision REV, side by side, on the trivial call (on
 * `/rpc`, or as an MCP `tools/call` on `/mcp`). This machine's speed drifts by more
 * than most single cuts are worth (±10% between runs of one build), so a before/after measured
 * one after the other says little. Here both gateways run at once, each in its own mesh (its own
 * workerd, with the trivial skill), and wrk alternates between them in short runs: each pair of
 * runs sees the same machine, and the ratio of a pair cancels the drift. `--trivial` pairs the
 * same way the gateway with the bare hop, in one mesh: the hot path's aim, measured alone.
 */
import { execFile } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../mesh/bundle.js";
import type { Mesh } from "../mesh/index.js";
import { type Side, empty, load, summary } from "./load.js";
import { type TrivialRoute, startTrivialMesh } from "./trivial.js";
import { hasWrk, wrkSides } from "./wrk.js";
import { cpuMsOf, withWorkerdPids } from "./cpu.js";
import { startA2aAgent } from "../a2a-agent.js";

const run = promisify(execFile);

/** What paired runs of two sides say: the per-pair ratio b/a (median and quartiles) and each side's mean. */
export interface PairedSummary {
  median: number;
  q1: number;
  q3: number;
  meanA: number;
  meanB: number;
}

/**
 * Sums up paired measurements `[a, b]` (requests per second of each side in one pair of runs).
 * @example pairedSummary([[100, 110], [90, 99]]).median // 1.1
 */
export function pairedSummary(pairs: ReadonlyArray<readonly [number, number]>): PairedSummary {
  if (!pairs.length) throw new Error("no pairs to sum up");
  const ratios = pairs.map(([a, b]) => b / a).sort((x, y) => x - y);
  // Linear interpolation between the closest ranks, as most statistics tools do.
  const quantile = (q: number) => {
    const at = q * (ratios.length - 1);
    const low = Math.floor(at);
    return ratios[low]! + (ratios[Math.min(low + 1, ratios.length - 1)]! - ratios[low]!) * (at - low);
  };
  const mean = (i: 0 | 1) => pairs.reduce((sum, pair) => sum + pair[i], 0) / pairs.length;
  return { median: quantile(0.5), q1: quantile(0.25), q3: quantile(0.75), meanA: mean(0), meanB: mean(1) };
}

/**
 * Runs sides `a` and `b` under wrk (-t1 -c16) in `pairs` pairs of `seconds`-long runs, after a
 * warm-up, alternating which goes first so that a drift within a pair favours neither; prints
 * each pair's b/a and sums them up.
 * @example const s = await pairedRuns(bare, gateway, { pairs: 16, seconds: 2 }); s.median
 */
export async function pairedRuns(a: Side, b: Side, options: { pairs: number; seconds: number }): Promise<PairedSummary> {
  return pairedSummary(await throughputPairs(a, b, options));
}

/** The pairs `pairedRuns` sums up: requests per second of `a` and of `b` in each pair of runs. */
async function throughputPairs(a: Side, b: Side, options: { pairs: number; seconds: number }): Promise<Array<[number, number]>> {
  const measure = (sides: Side[], seconds: number) => wrkSides(sides, { seconds, segments: 1, connections: 16 });
  await measure([a, b], 1); // warm both
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < options.pairs; i++) {
    const rps = await measure(i % 2 ? [b, a] : [a, b], options.seconds);
    pairs.push([rps.get(a.name)!, rps.get(b.name)!]);
    console.log(`  pair ${i + 1}/${options.pairs}: ${(pairs[i]![1] / pairs[i]![0]).toFixed(3)}`);
  }
  return pairs;
}

/**
 * CPU per call of two sides (the pairs of it), each served by its own workerd (`pids`), in `pairs` pairs of
 * `seconds`-long wrk runs, alternating which goes first: the milliseconds the process used over
 * the run, divided by the calls it answered (what a Worker is billed and limited by; it swings
 * less on a busy machine than throughput). Both processes run every Worker of their mesh (the
 * gateway and the skill or upstream it calls).
 */
export async function pairedCpu(
  a: Side,
  b: Side,
  pids: readonly [number, number],
  options: { pairs: number; seconds: number },
): Promise<Array<[number, number]>> {
  const cpuPerCall = async (side: Side, pid: number) => {
    const before = cpuMsOf(pid);
    const rps = (await wrkSides([side], { seconds: options.seconds, segments: 1, connections: 16 })).get(side.name)!;
    return ((cpuMsOf(pid) - before) * 1000) / (rps * options.seconds);
  };
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < options.pairs; i++) {
    const [first, second] = i % 2 ? [1, 0] : [0, 1];
    const sides = [a, b] as const;
    const measured: [number, number] = [0, 0];
    measured[first] = await cpuPerCall(sides[first]!, pids[first]!);
    measured[second] = await cpuPerCall(sides[second]!, pids[second]!);
    pairs.push(measured);
    console.log(
      `  pair ${i + 1}/${options.pairs}: ${measured[0].toFixed(0)} µs vs ${measured[1].toFixed(0)} µs CPU a call (${(measured[1] / measured[0]).toFixed(3)})`,
    );
  }
  return pairs;
}

/**
 * Compares the working tree's gateway with the one at `rev` on the trivial call (on `route`), in
 * `pairs` alternating pairs of `seconds`-long wrk runs, then in as many pairs of CPU per call. With
 * `meshRounds` above 1 it does so that many times, each round with two new meshes started in the
 * other order: on two cores one mesh can be luckier than the other for its whole life (the same
 * revision against itself has read 1.6x on the federated route), and new meshes each round spread
 * that luck over both sides. Every pair of every round is summed up together.
 */
export async function runCompare(rev: string, options: { pairs: number; seconds: number; route: TrivialRoute; meshRounds?: number }): Promise<void> {
  if (!(await hasWrk())) throw new Error("--compare needs wrk as the load generator: apt-get install -y wrk");
  const commit = (
    await run("git", ["-C", ROOT, "rev-parse", "--verify", `${rev}^{commit}`]).catch(() => {
      throw new Error(`--compare: ${rev} is not a commit of this repository`);
    })
  ).stdout.trim();
  // The other revision's files in a worktree, with this checkout's packages (its bundle is cached by content).
  const worktree = join(ROOT, ".skillmesh/compare", commit.slice(0, 12));
  if (existsSync(worktree)) await run("git", ["-C", ROOT, "worktree", "remove", "--force", worktree]);
  await run("git", ["-C", ROOT, "worktree", "add", "--detach", worktree, commit]);
  symlinkSync(join(ROOT, "node_modules"), join(worktree, "node_modules"));
  const rounds = Math.max(1, options.meshRounds ?? 1);
  const throughput: Array<[number, number]> = [];
  const cpu: Array<[number, number]> = [];
  try {
    for (let round = 0; round < rounds; round++) {
      console.log(`${rounds > 1 ? `Round ${round + 1}/${rounds}: s` : "S"}tarting a mesh for each gateway (bundles cached after the first run) …`);
      const meshes: Mesh[] = [];
      try {
        // Each mesh's workerd, told apart by when it started; the order alternates between rounds.
        const start = async (which: "before" | "after") => {
          const { started: trivial, pids } = await withWorkerdPids(() =>
            which === "before" ?
              startTrivialMesh(rev, { gateway: worktree, route: options.route })
            : startTrivialMesh("working tree", { route: options.route }),
          );
          meshes.push(trivial.mesh);
          return { ...trivial, pids };
        };
        const first = await start(round % 2 ? "after" : "before");
        const second = await start(round % 2 ? "before" : "after");
        const [before, after] = round % 2 ? [second, first] : [first, second];
        throughput.push(...(await throughputPairs(before.side, after.side, options)));
        if (before.pids.length === 1 && after.pids.length === 1)
          cpu.push(...(await pairedCpu(before.side, after.side, [before.pids[0]!, after.pids[0]!], options)));
      } finally {
        await Promise.all(meshes.map((mesh) => mesh.dispose()));
      }
    }
    const s = pairedSummary(throughput);
    const runs = `${rounds > 1 ? `${rounds} rounds of ` : ""}${options.pairs} pairs of ${options.seconds} s runs`;
    console.log(`\nThe trivial call through the gateway's /${options.route} (wrk -t1 -c16, ${runs}):`);
    console.log(`  ${rev} (${commit.slice(0, 12)}): ${s.meanA.toFixed(0)} req/s   working tree: ${s.meanB.toFixed(0)} req/s`);
    console.log(`  working tree / ${rev}: median ${s.median.toFixed(3)}x of the pairs (quartiles ${s.q1.toFixed(3)}–${s.q3.toFixed(3)})`);
    if (cpu.length) {
      const c = pairedSummary(cpu);
      console.log(`CPU per call of each mesh's workerd (the gateway and the Worker it calls, from /proc over each run):`);
      console.log(`  ${rev}: ${c.meanA.toFixed(0)} µs a call   working tree: ${c.meanB.toFixed(0)} µs a call`);
      console.log(`  working tree / ${rev}: median ${c.median.toFixed(3)}x the CPU of the pairs (quartiles ${c.q1.toFixed(3)}–${c.q3.toFixed(3)})`);
    }
  } finally {
    await run("git", ["-C", ROOT, "worktree", "remove", "--force", worktree]);
  }
}

/**
 * `npm run bench -- --trivial [--pairs N] [--seconds N]`: the issue's aim for the hot path, the
 * trivial call through the gateway against the bare pass-through Worker, both in one workerd, as
 * the median of paired wrk runs (the full bench's three segments swing by ±5% between runs).
 */
export async function runTrivialRatio(options: { pairs: number; seconds: number }): Promise<void> {
  if (!(await hasWrk())) throw new Error("--trivial needs wrk as the load generator: apt-get install -y wrk");
  console.log("Bundling (cached after the first run) and starting the mesh …");
  const { mesh, side, bare } = await startTrivialMesh("trivial-gateway", { bareHop: true });
  try {
    const s = await pairedRuns(bare, side, options);
    console.log(
      `\nThe trivial call (wrk -t1 -c16, ${options.pairs} pairs of ${options.seconds} s runs): bare hop ${s.meanA.toFixed(0)} req/s, gateway ${s.meanB.toFixed(0)} req/s`,
    );
    console.log(`  gateway/bare hop: median ${s.median.toFixed(3)}x of the pairs (quartiles ${s.q1.toFixed(3)}–${s.q3.toFixed(3)})   (target >= 0.80x)`);
  } finally {
    await mesh.dispose();
  }
}

/**
 * `npm run bench -- --dispatch [--pairs N] [--seconds N]`: the trivial call through the gateway to
 * the skill in its dispatch namespace (the local one: the runtime's Worker Loader, src/federation/dispatch/local.ts)
 * against the same call over a service binding, each in its own mesh, as the median of paired wrk
 * runs; then the p50 each takes one call at a time.
 */
export async function runDispatchRatio(options: { pairs: number; seconds: number }): Promise<void> {
  if (!(await hasWrk())) throw new Error("--dispatch needs wrk as the load generator: apt-get install -y wrk");
  console.log("Bundling (cached after the first run) and starting a mesh for each …");
  const bound = await startTrivialMesh("service-binding");
  try {
    const dispatched = await startTrivialMesh("dispatched", { dispatched: true });
    try {
      const s = await pairedRuns(bound.side, dispatched.side, options);
      const [boundP50, dispatchedP50] = [await p50Of(bound.side, options.seconds), await p50Of(dispatched.side, options.seconds)];
      console.log(
        `\nThe trivial call (wrk -t1 -c16, ${options.pairs} pairs of ${options.seconds} s runs): over a service binding ${s.meanA.toFixed(0)} req/s, dispatched ${s.meanB.toFixed(0)} req/s`,
      );
      console.log(
        `  dispatched/service binding: median ${s.median.toFixed(3)}x of the pairs (quartiles ${s.q1.toFixed(3)}–${s.q3.toFixed(3)})   (target >= 0.90x)`,
      );
      console.log(
        `  one call at a time, p50: service binding ${boundP50.toFixed(2)} ms, dispatched ${dispatchedP50.toFixed(2)} ms (${dispatchedP50 - boundP50 >= 0 ? "+" : ""}${(dispatchedP50 - boundP50).toFixed(2)} ms)`,
      );
    } finally {
      await dispatched.mesh.dispose();
    }
  } finally {
    await bound.mesh.dispose();
  }
}

/**
 * `npm run bench -- --guardrails [--pairs N] [--seconds N]`: what the secrets guardrail costs a
 * call. The trivial MCP `tools/call` through two virtual servers of one mesh, alike but for the
 * guardrail (`{secrets: "redact"}`: the arguments and the answer scanned), as the median of paired
 * wrk runs; then the p50 each takes one call at a time.
 */
export async function runGuardrailsCost(options: { pairs: number; seconds: number }): Promise<void> {
  if (!(await hasWrk())) throw new Error("--guardrails needs wrk as the load generator: apt-get install -y wrk");
  console.log("Bundling (cached after the first run) and starting the mesh …");
  const servers = { plain: { tools: ["subtract"] }, guarded: { tools: ["subtract"], guardrails: { secrets: "redact" } } };
  const { mesh, side } = await startTrivialMesh("guardrails", { route: "mcp", servers });
  try {
    const through = (server: string): Side => ({ ...side, name: server, url: `${side.url}/${server}` });
    const [plain, guarded] = [through("plain"), through("guarded")];
    const s = await pairedRuns(plain, guarded, options);
    const [plainP50, guardedP50] = [await p50Of(plain, options.seconds), await p50Of(guarded, options.seconds)];
    console.log(
      `\nThe trivial MCP call (wrk -t1 -c16, ${options.pairs} pairs of ${options.seconds} s runs): guardrail off ${s.meanA.toFixed(0)} req/s, secrets redacted ${s.meanB.toFixed(0)} req/s`,
    );
    console.log(`  redact/off: median ${s.median.toFixed(3)}x of the pairs (quartiles ${s.q1.toFixed(3)}–${s.q3.toFixed(3)})`);
    console.log(
      `  one call at a time, p50: off ${plainP50.toFixed(2)} ms, redact ${guardedP50.toFixed(2)} ms (${guardedP50 - plainP50 >= 0 ? "+" : ""}${(guardedP50 - plainP50).toFixed(2)} ms)`,
    );
  } finally {
    await mesh.dispose();
  }
}

/**
 * `npm run bench -- --a2a [--pairs N] [--seconds N]`: what the gateway costs an A2A call. The
 * SDK-made agent (scripts/a2a-agent.ts) answers `SendMessage` directly, and through the gateway's
 * A2A door (`/a2a/<agent>`: the card's skill a tool of the one call chain, the agent's task
 * remembered as the caller's), as the median of paired wrk runs; then the p50 each takes one call
 * at a time.
 */
export async function runA2aCost(options: { pairs: number; seconds: number }): Promise<void> {
  if (!(await hasWrk())) throw new Error("--a2a needs wrk as the load generator: apt-get install -y wrk");
  console.log("Bundling (cached after the first run) and starting the mesh and the agent …");
  const agent = await startA2aAgent("bench", "1.0.0");
  try {
    const { mesh, side } = await startTrivialMesh("a2a", { upstreams: [{ kind: "a2a", name: "bench", url: agent.url }] });
    try {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hello" }], metadata: { skillId: "summarize" } } },
      });
      const a2aHeaders = { "a2a-version": "1.0" };
      const direct: Side = { name: "direct", url: `${agent.url}/a2a`, body, headers: () => a2aHeaders };
      const gateway: Side = { name: "gateway", url: `${mesh.gatewayUrl}/a2a/bench`, body, headers: () => ({ ...side.headers(), ...a2aHeaders }) };
      // wrk counts any 200, and an error is a 200 in JSON-RPC: each side must answer the task first.
      for (const one of [direct, gateway]) {
        const answer = (await (await fetch(one.url, { method: "POST", headers: { "content-type": "application/json", ...one.headers() }, body })).json()) as {
          result?: { task?: { status?: { state?: string } } };
        };
        if (answer.result?.task?.status?.state !== "TASK_STATE_COMPLETED")
          throw new Error(`${one.name} did not answer the task: ${JSON.stringify(answer).slice(0, 300)}`);
      }
      const s = await pairedRuns(direct, gateway, options);
      const [directP50, gatewayP50] = [await p50Of(direct, options.seconds), await p50Of(gateway, options.seconds)];
      console.log(
        `\nSendMessage (wrk -t1 -c16, ${options.pairs} pairs of ${options.seconds} s runs): the agent directly ${s.meanA.toFixed(0)} req/s, through the gateway ${s.meanB.toFixed(0)} req/s`,
      );
      console.log(`  gateway/direct: median ${s.median.toFixed(3)}x of the pairs (quartiles ${s.q1.toFixed(3)}–${s.q3.toFixed(3)})`);
      console.log(
        `  one call at a time, p50: direct ${directP50.toFixed(2)} ms, through the gateway ${gatewayP50.toFixed(2)} ms (${gatewayP50 - directP50 >= 0 ? "+" : ""}${(gatewayP50 - directP50).toFixed(2)} ms)`,
      );
    } finally {
      await mesh.dispose();
    }
  } finally {
    await agent.stop();
  }
}

/** The p50 of `side`'s calls made one at a time for `seconds`. */
async function p50Of(side: Side, seconds: number): Promise<number> {
  const sample = empty();
  await load(side, seconds * 1_000, sample, 1);
  return summary(sample).p50;
}
