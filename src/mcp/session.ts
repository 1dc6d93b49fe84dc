/**
 * The 2025 era's `Mcp-Session-Id`: issued at `initialize`, it scopes request ids for cancellation
 * and carries what the client declared it can answer mid-call (elicitation, sampling, roots). The
 * gateway keeps no session state: everything a session means is in its id.
 */
import { randomHex } from "../lib/hash/index.js";
import type { InputRound } from "../protocols/mcp/index.js";

/** The response header that gives a 2025-era client its session at `initialize` (and that it sends back). */
export const SESSION_HEADER = "mcp-session-id";

/**
 * A request's 2025-era session: the `Mcp-Session-Id` it sends back ("" without one, or with one
 * that is not visible ASCII of at most 128 characters).
 * @example mcpSessionOf(new Headers({ "mcp-session-id": "3f…" })) // "3f…"
 */
export function mcpSessionOf(headers: Headers): string {
  const session = headers.get(SESSION_HEADER) ?? "";
  return /^[\x21-\x7e]{1,128}$/.test(session) ? session : "";
}

/**
 * One letter per input-request capability (and sub-capability) a 2025 client can declare at
 * `initialize`: the session id carries them, so a later `tools/call` knows what the client can
 * answer when an upstream asks it for input. A client that changes the letters only changes what
 * it says of itself, as a 2026-07-28 client does in every request's `_meta`.
 */
const LETTERS: ReadonlyArray<[letter: string, capability: "elicitation" | "sampling" | "roots", sub?: string]> = [
  ["f", "elicitation", "form"],
  ["u", "elicitation", "url"],
  ["s", "sampling"],
  ["t", "sampling", "tools"],
  ["c", "sampling", "context"],
  ["r", "roots"],
];

/**
 * A new session id for a client that declared `capabilities` at `initialize`: 32 random hex
 * digits, then `.` and the letters of its input-request capabilities, if any.
 * @example sessionIdFor({ elicitation: {}, sampling: {} }) // "3fa1…c9.fs"
 */
export function sessionIdFor(capabilities: unknown): string {
  const declared = (typeof capabilities === "object" && capabilities !== null ? capabilities : {}) as Record<string, unknown>;
  const object = (value: unknown): Record<string, unknown> | undefined =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const letters = LETTERS.filter(([letter, name, sub]) => {
    const capability = object(declared[name]);
    if (!capability) return false;
    // An elicitation capability that names no mode means form (2025-11-25, client/elicitation).
    if (letter === "f") return capability.form !== undefined || capability.url === undefined;
    return sub === undefined || object(capability[sub]) !== undefined;
  }).map(([letter]) => letter);
  return letters.length ? `${randomHex(16)}.${letters.join("")}` : randomHex(16);
}

/**
 * The input-request capabilities a session's client declared (none for a session the gateway
 * did not issue this way), in the shape an upstream reads from `_meta`.
 * @example inputCapabilitiesOf("3fa1…c9.fs") // { elicitation: { form: {} }, sampling: {} }
 */
export function inputCapabilitiesOf(session: string): InputRound["capabilities"] {
  const letters = /^[0-9a-f]{32}\.([a-z]{1,8})$/.exec(session)?.[1] ?? "";
  const capabilities: InputRound["capabilities"] = {};
  for (const [letter, name, sub] of LETTERS) {
    if (!letters.includes(letter)) continue;
    const capability = (capabilities[name] ??= {});
    if (sub) capability[sub] = {};
  }
  return capabilities;
}
