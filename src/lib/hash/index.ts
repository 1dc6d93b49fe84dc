/** SHA-256 as lower-case hex: the one digest the gateway uses for keys, callers and fingerprints; and random hex ids. */
import { UTF8_ENCODER } from "../utf8/index.js";

/** Each byte's two hex digits (a table: trace ids are made on every call). */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/**
 * Lower-case hex of bytes.
 * @example hexOf(new Uint8Array([0, 255])) // "00ff"
 */
export const hexOf = (bytes: Uint8Array): string => {
  let hex = "";
  for (const byte of bytes) hex += HEX[byte];
  return hex;
};

/** Random bytes drawn a few KB at a time: each call makes a trace id and a span id, and asking the runtime for 8 bytes at a time was a percent of it. Each byte is used once. */
const pool = new Uint8Array(4096);
let drawn = pool.length;

/**
 * `bytes` random bytes in hex (trace and span ids, tokens), from the runtime's CSPRNG.
 * @example randomHex(16) // "3f9a…" (32 characters)
 */
export function randomHex(bytes: number): string {
  if (bytes > pool.length) return hexOf(crypto.getRandomValues(new Uint8Array(bytes)));
  if (drawn + bytes > pool.length) {
    crypto.getRandomValues(pool);
    drawn = 0;
  }
  drawn += bytes;
  return hexOf(pool.subarray(drawn - bytes, drawn));
}

/**
 * The SHA-256 of a string (UTF-8) or of bytes, in hex.
 * @example await sha256Hex("abc") // "ba7816bf…"
 */
export async function sha256Hex(input: string | Uint8Array): Promise<string> {
  const bytes = typeof input === "string" ? UTF8_ENCODER.encode(input) : input;
  return hexOf(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)));
}
