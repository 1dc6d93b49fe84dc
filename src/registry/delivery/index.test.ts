import { describe, expect, it } from "vitest";
import { type Tally, observedOf } from "../metrics/index.js";
import { addLatency } from "../metrics/sketch.js";
import { type Rollout, judge } from "./index.js";

const rollout = (over: Partial<Rollout> = {}): Rollout => ({
  skill: "s",
  version: "2.0.0",
  stable: "1.0.0",
  steps: [10, 50, 100],
  everyMs: 60_000,
  groups: ["*"],
  maxErrorRate: 0.05,
  maxP95Ratio: 1.5,
  minCalls: 20,
  state: "running",
  step: 0,
  stepStartedAt: 0,
  startedAt: 0,
  by: "admin",
  history: [],
  status: "",
  baseline: {},
  ...over,
});
const observed = (calls: number, errorRate = 0, p95Ms?: number) => ({ calls, errorRate, windowMs: 60_000, ...(p95Ms ? { p95Ms, p50Ms: p95Ms } : {}) });

/** A minute's window of `calls` calls, each taking `ms`. */
function windowOf(calls: number, ms: (i: number) => number): Tally {
  const window: Tally = { calls, errors: 0, latency: {}, callers: {} };
  for (let i = 0; i < calls; i++) addLatency(window.latency, ms(i));
  return window;
}

describe("judge: the rule of a rollout step", () => {
  it("promotes a healthy canary as fast as its stable under maxP95Ratio 1.5 (the operating guide's example)", () => {
    // The stable takes 80–98 ms, the canary 10% more (88–108 ms): fixed 100/250 ms buckets read 2.5x.
    const stable = observedOf([windowOf(200, (i) => 80 + (i % 10) * 2)]);
    const canary = observedOf([windowOf(40, (i) => 1.1 * (80 + (i % 10) * 2))]);
    expect(canary.p95Ms! / stable.p95Ms!).toBeLessThan(1.15);
    expect(judge(rollout({ step: 2 }), canary, stable, 60_000)).toMatchObject({ type: "complete" });
  });

  it("holds until the canary has minCalls calls, whatever its numbers", () => {
    expect(judge(rollout(), observed(19, 1, 5_000), observed(100, 0, 10), 120_000)).toEqual({
      type: "hold",
      reason: "waiting for 20 calls on 2.0.0 (19 so far)",
    });
  });

  it("rolls back at once above the error rate, before the step's period is over", () => {
    expect(judge(rollout(), observed(20, 0.051), observed(100), 1_000)).toMatchObject({ type: "rollback", reason: "error rate 5.1% over 20 calls > 5.0%" });
    // At the limit is within it.
    expect(judge(rollout(), observed(20, 0.05), observed(100), 1_000).type).toBe("hold");
  });

  it("rolls back when the canary's p95 is more than maxP95Ratio times the stable's", () => {
    expect(judge(rollout(), observed(20, 0, 250), observed(100, 0, 100), 1_000)).toMatchObject({
      type: "rollback",
      reason: "p95 250 ms is 2.50x the stable's 100 ms > 1.5x",
    });
    expect(judge(rollout(), observed(20, 0, 150), observed(100, 0, 100), 1_000).type).toBe("hold");
    // No stable latency to compare with: not judged on latency.
    expect(judge(rollout(), observed(20, 0, 250), observed(0), 120_000).type).toBe("advance");
  });

  it("advances once the period is over with enough healthy calls, and completes after the last step", () => {
    expect(judge(rollout(), observed(20, 0, 50), observed(100, 0, 50), 59_999)).toMatchObject({ type: "hold" });
    expect(judge(rollout(), observed(20, 0, 50), observed(100, 0, 50), 60_000)).toMatchObject({ type: "advance", reason: expect.stringMatching(/; to 50%$/) });
    expect(judge(rollout({ step: 2 }), observed(20, 0, 50), observed(100, 0, 50), 60_000)).toMatchObject({ type: "complete" });
  });
});
