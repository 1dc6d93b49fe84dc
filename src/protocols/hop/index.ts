/**
 * Signed hops from the gateway to a skill, with a key pair: the gateway holds an Ed25519 private
 * key (`SKILLMESH_HOP_KEY`, a secret on the gateway only), a skill that must know its caller is
 * the gateway holds the public key (`SKILLMESH_HOP_PUBLIC_KEY`, not a secret). A skill can check
 * the gateway's signatures but cannot make one, so no skill can act as the gateway towards
 * another skill, whatever it holds.
 *
 * Every call the gateway forwards then carries `X-Skillmesh-Signature: t=<ms>,ed25519=<base64url>`
 * over the timestamp, the HTTP method and path, the deployment it is meant for (`name@version`),
 * the SHA-256 of the body, and the headers that carry authority: the caller context, a
 * pipeline's delegation token and call key. The skill SDK refuses (401) a call that is unsigned,
 * signed by another key, meant for another deployment (a call captured on its way to one version
 * cannot be replayed to another), changed on the way, or older than `MAX_SKEW_MS`.
 */
import { decodeBase64Url, encodeBase64, encodeBase64Url } from "hono/utils/encode";
import { hexOf, sha256Hex } from "../../lib/hash/index.js";
import { UTF8_ENCODER } from "../../lib/utf8/index.js";

export const SIGNATURE_HEADER = "x-skillmesh-signature";
/** The header a pipeline receives its delegation token in (src/identity/auth/delegation.ts): what its steps call the gateway with. */
export const DELEGATION_HEADER = "x-skillmesh-delegation";
/** And the key its steps derive their `Idempotency-Key`s from, when the call has one. */
export const CALL_KEY_HEADER = "x-skillmesh-call-key";

/**
 * The URL a skill bound by a service binding is called at (the host is ignored by a binding): a
 * signature over a binding's call covers its path, `/`, over HTTP and over the RPC hop alike.
 */
export const BINDING_URL = "https://skill.internal/";
/** The path of `BINDING_URL`, parsed once: what the signature of every call to a binding covers. */
export const BINDING_PATH = new URL(BINDING_URL).pathname;

/** How far a signature's timestamp may be from the skill's clock (replays are bounded by it). */
export const MAX_SKEW_MS = 60_000;

/** Why the shared `SKILLMESH_HOP_SECRET` of earlier releases is refused wherever it is still set (the gateway, a skill, a deploy). */
export const RETIRED_HOP_SECRET =
  "SKILLMESH_HOP_SECRET is no longer used (every skill that held it could sign as the gateway): set SKILLMESH_HOP_KEY on the gateway and SKILLMESH_HOP_PUBLIC_KEY on skills reached by URL (npx skillmesh hop-key), then remove it";

/** What a signature covers. */
export interface SignedParts {
  method: string;
  /** The request path, e.g. `/`. */
  path: string;
  /** The deployment the call is for, `name@version`: a skill accepts only its own. */
  deployment: string;
  body: string;
  /** The `X-Skillmesh-Context` header ("" when absent). */
  context: string;
  /** A pipeline's `X-Skillmesh-Delegation` and `X-Skillmesh-Call-Key` ("" when absent). */
  delegation: string;
  callKey: string;
}

const ED25519 = { name: "Ed25519" } as const;
/** Base64url without padding (Hono's encoder pads). */
const base64Url = (bytes: ArrayBuffer) => encodeBase64Url(bytes).replace(/=+$/, "");
/** DER of a PKCS#8 Ed25519 private key before its 32-byte seed (RFC 8410), and of an SPKI public key before its 32 bytes. */
const PKCS8_PREFIX = "302e020100300506032b657004220420";
const SPKI_PREFIX = "302a300506032b6570032100";

/** The bytes of a key written as PEM, base64 or base64url; undefined for anything else. */
function keyBytes(text: string): Uint8Array | undefined {
  const body = text.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(body)) return undefined;
  try {
    return decodeBase64Url(body); // takes the standard alphabet too
  } catch {
    return undefined;
  }
}

/** Whether DER bytes are `prefix` (hex) followed by a 32-byte key. */
const isKeyAfter = (bytes: Uint8Array, prefix: string) => bytes.length === prefix.length / 2 + 32 && hexOf(bytes.subarray(0, prefix.length / 2)) === prefix;

/**
 * The PKCS#8 bytes of an Ed25519 private key (PEM as `openssl genpkey -algorithm ed25519` writes
 * it, or that DER in base64/base64url on one line), or undefined when it is not one.
 * @example privateKeyBytes(process.env.SKILLMESH_HOP_KEY!) // Uint8Array(48)
 */
export function privateKeyBytes(text: string): Uint8Array | undefined {
  const bytes = keyBytes(text);
  return bytes && isKeyAfter(bytes, PKCS8_PREFIX) ? bytes : undefined;
}

/** The 32 bytes of an Ed25519 public key: base64url of the raw key, or an SPKI (PEM or base64). */
function publicKeyBytes(text: string): Uint8Array | undefined {
  const bytes = keyBytes(text);
  if (bytes?.length === 32) return bytes;
  return bytes && isKeyAfter(bytes, SPKI_PREFIX) ? bytes.subarray(bytes.length - 32) : undefined;
}

/**
 * The public keys of a `SKILLMESH_HOP_PUBLIC_KEY` value (several, comma-separated, while a key is
 * rotated), or undefined when one of them is not an Ed25519 public key.
 * @example publicKeyList("vD6N3Ab-St9anAoqCavHMhhB6IB8v-jjzhmSsRmJyOM") // [Uint8Array(32)]
 */
export function publicKeyList(text: string): Uint8Array[] | undefined {
  const keys = text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map(publicKeyBytes);
  return keys.length && keys.every((key) => key !== undefined) ? (keys as Uint8Array[]) : undefined;
}

const signingKeys = new Map<string, Promise<CryptoKey>>();
const verifyingKeys = new Map<string, Promise<CryptoKey[]>>();

/**
 * The gateway's signing key from its `SKILLMESH_HOP_KEY`, imported once per isolate.
 * @example const key = await hopSigningKey(config.hopKey)
 */
export function hopSigningKey(privateKey: string): Promise<CryptoKey> {
  let key = signingKeys.get(privateKey);
  if (!key) {
    const bytes = privateKeyBytes(privateKey);
    key =
      bytes ? crypto.subtle.importKey("pkcs8", bytes, ED25519, false, ["sign"]) : Promise.reject(new Error("SKILLMESH_HOP_KEY is not an Ed25519 private key"));
    signingKeys.set(privateKey, key);
  }
  return key;
}

/** A skill's verifying keys from its `SKILLMESH_HOP_PUBLIC_KEY`, imported once per isolate. */
function hopVerifyingKeys(publicKeys: string): Promise<CryptoKey[]> {
  let keys = verifyingKeys.get(publicKeys);
  if (!keys) {
    const list = publicKeyList(publicKeys);
    keys =
      list ?
        Promise.all(list.map((bytes) => crypto.subtle.importKey("raw", bytes, ED25519, false, ["verify"])))
      : Promise.reject(new Error("SKILLMESH_HOP_PUBLIC_KEY is not a list of Ed25519 public keys"));
    verifyingKeys.set(publicKeys, keys);
  }
  return keys;
}

/** What is signed: every part as one JSON array, so no value can pass for another's. */
async function payloadOf(timestamp: number, parts: SignedParts): Promise<Uint8Array> {
  const { method, path, deployment, body, context, delegation, callKey } = parts;
  return UTF8_ENCODER.encode(
    JSON.stringify(["skillmesh-hop/2", timestamp, method.toUpperCase(), path, deployment, await sha256Hex(body), context, delegation, callKey]),
  );
}

/**
 * The signature header's value for a call.
 * @example headers[SIGNATURE_HEADER] = await signHop(await hopSigningKey(config.hopKey), { method: "POST", path: "/", deployment: "text.summarize@1.0.0", body, context, delegation: "", callKey: "" })
 */
export async function signHop(key: CryptoKey, parts: SignedParts, now = Date.now()): Promise<string> {
  const signature = await crypto.subtle.sign(ED25519, key, await payloadOf(now, parts));
  return `t=${now},ed25519=${base64Url(signature)}`;
}

/**
 * Why a call's signature is not good, or undefined when it is: checked with each of the skill's
 * public keys (`SKILLMESH_HOP_PUBLIC_KEY`).
 * @example const refusal = await hopRefusal(env.SKILLMESH_HOP_PUBLIC_KEY, request.headers.get(SIGNATURE_HEADER), parts)
 */
export async function hopRefusal(publicKeys: string, header: string | null, parts: SignedParts, now = Date.now()): Promise<string | undefined> {
  const match = header?.match(/^t=(\d{1,16}),ed25519=([A-Za-z0-9_-]{86})$/);
  if (!match) return "the call is not signed by the gateway";
  const timestamp = Number(match[1]);
  if (Math.abs(now - timestamp) > MAX_SKEW_MS) return "the call's signature is too old (or from the future)";
  const signature = decodeBase64Url(match[2]!);
  const payload = await payloadOf(timestamp, parts);
  for (const key of await hopVerifyingKeys(publicKeys)) {
    if (await crypto.subtle.verify(ED25519, key, signature, payload)) return undefined;
  }
  return "the call's signature does not match (another gateway's key, a call meant for another deployment, or a call changed on the way)";
}

/**
 * A new key pair for signed hops: the private key (PKCS#8 PEM, for the gateway's
 * `SKILLMESH_HOP_KEY`) and the public key (base64url, for the skills' `SKILLMESH_HOP_PUBLIC_KEY`).
 * @example const { privateKey, publicKey } = await generateHopKeys()
 */
export async function generateHopKeys(): Promise<{ privateKey: string; publicKey: string }> {
  const pair = (await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"])) as CryptoKeyPair;
  const pkcs8 = (await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer;
  const raw = (await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer;
  return { privateKey: `-----BEGIN PRIVATE KEY-----\n${encodeBase64(pkcs8)}\n-----END PRIVATE KEY-----\n`, publicKey: base64Url(raw) };
}

/**
 * The public key (base64url) of a `SKILLMESH_HOP_KEY`: what `npm run deploy` gives the skills
 * that are reached by URL.
 * @example await hopPublicKeyOf(process.env.SKILLMESH_HOP_KEY!) // "vD6N3Ab-…"
 */
export async function hopPublicKeyOf(privateKey: string): Promise<string> {
  const bytes = privateKeyBytes(privateKey);
  if (!bytes) throw new Error("SKILLMESH_HOP_KEY is not an Ed25519 private key (PKCS#8 PEM: npx skillmesh hop-key makes one)");
  const key = await crypto.subtle.importKey("pkcs8", bytes, ED25519, true, ["sign"]);
  const jwk = (await crypto.subtle.exportKey("jwk", key)) as JsonWebKey;
  return jwk.x!;
}
