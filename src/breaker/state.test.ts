import { describe, expect, it } from "vitest";
import { DEFAULT_BREAKER_POLICY, recordInMemory, statusOf } from "./state.js";

describe("statusOf", () => {
  it("reads a record as the Lua twin writes it (an empty list comes back as {})", () => {
    const lua = JSON.stringify({ state: "open", openUntil: 5_000, opens: 2, closedAt: 0, streak: {}, buckets: {}, reason: "6 consecutive failures from 2 callers" });
    expect(statusOf(lua)).toEqual({ state: "open", openUntil: 5_000, opens: 2, reason: "6 consecutive failures from 2 callers", tripped: false });
  });
  it("takes a missing or damaged record for a closed breaker instead of throwing", () => {
    for (const raw of [null, "not json", "[]", "null", '{"state":"ajar","openUntil":0,"opens":0}', '{"state":"open"}']) {
      expect(statusOf(raw), String(raw)).toMatchObject({ state: "closed", openUntil: 0, opens: 0 });
    }
  });
});

describe("recordInMemory", () => {
  it("starts a damaged record over rather than failing every record after it", () => {
    const { stored, status } = recordInMemory("{broken", 1_000, { successes: 1 }, DEFAULT_BREAKER_POLICY);
    expect(status.state).toBe("closed");
    expect(stored.buckets).toEqual([{ t: 0, ok: 1, fail: 0, by: {} }]);
  });
});
