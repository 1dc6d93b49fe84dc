/**
 * Sealing upstream credentials for the store: AES-256-GCM with a key derived (HKDF-SHA-256) from
 * `SKILLMESH_UPSTREAM_KEY`, which only the gateway holds, and each secret bound to what it
 * belongs to (its upstream, and for a caller's own token the caller) as additional data, so a
 * sealed value copied to another upstream's or caller's record does not open.
 */
import { ErrorCode, RpcError } from "../../protocols/jsonrpc/index.js";
import { UTF8_ENCODER } from "../../lib/utf8/index.js";
import type { Sealed } from "./model.js";

const keys = new Map<string, Promise<CryptoKey>>();

/** The AES key of a gateway secret (derived once per isolate). */
function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", UTF8_ENCODER.encode(secret), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(), info: UTF8_ENCODER.encode("skillmesh upstream credentials v1") },
          base,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    keys.set(secret, key);
  }
  return key;
}

/** A gateway without `SKILLMESH_UPSTREAM_KEY` cannot keep a secret for an upstream. */
export class NoUpstreamKey extends Error {
  constructor() {
    super("this gateway has no SKILLMESH_UPSTREAM_KEY, which seals upstream credentials: set it (32+ characters) to register an upstream with a secret");
    this.name = "NoUpstreamKey";
  }
}

/**
 * `value` sealed for `context` (e.g. `upstream:everything`).
 * @example const sealed = await seal(config.upstreamKey, "upstream:github", token)
 */
export async function seal(secret: string | undefined, context: string, value: string): Promise<Sealed> {
  if (!secret) throw new NoUpstreamKey();
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: UTF8_ENCODER.encode(context) },
    await keyOf(secret),
    UTF8_ENCODER.encode(value),
  );
  return { iv: base64Of(iv), data: base64Of(new Uint8Array(data)) };
}

/**
 * The value of a sealed secret; -32001 when it does not open (another key, another context).
 * @example const token = await unseal(config.upstreamKey, "upstream:github", stored.token)
 */
export async function unseal(secret: string | undefined, context: string, sealed: Sealed): Promise<string> {
  try {
    if (!secret) throw new NoUpstreamKey();
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytesOf(sealed.iv), additionalData: UTF8_ENCODER.encode(context) },
      await keyOf(secret),
      bytesOf(sealed.data),
    );
    return new TextDecoder().decode(plain);
  } catch (error) {
    console.error(
      `[upstream] a sealed credential of ${context} does not open (SKILLMESH_UPSTREAM_KEY changed?):`,
      error instanceof Error ? error.name : "error",
    );
    throw new RpcError(ErrorCode.SkillUnavailable, "The upstream's credential cannot be read on this gateway; an operator must register it again", {
      retryAfterMs: 60_000,
    });
  }
}

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function bytesOf(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}
