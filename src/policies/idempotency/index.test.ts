import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../lib/json/index.js";
import { memoryStore } from "../../store/memory.js";
import { StoreUnavailable } from "../../store/index.js";
import type { Outcome } from "../outcome/index.js";
import { fingerprintOf, idempotencyKeyOf, runOnce } from "./index.js";

describe("fingerprints", () => {
  it("ignore key order at every depth, and nothing else", async () => {
    const a = { label: "x", meta: { b: [1, { d: 2, c: 3 }], a: null } };
    const b = { meta: { a: null, b: [1, { c: 3, d: 2 }] }, label: "x" };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(await fingerprintOf(a)).toBe(await fingerprintOf(b));
    expect(await fingerprintOf({ ...a, meta: { ...a.meta, b: [{ d: 2, c: 3 }, 1] } })).not.toBe(await fingerprintOf(a)); // array order counts
    expect(await fingerprintOf({ label: "x" })).not.toBe(await fingerprintOf({ label: "y" }));
  });
});

describe("store keys", () => {
  it("are scoped by skill, caller and key, and a batch position never aliases a single request", async () => {
    const base = await idempotencyKeyOf("s", "c_1", "order-42");
    expect(await idempotencyKeyOf("t", "c_1", "order-42")).not.toBe(base);
    expect(await idempotencyKeyOf("s", "c_2", "order-42")).not.toBe(base);
    expect(await idempotencyKeyOf("s", "c_1", "order-42", 0)).not.toBe(base);
    expect(await idempotencyKeyOf("s", "c_1", "B1", 0)).not.toBe(await idempotencyKeyOf("s", "c_1", "B1#0"));
  });
});

describe("runOnce with a stored record that does not parse", () => {
  it("answers -32001 (the store failed) and runs nothing, instead of replaying or throwing a SyntaxError", async () => {
    const options = { ttlMs: 60_000, pendingTtlMs: 10_000, waitMs: 0 };
    for (const damaged of ["tok\n{not json", 'tok\n{"state":"done","fingerprint":"f","outcome":{"ok":"yes"}}']) {
      const store = memoryStore();
      await store.set("k", damaged);
      let ran = false;
      const attempt = runOnce(store, "k", "f", options, async () => ((ran = true), { ok: true, result: 1 }));
      await expect(attempt, damaged).rejects.toBeInstanceOf(StoreUnavailable);
      expect(ran).toBe(false);
    }
  });
});

/** The rules of docs/architecture.md "Policies" (idempotency), one by one, on the memory store. */
describe("runOnce, as documented", () => {
  const options = { ttlMs: 60_000, pendingTtlMs: 10_000, waitMs: 200, pollMs: 10 };
  const counted = () => {
    let runs = 0;
    return { runs: () => runs, run: (outcome: Outcome) => async () => ((runs += 1), outcome) };
  };

  it("runs once and replays the stored answer to a retry with the same key and params", async () => {
    const store = memoryStore();
    const calls = counted();
    const first = await runOnce(store, "k", "f", options, calls.run({ ok: true, result: 41 }));
    const retry = await runOnce(store, "k", "f", options, calls.run({ ok: true, result: 99 }));
    expect(first).toEqual({ outcome: { ok: true, result: 41 }, replayed: false });
    expect(retry).toEqual({ outcome: { ok: true, result: 41 }, replayed: true });
    expect(calls.runs()).toBe(1);
  });

  it("refuses the same key with other params (-32003), running nothing", async () => {
    const store = memoryStore();
    const calls = counted();
    await runOnce(store, "k", "f", options, calls.run({ ok: true, result: 1 }));
    await expect(runOnce(store, "k", "other", options, calls.run({ ok: true, result: 2 }))).rejects.toMatchObject({ code: -32003 });
    expect(calls.runs()).toBe(1);
  });

  it("makes a duplicate wait for the first while it runs, then gives it the first's answer", async () => {
    const store = memoryStore();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = runOnce(store, "k", "f", { ...options, waitMs: 5_000 }, async () => (await held, { ok: true, result: "first" }));
    while ((await store.get("k")) === null) await new Promise((resolve) => setImmediate(resolve)); // the first has claimed the key
    const duplicate = runOnce(store, "k", "f", { ...options, waitMs: 5_000 }, async () => ({ ok: true, result: "second" }));
    release();
    expect(await duplicate).toEqual({ outcome: { ok: true, result: "first" }, replayed: true });
    expect((await first).replayed).toBe(false);
  });

  it("answers -32002 to a duplicate when the first is still running past the wait", async () => {
    const store = memoryStore();
    const first = runOnce(store, "k", "f", options, () => new Promise<Outcome>((resolve) => setTimeout(() => resolve({ ok: true, result: 1 }), 1_000)));
    await expect(runOnce(store, "k", "f", { ...options, waitMs: 50 }, async () => ({ ok: true, result: 2 }))).rejects.toMatchObject({
      code: -32002,
      data: { retryAfterMs: 1_000 },
    });
    await first;
  });

  it("does not keep a transient failure: the claim is released and a retry runs the call again", async () => {
    const store = memoryStore();
    const calls = counted();
    const failed = await runOnce(store, "k", "f", options, calls.run({ ok: false, error: { code: -32001, message: "unreachable" } }));
    expect(failed.replayed).toBe(false);
    const retried = await runOnce(store, "k", "f", options, calls.run({ ok: true, result: "ran again" }));
    expect(retried).toEqual({ outcome: { ok: true, result: "ran again" }, replayed: false });
    expect(calls.runs()).toBe(2);
  });

  it("keeps an answer that blames the input (-32602): a retry is told the same", async () => {
    const store = memoryStore();
    const calls = counted();
    await runOnce(store, "k", "f", options, calls.run({ ok: false, error: { code: -32602, message: "bad input" } }));
    const retry = await runOnce(store, "k", "f", options, calls.run({ ok: true, result: "never" }));
    expect(retry).toMatchObject({ outcome: { ok: false, error: { code: -32602 } }, replayed: true });
    expect(calls.runs()).toBe(1);
  });
});
