/**
 * UTF-8 facts about strings, decided once: whether a string is ASCII (then each character is one
 * byte, and most JSON is), and how many bytes it takes — without encoding it when it is ASCII.
 */

/** Encoding keeps no state between calls: one encoder serves every caller. */
export const UTF8_ENCODER = new TextEncoder();

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
