/**
 * What an upstream is called with: the headers of its credential for one call. A static bearer
 * or header is unsealed; OAuth client credentials are exchanged for an access token (kept until
 * shortly before it expires); a `per-caller` upstream takes the caller's own token, which the
 * caller stored sealed beforehand. The caller's Skillmesh credential is never among them.
 */
import { boundedText } from "../body/index.js";
import { sha256Hex } from "../hash/index.js";
import { safeJson } from "../json/index.js";
import { ErrorCode, RpcError, errorText } from "../jsonrpc/index.js";
import type { Store } from "../store/index.js";
import type { AuthView, Sealed, StoredAuth, UpstreamAuth } from "./model.js";
import { SealedSchema } from "./model.js";
import { seal, unseal } from "./secrets.js";

/** The store keys of callers' own upstream tokens. */
export const callerCredentialKey = (upstream: string, callerHash: string) => `sm:upstream:${upstream}:caller:${callerHash}`;

/** What the additional data of each sealed secret says it belongs to. */
export const sealContext = {
  upstream: (name: string) => `upstream:${name}`,
  caller: (name: string, caller: string) => `upstream:${name}:caller:${caller}`,
};

/**
 * An upstream's credentials as stored: every secret sealed.
 * @example const stored = await sealAuth(config.upstreamKey, "github", { type: "bearer", token })
 */
export async function sealAuth(secret: string | undefined, upstream: string, auth: UpstreamAuth): Promise<StoredAuth> {
  const context = sealContext.upstream(upstream);
  switch (auth.type) {
    case "none":
      return auth;
    case "per-caller":
      return {
        type: "per-caller",
        ...(auth.header ? { header: auth.header } : {}),
        ...(auth.listToken ? { listToken: await seal(secret, context, auth.listToken) } : {}),
      };
    case "bearer":
      return { type: "bearer", token: await seal(secret, context, auth.token) };
    case "header":
      return { type: "header", name: auth.name, value: await seal(secret, context, auth.value) };
    case "query":
      return { type: "query", name: auth.name, value: await seal(secret, context, auth.value) };
    case "client_credentials":
      return { ...auth, clientSecret: await seal(secret, context, auth.clientSecret) };
  }
}

/** The credential an admin sees: its kind and public parts, never a secret. */
export function describeAuth(auth: StoredAuth): AuthView {
  switch (auth.type) {
    case "bearer":
      return { type: "bearer" };
    case "header":
    case "query":
      return { type: auth.type, name: auth.name };
    case "client_credentials":
      return { type: "client_credentials", tokenUrl: auth.tokenUrl, clientId: auth.clientId, ...(auth.scope ? { scope: auth.scope } : {}) };
    case "per-caller":
      return { type: "per-caller", ...(auth.header ? { header: auth.header } : {}), listToken: !!auth.listToken };
    default:
      return { type: auth.type };
  }
}

/** Headers (and query parameters) of a call, and a key that tells sessions opened with different credentials apart. */
export interface CallCredential {
  headers: Record<string, string>;
  /** A `query` credential: added to the request's URL. */
  query?: Record<string, string>;
  sessionKey: string;
}

/** The caller of a definitions read (registration, refresh): the operator, not a caller of /rpc or /mcp. */
export const OPERATOR = "(operator)";

/**
 * Access tokens by upstream and by its sealed client secret (new with every registration): an
 * isolate never uses a token got with credentials the upstream no longer has.
 */
const tokens = new Map<string, { token: string; until: number }>();
const tokenKey = (upstream: string, auth: Extract<StoredAuth, { type: "client_credentials" }>) => `${upstream}\n${auth.clientSecret.iv}`;
/** How long before its expiry an access token is replaced. */
const TOKEN_MARGIN_MS = 30_000;

/**
 * The credential of one call of `upstream` by `caller`, or the `RpcError` that says what is
 * missing (a per-caller upstream the caller has not connected: -32006 with how to).
 * @example const { headers } = await credentialFor(store, secret, "github", auth, "k_123")
 */
export function credentialFor(
  store: Store,
  secret: string | undefined,
  upstream: string,
  auth: StoredAuth,
  caller: string,
  signal?: AbortSignal,
): Promise<CallCredential> {
  // Each call would otherwise unseal a static secret, or read a caller's token from the store:
  // kept per isolate, by the stored auth (a record is re-read every few seconds) or briefly per caller.
  if (auth.type === "bearer" || auth.type === "header" || auth.type === "query") {
    let known = staticCredentials.get(auth);
    if (!known) {
      staticCredentials.set(auth, (known = readCredential(store, secret, upstream, auth, caller, signal)));
      known.catch(() => staticCredentials.delete(auth));
    }
    return known;
  }
  if (auth.type !== "per-caller" || caller === OPERATOR) return readCredential(store, secret, upstream, auth, caller, signal);
  const key = `${upstream}\n${caller}`;
  const known = callerCredentials.get(key);
  if (known && known.until > Date.now()) return known.credential;
  const credential = readCredential(store, secret, upstream, auth, caller, signal);
  callerCredentials.set(key, { credential, until: Date.now() + CALLER_CREDENTIAL_MS });
  credential.catch(() => callerCredentials.delete(key));
  return credential;
}

/** How long an isolate uses a caller's token before reading it again (a change elsewhere shows within it). */
const CALLER_CREDENTIAL_MS = 5_000;
const staticCredentials = new WeakMap<StoredAuth, Promise<CallCredential>>();
const callerCredentials = new Map<string, { credential: Promise<CallCredential>; until: number }>();

async function readCredential(
  store: Store,
  secret: string | undefined,
  upstream: string,
  auth: StoredAuth,
  caller: string,
  signal?: AbortSignal,
): Promise<CallCredential> {
  const context = sealContext.upstream(upstream);
  switch (auth.type) {
    case "none":
      return { headers: {}, sessionKey: "" };
    case "bearer":
      return { headers: { authorization: `Bearer ${await unseal(secret, context, auth.token)}` }, sessionKey: `bearer:${auth.token.iv}` };
    case "header":
      return { headers: { [auth.name.toLowerCase()]: await unseal(secret, context, auth.value) }, sessionKey: `header:${auth.value.iv}` };
    case "query":
      return { headers: {}, query: { [auth.name]: await unseal(secret, context, auth.value) }, sessionKey: `query:${auth.value.iv}` };
    case "client_credentials":
      return { headers: { authorization: `Bearer ${await accessToken(secret, upstream, auth, signal)}` }, sessionKey: `client:${auth.clientSecret.iv}` };
    case "per-caller": {
      // Reading definitions (no caller) goes with the operator's listing token, if there is one.
      const token =
        caller === OPERATOR ? auth.listToken && (await unseal(secret, context, auth.listToken)) : await callerToken(store, secret, upstream, caller);
      if (token === undefined) {
        throw new RpcError(
          ErrorCode.Unauthorized,
          `The ${upstream} upstream needs your own credential: PUT /upstreams/${upstream}/credential with {"token": "…"} (your Skillmesh credential is never sent upstream)`,
          { upstream },
        );
      }
      const header = (auth.header ?? "authorization").toLowerCase();
      return { headers: { [header]: header === "authorization" ? `Bearer ${token}` : token }, sessionKey: `caller:${await sha256Hex(caller)}` };
    }
  }
}

/** A caller's own token for a per-caller upstream, stored sealed for that caller only. */
export async function storeCallerToken(store: Store, secret: string | undefined, upstream: string, caller: string, token: string): Promise<void> {
  callerCredentials.delete(`${upstream}\n${caller}`);
  const sealed = await seal(secret, sealContext.caller(upstream, caller), token);
  await store.set(callerCredentialKey(upstream, await sha256Hex(caller)), JSON.stringify({ ...sealed, at: Date.now() }));
}

/** Forgets a caller's token; true when there was one. */
export async function removeCallerToken(store: Store, upstream: string, caller: string): Promise<boolean> {
  callerCredentials.delete(`${upstream}\n${caller}`);
  return (await store.del(callerCredentialKey(upstream, await sha256Hex(caller)))) > 0;
}

/** When the caller stored its token, if it did (never the token). */
export async function callerTokenStoredAt(store: Store, upstream: string, caller: string): Promise<number | undefined> {
  const raw = await store.get(callerCredentialKey(upstream, await sha256Hex(caller)));
  const at = (safeJson(raw ?? "") as { at?: unknown } | undefined)?.at;
  return typeof at === "number" ? at : undefined;
}

async function callerToken(store: Store, secret: string | undefined, upstream: string, caller: string): Promise<string | undefined> {
  if (caller === "anonymous") return undefined;
  const raw = await store.get(callerCredentialKey(upstream, await sha256Hex(caller)));
  const sealed = SealedSchema.safeParse(safeJson(raw ?? ""));
  return sealed.success ? unseal(secret, sealContext.caller(upstream, caller), sealed.data as Sealed) : undefined;
}

/** An OAuth 2 access token by the client credentials grant (RFC 6749 §4.4, client_secret_basic), kept per isolate. */
async function accessToken(
  secret: string | undefined,
  upstream: string,
  auth: Extract<StoredAuth, { type: "client_credentials" }>,
  signal?: AbortSignal,
): Promise<string> {
  const key = tokenKey(upstream, auth);
  const known = tokens.get(key);
  if (known && known.until > Date.now()) return known.token;
  const clientSecret = await unseal(secret, sealContext.upstream(upstream), auth.clientSecret);
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    ...(auth.scope ? { scope: auth.scope } : {}),
    ...(auth.audience ? { audience: auth.audience } : {}),
  });
  const basic = btoa(`${encodeURIComponent(auth.clientId)}:${encodeURIComponent(clientSecret)}`);
  try {
    const response = await fetch(auth.tokenUrl, {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
      redirect: "manual",
      signal: signal ?? AbortSignal.timeout(5_000),
    });
    const answer = safeJson(await boundedText(response, 64 * 1024)) as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (response.status !== 200 || typeof answer?.access_token !== "string") throw new Error(`HTTP ${response.status}`);
    const lifetimeMs = typeof answer.expires_in === "number" && answer.expires_in > 0 ? answer.expires_in * 1000 : 300_000;
    tokens.set(key, { token: answer.access_token, until: Date.now() + Math.max(0, lifetimeMs - TOKEN_MARGIN_MS) });
    return answer.access_token;
  } catch (error) {
    if (signal?.aborted) throw error;
    console.error(`[upstream] ${upstream}: no access token from its token endpoint:`, errorText(error));
    throw new RpcError(ErrorCode.SkillUnavailable, `The ${upstream} upstream's token endpoint gave the gateway no access token; retry after 5 s`, {
      retryAfterMs: 5_000,
    });
  }
}

/** Forgets an upstream's access token (its credentials changed or it was removed). */
export function forgetAccessToken(upstream: string): void {
  for (const key of tokens.keys()) if (key.startsWith(`${upstream}\n`)) tokens.delete(key);
}
