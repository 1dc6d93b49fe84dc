/** The 2025 era's `Mcp-Session-Id`: issued at `initialize`, used only to scope request ids for cancellation. */

/** The response header that gives a 2025-era client its session at `initialize` (and that it sends back). */
export const SESSION_HEADER = "mcp-session-id";

/**
 * A request's 2025-era session: the `Mcp-Session-Id` it sends back ("" without one, or with one
 * that is not visible ASCII of at most 128 characters). The gateway keeps no session state: the
 * id only keeps one client's `notifications/cancelled` away from another's calls.
 * @example mcpSessionOf(new Headers({ "mcp-session-id": "3f…" })) // "3f…"
 */
export function mcpSessionOf(headers: Headers): string {
  const session = headers.get(SESSION_HEADER) ?? "";
  return /^[\x21-\x7e]{1,128}$/.test(session) ? session : "";
}
