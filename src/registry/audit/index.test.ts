import { describe, expect, it } from "vitest";
import type { Store } from "../../store/index.js";
import { memoryStore } from "../../store/memory.js";
import { AUDIT_READ_PAGE, AuditLog, MAX_AUDIT_BACKLOG } from "./index.js";

const call = (i: number) => ({ type: "call" as const, at: i, caller: "k_0123456789ab", method: "subtract", code: 0, ms: 1, params: [i] });
/** Collects the flushes `record` starts, to await them. */
function flushes() {
  const started: Array<Promise<unknown>> = [];
  return { waitUntil: (promise: Promise<unknown>) => void started.push(promise), settled: () => Promise.all(started) };
}
const noWait = () => {};

/** A store whose scripts can be counted and made to fail. */
function watched(store: Store) {
  const state = { runs: [] as Array<{ name: string; args: number }>, failing: false };
  const proxy: Store = {
    ...store,
    run: async (script, keys, args) => {
      state.runs.push({ name: script.name, args: args.length });
      if (state.failing) throw new Error("the store is down");
      return store.run(script, keys, args);
    },
  };
  return { store: proxy, state };
}

describe("the audit log", () => {
  it("reads a page, not the whole log, for a short answer", async () => {
    const { store, state } = watched(memoryStore());
    const log = new AuditLog(store);
    const writes = flushes();
    for (let i = 0; i < 3_000; i++) log.record(call(i), writes.waitUntil);
    await writes.settled();
    await log.flushNow();
    state.runs.length = 0;
    const page = await log.read({ limit: 20 });
    expect(page.entries.map((e) => e.at)).toEqual(Array.from({ length: 20 }, (_, i) => 2_999 - i));
    expect(page.nextCursor).toBe("2980");
    expect(state.runs).toEqual([{ name: "audit.read", args: 2 }]);
    // A filter that matches nothing scans the log in pages.
    state.runs.length = 0;
    expect((await log.read({ limit: 20, caller: "k_nobody00000" })).entries).toEqual([]);
    expect(state.runs).toHaveLength(Math.ceil(3_000 / AUDIT_READ_PAGE));
  });

  it("keeps what a failed write left, up to MAX_AUDIT_BACKLOG entries, and writes it when the store answers", async () => {
    const { store, state } = watched(memoryStore());
    const log = new AuditLog(store);
    state.failing = true;
    const writes = flushes();
    for (let i = 0; i < MAX_AUDIT_BACKLOG + 500; i++) log.record(call(i), writes.waitUntil);
    await writes.settled();
    await log.flushNow();
    expect(log.pending).toBe(MAX_AUDIT_BACKLOG);
    state.failing = false;
    await log.flushNow();
    expect(log.pending).toBe(0);
    const { entries } = await log.read({ limit: 1_000 });
    // The newest kept, the oldest 500 dropped.
    expect(entries[0]!.at).toBe(MAX_AUDIT_BACKLOG + 499);
    expect((await log.read({ limit: 1_000, since: "0" })).entries.at(-1)!.at).toBe(MAX_AUDIT_BACKLOG + 499 - 999);
  });

  it("writes what overlapping failed writes left in the order it was recorded", async () => {
    const { store, state } = watched(memoryStore());
    const log = new AuditLog(store);
    state.failing = true;
    const writes = flushes();
    // Three batches, each flushed on its own: all three writes fail, the first one first.
    for (let i = 0; i < 300; i++) log.record(call(i), writes.waitUntil);
    await writes.settled();
    state.failing = false;
    await log.flushNow();
    const { entries } = await log.read({ limit: 1_000 });
    expect(entries.map((e) => e.at)).toEqual(Array.from({ length: 300 }, (_, i) => 299 - i));
  });

  it("an entry Analytics Engine refuses is lost there alone: the store gets every entry", async () => {
    const points: unknown[] = [];
    const log = new AuditLog(memoryStore(), {
      writeDataPoint: (point) => {
        if ((point.blobs ?? []).includes("refused.method")) throw new Error("blobs too large");
        points.push(point);
      },
    });
    log.record({ ...call(1), method: "refused.method" }, noWait);
    log.record(call(2), noWait);
    await log.flushNow();
    expect(points).toHaveLength(1);
    expect((await log.read({ limit: 10 })).entries.map((e) => e.at)).toEqual([2, 1]);
  });
});
