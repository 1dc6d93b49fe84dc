/**
 * `npm run bench -- --guardrail-cost [--rounds N]`: what the content path's secrets guardrail costs
 * one call, by the size of what it reads — a tool's answer of 1 KiB, 64 KiB, 256 KiB, 1 MiB and
 * 4 MiB (text and JSON, as tools answer), clean and with a credential in it, and 64 KiB streamed by
 * an agent in 40-character chunks (the stream guard: scanned in batches, each with what it may
 * continue) — as CPU time per call in this process (V8, the engine workerd runs), the median of
 * `rounds` rounds with its quartiles, and per KiB, so that a cost that is not linear in the size shows.
 */
import { ContentPath } from "../../src/policies/content/index.js";
import type { StreamResponse } from "../../src/protocols/a2a/index.js";

const KIB = 1024;
const SIZES = [1 * KIB, 64 * KIB, 256 * KIB, 1024 * KIB, 4096 * KIB];
const TOKEN = `ghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;
const PROSE = "Solar panels turn sunlight into electricity; the meter at 10.0.0.7 read 4.2 kWh at 12:00 UTC. ";

/** A tool result of about `bytes`: half prose, half rows of JSON data, as a tool answers. */
function answerOf(bytes: number, secret: boolean): unknown {
  const prose = PROSE.repeat(Math.ceil(bytes / 2 / PROSE.length)).slice(0, bytes / 2);
  const rows = Array.from({ length: Math.ceil(bytes / 2 / 64) }, (_, i) => ({ id: i, meter: `m-${i}`, kwh: i * 0.1, at: "2026-12-05T12:00:00Z" }));
  return {
    content: [{ type: "text", text: secret ? `${prose.slice(0, -60)} token: ${TOKEN}` : prose }],
    structuredContent: { rows },
  };
}

/** CPU microseconds of `run`, `times` times over, per run. */
async function cpuPerRun(run: () => Promise<unknown>, times: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < times; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / times;
}

const quartiles = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))]!;
  return { q1: at(0.25), median: at(0.5), q3: at(0.75) };
};

/** Runs the rounds and prints the table. */
export async function runGuardrailCost(rounds: number): Promise<void> {
  console.log(`The secrets guardrail on the content path, CPU per call (this process, ${rounds} rounds: median, quartiles)\n`);
  console.log(`${"what".padEnd(44)}${"µs/call".padStart(12)}${"q1–q3".padStart(20)}${"µs/KiB".padStart(10)}`);
  const rows: Array<{ what: string; bytes: number; run: () => Promise<unknown> }> = [];
  for (const bytes of SIZES) {
    for (const secret of [false, true]) {
      const answer = { ok: true as const, result: answerOf(bytes, secret) };
      rows.push({
        what: `answer ${bytes / KIB} KiB${secret ? ", a credential in it" : ", clean"}`,
        bytes,
        run: () => new ContentPath("redact").answer(answer),
      });
    }
    const off = { ok: true as const, result: answerOf(bytes, false) };
    rows.push({ what: `answer ${bytes / KIB} KiB, guardrail off`, bytes, run: () => new ContentPath("off").answer(off) });
  }
  const streamed = PROSE.repeat(Math.ceil((64 * KIB) / PROSE.length)).slice(0, 64 * KIB);
  const chunks: StreamResponse[] = (streamed.match(/[\s\S]{1,40}/g) ?? []).map((text, i) => ({
    artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [{ text }] }, append: i > 0 },
  }));
  rows.push({
    what: `an agent's 64 KiB stream, ${chunks.length} chunks of 40`,
    bytes: 64 * KIB,
    run: async () => {
      const path = new ContentPath("redact");
      const relays = path.relays({ onAgentEvent: () => {} })!;
      for (const chunk of chunks) relays.onAgentEvent!(chunk);
      return path.answer({ ok: true, result: {} });
    },
  });
  for (const row of rows) {
    const times = Math.max(1, Math.round((256 * KIB) / row.bytes));
    await cpuPerRun(row.run, Math.min(times, 4)); // warm
    const samples: number[] = [];
    for (let i = 0; i < rounds; i++) samples.push(await cpuPerRun(row.run, times));
    const { q1, median, q3 } = quartiles(samples);
    console.log(
      `${row.what.padEnd(44)}${median.toFixed(0).padStart(12)}${`${q1.toFixed(0)}–${q3.toFixed(0)}`.padStart(20)}${(median / (row.bytes / KIB)).toFixed(1).padStart(10)}`,
    );
  }
}
