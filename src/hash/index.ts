/** SHA-256 as lower-case hex: the one digest the gateway uses for keys, callers and fingerprints; and random hex ids. */

/** Lower-case hex of bytes. */
const hexOf = (bytes: Uint8Array) => {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
};

/**
 * `bytes` random bytes in hex (ids, session tokens).
 * @example randomHex(16) // "3f9a…" (32 characters)
 */
export function randomHex(bytes: number): string {
  return hexOf(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * The SHA-256 of a string (UTF-8), in hex.
 * @example await sha256Hex("abc") // "ba7816bf…"
 */
export async function sha256Hex(text: string): Promise<string> {
  return hexOf(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}
