import { describe, expect, it } from "vitest";
import { randomHex, sha256Hex } from "./index.js";

describe("randomHex", () => {
  it("gives the asked number of random bytes as hex, never the same twice, across refills of its pool", () => {
    const seen = new Set<string>();
    // 4096-byte pool: 3,000 draws of 8 and 16 bytes refill it several times, and a draw larger than the pool works too.
    for (let i = 0; i < 3_000; i++) {
      const id = randomHex(i % 2 ? 8 : 16);
      expect(id).toMatch(i % 2 ? /^[0-9a-f]{16}$/ : /^[0-9a-f]{32}$/);
      expect(seen.has(id)).toBe(false);
      seen.add(id);
    }
    expect(randomHex(5_000)).toHaveLength(10_000);
  });
});

describe("sha256Hex", () => {
  it("is SHA-256 of the UTF-8 bytes, in hex", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
