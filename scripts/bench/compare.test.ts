import { describe, expect, it } from "vitest";
import { pairedSummary } from "./compare.js";

describe("pairedSummary", () => {
  it("reads each pair as a ratio b/a: median and quartiles of the ratios, and each side's mean", () => {
    // Ratios 0.5, 1, 1.5, 2, 3 (in another order): the drift between pairs does not matter, the ratio within each does.
    const summary = pairedSummary([
      [1000, 2000],
      [200, 100],
      [3000, 9000],
      [100, 150],
      [4000, 4000],
    ]);
    expect(summary.median).toBe(1.5);
    expect(summary.q1).toBe(1);
    expect(summary.q3).toBe(2);
    expect(summary.meanA).toBe(1660);
    expect(summary.meanB).toBe(3050);
  });

  it("interpolates between ranks for an even number of pairs", () => {
    expect(
      pairedSummary([
        [1, 1],
        [1, 2],
      ]).median,
    ).toBe(1.5);
    expect(
      pairedSummary([
        [1, 1],
        [1, 2],
        [1, 3],
        [1, 4],
      ]),
    ).toMatchObject({ median: 2.5, q1: 1.75, q3: 3.25 });
  });

  it("refuses to sum up nothing", () => {
    expect(() => pairedSummary([])).toThrow("no pairs");
  });
});
