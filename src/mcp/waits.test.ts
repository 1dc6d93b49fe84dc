import { describe, expect, it } from "vitest";
import { MAX_LONG_REQUESTS, STALE_LEASE_MS, holdLongRequest } from "./waits.js";

describe("long requests per caller", () => {
  it("at most MAX_LONG_REQUESTS at once per caller; a released one frees its place; callers are apart", () => {
    const held = Array.from({ length: MAX_LONG_REQUESTS }, () => holdLongRequest("k_a", 1_000));
    expect(() => holdLongRequest("k_a", 1_000)).toThrow(/already holds 4 long requests/);
    expect(() => holdLongRequest("k_b", 1_000).release()).not.toThrow();
    held[0]!.release();
    held[0]!.release(); // twice is once
    const again = holdLongRequest("k_a", 1_000);
    expect(() => holdLongRequest("k_a", 1_000)).toThrow(/long requests/);
    for (const h of [...held.slice(1), again]) h.release();
  });

  it("a lease its request stopped renewing is gone after STALE_LEASE_MS (workerd may stop a request without its finally)", () => {
    const t = 10_000_000;
    const held = Array.from({ length: MAX_LONG_REQUESTS }, () => holdLongRequest("k_c", t));
    expect(() => holdLongRequest("k_c", t + STALE_LEASE_MS)).toThrow();
    const fresh = holdLongRequest("k_c", t + STALE_LEASE_MS + 1);
    fresh.release();
    for (const h of held) h.release();
  });
});
