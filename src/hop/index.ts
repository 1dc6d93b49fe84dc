/**
 * Signed hops from the gateway to a skill. When the gateway and a skill share a secret
 * (`SKILLMESH_HOP_SECRET`, a Worker secret on both), every call the gateway forwards carries
 * `X-Skillmesh-Signature: t=<ms>,v1=<hex>`: an HMAC-SHA256 over the timestamp, the HTTP method
 * and path, the SHA-256 of the body and the caller-context header. The skill SDK then refuses
 * (401) a call that is unsigned, signed with another secret, changed on the way, or older than
 * `MAX_SKEW_MS` — so a skill on a public URL can believe the caller context again.
 */
import { hexOf, sha256Hex } from "../hash/index.js";
import { UTF8_ENCODER } from "../utf8/index.js";

export const SIGNATURE_HEADER = "x-skillmesh-signature";

/**
 * The URL a skill bound by a service binding is called at (the host is ignored by a binding): a
 * signature over a binding's call covers its path, `/`, over HTTP and over the RPC hop alike.
 */
export const BINDING_URL = "https://skill.internal/";
/** The path of `BINDING_URL`, parsed once: what the signature of every call to a binding covers. */
export const BINDING_PATH = new URL(BINDING_URL).pathname;

/** How far a signature's timestamp may be from the skill's clock (replays are bounded by it). */
export const MAX_SKEW_MS = 60_000;

/** What a signature covers. */
export interface SignedParts {
  method: string;
  /** The request path, e.g. `/`. */
  path: string;
  body: string;
  /** The `X-Skillmesh-Context` header ("" when absent). */
  context: string;
}

const keys = new Map<string, Promise<CryptoKey>>();

/** The HMAC key of a secret, imported once per isolate. */
function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", UTF8_ENCODER.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keys.set(secret, key);
  }
  return key;
}

async function payloadOf(timestamp: number, parts: SignedParts): Promise<Uint8Array> {
  return UTF8_ENCODER.encode(`${timestamp}\n${parts.method.toUpperCase()}\n${parts.path}\n${await sha256Hex(parts.body)}\n${parts.context}`);
}

/**
 * The signature header's value for a call.
 * @example headers.set(SIGNATURE_HEADER, await signHop(secret, { method: "POST", path: "/", body, context }))
 */
export async function signHop(secret: string, parts: SignedParts, now = Date.now()): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), await payloadOf(now, parts));
  return `t=${now},v1=${hexOf(new Uint8Array(mac))}`;
}

/**
 * Why a call's signature is not good, or undefined when it is (compared in constant time by
 * WebCrypto's `verify`).
 * @example const refusal = await hopRefusal(secret, request.headers.get(SIGNATURE_HEADER), parts)
 */
export async function hopRefusal(secret: string, header: string | null, parts: SignedParts, now = Date.now()): Promise<string | undefined> {
  const match = header?.match(/^t=(\d{1,16}),v1=([0-9a-f]{64})$/);
  if (!match) return "the call is not signed by the gateway";
  const timestamp = Number(match[1]);
  if (Math.abs(now - timestamp) > MAX_SKEW_MS) return "the call's signature is too old (or from the future)";
  const mac = Uint8Array.from(match[2]!.match(/../g)!, (byte) => parseInt(byte, 16));
  const valid = await crypto.subtle.verify("HMAC", await hmacKey(secret), mac, await payloadOf(timestamp, parts));
  return valid ? undefined : "the call's signature does not match (another secret, or the call changed on the way)";
}
