import { describe, expect, it } from "vitest";
import { DelayedFlush } from "./index.js";

describe("DelayedFlush", () => {
  it("flushes once for every schedule until it has run, then schedules again", async () => {
    let flushes = 0;
    const pending: Array<Promise<unknown>> = [];
    const flush = new DelayedFlush(10, async () => void flushes++);
    for (let i = 0; i < 5; i++) flush.schedule((p) => pending.push(p));
    expect(pending).toHaveLength(1);
    await Promise.all(pending.splice(0));
    expect(flushes).toBe(1);
    flush.schedule((p) => pending.push(p));
    await Promise.all(pending.splice(0));
    expect(flushes).toBe(2);
  });
});
