import { describe, expect, it } from "vitest";
import { Kept } from "./index.js";

describe("Kept", () => {
  it("makes a value once per key, and forgets the oldest past its bound", () => {
    const made: string[] = [];
    const kept = new Kept<string, string>(2);
    const get = (key: string) => kept.get(key, () => (made.push(key), key.toUpperCase()));
    expect([get("a"), get("a"), get("b")]).toEqual(["A", "A", "B"]);
    expect(made).toEqual(["a", "b"]);
    get("c"); // "a" goes
    expect(kept.size).toBe(2);
    get("a");
    expect(made).toEqual(["a", "b", "c", "a"]);
  });
});
