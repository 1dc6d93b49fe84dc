import { describe, expect, it } from "vitest";
import { canonicalJson } from "../json/index.js";
import { memoryStore } from "../store/memory.js";
import { StoreUnavailable } from "../store/index.js";
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
