import { describe, expect, it } from "vitest";
import type { Outcome } from "../outcome/index.js";
import { retryDelayMs, withRetries } from "./index.js";

const failure = (code: number, data?: unknown): Outcome => ({ ok: false, error: { code, message: "m", ...(data ? { data } : {}) } });
const success: Outcome = { ok: true, result: 1, deployment: "s@1" };

describe("retryDelayMs", () => {
  it("backs off exponentially with full jitter for transient failures only", () => {
    expect(retryDelayMs({ code: -32001 }, 1, () => 0.999)).toBeCloseTo(99.9);
    expect(retryDelayMs({ code: -32004 }, 2, () => 0.5)).toBe(100);
    expect(retryDelayMs({ code: -32001 }, 10, () => 1)).toBe(1_000); // capped
    expect(retryDelayMs({ code: -32602 }, 1)).toBeUndefined();
    expect(retryDelayMs({ code: -32603 }, 1)).toBeUndefined();
  });
  it("waits what a 429 asked for", () => {
    expect(retryDelayMs({ code: -32005, data: { retryAfterMs: 2_000 } }, 1)).toBe(2_000);
  });
});

describe("withRetries", () => {
  it("returns a success at once", async () => {
    let attempts = 0;
    expect(await withRetries(async () => (attempts++, success), { deadline: Date.now() + 5_000 })).toEqual(success);
    expect(attempts).toBe(1);
  });

  it("makes at most 3 attempts and returns the last outcome", async () => {
    let attempts = 0;
    const outcome = await withRetries(async () => (attempts++, failure(-32001)), { deadline: Date.now() + 5_000 });
    expect(attempts).toBe(3);
    expect(outcome).toEqual(failure(-32001));
  });
  it("stops when the next attempt would start past the deadline", async () => {
    let attempts = 0;
    await withRetries(async () => (attempts++, failure(-32005, { retryAfterMs: 1_000 })), { deadline: Date.now() + 500 });
    expect(attempts).toBe(1);
  });
  it("passes each attempt the time left", async () => {
    const left: number[] = [];
    let t = 0;
    await withRetries(async (ms) => (left.push(ms), (t += 100), failure(-32004)), { deadline: 1_000, now: () => t, minAttemptMs: 0 });
    expect(left[0]).toBe(1_000);
    expect(left[1]).toBe(900);
  });
});
