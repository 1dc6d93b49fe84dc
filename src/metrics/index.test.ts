import { describe, expect, it } from "vitest";
import { LATENCY_BOUNDS_MS, OTHER_CALLERS, type Window, latencyBucket, minus, sumOf, withoutDeciders } from "./index.js";

const sums = (calls: number, errors: number, ms = 20) => {
  const latency = new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
  latency[latencyBucket(ms)] = calls;
  return { calls, errors, latency };
};
function windowOf(callers: Record<string, ReturnType<typeof sums>>): Window {
  return { ...sumOf(Object.values(callers).map((c) => ({ ...c, callers: {} }))), callers };
}

describe("withoutDeciders", () => {
  it("leaves out the caller with the most calls and the one with the most failures, never the others' sum", () => {
    const step = windowOf({ k_loud: sums(50, 0), k_failing: sums(10, 10, 900), k_a: sums(5, 0), [OTHER_CALLERS]: sums(60, 1) });
    const { window, excluded } = withoutDeciders(step);
    expect(excluded).toEqual(["k_loud", "k_failing"]);
    expect({ calls: window.calls, errors: window.errors }).toEqual({ calls: 65, errors: 1 });
    // The failing caller's slow calls are gone from the latency too.
    expect(window.latency[latencyBucket(900)]).toBe(0);
  });

  it("one caller alone leaves nothing to judge: it can neither sink nor carry a canary", () => {
    for (const errors of [0, 30]) {
      const { window, excluded } = withoutDeciders(windowOf({ k_only: sums(30, errors) }));
      expect(excluded).toEqual(["k_only"]);
      expect(window.calls).toBe(0);
    }
  });

  it("a window without callers (written before they were counted) is left as it is", () => {
    const old: Window = { ...sums(20, 1), callers: {} };
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
