/**
 * Who may use the admin API: the operator's token (`SKILLMESH_ADMIN_TOKEN`, compared in constant
 * time: full access), or an API key granted `admin: "read"` (GET only, e.g. a dashboard or CI)
 * or `admin: "write"`. With no token configured and no admin key, nobody may. One check for
 * the admin API and for the details of `/healthz`.
 */
import { timingSafeEqual } from "hono/utils/buffer";
import type { GatewayConfig } from "../config/index.js";
import type { KeyRing } from "../keys/index.js";
import type { AdminLevel } from "./access.js";
import { authenticate, bearerOf } from "./index.js";

/**
 * True when the `Authorization` header carries the gateway's admin token.
 * @example if (await hasAdminToken(c.req.header("authorization"), config.adminToken)) …
 */
export async function hasAdminToken(authorization: string | null | undefined, token: string | undefined): Promise<boolean> {
  const presented = bearerOf(authorization);
  return !!token && !!presented && (await timingSafeEqual(presented, token));
}

/** Who is asking the admin API, and how much of it they may use. */
export interface AdminIdentity {
  level: AdminLevel;
  /** For the audit log: `admin-token`, a key id, or "anonymous". */
  by: string;
}

/**
 * How much of the admin API this request may use: `write` with the admin token, the key's level
 * with an admin key, else `none`. Admin keys count whether or not `SKILLMESH_AUTH` is off.
 * @example const { level, by } = await adminOf(c.req.raw.headers, runtime.config, runtime.keys)
 */
export async function adminOf(headers: Headers, config: Pick<GatewayConfig, "adminToken" | "auth">, keys: KeyRing): Promise<AdminIdentity> {
  if (await hasAdminToken(headers.get("authorization"), config.adminToken)) return { level: "write", by: "admin-token" };
  const outcome = await authenticate(headers, { required: true, oauth: config.auth.oauth }, keys);
  return "caller" in outcome ? { level: outcome.caller.access.admin, by: outcome.caller.id } : { level: "none", by: "anonymous" };
}
