/**
 * Who calls `/rpc` and `/mcp`, and whether they may. With `SKILLMESH_AUTH=off` nobody is
 * checked: a bearer key only names its caller (a hash of it) and every skill is open. Otherwise
 * (the default) a call needs `Authorization: Bearer <API key>` — or, when OAuth is configured,
 * a JWT access token (src/identity/auth/oauth.ts): a missing, unknown, revoked, expired or foreign
 * credential is HTTP 401 with `WWW-Authenticate` and a JSON-RPC error (-32006), a token that
 * grants nothing is 403 (`insufficient_scope`), and a valid credential brings its grants
 * (src/identity/auth/access.ts) — a key also its rate and its quota. Checking a key is a hash and a
 * lookup in the isolate's key snapshot: no store round trip. With auth off, the limits of
 * `SKILLMESH_RATE_PER_ADDRESS` / `SKILLMESH_QUOTA_PER_ADDRESS` apply per client address. (The
 * settings are src/gateway/config's.)
 */
import type { MiddlewareHandler } from "hono";
import { addressIdOf } from "../../protocols/context/index.js";
import { sha256Hex } from "../../lib/hash/index.js";
import { ErrorCode, failure } from "../../protocols/jsonrpc/index.js";
import { type ApiKey, KEY_PREFIX, KeyIdSchema, type KeyRing } from "../keys/index.js";
import { type Limits, type RateWindow, windowOf } from "../../policies/ratelimit/index.js";
import { type Access, FULL_ACCESS, accessOf, accessOfSignature, bothOf, delegatedAccess } from "./access.js";
import { type Delegation, type Delegations, isDelegationToken } from "./delegation.js";
import { type OAuthConfig, TokenRefused, isOAuthCallerId, verifyAccessToken } from "./oauth.js";

export { type Access, FULL_ACCESS, accessOf, allowsAdmin } from "./access.js";

/** How callers are checked (from the gateway's settings, src/gateway/config). */
export interface AuthSettings {
  /** False with `SKILLMESH_AUTH=off` (local development; `npm run dev` sets it). */
  required: boolean;
  /** With auth off: limits per client address. */
  ratePerAddress?: RateWindow;
  quotaPerAddress?: RateWindow;
  /** With OAuth configured: the issuers and the resource URL. */
  oauth?: OAuthConfig;
  /** The rate and quota of each OAuth caller (`SKILLMESH_OAUTH_RATE`, `SKILLMESH_OAUTH_QUOTA`). */
  oauthRate?: RateWindow;
  oauthQuota?: RateWindow;
}

/** What the middleware needs of the gateway's runtime. */
interface AuthRuntime {
  keys: KeyRing;
  config: { auth: AuthSettings };
  /** Counts refusals for /admin/metrics. */
  counters?: { refused(status: number, waitUntil: (promise: Promise<unknown>) => void): void };
  /** The live delegation tokens of pipelines' calls (src/identity/auth/delegation.ts). */
  delegations?: Delegations;
}

/** The caller of one request, once authenticated. */
export interface Caller {
  /** Who: a key's id (`k_…`), with auth off a hash of the bearer key (`c_…`), else "anonymous". */
  id: string;
  access: Access;
  /** The key, when the caller presented a valid one. */
  key?: ApiKey;
  /** The rate and quota the caller is held to. */
  limits: Limits;
  /** Set when a pipeline's step calls with its call's delegation token: what the token stands for. */
  delegation?: Pick<Delegation, "pipeline" | "grants" | "steps" | "context">;
  /**
   * An OAuth caller's verified access token: what a `token-exchange` upstream exchanges for one of
   * its own (src/federation/upstream/credentials.ts). Never logged, audited or sent anywhere else.
   */
  subjectToken?: string;
}

/** A refused credential: the HTTP status and the challenge to send. */
export interface AuthRefusal {
  status: 401 | 403;
  message: string;
  /** RFC 6750 `error`: absent when no credential was sent at all. */
  error?: "invalid_token" | "insufficient_scope";
  /** With OAuth: where clients find the authorization server (RFC 9728), and what to ask for. */
  oauth?: OAuthConfig;
}

/** The bearer credential of an `Authorization` header, if any. */
export function bearerOf(authorization: string | null | undefined): string | undefined {
  return authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

const callerByKey = new WeakMap<ApiKey, Caller>();

/** The caller a key makes: its access and limits (built once per key record of a snapshot). */
function callerOfKey(key: ApiKey): Caller {
  let caller = callerByKey.get(key);
  if (!caller) {
    const limits = { identifier: key.id, ...(key.rate ? { rate: windowOf(key.rate) } : {}), ...(key.quota ? { quota: windowOf(key.quota) } : {}) };
    callerByKey.set(key, (caller = { id: key.id, access: accessOf(key), key, limits }));
  }
  return caller;
}

/** With auth off: the per-address limits of the settings, under the client's address. */
async function addressLimitsOf(headers: Headers, settings: AuthSettings): Promise<Limits> {
  const { ratePerAddress: rate, quotaPerAddress: quota } = settings;
  if (!rate && !quota) return { identifier: "anonymous" };
  return { identifier: await addressIdOf(headers.get("cf-connecting-ip")), ...(rate ? { rate } : {}), ...(quota ? { quota } : {}) };
}

/** No skill, no group, no admin: what a caller of a public document may use. */
const NO_ACCESS = accessOf({ skills: [], tags: [], groups: [] });

/**
 * The caller of a public document (a discovery document, src/gateway/discovery): no credential is read,
 * whatever is sent. It is its client address, held to `rate` per address, and may use nothing.
 * @example const caller = await publicCaller(c.req.raw.headers, DISCOVERY_RATE)
 */
export async function publicCaller(headers: Headers, rate: RateWindow): Promise<Caller> {
  // Its own count per address: reading public documents uses up nothing of the address's calls.
  return { id: "anonymous", access: NO_ACCESS, limits: { identifier: `public:${await addressIdOf(headers.get("cf-connecting-ip"))}`, rate } };
}

/**
 * The longest bearer credential read at all: an API key is 46 characters, a JWT access token a
 * few KB. Anything longer is refused before it is hashed.
 */
export const MAX_BEARER_CHARS = 8_192;

/**
 * Digests of recent credentials that named a caller: a client sends the same bearer on every
 * call, and hashing it each time cost ~15% of a call's CPU. Only a credential that was accepted
 * (a valid key; with auth off, any) and is key-sized is kept, so strangers' bearers never fill
 * the isolate's memory: at most `DIGESTS_KEPT` × `REMEMBERED_BEARER_CHARS` characters.
 */
const digestOfBearer = new Map<string, string>();
const DIGESTS_KEPT = 1024;
const REMEMBERED_BEARER_CHARS = 128;

/** The SHA-256 of a bearer credential (remembered, if it was accepted before). */
async function bearerDigest(bearer: string): Promise<string> {
  return digestOfBearer.get(bearer) ?? sha256Hex(bearer);
}

/** Remembers an accepted credential's digest for its next call (the oldest is forgotten first). */
function rememberDigest(bearer: string, digest: string): void {
  if (bearer.length > REMEMBERED_BEARER_CHARS || digestOfBearer.has(bearer)) return;
  if (digestOfBearer.size >= DIGESTS_KEPT) digestOfBearer.delete(digestOfBearer.keys().next().value!);
  digestOfBearer.set(bearer, digest);
}

/**
 * How many credentials' digests this isolate remembers, and how many characters they hold (for
 * tests: unauthenticated requests must not grow it).
 * @example rememberedDigests() // { count: 1, chars: 46 }
 */
export function rememberedDigests(): { count: number; chars: number } {
  let chars = 0;
  for (const bearer of digestOfBearer.keys()) chars += bearer.length;
  return { count: digestOfBearer.size, chars };
}

/**
 * The caller of a request, or why it is refused. With `delegations`, a pipeline's delegation
 * token (src/identity/auth/delegation.ts) stands for the pipeline's caller: its grants as they are now,
 * narrowed to the skills the pipeline declares, its limits, never admin access.
 * @example const outcome = await authenticate(request.headers, runtime.config.auth, runtime.keys, runtime.delegations)
 */
export async function authenticate(
  headers: Headers,
  settings: AuthSettings,
  keys: KeyRing,
  delegations?: Delegations,
): Promise<{ caller: Caller } | { refused: AuthRefusal }> {
  const bearer = bearerOf(headers.get("authorization"));
  if (bearer && bearer.length > MAX_BEARER_CHARS) {
    return {
      refused: {
        status: 401,
        oauth: settings.oauth,
        error: "invalid_token",
        message: `Unauthorized: a credential of more than ${MAX_BEARER_CHARS} characters is no API key or access token`,
      },
    };
  }
  if (bearer && delegations && isDelegationToken(bearer)) return delegatedCaller(await delegations.find(bearer, Date.now()), keys, settings);
  const hash = bearer ? await bearerDigest(bearer) : undefined;
  if (!settings.required) {
    if (bearer && hash) rememberDigest(bearer, hash);
    return { caller: { id: hash ? `c_${hash.slice(0, 16)}` : "anonymous", access: FULL_ACCESS, limits: await addressLimitsOf(headers, settings) } };
  }
  const { oauth } = settings;
  if (!bearer || !hash) {
    return {
      refused: { status: 401, oauth, message: `This gateway needs a credential: send Authorization: Bearer <API key${oauth ? " or access token" : ""}>` },
    };
  }
  if (bearer.startsWith(KEY_PREFIX) || !oauth) {
    const key = bearer.startsWith(KEY_PREFIX) ? await keys.find(hash) : undefined;
    if (!key)
      return { refused: { status: 401, oauth, error: "invalid_token", message: "Unauthorized: the credential is not a valid API key (unknown or revoked)" } };
    rememberDigest(bearer, hash);
    return { caller: callerOfKey(key) };
  }
  try {
    const token = await verifyAccessToken(bearer, oauth);
    return { caller: { id: token.id, access: accessOf(token.grants), limits: oauthLimitsOf(token.id, settings), subjectToken: bearer } };
  } catch (error) {
    if (!(error instanceof TokenRefused)) throw error;
    const status = error.insufficientScope ? 403 : 401;
    return { refused: { status, oauth, error: error.insufficientScope ? "insufficient_scope" : "invalid_token", message: `Unauthorized: ${error.message}` } };
  }
}

/** An OAuth caller's limits: `SKILLMESH_OAUTH_RATE` and `SKILLMESH_OAUTH_QUOTA`, under its caller id. */
function oauthLimitsOf(id: string, { oauthRate: rate, oauthQuota: quota }: AuthSettings): Limits {
  return { identifier: id, ...(rate ? { rate } : {}), ...(quota ? { quota } : {}) };
}

/**
 * The caller a live delegation token stands for. A key's caller is read again from the key
 * snapshot: a revoked key ends its tokens, and its grants and limits are what they are now; an
 * OAuth caller's limits are the settings' (a job's call, run after its submit, carried none).
 */
async function delegatedCaller(
  delegation: Delegation | undefined,
  keys: KeyRing,
  settings: AuthSettings,
): Promise<{ caller: Caller } | { refused: AuthRefusal }> {
  const refused = (why: string) => ({ refused: { status: 401 as const, error: "invalid_token" as const, message: `Unauthorized: ${why}` } });
  if (!delegation) return refused("an unknown or ended delegation token (a pipeline's token lives only as long as the call it was issued for)");
  let base = accessOfSignature(delegation.grants);
  let limits = isOAuthCallerId(delegation.caller) ? oauthLimitsOf(delegation.caller, settings) : delegation.limits;
  if (KeyIdSchema.safeParse(delegation.caller).success) {
    const key = await keys.byId(delegation.caller);
    if (!key) return refused("the API key this delegation token stands for is revoked");
    const current = callerOfKey(key);
    base = bothOf(current.access, base);
    limits = current.limits;
  }
  const { pipeline, grants, steps, context } = delegation;
  return { caller: { id: delegation.caller, access: delegatedAccess(base, steps), limits, delegation: { pipeline, grants, steps, context } } };
}

/**
 * The answer to a refused request: its status, a `WWW-Authenticate` challenge and a JSON-RPC
 * error body (-32006), so JSON-RPC and MCP clients read it like any other error.
 */
export function refusalResponse(refusal: AuthRefusal): Response {
  const parts = [`realm="skillmesh"`];
  if (refusal.error) parts.push(`error="${refusal.error}"`);
  if (refusal.oauth) parts.push(`resource_metadata="${refusal.oauth.metadataUrl}"`, `scope="${refusal.oauth.scopes}"`);
  const challenge = `Bearer ${parts.join(", ")}`;
  return new Response(JSON.stringify(failure(null, ErrorCode.Unauthorized, refusal.message)), {
    status: refusal.status,
    headers: { "content-type": "application/json", "www-authenticate": challenge },
  });
}

/**
 * Middleware for the call routes: sets `caller`, or answers the refusal.
 * @example rpcRoutes.post("/", jsonBodyGuard(), requireCaller((env) => gatewayRuntime(env)), handler)
 */
export function requireCaller<E extends object>(runtimeOf: (env: E) => AuthRuntime): MiddlewareHandler<{ Bindings: E; Variables: { caller: Caller } }> {
  return async (c, next) => {
    let outcome: Awaited<ReturnType<typeof authenticate>>;
    try {
      const { keys, config, delegations } = runtimeOf(c.env);
      outcome = await authenticate(c.req.raw.headers, config.auth, keys, delegations);
    } catch (error) {
      // The keys or an issuer's JWKS could not be read: our outage, not a bad credential.
      console.error("[gateway] cannot check credentials:", error instanceof Error ? error.message : error);
      return c.json(failure(null, ErrorCode.SkillUnavailable, "Credentials cannot be checked right now; retry after 2 s", { retryAfterMs: 2_000 }), 503);
    }
    if ("refused" in outcome) {
      runtimeOf(c.env).counters?.refused(outcome.refused.status, (promise) => c.executionCtx.waitUntil(promise));
      return refusalResponse(outcome.refused);
    }
    c.set("caller", outcome.caller);
    await next();
  };
}
