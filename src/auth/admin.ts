/**
 * Who may use the admin API: the operator's token (`SKILLMESH_ADMIN_TOKEN`, compared in constant
 * time: full access), or an API key granted `admin: "read"` (GET only, e.g. a dashboard or CI)
 * or `admin: "write"`. With no token configured and no admin key, nobody may. One check for
 * the admin API and for the details of `/healthz`.
 */
import { timingSafeEqual } from "hono/utils/buffer";
import type { KeyRing } from "../keys/index.js";
import type { AdminLevel } from "./access.js";
import { type AuthEnv, authenticate, bearerOf } from "./index.js";

export interface AdminEnv extends AuthEnv {
  /** The operator's admin token (a secret). Unset: only admin keys reach the admin API. */
  SKILLMESH_ADMIN_TOKEN?: string;
}

/**
 * True when the `Authorization` header carries the gateway's admin token.
 * @example if (await hasAdminToken(c.req.header("authorization"), c.env.SKILLMESH_ADMIN_TOKEN)) …
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
 * @example const { level, by } = await adminOf(c.req.raw.headers, c.env, keys)
 */
export async function adminOf(headers: Headers, env: AdminEnv, keys: KeyRing): Promise<AdminIdentity> {
  if (await hasAdminToken(headers.get("authorization"), env.SKILLMESH_ADMIN_TOKEN)) return { level: "write", by: "admin-token" };
  const outcome = await authenticate(headers, { ...env, SKILLMESH_AUTH: "required" }, keys);
  return "caller" in outcome ? { level: outcome.caller.access.admin, by: outcome.caller.id } : { level: "none", by: "anonymous" };
}
