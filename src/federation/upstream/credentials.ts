/**
 * What an upstream is called with: the headers of its credential for one call. A static bearer
 * or header is unsealed; OAuth client credentials are exchanged for an access token (kept until
 * shortly before it expires); a `per-caller` upstream takes the caller's own token, which the
 * caller stored sealed beforehand. The caller's Skillmesh credential is never among them.
 */
import { boundedText } from "../../lib/body/index.js";
import { sha256Hex } from "../../lib/hash/index.js";
import { safeJson } from "../../lib/json/index.js";
import { ErrorCode, RpcError, errorText } from "../../protocols/jsonrpc/index.js";
import type { Store } from "../../store/index.js";
import type { AuthView, Sealed, StoredAuth, UpstreamAuth } from "./model.js";
import { SealedSchema } from "./model.js";
import { seal, unseal } from "./secrets.js";
import { redactedUrl } from "./definitions.js";

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
    case "token-exchange": {
      const { listToken, ...rest } = auth;
      return {
        ...rest,
        clientSecret: await seal(secret, context, auth.clientSecret),
        ...(listToken ? { listToken: await seal(secret, context, listToken) } : {}),
      };
    }
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
      return { type: "client_credentials", tokenUrl: redactedUrl(auth.tokenUrl), clientId: auth.clientId, ...(auth.scope ? { scope: auth.scope } : {}) };
    case "per-caller":
      return { type: "per-caller", ...(auth.header ? { header: auth.header } : {}), listToken: !!auth.listToken };
    case "token-exchange":
      return {
        type: "token-exchange",
        tokenUrl: redactedUrl(auth.tokenUrl),
        clientId: auth.clientId,
        ...(auth.audience ? { audience: auth.audience } : {}),
        ...(auth.resource ? { resource: auth.resource } : {}),
        ...(auth.scope ? { scope: auth.scope } : {}),
        listToken: !!auth.listToken,
      };
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

/** Whose credential a call needs: the upstream's, as stored, for one caller. */
export interface CredentialRequest {
  /** The key that unseals stored secrets (`SKILLMESH_UPSTREAM_KEY`). */
  secret: string | undefined;
  upstream: string;
  auth: StoredAuth;
  /** Whose call it is (`OPERATOR` for the gateway's own reads). */
  caller: string;
  signal?: AbortSignal | undefined;
  /** The caller's OAuth access token, for a `token-exchange` upstream. */
  subjectToken?: string | undefined;
}

/**
 * The credential of one call of `upstream` by `caller`, or the `RpcError` that says what is
 * missing (a per-caller upstream the caller has not connected: -32006 with how to). A
 * `token-exchange` upstream takes the caller's OAuth access token (`subjectToken`) to exchange.
 * @example const { headers } = await credentialFor(store, { secret, upstream: "github", auth, caller: "k_123" })
 */
export function credentialFor(store: Store, request: CredentialRequest): Promise<CallCredential> {
  const { upstream, auth, caller } = request;
  if (auth.type === "token-exchange") return exchangedCredential({ ...request, auth });
  // Each call would otherwise unseal a static secret, or read a caller's token from the store:
  // kept per isolate, by the stored auth (a record is re-read every few seconds) or briefly per caller.
  if (auth.type === "bearer" || auth.type === "header" || auth.type === "query") {
    let known = staticCredentials.get(auth);
    if (!known) {
      staticCredentials.set(auth, (known = readCredential(store, request)));
      known.catch(() => staticCredentials.delete(auth));
    }
    return known;
  }
  if (auth.type !== "per-caller" || caller === OPERATOR) return readCredential(store, request);
  const key = `${upstream}\n${caller}`;
  const known = callerCredentials.get(key);
  if (known && known.until > Date.now()) return known.credential;
  const credential = readCredential(store, request);
  callerCredentials.set(key, { credential, until: Date.now() + CALLER_CREDENTIAL_MS });
  credential.catch(() => callerCredentials.delete(key));
  return credential;
}

/** How long an isolate uses a caller's token before reading it again (a change elsewhere shows within it). */
const CALLER_CREDENTIAL_MS = 5_000;
const staticCredentials = new WeakMap<StoredAuth, Promise<CallCredential>>();
const callerCredentials = new Map<string, { credential: Promise<CallCredential>; until: number }>();

async function readCredential(store: Store, { secret, upstream, auth, caller, signal }: CredentialRequest): Promise<CallCredential> {
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
    case "token-exchange":
      return exchangedCredential({ secret, upstream, auth, caller, signal });
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
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    ...(auth.scope ? { scope: auth.scope } : {}),
    ...(auth.audience ? { audience: auth.audience } : {}),
  });
  try {
    const { status, answer } = await askTokenEndpoint(secret, upstream, auth, form, signal);
    if (status !== 200 || typeof answer?.access_token !== "string") throw new Error(`HTTP ${status}`);
    tokens.set(key, { token: answer.access_token, until: Date.now() + Math.max(0, lifetimeOf(answer) - TOKEN_MARGIN_MS) });
    return answer.access_token;
  } catch (error) {
    if (signal?.aborted) throw error;
    console.error(`[upstream] ${upstream}: no access token from its token endpoint:`, errorText(error));
    throw new RpcError(ErrorCode.SkillUnavailable, `The ${upstream} upstream's token endpoint gave the gateway no access token; retry after 5 s`, {
      retryAfterMs: 5_000,
    });
  }
}

/** A token endpoint's answer (RFC 6749 §5.1, §5.2), as far as it is read. */
interface TokenAnswer {
  access_token?: unknown;
  expires_in?: unknown;
  error?: unknown;
}

/**
 * One request to an upstream's token endpoint, the gateway authenticating as its client
 * (client_secret_basic; no redirect followed, at most 64 KiB read): the status and the answer.
 */
async function askTokenEndpoint(
  secret: string | undefined,
  upstream: string,
  auth: { tokenUrl: string; clientId: string; clientSecret: Sealed },
  form: URLSearchParams,
  signal?: AbortSignal,
): Promise<{ status: number; answer: TokenAnswer | undefined }> {
  const clientSecret = await unseal(secret, sealContext.upstream(upstream), auth.clientSecret);
  const basic = btoa(`${encodeURIComponent(auth.clientId)}:${encodeURIComponent(clientSecret)}`);
  const response = await fetch(auth.tokenUrl, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: form.toString(),
    redirect: "manual",
    signal: signal ?? AbortSignal.timeout(5_000),
  });
  return { status: response.status, answer: safeJson(await boundedText(response, 64 * 1024)) as TokenAnswer | undefined };
}

/** How long a token lives, by its `expires_in` (five minutes when it does not say). */
const lifetimeOf = (answer: TokenAnswer): number => (typeof answer.expires_in === "number" && answer.expires_in > 0 ? answer.expires_in * 1000 : 300_000);

/** Forgets an upstream's access tokens, its callers' exchanged ones too (its credentials changed or it was removed). */
export function forgetAccessToken(upstream: string): void {
  for (const key of tokens.keys()) if (key.startsWith(`${upstream}\n`)) tokens.delete(key);
  for (const key of exchanged.keys()) if (key.startsWith(`${upstream}\n`)) exchanged.delete(key);
}

type TokenExchangeAuth = Extract<StoredAuth, { type: "token-exchange" }>;

/** RFC 8693's names. */
const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/**
 * Exchanged tokens, by upstream, its sealed client secret and a digest of the caller's token: a
 * caller's new token is exchanged anew, and no caller is ever given another's. At most
 * `EXCHANGED_KEPT` per isolate (the oldest forgotten first).
 */
const exchanged = new Map<string, { token: Promise<string>; until: number }>();
const EXCHANGED_KEPT = 1_024;

/**
 * The credential of a `token-exchange` upstream: for a caller, its OAuth access token exchanged
 * (RFC 8693) for one the upstream takes; for the operator (reading definitions), its `listToken`
 * if it has one. A caller without an OAuth token (an API key, a pipeline's step, a job) is refused
 * with -32006: there is nothing of its own to exchange, and the gateway never stands in for it.
 */
async function exchangedCredential({
  secret,
  upstream,
  auth,
  caller,
  subjectToken,
  signal,
}: CredentialRequest & { auth: TokenExchangeAuth }): Promise<CallCredential> {
  if (caller === OPERATOR) {
    const token = auth.listToken && (await unseal(secret, sealContext.upstream(upstream), auth.listToken));
    return { headers: token ? { authorization: `Bearer ${token}` } : {}, sessionKey: "operator" };
  }
  if (!subjectToken) {
    throw new RpcError(
      ErrorCode.Unauthorized,
      `The ${upstream} upstream acts as its caller: call with an OAuth access token of this gateway's issuer (an API key, a pipeline's step or an async job has none to exchange)`,
      { upstream },
    );
  }
  const key = `${upstream}\n${auth.clientSecret.iv}\n${await sha256Hex(subjectToken)}`;
  let known = exchanged.get(key);
  if (!known || known.until <= Date.now()) {
    const token = exchangeToken(secret, upstream, auth, subjectToken, signal).then(({ token: value, lifetimeMs }) => {
      const entry = exchanged.get(key);
      if (entry) entry.until = Date.now() + Math.max(0, lifetimeMs - TOKEN_MARGIN_MS);
      return value;
    });
    if (exchanged.size >= EXCHANGED_KEPT) exchanged.delete(exchanged.keys().next().value!);
    exchanged.set(key, (known = { token, until: Infinity }));
    token.catch(() => exchanged.delete(key));
  }
  return { headers: { authorization: `Bearer ${await known.token}` }, sessionKey: `exchange:${await sha256Hex(caller)}` };
}

/** One token exchange at the upstream's token endpoint (RFC 8693 §2.1, the gateway as a confidential client, client_secret_basic). */
async function exchangeToken(
  secret: string | undefined,
  upstream: string,
  auth: TokenExchangeAuth,
  subjectToken: string,
  signal?: AbortSignal,
): Promise<{ token: string; lifetimeMs: number }> {
  const form = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    ...(auth.audience ? { audience: auth.audience } : {}),
    ...(auth.resource ? { resource: auth.resource } : {}),
    ...(auth.scope ? { scope: auth.scope } : {}),
  });
  try {
    const { status, answer } = await askTokenEndpoint(secret, upstream, auth, form, signal);
    if (status === 200 && typeof answer?.access_token === "string") return { token: answer.access_token, lifetimeMs: lifetimeOf(answer) };
    // The issuer refused this caller's token (RFC 6749 §5.2): the caller's to fix, not an outage.
    if (status === 400 || status === 401 || status === 403) {
      const why = typeof answer?.error === "string" ? answer.error.slice(0, 64) : `HTTP ${status}`;
      throw new RpcError(ErrorCode.Unauthorized, `The ${upstream} upstream's issuer would not exchange your access token (${why})`, { upstream });
    }
    throw new Error(`HTTP ${status}`);
  } catch (error) {
    if (error instanceof RpcError || signal?.aborted) throw error;
    console.error(`[upstream] ${upstream}: no exchanged token from its token endpoint:`, errorText(error));
    throw new RpcError(ErrorCode.SkillUnavailable, `The ${upstream} upstream's token endpoint exchanged no token; retry after 5 s`, { retryAfterMs: 5_000 });
  }
}
