import { describe, expect, it } from "vitest";
import { globMatcher } from "./index.js";

describe("globMatcher", () => {
  it("matches exact tags, * across dots, ? for one character, and nothing else as special", () => {
    expect(globMatcher("grid.*")("grid.modbus")).toBe(true);
    expect(globMatcher("grid.*")("grid")).toBe(false);
    expect(globMatcher("*.decode")("industrial.decode")).toBe(true);
    expect(globMatcher("grid.???")("grid.698")).toBe(true);
    expect(globMatcher("a+b")("a+b")).toBe(true);
    expect(globMatcher("a.b")("axb")).toBe(false);
  });

  it("agrees with a regular-expression matcher on 20,000 random patterns and tags", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = (alphabet: string, max: number) =>
      Array.from({ length: Math.floor(random() * max) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
    const reference = (pattern: string) =>
      new RegExp(
        `^${pattern
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, ".*")
          .replace(/\?/g, ".")}$`,
      );
    for (let i = 0; i < 20_000; i++) {
      const pattern = word("ab.*?", 8);
      const tag = word("ab.", 10);
      expect(globMatcher(pattern)(tag), `${pattern} vs ${tag}`).toBe(reference(pattern).test(tag));
    }
  });

  it("matches a pathological glob against a long tag without backtracking", () => {
    // A backtracking regex takes about 8x longer for each extra "*a": 10 of them would take hours.
    expect(globMatcher(`${"*a".repeat(40)}*Z`)("a".repeat(64))).toBe(false);
    expect(globMatcher(`${"*a".repeat(40)}*`)("a".repeat(64))).toBe(true);
  });
});
