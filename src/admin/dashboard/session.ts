/**
 * The dashboard's sign-in: an admin credential (the admin token or an admin key) is typed into
 * the page once and exchanged for a session — a random token in an HttpOnly, SameSite=Strict
 * cookie scoped to /admin, stored as its hash with the identity it stands for, for 8 hours. No
 * credential is ever in a URL or in the page. A request signed in by the cookie that changes
 * anything must also carry `X-Skillmesh-UI: 1` (a header no cross-site form can send).
 *
 * A session is never worth more than its credential is now: each use reads the credential again.
 * A key's session ends when the key is revoked and is held to the key's admin level as it is now
 * (a key downgraded to `read` reads; one with no admin access left is signed out); an admin
 * token's session ends when the token is rotated (the session keeps a digest of the token it was
 * opened with). `endAllSessions` signs everyone out (`DELETE /admin/sessions`).
 */
import { getCookie } from "hono/cookie";
import type { Context, Env, Input } from "hono";
import { z } from "zod";
import type { AdminIdentity } from "../../identity/auth/admin.js";
import type { AdminLevel } from "../../identity/auth/access.js";
import { randomHex, sha256Hex } from "../../lib/hash/index.js";
import { safeJson } from "../../lib/json/index.js";
import type { ApiKey } from "../../identity/keys/index.js";
import type { Store } from "../../store/index.js";

export const UI_COOKIE = "skillmesh_ui";
export const UI_SESSION_MS = 8 * 3_600_000;
/** The header the dashboard's script sends with every change. */
export const UI_HEADER = "x-skillmesh-ui";

/**
 * Where sessions live and what their credentials are checked against on each use — the keys and
 * the admin token as they are now: the gateway's runtime.
 */
export interface SessionGround {
  store: Store;
  keys: { byId(id: string): Promise<ApiKey | undefined> };
  config: { adminToken?: string };
}

const SessionSchema = z.object({
  by: z.string(),
  level: z.enum(["read", "write"]),
  /** For the admin token: the digest of the token the session was opened with. */
  adminTokenDigest: z.string().optional(),
  /** The sign-out generation it was opened in (`endAllSessions` moves it on). */
  generation: z.number().int(),
  expiresAt: z.number(),
});

const GENERATION_KEY = "sm:ui:generation";
const sessionKey = async (token: string) => `sm:ui:session:${await sha256Hex(token)}`;
const tokenDigest = (adminToken: string) => sha256Hex(`skillmesh-ui:${adminToken}`);
const generationOf = (stored: string | null) => Number(stored ?? 0) || 0;

/**
 * Starts a session for a signed-in admin; returns the cookie's token.
 * @example const token = await startSession(runtime, { level: "write", by: "admin-token" })
 */
export async function startSession(ground: SessionGround, identity: AdminIdentity, now = Date.now()): Promise<string> {
  if (identity.level === "none") throw new Error("a session needs an admin credential");
  const token = randomHex(32);
  const generation = generationOf(await ground.store.get(GENERATION_KEY));
  const record = {
    by: identity.by,
    level: identity.level,
    ...(identity.by === "admin-token" && ground.config.adminToken ? { adminTokenDigest: await tokenDigest(ground.config.adminToken) } : {}),
    generation,
    expiresAt: now + UI_SESSION_MS,
  };
  await ground.store.set(await sessionKey(token), JSON.stringify(record), { px: UI_SESSION_MS });
  return token;
}

/** The request's session token, when its cookie holds one of ours (64 hex digits). */
export function sessionTokenOf<E extends Env, P extends string, I extends Input>(c: Context<E, P, I>): string | undefined {
  const token = getCookie(c, UI_COOKIE);
  return token && /^[0-9a-f]{64}$/.test(token) ? token : undefined;
}

const LEVELS: AdminLevel[] = ["none", "read", "write"];
const lower = (a: AdminLevel, b: AdminLevel): AdminLevel => (LEVELS.indexOf(a) <= LEVELS.indexOf(b) ? a : b);

/**
 * The identity a session token stands for now, or undefined when it stands for nothing: unknown,
 * older than 8 hours, signed out by `endAllSessions`, or its credential revoked, rotated or left
 * with no admin access. Its level is the lower of the session's and the credential's now.
 * @example const identity = await sessionOf(gatewayRuntime(env), sessionTokenOf(c))
 */
export async function sessionOf(ground: SessionGround, token: string | undefined, now = Date.now()): Promise<AdminIdentity | undefined> {
  if (!token) return undefined;
  const [stored, generation] = await ground.store.mget(await sessionKey(token), GENERATION_KEY);
  const parsed = SessionSchema.safeParse(stored == null ? undefined : safeJson(stored));
  if (!parsed.success) return undefined;
  const session = parsed.data;
  if (session.expiresAt <= now || session.generation !== generationOf(generation ?? null)) return undefined;
  let level: AdminLevel = session.level;
  if (session.by === "admin-token") {
    const { adminToken } = ground.config;
    if (!adminToken || session.adminTokenDigest !== (await tokenDigest(adminToken))) return undefined;
  } else {
    const key = await ground.keys.byId(session.by);
    level = lower(level, key?.admin ?? "none");
  }
  return level === "none" ? undefined : { by: session.by, level };
}

/** Ends one session. */
export async function endSession(ground: SessionGround, token: string | undefined): Promise<void> {
  if (token) await ground.store.del(await sessionKey(token));
}

/**
 * Signs every dashboard session out, on every isolate at once (their next request finds itself
 * in an older generation).
 * @example await endAllSessions(runtime)
 */
export async function endAllSessions(ground: SessionGround): Promise<void> {
  await ground.store.incr(GENERATION_KEY);
}
