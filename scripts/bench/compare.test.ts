import { describe, expect, it } from "vitest";
import { pairedSummary } from "./compare.js";

describe("pairedSummary", () => {
  it("sums paired runs up by each pair's ratio b/a, not by the ratio of the totals", () => {
    // One slow pair (the machine dipped for both sides) moves the totals' ratio, not the median.
    const s = pairedSummary([
      [100, 80],
      [1000, 700],
      [100, 75],
      [100, 85],
    ]);
    expect(s.median).toBeCloseTo(0.775, 6);
    expect(s.q1).toBeCloseTo(0.7375, 6);
    expect(s.q3).toBeCloseTo(0.8125, 6);
    expect(s.meanA).toBe(325);
    expect(s.meanB).toBe(235);
  });

  it("refuses to sum up no pairs", () => {
    expect(() => pairedSummary([])).toThrow();
  });
});
