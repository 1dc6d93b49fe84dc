import { describe, expect, it } from "vitest";
import { base64UrlOfText, isAscii, textOfBase64Url, utf8Length } from "./index.js";

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

  it("carries any text through base64url, as Buffer's base64url reads it", () => {
    for (const text of ['{"caller":"k_1"}', "héllo 日本 😀", "é", ">>>", "???", ""]) {
      const encoded = base64UrlOfText(text);
      expect(encoded).toBe(Buffer.from(text, "utf8").toString("base64url"));
      expect(textOfBase64Url(encoded)).toBe(text);
    }
    // Padded input reads the same; bytes that are not UTF-8 become U+FFFD, as TextDecoder has it.
    expect(textOfBase64Url(Buffer.from("é").toString("base64"))).toBe("é");
    expect(textOfBase64Url(Buffer.from([0xff, 0x41]).toString("base64url"))).toBe("\ufffdA");
    expect(() => textOfBase64Url("not base64!")).toThrow();
  });
});
