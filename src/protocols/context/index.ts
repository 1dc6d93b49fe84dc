/**
 * The caller context the gateway hands to a skill: who is calling (user id, group, session,
 * caller key hash) and the W3C trace. It travels in one header, `X-Skillmesh-Context`, as
 * base64url JSON. Anyone who can reach a skill can send that header, so a skill believes it only
 * when its operator says that nothing but the gateway reaches it (`SKILLMESH_TRUST_CONTEXT`);
 * otherwise it sees an empty context.
 */
import ipaddr from "ipaddr.js";
import { sha256Hex } from "../../lib/hash/index.js";
import { z } from "zod";
import { isTraceparent } from "../tracing/index.js";
import { base64UrlOfText, textOfBase64Url } from "../../lib/utf8/index.js";

export const CONTEXT_HEADER = "x-skillmesh-context";

export const CallerContextSchema = z.object({
  /** `X-User-Id`: the sticky routing key. */
  userId: z.string().max(256).optional(),
  /** `X-User-Group`: the canary group. */
  group: z.string().max(64).optional(),
  /** `X-Session-Id` or `Mcp-Session-Id`. */
  session: z.string().max(256).optional(),
  /** Who called: a short hash of the caller's bearer key (never the key), or "anonymous". */
  caller: z.string().max(64).default("anonymous"),
  /** W3C `traceparent` of the call. */
  traceparent: z.string().max(128).optional(),
});
export type CallerContext = z.infer<typeof CallerContextSchema>;

/**
 * Encodes a context for the `X-Skillmesh-Context` header.
 * @example headers.set(CONTEXT_HEADER, encodeContext({ caller: "anonymous", group: "beta" }))
 */
export function encodeContext(context: CallerContext): string {
  return base64UrlOfText(JSON.stringify(context));
}

/** Who called when nothing says so, or nothing that says so can be believed. */
const ANONYMOUS = "anonymous";

/**
 * The caller context of a request to a skill Worker. `trusted` (the skill is reachable only
 * through the gateway, by service binding): the gateway's header. Otherwise, or when the header
 * is absent or garbled, an empty context: on a direct call every identity header could be
 * forged. A valid `traceparent` is kept either way (it names a trace, not a caller).
 * @example const ctx = readContext(request.headers, env.SKILLMESH_TRUST_CONTEXT === "true")
 */
export function readContext(headers: Pick<Headers, "get">, trusted: boolean): CallerContext {
  const encoded = trusted ? headers.get(CONTEXT_HEADER) : null;
  const decoded = encoded ? decodeContext(encoded) : undefined;
  return decoded ?? { caller: ANONYMOUS, traceparent: validTraceparent(headers.get("traceparent")) };
}

/** User id, group and session from the plain request headers, clipped to the schema's limits. */
function headerFields(headers: Headers): Pick<CallerContext, "userId" | "group" | "session"> {
  const clip = (value: string | null, max: number) => (value ? value.slice(0, max) : undefined);
  return {
    userId: clip(headers.get("x-user-id"), 256),
    group: clip(headers.get("x-user-group"), 64),
    session: clip(headers.get("x-session-id") ?? headers.get("mcp-session-id"), 256),
  };
}

function decodeContext(encoded: string): CallerContext | undefined {
  try {
    const parsed = CallerContextSchema.safeParse(JSON.parse(textOfBase64Url(encoded)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The `traceparent` header if it is a valid W3C one, else undefined (a bad one is dropped). */
export function validTraceparent(value: string | null | undefined): string | undefined {
  return isTraceparent(value) ? value : undefined;
}

/** The first 8 bytes of SHA-256, in hex: a short id that does not give its input away. */
async function shortHash(text: string): Promise<string> {
  return (await sha256Hex(text)).slice(0, 16);
}

/**
 * Who a caller is when it has no key: an id for its client address (`CF-Connecting-IP`, which
 * Cloudflare's edge sets and overwrites), by /64 for IPv6 since one host holds a whole /64. No
 * readable address (a local gateway): "anonymous", one caller for all.
 * @example await addressIdOf("203.0.113.7") // "a_…"
 */
export async function addressIdOf(address: string | null | undefined): Promise<string> {
  if (!address || !ipaddr.isValid(address)) return ANONYMOUS;
  const parsed = ipaddr.process(address);
  const key = parsed.kind() === "ipv6" ? `${(parsed as ipaddr.IPv6).parts.slice(0, 4).join(":")}::/64` : parsed.toString();
  return `a_${await shortHash(key)}`;
}

/**
 * The caller context of an authenticated request to the gateway: `X-User-Id`, `X-User-Group`
 * (dropped when the caller may not use it: the call then routes as `*`), `X-Session-Id` (or
 * `Mcp-Session-Id`), who called (src/identity/auth: a key id, a hash of a bearer key, or "anonymous"),
 * and the caller's `traceparent` (the gateway replaces it with its own for the hop to the skill).
 * `given` replaces the user, group and session headers when they are not the request's to say (a
 * pipeline's step: those of the call it is part of).
 * @example const context = callerContextOf(request.headers, caller.id, caller.access.allowsGroup)
 */
export function callerContextOf(
  headers: Headers,
  caller: string,
  allowsGroup: (group: string) => boolean,
  given?: Pick<CallerContext, "userId" | "group" | "session">,
): CallerContext {
  const fields = given ?? headerFields(headers);
  return {
    ...fields,
    group: fields.group !== undefined && allowsGroup(fields.group) ? fields.group : undefined,
    caller,
    traceparent: validTraceparent(headers.get("traceparent")),
  };
}
