/**
 * The gateway as an OAuth 2.1 resource server (MCP authorization, 2025-06-18 onwards): it takes
 * JWT access tokens from the issuers it is configured with, checks their signature (the issuer's
 * JWKS, discovered from its metadata and cached per isolate), `exp`/`nbf`, `iss`, and that `aud`
 * is the gateway's canonical resource URL, and maps the token's scopes onto the same grants an
 * API key has: `skill:<glob>`, `tag:<glob>`, `group:<name>`, `server:<virtual server>`, `admin:read`, `admin:write`. It
 * publishes Protected Resource Metadata (RFC 9728) so clients find the authorization server
 * from a 401. A token never leaves the gateway: skills see the caller id only.
 */
import { createLocalJWKSet, decodeJwt, errors, jwtVerify } from "jose";
import { z } from "zod";
import { sha256Hex } from "../../lib/hash/index.js";
import type { Grants } from "./access.js";

export interface OAuthEnv {
  /** Comma-separated issuer URLs whose tokens are accepted (exactly as in their `iss`). */
  SKILLMESH_OAUTH_ISSUERS?: string;
  /** The gateway's canonical resource URL, e.g. `https://gateway.example.com/mcp`: every token's `aud`. */
  SKILLMESH_RESOURCE_URL?: string;
  /** The scopes a client should ask for (the 401 challenge and the metadata), space-separated. Default `skill:*`. */
  SKILLMESH_OAUTH_SCOPES?: string;
}

/** The resource server's settings, when OAuth is configured. */
export interface OAuthConfig {
  issuers: string[];
  resource: string;
  scopes: string;
  /** Where the Protected Resource Metadata of `resource` is served (RFC 9728 §3.1). */
  metadataUrl: string;
}

/**
 * The OAuth settings of an env, or undefined when OAuth is not configured (both the issuers and
 * the resource URL are needed).
 * @example oauthConfigOf({ SKILLMESH_OAUTH_ISSUERS: "https://auth.example.com", SKILLMESH_RESOURCE_URL: "https://gw.example.com/mcp" })
 */
export function oauthConfigOf(env: OAuthEnv): OAuthConfig | undefined {
  const issuers = (env.SKILLMESH_OAUTH_ISSUERS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const resource = env.SKILLMESH_RESOURCE_URL?.trim();
  if (!issuers.length || !resource) return undefined;
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return {
    issuers,
    resource,
    scopes: env.SKILLMESH_OAUTH_SCOPES?.trim() || "skill:*",
    metadataUrl: `${url.origin}/.well-known/oauth-protected-resource${path}`,
  };
}

/**
 * The Protected Resource Metadata document (RFC 9728).
 * @example c.json(protectedResourceMetadata(config))
 */
export function protectedResourceMetadata(config: OAuthConfig) {
  return {
    resource: config.resource,
    authorization_servers: config.issuers,
    scopes_supported: [...new Set([...config.scopes.split(" "), "skill:*", "tag:*", "admin:read", "admin:write"])],
    bearer_methods_supported: ["header"],
    resource_name: "Skillmesh gateway",
  };
}

/** A verified token: who, and what its scopes grant. */
export interface TokenCaller {
  id: string;
  grants: Grants;
}

/** Why a token is refused. */
export class TokenRefused extends Error {
  constructor(
    message: string,
    readonly insufficientScope = false,
  ) {
    super(message);
    this.name = "TokenRefused";
  }
}

/**
 * The grants of a token's scopes (`scope`, space-separated, or `scp`, a list); other scopes are
 * ignored.
 * @example grantsOfScopes("skill:text.* group:beta openid") // { skills: ["text.*"], tags: [], groups: ["beta"] }
 */
export function grantsOfScopes(scopes: readonly string[]): Grants {
  const grants: { skills: string[]; tags: string[]; groups: string[]; admin?: "read" | "write"; servers?: string[] } = { skills: [], tags: [], groups: [] };
  for (const scope of scopes) {
    const [kind, value] = [scope.slice(0, scope.indexOf(":")), scope.slice(scope.indexOf(":") + 1)];
    if (!value) continue;
    if (kind === "skill") grants.skills.push(value);
    else if (kind === "tag") grants.tags.push(value);
    else if (kind === "group") grants.groups.push(value);
    else if (kind === "server") (grants.servers ??= []).push(value);
    else if (kind === "admin" && (value === "read" || value === "write")) grants.admin = grants.admin === "write" ? "write" : value;
  }
  return grants;
}

/** An authorization server's metadata (RFC 8414, or OpenID Connect discovery), as far as the gateway reads it. */
export const AuthorizationServerMetadataSchema = z.object({ jwks_uri: z.url({ protocol: /^https?$/ }), token_endpoint: z.string().optional() }).loose();

/** A JSON Web Key Set (RFC 7517): the issuer's public keys; jose checks each key when it uses it. */
export const JwksSchema = z.object({ keys: z.array(z.object({ kty: z.string() }).loose()).max(100) });

/** How long an issuer's keys are kept, and how often an unknown `kid` may send us to fetch them again. */
const JWKS_TTL_MS = 10 * 60_000;
const JWKS_REFETCH_MS = 30_000;

/**
 * Each issuer's key set, per isolate. A request that finds it missing or stale fetches it
 * itself (no request awaits another request's fetch: workerd forbids sharing I/O), then every
 * request uses the keys as plain data.
 */
const keySets = new Map<string, { keys: ReturnType<typeof createLocalJWKSet>; fetchedAt: number }>();

async function keySetOf(issuer: string, now: number, refresh: boolean) {
  const cached = keySets.get(issuer);
  if (cached && now - cached.fetchedAt < (refresh ? JWKS_REFETCH_MS : JWKS_TTL_MS)) return cached.keys;
  const metadata = await discoverMetadata(issuer);
  const response = await fetch(metadata.jwks_uri, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`the JWKS of ${issuer} answered HTTP ${response.status}`);
  const jwks = JwksSchema.safeParse(await response.json().catch(() => undefined));
  if (!jwks.success) throw new Error(`the JWKS of ${issuer} is not a JSON Web Key Set`);
  const keys = createLocalJWKSet(jwks.data);
  keySets.set(issuer, { keys, fetchedAt: now });
  return keys;
}

/**
 * The issuer's metadata: RFC 8414, else OpenID Connect discovery.
 * @example (await discoverMetadata("https://auth.example.com")).token_endpoint // "https://auth.example.com/oauth/token"
 */
export async function discoverMetadata(issuer: string): Promise<{ jwks_uri: string; token_endpoint?: string | undefined }> {
  const base = issuer.replace(/\/$/, "");
  for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
    const response = await fetch(`${base}${path}`, { headers: { accept: "application/json" } });
    if (!response.ok) continue;
    const metadata = AuthorizationServerMetadataSchema.safeParse(await response.json().catch(() => undefined));
    if (metadata.success) return metadata.data;
  }
  throw new Error(`no authorization server metadata with a jwks_uri at ${issuer}`);
}

/**
 * Verifies an access token and returns its caller, or throws `TokenRefused`.
 * @example const { id, grants } = await verifyAccessToken(token, config)
 */
export async function verifyAccessToken(token: string, config: OAuthConfig, now = Date.now()): Promise<TokenCaller> {
  let issuer: string;
  try {
    issuer = String(decodeJwt(token).iss);
  } catch {
    throw new TokenRefused("the credential is neither an API key nor a JWT access token");
  }
  if (!config.issuers.includes(issuer)) throw new TokenRefused("the token's issuer is not one this gateway trusts");
  const verify = async (refresh: boolean) =>
    jwtVerify(token, await keySetOf(issuer, now, refresh), {
      issuer,
      audience: config.resource,
      requiredClaims: ["exp", "sub"],
      algorithms: ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"],
      clockTolerance: 30,
      currentDate: new Date(now),
    });
  let payload: Awaited<ReturnType<typeof verify>>["payload"];
  try {
    payload = (await verify(false)).payload;
  } catch (error) {
    // A key the cached set lacks may be a rotation: look once more (at most every 30 s).
    if (error instanceof errors.JWKSNoMatchingKey) payload = await verify(true).then((r) => r.payload, refusal);
    else refusal(error);
  }
  const scopes =
    typeof payload.scope === "string" ? payload.scope.split(" ")
    : Array.isArray(payload.scp) ? payload.scp.map(String)
    : [];
  const grants = grantsOfScopes(scopes);
  if (!grants.skills.length && !grants.tags.length && !grants.admin) {
    throw new TokenRefused(`the token grants no skill: ask for a scope such as ${config.scopes}`, true);
  }
  return { id: await callerIdOfSubject(issuer, payload.sub!), grants };
}

function refusal(error: unknown): never {
  if (error instanceof errors.JWTExpired) throw new TokenRefused("the token has expired");
  if (error instanceof errors.JWTClaimValidationFailed) throw new TokenRefused(`the token's ${error.claim} claim is not accepted here`);
  if (error instanceof errors.JOSEError) throw new TokenRefused("the token's signature or format is not valid");
  throw error; // the issuer could not be reached: not the caller's fault
}

/**
 * The caller id of a token's subject, unique per issuer (two issuers may both have an `alice`,
 * and each owns its own jobs, limits and idempotency keys): `o:<sub>@<8 hex digits of the
 * issuer's SHA-256>` when the subject is short and plain, else `o_` and a hash of both.
 * @example await callerIdOfSubject("https://auth.example.com", "agent-7") // "o:agent-7@5f3c91ab"
 */
export async function callerIdOfSubject(issuer: string, subject: string): Promise<string> {
  if (/^[A-Za-z0-9_.-]{1,48}$/.test(subject)) return `o:${subject}@${(await sha256Hex(issuer)).slice(0, 8)}`;
  return `o_${(await sha256Hex(`${issuer}\n${subject}`)).slice(0, 16)}`;
}

/**
 * Whether a caller id is an OAuth caller's (`callerIdOfSubject` made it).
 * @example isOAuthCallerId("o:agent-7@5f3c91ab") // true
 */
export const isOAuthCallerId = (id: string): boolean => /^o[:_]/.test(id);
