/**
 * Who may use the admin API: the operator's token (`SKILLMESH_ADMIN_TOKEN`, compared in constant
 * time: full access), or an API key granted `admin: "read"` (GET only, e.g. a dashboard or CI)
 * or `admin: "write"`. With no token configured and no admin key, nobody may. One check for
 * the admin API and for the details of `/healthz`.
 */
import { timingSafeEqual } from "hono/utils/buffer";
import type { KeyRing } from "../keys/index.js";
import { type RateWindow, checkLimits, usedOf } from "../../policies/ratelimit/index.js";
import type { Store } from "../../store/index.js";
import type { AdminLevel } from "./access.js";
import { authenticate, bearerOf } from "./index.js";
import type { OAuthConfig } from "./oauth.js";

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

/** What the admin check reads of the gateway's settings (src/gateway/config's `GatewayConfig` is one). */
export interface AdminSettings {
  adminToken?: string;
  auth: { oauth?: OAuthConfig };
}

/**
 * How much of the admin API this request may use: `write` with the admin token, the key's level
 * with an admin key, else `none`. Admin keys count whether or not `SKILLMESH_AUTH` is off.
 * @example const { level, by } = await adminOf(c.req.raw.headers, runtime.config, runtime.keys)
 */
export async function adminOf(headers: Headers, config: AdminSettings, keys: KeyRing): Promise<AdminIdentity> {
  if (await hasAdminToken(headers.get("authorization"), config.adminToken)) return { level: "write", by: "admin-token" };
  const outcome = await authenticate(headers, { required: true, oauth: config.auth.oauth }, keys);
  return "caller" in outcome ? { level: outcome.caller.access.admin, by: outcome.caller.id } : { level: "none", by: "anonymous" };
}

/**
 * Failed admin credentials (a wrong admin token or key, on the admin API or the dashboard's
 * sign-in) allowed from one client address per minute; past them, that address is refused with
 * 429 until the minute ends — before its credential is even checked, the right one included, so
 * guessing gains nothing by speed. Each failure is also in the audit log.
 */
export const FAILED_ADMIN_TRIES: RateWindow = { limit: 10, windowMs: 60_000 };

/** The throttle's counter of one client address (`addressIdOf`: what the audit log names it by too). */
const failedAdminCounter = (address: string) => `admin-fail:${address}`;

/**
 * When this client address may try an admin credential again (ms from now), or undefined when it
 * may now. A store that cannot say lets it try.
 * @example const waitMs = await adminThrottled(runtime.store, await addressIdOf(headers.get("cf-connecting-ip")))
 */
export async function adminThrottled(store: Store, address: string, now = Date.now()): Promise<number | undefined> {
  try {
    if ((await usedOf(store, failedAdminCounter(address), FAILED_ADMIN_TRIES, now)) < FAILED_ADMIN_TRIES.limit) return undefined;
  } catch {
    return undefined;
  }
  return FAILED_ADMIN_TRIES.windowMs - (now % FAILED_ADMIN_TRIES.windowMs);
}

/**
 * Counts a failed admin credential against its client address.
 * @example await countFailedAdmin(runtime.store, address)
 */
export async function countFailedAdmin(store: Store, address: string, now = Date.now()): Promise<void> {
  await checkLimits(store, { identifier: failedAdminCounter(address), rate: FAILED_ADMIN_TRIES }, now);
}

/** What an admin credential check found: who it is (`level` "none" for a credential that is not one), or that its address must wait. */
export type AdminCheck = { identity: AdminIdentity } | { waitMs: number };

/**
 * The one check of an admin credential, for the admin API and the dashboard's sign-in alike: an
 * address that failed too often lately is not even looked at (`waitMs`); a credential that is not an
 * admin's is counted against its address. `address` is undefined when no credential was presented
 * (nothing to count).
 * @example const check = await checkAdmin(runtime, request.headers, await addressIdOf(ip))
 */
export async function checkAdmin(
  { store, config, keys }: { store: Store; config: AdminSettings; keys: KeyRing },
  headers: Headers,
  address: string | undefined,
): Promise<AdminCheck> {
  const waitMs = address ? await adminThrottled(store, address) : undefined;
  if (waitMs !== undefined) return { waitMs };
  const identity = await adminOf(headers, config, keys);
  if (identity.level === "none" && address) await countFailedAdmin(store, address);
  return { identity };
}
