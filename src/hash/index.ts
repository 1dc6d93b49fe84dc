/** SHA-256 as lower-case hex: the one digest the gateway uses for keys, callers and fingerprints. */

/**
 * The SHA-256 of a string (UTF-8), in hex.
 * @example await sha256Hex("abc") // "ba7816bf…"
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
