import { describe, expect, it } from "vitest";
import { isAscii, utf8Length } from "./index.js";

describe("utf8", () => {
  it("counts the UTF-8 bytes of ASCII and of other text", () => {
    expect(utf8Length('{"a":1}')).toBe(7);
    expect(utf8Length("héllo")).toBe(6);
    expect(utf8Length("日本")).toBe(6);
    expect(utf8Length("😀")).toBe(4);
  });

  it("tells ASCII from the rest", () => {
    expect(isAscii("plain \x7f")).toBe(true);
    expect(isAscii("é")).toBe(false);
  });
});
