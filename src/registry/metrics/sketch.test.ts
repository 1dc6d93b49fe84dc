import { describe, expect, it } from "vitest";
import { SKETCH_RELATIVE_ERROR, type Sketch, addLatency, addSketch, quantileOf, sketchBucket, sketchMinus } from "./sketch.js";

/** A small seeded generator (mulberry32): the same latencies on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** Latencies shaped like calls: log-normal around `medianMs`. */
function latencies(n: number, medianMs: number, seed: number): number[] {
  const next = random(seed);
  return Array.from({ length: n }, () => medianMs * Math.exp(0.6 * Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next())));
}
const sketchOf = (values: number[]) => {
  const sketch: Sketch = {};
  for (const ms of values) addLatency(sketch, ms);
  return sketch;
};
const exact = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]!;

describe("the latency sketch", () => {
  it("reads every quantile within its relative error, from 0.1 ms to minutes", () => {
    for (const [seed, median] of [
      [1, 0.3],
      [2, 4],
      [3, 95],
      [4, 1_200],
      [5, 90_000],
    ] as const) {
      const values = latencies(2_000, median, seed);
      const sketch = sketchOf(values);
      for (const q of [0, 0.5, 0.9, 0.95, 0.99, 1]) {
        expect(Math.abs(quantileOf(sketch, q)! / exact(values, q) - 1), `q${q} of a ${median} ms median`).toBeLessThanOrEqual(SKETCH_RELATIVE_ERROR + 1e-9);
      }
    }
  });

  it("two versions with the same latencies never differ by more than the error bound, however the calls are split", () => {
    const values = latencies(1_000, 100, 7);
    const stable = sketchOf(values);
    // The canary sees the same latencies in another order, written by four isolates and added up.
    const canary: Sketch = {};
    for (let i = 0; i < 4; i++) addSketch(canary, sketchOf(values.filter((_, n) => n % 4 === i).reverse()));
    const bound = (1 + SKETCH_RELATIVE_ERROR) / (1 - SKETCH_RELATIVE_ERROR);
    for (const q of [0.5, 0.95]) {
      const ratio = quantileOf(canary, q)! / quantileOf(stable, q)!;
      expect(ratio).toBeLessThanOrEqual(bound);
      expect(ratio).toBeGreaterThanOrEqual(1 / bound);
    }
    // 95 ms against 105 ms — 1.1×, where fixed 5/10/25/50/100/250 ms buckets said 100 against 250.
    const p95 = (ms: number) => quantileOf(sketchOf(Array.from({ length: 100 }, () => ms)), 0.95)!;
    expect(p95(105) / p95(95)).toBeLessThan(1.1 * bound);
  });

  it("subtracts bucket by bucket, never below zero", () => {
    expect(sketchMinus({ [sketchBucket(5)]: 3, [sketchBucket(50)]: 1 }, { [sketchBucket(5)]: 5 })).toEqual({ [sketchBucket(50)]: 1 });
  });

  it("keeps 0 ms, NaN and hours in bounded buckets", () => {
    expect(sketchBucket(0)).toBe("0");
    expect(sketchBucket(Number.NaN)).toBe("0");
    expect(sketchBucket(10 * 3_600_000)).toBe(sketchBucket(3_600_000));
    expect(Number(sketchBucket(3_600_000))).toBeLessThan(10_000);
    expect(quantileOf({}, 0.5)).toBeUndefined();
    expect(quantileOf({ "0": 4 }, 0.95)).toBe(0);
  });
});
