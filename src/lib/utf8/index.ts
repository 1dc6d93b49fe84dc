/**
 * UTF-8 facts about strings, decided once: whether a string is ASCII (then each character is one
 * byte, and most JSON is), how many bytes it takes — without encoding it when it is ASCII — and
 * text carried as base64url (the caller-context header, delegation tokens).
 */
import { decodeBase64, encodeBase64Url } from "hono/utils/encode";

/** Encoding keeps no state between calls: one encoder serves every caller. */
export const UTF8_ENCODER = new TextEncoder();
/** Nor does decoding without `stream`: one decoder too (a new one per call cost ~0.4 µs in workerd). */
export const UTF8_DECODER = new TextDecoder();

// eslint-disable-next-line no-control-regex -- every ASCII character, control characters included
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
  // btoa takes one byte per character: ASCII (most JSON) as is; other text as its UTF-8 bytes, by Hono's codec.
  const base64Url = isAscii(text) ? btoa(text).replace(/\+/g, "-").replace(/\//g, "_") : encodeBase64Url(UTF8_ENCODER.encode(text).buffer);
  return base64Url.replace(/=+$/, "");
}

/**
 * The text of base64url (padded or not) as UTF-8, invalid sequences as U+FFFD; throws on what is not base64.
 * @example textOfBase64Url("eyJjYWxsZXIiOiJrXzEifQ") // '{"caller":"k_1"}'
 */
export function textOfBase64Url(encoded: string): string {
  const base64 = encoded.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64);
  // ASCII bytes are their own characters: only other text needs its bytes (Hono's codec) and the decoder.
  return isAscii(binary) ? binary : UTF8_DECODER.decode(decodeBase64(base64));
}
