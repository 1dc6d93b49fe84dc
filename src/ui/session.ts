/**
 * The dashboard's sign-in: an admin credential (the admin token or an admin key) is typed into
 * the page once and exchanged for a session — a random token in an HttpOnly, SameSite=Strict
 * cookie scoped to /admin, stored as its hash with the identity it stands for, for 8 hours. No
 * credential is ever in a URL or in the page. A request signed in by the cookie that changes
 * anything must also carry `X-Skillmesh-UI: 1` (a header no cross-site form can send).
 */
import { getCookie } from "hono/cookie";
import type { Context } from "hono";
import { z } from "zod";
import type { AdminIdentity } from "../auth/admin.js";
import { randomHex, sha256Hex } from "../hash/index.js";
import { safeJson } from "../json/index.js";
import type { Store } from "../store/index.js";

export const UI_COOKIE = "skillmesh_ui";
export const UI_SESSION_MS = 8 * 3_600_000;
/** The header the dashboard's script sends with every change. */
export const UI_HEADER = "x-skillmesh-ui";

const SessionSchema = z.object({ by: z.string(), level: z.enum(["read", "write"]) });
const sessionKey = async (token: string) => `sm:ui:session:${await sha256Hex(token)}`;

/**
 * Starts a session for a signed-in admin; returns the cookie's token.
 * @example const token = await startSession(store, { level: "write", by: "admin-token" })
 */
export async function startSession(store: Store, identity: AdminIdentity): Promise<string> {
  const token = randomHex(32);
  await store.set(await sessionKey(token), JSON.stringify({ by: identity.by, level: identity.level }), { px: UI_SESSION_MS });
  return token;
}

/** The request's session token, when its cookie holds one of ours (64 hex digits). */
function tokenOf(c: Context): string | undefined {
  const token = getCookie(c, UI_COOKIE);
  return token && /^[0-9a-f]{64}$/.test(token) ? token : undefined;
}

/** The identity of the request's session cookie, if it has a live one. */
export async function sessionOf(store: Store, c: Context): Promise<AdminIdentity | undefined> {
  const token = tokenOf(c);
  if (!token) return undefined;
  const stored = await store.get(await sessionKey(token));
  const parsed = SessionSchema.safeParse(stored === null ? undefined : safeJson(stored));
  return parsed.success ? parsed.data : undefined;
}

/** Ends the request's session. */
export async function endSession(store: Store, c: Context): Promise<void> {
  const token = tokenOf(c);
  if (token) await store.del(await sessionKey(token));
}
