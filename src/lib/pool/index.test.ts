import { describe, expect, it } from "vitest";
import { mapConcurrently } from "./index.js";

describe("mapConcurrently", () => {
  it("keeps the items' order and never runs more than the limit at once", async () => {
    let running = 0;
    let most = 0;
    const results = await mapConcurrently([30, 5, 20, 1, 10, 2], 2, async (ms, index) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running--;
      return `${index}:${ms}`;
    });
    expect(results).toEqual(["0:30", "1:5", "2:20", "3:1", "4:10", "5:2"]);
    expect(most).toBe(2);
  });

  it("answers an empty list with an empty list", async () => {
    expect(await mapConcurrently([], 4, async () => expect.unreachable())).toEqual([]);
  });
});
