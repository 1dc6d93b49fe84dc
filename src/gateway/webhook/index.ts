/**
 * Signed webhooks: the POSTs the gateway makes to a receiver of its own choosing (an async job's
 * `X-Callback-Url`). The receiver shares a secret with the gateway (`SKILLMESH_CALLBACK_SECRET`)
 * and checks `X-Skillmesh-Signature: t=<ms>,v1=<hex>`, an HMAC-SHA256 over
 * `t \n POST \n path \n sha256(body) \n`, no older than `MAX_WEBHOOK_SKEW_MS`. (Calls to skills
 * are signed otherwise, with a key only the gateway holds: src/protocols/hop.)
 */
import { hexOf, sha256Hex } from "../../lib/hash/index.js";
import { UTF8_ENCODER } from "../../lib/utf8/index.js";

export const WEBHOOK_SIGNATURE_HEADER = "x-skillmesh-signature";

/** How far a signature's timestamp may be from the receiver's clock (replays are bounded by it). */
export const MAX_WEBHOOK_SKEW_MS = 60_000;

/** What a webhook's signature covers: the receiver's path and the body. */
export interface WebhookParts {
  path: string;
  body: string;
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

async function payloadOf(timestamp: number, parts: WebhookParts): Promise<Uint8Array> {
  // The trailing empty line is kept for receivers written against earlier releases.
  return UTF8_ENCODER.encode(`${timestamp}\nPOST\n${parts.path}\n${await sha256Hex(parts.body)}\n`);
}

/**
 * The signature header's value for a webhook POST.
 * @example headers[WEBHOOK_SIGNATURE_HEADER] = await signWebhook(secret, { path: "/hooks/jobs", body })
 */
export async function signWebhook(secret: string, parts: WebhookParts, now = Date.now()): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), await payloadOf(now, parts));
  return `t=${now},v1=${hexOf(new Uint8Array(mac))}`;
}

/**
 * Why a webhook's signature is not good, or undefined when it is (what a receiver runs; compared
 * in constant time by WebCrypto's `verify`).
 * @example const refusal = await webhookRefusal(secret, request.headers.get(WEBHOOK_SIGNATURE_HEADER), { path: "/hooks/jobs", body })
 */
export async function webhookRefusal(secret: string, header: string | null, parts: WebhookParts, now = Date.now()): Promise<string | undefined> {
  const match = header?.match(/^t=(\d{1,16}),v1=([0-9a-f]{64})$/);
  if (!match) return "the request is not signed";
  const timestamp = Number(match[1]);
  if (Math.abs(now - timestamp) > MAX_WEBHOOK_SKEW_MS) return "the signature is too old (or from the future)";
  const mac = Uint8Array.from(match[2]!.match(/../g)!, (byte) => parseInt(byte, 16));
  const valid = await crypto.subtle.verify("HMAC", await hmacKey(secret), mac, await payloadOf(timestamp, parts));
  return valid ? undefined : "the signature does not match (another secret, or the request changed on the way)";
}
