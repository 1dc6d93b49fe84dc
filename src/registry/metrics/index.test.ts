import { describe, expect, it } from "vitest";
import { OTHER_CALLERS, type Tally, minus, observedOf, sumOf, withoutDeciders } from "./index.js";
import { sketchBucket } from "./sketch.js";

const sums = (calls: number, errors: number, ms = 20) => ({ calls, errors, latency: { [sketchBucket(ms)]: calls } });
function windowOf(callers: Record<string, ReturnType<typeof sums>>): Tally {
  return { ...sumOf(Object.values(callers).map((c) => ({ ...c, callers: {} }))), callers };
}

describe("withoutDeciders", () => {
  it("leaves out the caller with the most calls and the one with the most failures, never the others' sum", () => {
    const step = windowOf({ k_loud: sums(50, 0), k_failing: sums(10, 10, 900), k_a: sums(5, 0), [OTHER_CALLERS]: sums(60, 1) });
    const { window, excluded } = withoutDeciders(step);
    expect(excluded).toEqual(["k_loud", "k_failing"]);
    expect({ calls: window.calls, errors: window.errors }).toEqual({ calls: 65, errors: 1 });
    // The failing caller's slow calls are gone from the latency too.
    expect(window.latency[sketchBucket(900)]).toBeUndefined();
  });

  it("one caller alone leaves nothing to judge: it can neither sink nor carry a canary", () => {
    for (const errors of [0, 30]) {
      const { window, excluded } = withoutDeciders(windowOf({ k_only: sums(30, errors) }));
      expect(excluded).toEqual(["k_only"]);
      expect(window.calls).toBe(0);
    }
  });

  it("a window without callers (written before they were counted) is left as it is", () => {
    const old: Tally = { ...sums(20, 1), callers: {} };
    expect(withoutDeciders(old)).toEqual({ window: old, excluded: [] });
  });
});

describe("minus", () => {
  it("subtracts per caller too, so a step counts only its own calls", () => {
    const before = windowOf({ k_a: sums(4, 1) });
    const after = windowOf({ k_a: sums(10, 1), k_b: sums(3, 0) });
    const step = minus(after, before);
    expect(step.calls).toBe(9);
    expect(step.callers.k_a!.calls).toBe(6);
    expect(step.callers.k_b!.calls).toBe(3);
  });
});

describe("observedOf", () => {
  it("reads p50 and p95 from windows written by several isolates, within 2% of the true ones", () => {
    const isolates: Tally[] = [];
    for (let i = 0; i < 3; i++) isolates.push({ ...sums(0, 0), latency: {}, callers: {} });
    // 300 calls from 1 to 300 ms, spread over three isolates' windows.
    for (let ms = 1; ms <= 300; ms++) {
      const w = isolates[ms % 3]!;
      w.calls++;
      w.latency[sketchBucket(ms)] = (w.latency[sketchBucket(ms)] ?? 0) + 1;
    }
    const observed = observedOf(isolates);
    expect(observed.calls).toBe(300);
    expect(Math.abs(observed.p50Ms! / 150 - 1)).toBeLessThanOrEqual(0.0205); // rank ⌊0.5·299⌋ = 149: 150 ms
    expect(Math.abs(observed.p95Ms! / 285 - 1)).toBeLessThanOrEqual(0.0205); // rank ⌊0.95·299⌋ = 284: 285 ms
  });

  it("a window stored before the sketch (fixed buckets) reads as one without latencies", async () => {
    const { TallySchema } = await import("./index.js");
    const old = TallySchema.parse({ calls: 3, errors: 0, latency: [0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] });
    expect(old.latency).toEqual({});
    expect(observedOf([old])).toEqual({ calls: 3, errorRate: 0, windowMs: 900_000 });
  });
});
