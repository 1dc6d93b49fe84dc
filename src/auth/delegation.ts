/**
 * Delegation: how a pipeline's steps call skills as the pipeline's caller. When the gateway
 * forwards a call to a pipeline, it hands the pipeline a token that stands for that caller — its
 * id and its grants, never more (no admin access), for that call's budget only — signed with a
 * key only gateways hold. The pipeline sends it back as `Authorization: Bearer smd.…` on each
 * step; the gateway verifies it and serves the step as the original caller: the same skills are
 * visible, the same groups usable, the same breaker charge, the same audit name. A step outside
 * the caller's grants is refused as it would be to the caller directly.
 */
import { decodeBase64Url, encodeBase64Url } from "hono/utils/encode";
import { z } from "zod";
import { randomHex } from "../hash/index.js";
import type { Store } from "../store/index.js";
import { safeJson } from "../json/index.js";
import { type Access, accessOfSignature } from "./access.js";
import { UTF8_ENCODER, base64UrlOfText, textOfBase64Url } from "../utf8/index.js";

/** The header the gateway hands the token to a pipeline in. */
export const DELEGATION_HEADER = "x-skillmesh-delegation";
/** And the key its steps derive their `Idempotency-Key`s from, when the call has one. */
export const CALL_KEY_HEADER = "x-skillmesh-call-key";
const PREFIX = "smd.";

const DelegationSchema = z.object({
  /** The caller's id. */
  c: z.string(),
  /** Its grants (`Access.signature`: "*" for unrestricted). */
  g: z.string(),
  /** Until when (ms since epoch). */
  exp: z.number(),
  /** The pipeline deployment it was handed to. */
  aud: z.string(),
});
export type Delegation = z.output<typeof DelegationSchema>;

/**
 * The signing key: the hop secret when the gateway has one, else a random key made once and
 * kept in the store (every gateway isolate shares it; no skill ever sees it).
 */
export async function delegationKey(store: Store, hopSecret: string | undefined): Promise<CryptoKey> {
  let secret = hopSecret;
  if (!secret) {
    const made = randomHex(32);
    await store.set("sm:delegation-key", made, { nx: true });
    secret = (await store.get("sm:delegation-key")) ?? made;
  }
  return crypto.subtle.importKey("raw", UTF8_ENCODER.encode(`skillmesh-delegation:${secret}`), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

/**
 * A token for a pipeline call made by `callerId` with `access`, valid until `expiresAt`.
 * @example const token = await signDelegation(key, { c: caller.id, g: caller.access.signature, exp: deadline, aud: "web.digest@1.0.0" })
 */
export async function signDelegation(key: CryptoKey, delegation: Delegation): Promise<string> {
  const payload = base64UrlOfText(JSON.stringify(delegation));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, UTF8_ENCODER.encode(payload)));
  return `${PREFIX}${payload}.${encodeBase64Url(mac.buffer)}`;
}

/** True when a bearer credential is a delegation token (and not an API key). */
export const isDelegationToken = (bearer: string) => bearer.startsWith(PREFIX);

/**
 * The caller a token stands for, or why it does not stand for anyone.
 * @example const outcome = await verifyDelegation(key, bearer, Date.now()) // { callerId: "k_…", access }
 */
export async function verifyDelegation(key: CryptoKey, token: string, now: number): Promise<{ callerId: string; access: Access; via: string } | { refused: string }> {
  const [payload, mac, extra] = token.slice(PREFIX.length).split(".");
  if (!payload || !mac || extra !== undefined) return { refused: "a malformed delegation token" };
  let valid: boolean;
  try {
    valid = await crypto.subtle.verify("HMAC", key, decodeBase64Url(mac), UTF8_ENCODER.encode(payload));
  } catch {
    valid = false;
  }
  if (!valid) return { refused: "a delegation token this gateway did not sign" };
  // Signed by a gateway, so JSON of ours; still parsed, not cast.
  const parsed = DelegationSchema.safeParse(safeJson(textOfBase64Url(payload)));
  if (!parsed.success) return { refused: "a malformed delegation token" };
  if (parsed.data.exp < now) return { refused: "an expired delegation token (a pipeline's steps may run as long as its call)" };
  return { callerId: parsed.data.c, access: accessOfSignature(parsed.data.g), via: parsed.data.aud };
}
