/**
 * `npm run bench -- --code-mode [--rounds N]`: code mode against direct tool calls, on the local
 * mesh (auth off, the shipped skills and two of the bench's own: meter.readings, whose answer is
 * large, and report.save).
 *
 * Tokens (o200k_base, js-tiktoken): what passes through a model's context for two tasks, done with
 * direct tool calls (every tool definition of `tools/list`, each call's arguments as the model
 * writes them, each result's content as the model reads it) and in code mode (code mode's
 * `tools/list`, the searches and describes, the script, its result) — from the gateway's real
 * answers, no model needed:
 *   data-heavy  read 14 days of a meter's readings (1,344 rows), keep the faults, save them as a report
 *   fan-out     decode 200 Modbus frames, keep the faulty ones
 *
 * Time, in N rounds, each side in turn (paired: the ratios per round, median and quartiles):
 *   isolate     an empty script (`async () => 1`) end to end: a fresh isolate and the chain around it
 *   inner call  one tool call made by a script (a script of 100 sequential calls less an empty one,
 *               over 100) against the same call on `/rpc` from this process, one at a time
 *   fan-out     one script decoding 200 frames (Promise.all) against 200 sequential `/rpc` calls
 * CPU: the mesh's workerd processes (gateway, sandboxes and skills), per execution and per call.
 */
import { join } from "node:path";
import { ROOT, skillDirs } from "../mesh/bundle.js";
import { type Mesh, startMesh } from "../mesh/index.js";
import { cpuMsOfAll, withWorkerdPids } from "./cpu.js";
import { pairedSummary } from "./compare.js";
import { tokensOf } from "./tokens.js";

/** Modbus CRC-16 (polynomial 0xA001), low byte first, as the frame carries it. */
function crcOf(bytes: number[]): [number, number] {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >> 1) ^ 0xa001 : crc >> 1;
  }
  return [crc & 0xff, crc >> 8];
}

/** 200 read-holding-registers answers, every 7th with a CRC that does not match. */
export function framesOf(count = 200): string[] {
  return Array.from({ length: count }, (_, i) => {
    const body = [1 + (i % 4), 3, 2, (i >> 8) & 0xff, i & 0xff];
    const [lo, hi] = crcOf(body);
    const crc = i % 7 === 3 ? [lo ^ 0xff, hi] : [lo, hi];
    return [...body, ...crc].map((b) => b.toString(16).padStart(2, "0").toUpperCase()).join(" ");
  });
}

async function rpc(mesh: Mesh, method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const response = await fetch(`${mesh.gatewayUrl}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

/** An MCP request as a 2025-11-25 client sends it, on `path`; its result. */
async function mcp(mesh: Mesh, method: string, params: unknown, path = "/mcp"): Promise<Record<string, unknown>> {
  const response = await fetch(`${mesh.gatewayUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (!body.result) throw new Error(`${method} on ${path}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/** What a model reads of a tool result: its content's text. */
const readOf = (result: Record<string, unknown>) => ((result.content as Array<{ text?: string }>) ?? []).map((c) => c.text ?? "").join("\n");

/** Every page of `tools/list`, as a model gets the definitions. */
async function allTools(mesh: Mesh, path = "/mcp"): Promise<unknown[]> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = await mcp(mesh, "tools/list", cursor ? { cursor } : {}, path);
    tools.push(...(page.tools as unknown[]));
    cursor = page.nextCursor as string | undefined;
  } while (cursor);
  return tools;
}

interface Tally {
  parts: Array<[string, number]>;
  total: number;
}
const tally = (parts: Array<[string, string]>): Tally => {
  const counted = parts.map(([what, text]) => [what, tokensOf(text)] as [string, number]);
  return { parts: counted, total: counted.reduce((sum, [, n]) => sum + n, 0) };
};

const DATA_SCRIPT = `async () => {
  const { readings } = await meter.readings({ meter: "m-17", days: 14 });
  const faults = readings.filter((r) => r.status === "fault");
  const saved = await report.save({ title: "Faults of m-17, last 14 days", rows: faults });
  return { faults: faults.length, report: saved.id };
}`;
const fanOutScript = (frames: string[]) => `async () => {
  const frames = ${JSON.stringify(frames)};
  const decoded = await Promise.all(frames.map((frame) => modbus.decode({ frame })));
  return decoded.flatMap((d, i) => (d.valid ? [] : [{ i, problems: d.problems }]));
}`;

/** The tokens of both tasks, each way. */
async function tokenTables(mesh: Mesh, frames: string[]): Promise<void> {
  const definitions = JSON.stringify(await allTools(mesh));
  const codeDefinitions = JSON.stringify(await allTools(mesh, "/mcp?catalog=code"));
  const call = async (name: string, args: Record<string, unknown>, path = "/mcp") => mcp(mesh, "tools/call", { name, arguments: args }, path);

  // Data-heavy, direct: the model reads every reading, then writes the faults as the report's rows.
  const readArgs = { meter: "m-17", days: 14 };
  const read = await call("meter.readings", readArgs);
  const rows = (read.structuredContent as { readings: Array<{ status: string }> }).readings.filter((r) => r.status === "fault");
  const saveArgs = { title: "Faults of m-17, last 14 days", rows };
  const saved = await call("report.save", saveArgs);
  const directData = tally([
    ["tool definitions (tools/list)", definitions],
    ["meter.readings: arguments", JSON.stringify(readArgs)],
    ["meter.readings: result", readOf(read)],
    ["report.save: arguments (the faults)", JSON.stringify(saveArgs)],
    ["report.save: result", readOf(saved)],
  ]);
  // Data-heavy, code mode.
  const code = "/mcp?catalog=code";
  const searches = [
    { query: "meter readings energy", limit: 3 },
    { query: "save a report", limit: 3 },
  ];
  const searched = await Promise.all(searches.map((args) => call("catalog.search", args, code)));
  const described = await Promise.all(["meter.readings", "report.save"].map((name) => call("catalog.describe", { name }, code)));
  const ran = await call("code.execute", { code: DATA_SCRIPT }, code);
  if (ran.isError) throw new Error(`the data-heavy script failed: ${readOf(ran)}`);
  const codeData = tally([
    ["tool definitions (code mode's tools/list)", codeDefinitions],
    ["catalog.search ×2: arguments and results", searches.map((s, i) => JSON.stringify(s) + readOf(searched[i]!)).join("\n")],
    ["catalog.describe ×2: results", described.map(readOf).join("\n")],
    ["the script", DATA_SCRIPT],
    ["code.execute: result", readOf(ran)],
  ]);

  // Fan-out, direct: 200 calls, each argument written and each result read.
  const decodes = await Promise.all(frames.map((frame) => call("modbus.decode", { frame })));
  const directFan = tally([
    ["tool definitions (tools/list)", definitions],
    ["modbus.decode ×200: arguments", frames.map((frame) => JSON.stringify({ frame })).join("\n")],
    ["modbus.decode ×200: results", decodes.map(readOf).join("\n")],
  ]);
  const script = fanOutScript(frames);
  const fanSearch = await call("catalog.search", { query: "decode a modbus frame", limit: 3 }, code);
  const fanDescribe = await call("catalog.describe", { name: "modbus.decode" }, code);
  const fanRan = await call("code.execute", { code: script }, code);
  if (fanRan.isError) throw new Error(`the fan-out script failed: ${readOf(fanRan)}`);
  const codeFan = tally([
    ["tool definitions (code mode's tools/list)", codeDefinitions],
    ["catalog.search: arguments and result", JSON.stringify({ query: "decode a modbus frame", limit: 3 }) + readOf(fanSearch)],
    ["catalog.describe: result", readOf(fanDescribe)],
    ["the script (the 200 frames in it)", script],
    ["code.execute: result", readOf(fanRan)],
  ]);

  const print = (task: string, direct: Tally, viaCode: Tally) => {
    console.log(`\n${task}`);
    for (const [what, n] of direct.parts) console.log(`  direct  ${what.padEnd(46)}${String(n).padStart(9)}`);
    console.log(`  direct  ${"total".padEnd(46)}${String(direct.total).padStart(9)}`);
    for (const [what, n] of viaCode.parts) console.log(`  code    ${what.padEnd(46)}${String(n).padStart(9)}`);
    console.log(`  code    ${"total".padEnd(46)}${String(viaCode.total).padStart(9)}`);
    console.log(`  code mode: ${(100 * (1 - viaCode.total / direct.total)).toFixed(1)}% fewer tokens (${(direct.total / viaCode.total).toFixed(1)}x)`);
  };
  console.log("Tokens through the model's context (o200k_base)");
  print(
    `data-heavy: ${rows.length} faults of ${(read.structuredContent as { readings: unknown[] }).readings.length} readings, saved as a report`,
    directData,
    codeData,
  );
  print(`fan-out: ${frames.length} frames decoded, the faulty ones kept`, directFan, codeFan);
}

/** Milliseconds of one run of `work`. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const percentile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))]!;
};

/** Runs the rounds and prints the tables. */
export async function runCodeMode(options: { rounds: number }): Promise<void> {
  const { started: mesh, pids } = await withWorkerdPids(() =>
    startMesh({
      skills: [...skillDirs(), join(ROOT, "scripts/bench/meter-readings"), join(ROOT, "scripts/bench/report-save")],
      adminToken: "bench-code-mode-admin-token",
      gatewayVars: { SKILLMESH_CODE_MODE_RATE: "1000000/min", SKILLMESH_CODE_MODE_AT_ONCE: "100" },
    }),
  );
  try {
    const frames = framesOf(200);
    await tokenTables(mesh, frames);

    const execute = async (code: string) => {
      const answer = await rpc(mesh, "code.execute", { code });
      if (answer.error) throw new Error(`code.execute: ${answer.error.message}`);
    };
    const EMPTY = "async () => 1";
    const SEQUENTIAL = `async () => { for (let i = 0; i < 100; i++) await modbus.decode({ frame: "${frames[0]}" }); return 1; }`;
    const fanOut = fanOutScript(frames);
    const direct = async () => {
      const answer = await rpc(mesh, "modbus.decode", { frame: frames[0] });
      if (answer.error) throw new Error(answer.error.message);
    };
    // Warm the isolates (the gateway's, the skill's) and the registry.
    for (let i = 0; i < 20; i++) await direct();
    for (let i = 0; i < 5; i++) await execute(EMPTY);
    await execute(SEQUENTIAL);

    const empties: number[] = [];
    const directs: number[] = [];
    const innerPairs: Array<[number, number]> = [];
    const fanPairs: Array<[number, number]> = [];
    const cpu = { fanOut: 0, fanOutRuns: 0, direct200: 0, direct200Runs: 0, empty: 0, emptyRuns: 0 };
    console.log(`\nTime: ${options.rounds} rounds, each side in turn`);
    for (let round = 0; round < options.rounds; round++) {
      // An empty script: its end-to-end time, 20 of them.
      let before = cpuMsOfAll(pids);
      const roundEmpties: number[] = [];
      for (let i = 0; i < 20; i++) roundEmpties.push(await timed(() => execute(EMPTY)));
      cpu.empty += cpuMsOfAll(pids) - before;
      cpu.emptyRuns += 20;
      empties.push(...roundEmpties);
      // One inner call (100 in a script, less an empty script) against one /rpc call (100 of them, one at a time).
      const sequential = await timed(() => execute(SEQUENTIAL));
      const roundDirects: number[] = [];
      for (let i = 0; i < 100; i++) roundDirects.push(await timed(direct));
      directs.push(...roundDirects);
      const inner = (sequential - percentile(roundEmpties, 0.5)) / 100;
      const perDirect = roundDirects.reduce((a, b) => a + b, 0) / roundDirects.length;
      innerPairs.push([perDirect, inner]);
      // The fan-out: one script against 200 sequential /rpc calls, with their CPU.
      before = cpuMsOfAll(pids);
      const fan = await timed(() => execute(fanOut));
      cpu.fanOut += cpuMsOfAll(pids) - before;
      cpu.fanOutRuns++;
      before = cpuMsOfAll(pids);
      const sequential200 = await timed(async () => {
        for (const frame of frames) await rpc(mesh, "modbus.decode", { frame });
      });
      cpu.direct200 += cpuMsOfAll(pids) - before;
      cpu.direct200Runs++;
      fanPairs.push([sequential200, fan]);
      console.log(
        `  round ${round + 1}: empty script p50 ${percentile(roundEmpties, 0.5).toFixed(1)} ms, inner call ${inner.toFixed(2)} ms vs /rpc ${perDirect.toFixed(2)} ms, fan-out ${fan.toFixed(0)} ms vs 200 calls ${sequential200.toFixed(0)} ms`,
      );
    }
    const inner = pairedSummary(innerPairs);
    const fan = pairedSummary(fanPairs);
    console.log(
      `\nAn empty script end to end (a fresh isolate and the chain): p50 ${percentile(empties, 0.5).toFixed(1)} ms, p99 ${percentile(empties, 0.99).toFixed(1)} ms`,
    );
    console.log(
      `  (a direct /rpc call of modbus.decode, for scale: p50 ${percentile(directs, 0.5).toFixed(2)} ms, p99 ${percentile(directs, 0.99).toFixed(2)} ms)`,
    );
    console.log(
      `An inner call / a direct /rpc call: median ${inner.median.toFixed(3)}x (quartiles ${inner.q1.toFixed(3)}–${inner.q3.toFixed(3)}); means ${inner.meanB.toFixed(2)} vs ${inner.meanA.toFixed(2)} ms   (aim <= 1.0x)`,
    );
    console.log(
      `The fan-out script / 200 sequential /rpc calls: median ${fan.median.toFixed(3)}x of the time (quartiles ${fan.q1.toFixed(3)}–${fan.q3.toFixed(3)}); means ${fan.meanB.toFixed(0)} vs ${fan.meanA.toFixed(0)} ms`,
    );
    console.log(
      `CPU (the mesh's workerd: gateway, sandboxes, skills): an empty script ${(cpu.empty / cpu.emptyRuns).toFixed(2)} ms; the fan-out script ${(cpu.fanOut / cpu.fanOutRuns).toFixed(0)} ms (${((cpu.fanOut / cpu.fanOutRuns / 200) * 1000).toFixed(0)} µs per decode) vs 200 /rpc calls ${(cpu.direct200 / cpu.direct200Runs).toFixed(0)} ms (${((cpu.direct200 / cpu.direct200Runs / 200) * 1000).toFixed(0)} µs per call)`,
    );
  } finally {
    await mesh.dispose();
  }
}
