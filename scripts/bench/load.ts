/** The load loop of the benchmarks: concurrent callers for a while, and what they measured. */
import { cpuMsOfAll } from "./cpu.js";

export interface Side {
  name: string;
  url: string;
  body: string;
  headers: () => Record<string, string>;
  /**
   * The next call the client makes with the previous one's result (`step` counts from 0), until it
   * answers undefined: one unit is every call, one after the other (a second call, or every page).
   */
  follow?: (result: unknown, step: number) => { url: string; body: string } | undefined;
  /**
   * The processes that serve the side's calls (a mesh's workerd runs the gateway and every Worker
   * it calls; an SDK server is a Node process of its own): their CPU over the side's runs, read
   * from /proc, divided by its calls is its CPU per call.
   */
  serving?: readonly number[];
}

export interface Sample {
  requests: number;
  errors: number;
  elapsedMs: number;
  latencies: number[];
  commands: number;
  /** The CPU milliseconds the side's serving processes used over its runs. */
  cpuMs: number;
}

export const empty = (): Sample => ({ requests: 0, errors: 0, elapsedMs: 0, latencies: [], commands: 0, cpuMs: 0 });

/** Sends the side's call from `concurrency` loops for `ms`; every answer must be a JSON-RPC result. */
export async function load(side: Side, ms: number, sample: Sample, concurrency: number): Promise<void> {
  const cpuBefore = side.serving ? cpuMsOfAll(side.serving) : 0;
  const until = performance.now() + ms;
  const started = performance.now();
  const loop = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const post = (url: string, body: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json", ...side.headers() }, body });
      let response = await post(side.url, side.body);
      let text = await response.text();
      for (let step = 0; side.follow && response.status === 200 && text.includes('"result"'); step++) {
        const next = side.follow((JSON.parse(text) as { result: unknown }).result, step);
        if (!next) break;
        response = await post(next.url, next.body);
        text = await response.text();
      }
      sample.latencies.push(performance.now() - t0);
      sample.requests++;
      if (response.status !== 200 || !text.includes('"result"')) sample.errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  sample.elapsedMs += performance.now() - started;
  if (side.serving) sample.cpuMs += cpuMsOfAll(side.serving) - cpuBefore;
}

/**
 * Adds one sample's requests into another (segments measured apart, summed up as one).
 * @example addSample(total, segment)
 */
export function addSample(into: Sample, from: Sample): void {
  into.requests += from.requests;
  into.errors += from.errors;
  into.elapsedMs += from.elapsedMs;
  into.commands += from.commands;
  into.cpuMs += from.cpuMs;
  for (const latency of from.latencies) into.latencies.push(latency);
}

/** Requests per second, p50 and p99 of a sample. */
export function summary(sample: Sample) {
  const sorted = [...sample.latencies].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return {
    requests: sample.requests,
    errors: sample.errors,
    rps: sample.requests / (sample.elapsedMs / 1000),
    p50: at(50),
    p99: at(99),
    commandsPerCall: sample.requests ? sample.commands / sample.requests : NaN,
    /** CPU microseconds per call of the side's serving processes (NaN when it names none). */
    cpuPerCallUs: sample.requests && sample.cpuMs ? (sample.cpuMs * 1000) / sample.requests : NaN,
  };
}
