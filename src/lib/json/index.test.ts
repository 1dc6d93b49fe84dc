import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, exceedsDepth, isPlainKey, own, valueAt } from "./index.js";

describe("JSON limits", () => {
  it("measures nesting of objects and arrays, stopping at the limit", () => {
    expect(exceedsDepth("x", 0)).toBe(false);
    expect(exceedsDepth([], 0)).toBe(true);
    expect(exceedsDepth({ a: [1] }, 2)).toBe(false);
    expect(exceedsDepth({ a: [[1]] }, 2)).toBe(true);
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(exceedsDepth(deep)).toBe(true); // no stack overflow: the walk stops at the limit
    let fits: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) fits = { a: fits };
    expect(exceedsDepth(fits)).toBe(false);
    expect(exceedsDepth({ b: fits })).toBe(true);
  });

  it("refuses keys that alias inherited properties", () => {
    for (const key of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "prototype"]) expect(isPlainKey(key), key).toBe(false);
    for (const key of ["beta", "*", "text.summarize", "proto"]) expect(isPlainKey(key), key).toBe(true);
    expect(own({ beta: 1 } as Record<string, number>, "constructor")).toBeUndefined();
    expect(own({ beta: 1 } as Record<string, number>, "beta")).toBe(1);
  });
});

describe("valueAt", () => {
  it("follows a path through objects and arrays, undefined where it leaves the value", () => {
    expect(valueAt({ a: [{ b: 1 }] }, ["a", 0, "b"])).toBe(1);
    expect(valueAt({ a: "text" }, ["a", "length", "x"])).toBeUndefined();
    expect(valueAt(null, ["a"])).toBeUndefined();
    expect(valueAt({ a: 1 }, [])).toEqual({ a: 1 });
  });
});
