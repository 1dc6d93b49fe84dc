import { describe, expect, it } from "vitest";
import { type CandidateNumbers, accepts, numbersOf, overLimit, rank } from "./capability.js";
import type { ToolSummary } from "./catalog.js";

const n = (name: string, costPerCall?: number, successRate?: number, p95Ms?: number): CandidateNumbers => ({
  name,
  costPerCall,
  successRate,
  p95Ms,
  observed: false,
});
const names = (list: CandidateNumbers[]) => list.map((c) => c.name);

describe("policy routing", () => {
  const cheap = n("cheap", 0.001, 0.9, 400);
  const fast = n("fast", 0.01, 0.99, 50);
  const unknown = n("unknown");
  it("ranks by each preference, unknown numbers last", () => {
    expect(names(rank([fast, unknown, cheap], { prefer: "cheapest" }))).toEqual(["cheap", "fast", "unknown"]);
    expect(names(rank([cheap, unknown, fast], { prefer: "fastest" }))).toEqual(["fast", "cheap", "unknown"]);
    expect(names(rank([cheap, unknown, fast], { prefer: "reliable" }))).toEqual(["fast", "cheap", "unknown"]);
    // Weights: cost alone picks the cheap one, latency alone the fast one.
    expect(rank([fast, cheap], { prefer: { cost: 1, latency: 0, reliability: 0 } })[0]!.name).toBe("cheap");
    expect(rank([cheap, fast], { prefer: { cost: 0, latency: 1, reliability: 0 } })[0]!.name).toBe("fast");
  });

  it("holds candidates to the limits; an unknown number is over a limit that needs it", () => {
    expect(overLimit(cheap, { prefer: "reliable", maxCostPerCall: 0.005 })).toBeUndefined();
    expect(overLimit(fast, { prefer: "reliable", maxCostPerCall: 0.005 })).toMatch(/cost 0.01 over 0.005/);
    expect(overLimit(unknown, { prefer: "reliable", maxCostPerCall: 1 })).toMatch(/unknown/);
    expect(overLimit(cheap, { prefer: "reliable", minSuccessRate: 0.95 })).toMatch(/success rate 0.9 under 0.95/);
    expect(overLimit(cheap, { prefer: "reliable", maxP95Ms: 100 })).toMatch(/p95 400 ms over 100/);
  });

  it("uses observed numbers once a skill has been seen enough, declared ones before", () => {
    const skill = { name: "s", cost: { currency: "USD", perCall: 0.002 }, reliability: { successRate: 0.999, p95Ms: 100 } } as ToolSummary;
    expect(numbersOf(skill, { calls: 5, errorRate: 0.5, p95Ms: 2_500, windowMs: 1 })).toMatchObject({ successRate: 0.999, p95Ms: 100, observed: false });
    expect(numbersOf(skill, { calls: 40, errorRate: 0.5, p95Ms: 2_500, windowMs: 1 })).toMatchObject({
      costPerCall: 0.002,
      successRate: 0.5,
      p95Ms: 2_500,
      observed: true,
    });
  });

  it("validates arguments against a skill's input schema", () => {
    const schema = { type: "object", properties: { value: { type: "string" } }, required: ["value"], additionalProperties: false };
    expect(accepts(schema, { value: "v" })).toBe(true);
    expect(accepts(schema, { value: 1 })).toBe(false);
    expect(accepts(schema, { value: "v", other: 1 })).toBe(false);
    expect(accepts({ type: "array", items: { type: "number" } }, [1, 2])).toBe(true);
  });
});
