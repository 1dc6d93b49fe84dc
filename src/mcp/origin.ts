/**
 * `Origin` validation for `/mcp` (DNS rebinding protection, MCP transport spec): a request from
 * a browser page must come from an allowed origin; requests without `Origin` (agents, CLIs,
 * servers) pass.
 */

/** Allowed when `SKILLMESH_ALLOWED_ORIGINS` is unset: pages served from this machine only. */
const LOOPBACK_ORIGIN = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/**
 * The allow list from its env value: comma-separated origins (`https://app.example.com`), or `*`
 * for any. Unset or empty: loopback origins only.
 * @example allowedOriginsOf("https://a.example, https://b.example") // ["https://a.example", "https://b.example"]
 */
export function allowedOriginsOf(value: string | undefined): string[] | undefined {
  const list = (value ?? "").split(",").map((s) => s.trim().replace(/\/+$/, "").toLowerCase()).filter(Boolean);
  return list.length ? list : undefined;
}

/**
 * True when a request with this `Origin` header may be served.
 * @example isAllowedOrigin("http://evil.example", undefined) // false
 */
export function isAllowedOrigin(origin: string | null | undefined, allowed: string[] | undefined): boolean {
  if (!origin) return true;
  if (!allowed) return LOOPBACK_ORIGIN.test(origin);
  return allowed.includes("*") || allowed.includes(origin.toLowerCase());
}
