import { describe, expect, it } from "vitest";
import { canonicalJson } from "../json/index.js";
import { fingerprintOf, idempotencyKeyOf } from "./index.js";

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
