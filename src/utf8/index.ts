/**
 * UTF-8 facts about strings, decided once: whether a string is ASCII (then each character is one
 * byte, and most JSON is), how many bytes it takes — without encoding it when it is ASCII — and
 * text carried as base64url (the caller-context header, delegation tokens).
 */

/** Encoding keeps no state between calls: one encoder serves every caller. */
export const UTF8_ENCODER = new TextEncoder();
/** Nor does decoding without `stream`: one decoder too (a new one per call cost ~0.4 µs in workerd). */
const UTF8_DECODER = new TextDecoder();

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Whether every character of `text` is ASCII (one UTF-8 byte each).
 * @example isAscii("hello") // true; isAscii("héllo") // false
 */
export function isAscii(text: string): boolean {
  return ASCII.test(text);
}

/**
 * How many bytes a string takes in UTF-8.
 * @example utf8Length("héllo") // 6
 */
export function utf8Length(text: string): number {
  return isAscii(text) ? text.length : UTF8_ENCODER.encode(text).byteLength;
}

/**
 * Text as unpadded base64url of its UTF-8 bytes.
 * @example base64UrlOfText('{"caller":"k_1"}') // "eyJjYWxsZXIiOiJrXzEifQ"
 */
export function base64UrlOfText(text: string): string {
  // btoa takes one byte per character: ASCII as is (most JSON), else the UTF-8 bytes.
  let binary = text;
  if (!isAscii(text)) {
    binary = "";
    for (const byte of UTF8_ENCODER.encode(text)) binary += String.fromCharCode(byte);
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The text of base64url (padded or not) as UTF-8, invalid sequences as U+FFFD; throws on what is not base64.
 * @example textOfBase64Url("eyJjYWxsZXIiOiJrXzEifQ") // '{"caller":"k_1"}'
 */
export function textOfBase64Url(encoded: string): string {
  const binary = atob(encoded.replace(/-/g, "+").replace(/_/g, "/"));
  // ASCII bytes are their own characters: only other text needs the decoder.
  if (isAscii(binary)) return binary;
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return UTF8_DECODER.decode(bytes);
}
