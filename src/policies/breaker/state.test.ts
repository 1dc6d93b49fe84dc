import { describe, expect, it } from "vitest";
import { DEFAULT_BREAKER_POLICY, recordInMemory, statusOf } from "./state.js";

describe("statusOf", () => {
  it("reads a record as the Lua twin writes it (an empty list comes back as {})", () => {
    const lua = JSON.stringify({
      state: "open",
      openUntil: 5_000,
      opens: 2,
      closedAt: 0,
      streak: {},
      buckets: {},
      reason: "6 consecutive failures from 2 callers",
    });
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

/** The rules of docs/security.md "Circuit breakers", one by one, on the memory twin (the conformance suite holds Lua to it). */
describe("the breaker, as documented", () => {
  const policy = DEFAULT_BREAKER_POLICY;
  /** Feeds records one after another, 1 ms apart; the last status and document. */
  function feed(records: Array<{ successes?: number; failedBy?: string; probe?: string }>, start = 1_000_000, raw: string | null = null) {
    let now = start;
    let result = recordInMemory(raw, now, { successes: 0 }, policy);
    for (const record of records) result = recordInMemory(JSON.stringify(result.stored), (now += 1), { successes: record.successes ?? 0, ...record }, policy);
    return { ...result, now };
  }
  const failures = (callers: string) => [...callers].map((failedBy) => ({ failedBy }));

  it("opens on 5 failures in a row without the caller who has most of them: a b c a b c a b", () => {
    expect(feed(failures("abcabca")).status.state).toBe("closed"); // 7 in a row, 4 without a's
    const opened = feed(failures("abcabcab"));
    expect(opened.status).toMatchObject({ state: "open", tripped: true, opens: 1 });
    expect(opened.status.openUntil).toBe(opened.now + 30_000);
  });

  it("never opens for one caller alone, however many of its calls fail", () => {
    expect(feed(failures("a".repeat(200))).status.state).toBe("closed");
  });

  it("forgets the run of failures at a success", () => {
    expect(feed([...failures("abcabc"), { successes: 1 }, ...failures("abca")]).status.state).toBe("closed");
  });

  it("opens when 20 calls in the window, the top caller's left out, failed half or more", () => {
    // Groups of a b c d failing, then a success: never 5 in a row without the top caller.
    const group = [...failures("abcd"), { successes: 1 }];
    const fourGroups = Array.from({ length: 4 }, () => group).flat();
    // 24 calls, 20 failed; without a's 5: 19 calls — not yet 20.
    expect(feed([...fourGroups, ...failures("abcd")]).status.state).toBe("closed");
    // One more call: 20 calls without a's, 15 of them failed.
    expect(feed([...fourGroups, ...group]).status).toMatchObject({ state: "open", tripped: true });
  });

  it("does not open for one caller's flood of failures among everybody else's successes", () => {
    const records = Array.from({ length: 100 }, () => [{ failedBy: "z" }, { successes: 1 }]).flat();
    expect(feed(records).status.state).toBe("closed");
  });

  it("closes on a successful probe; a probe failed by one caller bars that caller only; a second caller's failed probe doubles the period", () => {
    const opened = feed(failures("abcabcab"));
    const withProbe = (probe: string, extra: object = {}) => JSON.stringify({ ...opened.stored, state: "half-open", probe, probeAt: opened.now, ...extra });
    const later = opened.now + 30_001;
    expect(recordInMemory(withProbe("p1"), later, { successes: 1, probe: "p1" }, policy).status.state).toBe("closed");
    // a's probe fails: still one open period, a barred for it, nobody else.
    const barred = recordInMemory(withProbe("p1"), later, { successes: 0, failedBy: "a", probe: "p1" }, policy);
    expect(barred.status).toMatchObject({ opens: 1, tripped: false });
    expect(barred.stored).toMatchObject({ probeFailedBy: "a", probeBarredUntil: later + 30_000 });
    // b's probe fails too: open again for twice the period.
    const doubled = recordInMemory(
      JSON.stringify({ ...barred.stored, probe: "p2", probeAt: later }),
      later + 1,
      { successes: 0, failedBy: "b", probe: "p2" },
      policy,
    );
    expect(doubled.status).toMatchObject({ state: "open", opens: 2, tripped: true, openUntil: later + 1 + 60_000 });
  });

  it("ignores a straggler's record while open, and a probe cut short by its caller only frees the probe", () => {
    const opened = feed(failures("abcabcab"));
    const straggler = recordInMemory(JSON.stringify(opened.stored), opened.now + 1, { successes: 5 }, policy);
    expect(straggler.status).toMatchObject({ state: "open", opens: 1 });
    const probing = JSON.stringify({ ...opened.stored, state: "half-open", probe: "p1", probeAt: opened.now });
    const cut = recordInMemory(probing, opened.now + 30_001, { successes: 0, probe: "p1" }, policy);
    expect(cut.stored.probe).toBeUndefined();
    expect(cut.stored.probeFailedBy).toBeUndefined();
    expect(cut.status.opens).toBe(1);
  });

  it("caps the doubling at maxOpenMs (5 min)", () => {
    let stored = feed(failures("abcabcab")).stored;
    let now = 2_000_000;
    for (let i = 0; i < 6; i++) {
      stored = recordInMemory(
        JSON.stringify({ ...stored, state: "half-open", probe: "p", probeFailedBy: "a", probeAt: now }),
        (now += 1),
        { successes: 0, failedBy: "b", probe: "p" },
        policy,
      ).stored;
    }
    expect(stored.openUntil - now).toBe(300_000);
  });
});
