/**
 * The gateway's hop to a skill Worker bound by a service binding, made as a JS RPC call (Workers
 * RPC: a method of the skill's Worker module) instead of an HTTP request. It carries what the
 * HTTP hop carries — the JSON-RPC request as text, the same headers (caller context, signature,
 * trace, delegation) — and answers the JSON-RPC response as text, but without an HTTP request,
 * a router, body streams and a response on each side: on the trivial call that is the larger
 * part of what a hop costs (docs/benchmarks.md). The skill SDK serves it (src/skill); a Worker
 * that does not (written without the SDK) is called over HTTP (src/federation/forward).
 *
 * What goes over HTTP still: a call with a `signal` (an event stream the caller may close, a
 * job's cancel) or that streams progress. A caller that closes its stream tears its gateway
 * request down: workerd then cancels an HTTP subrequest, so the skill's `request.signal` fires,
 * but an abort sent over RPC from that request never arrives; and a signal passed over RPC
 * (`enable_abortsignal_rpc`) made a trivial call cost as much as the HTTP hop (docs/benchmarks.md),
 * so nothing is gained by it.
 *
 * Cancellation over RPC: a plain call's only abort is its timeout, which the skill keeps itself
 * (`timeoutMs`). A call another request may cancel while the gateway's request lives on (MCP
 * 2025's `notifications/cancelled`: a `Cancellation`, src/lib/signal) carries a `cancelId`; the
 * cancelling request calls `skillmeshCancel(cancelId)` itself, in its own I/O, and the skill's
 * `ctx.signal` aborts (polled, and only for a handler that reads it).
 */
import { z } from "zod";

/**
 * How long after the attempt's timeout the skill aborts `ctx.signal`: the gateway's own timer
 * decides the -32004 first. Without it a handler that answers its abort (with an error of its
 * own) could beat the gateway's timer, and its answer would be taken for the call's.
 */
export const ABORT_AFTER_TIMEOUT_MS = 50;

/** The RPC method of a skill Worker's module that serves the gateway's hop. */
export const SKILL_RPC_METHOD = "skillmeshCall";
/** The RPC method that cancels a call made with a `cancelId`: the skill's `ctx.signal` aborts. */
export const SKILL_CANCEL_METHOD = "skillmeshCancel";

/** One call over the RPC hop, as the skill receives it (checked: another bound Worker could send anything). */
export const SkillRpcCallSchema = z.object({
  /** The JSON-RPC request, as the HTTP hop would POST it. */
  body: z.string(),
  /** The headers the HTTP hop would send with it (lower-case names); read through `headerLookupOf`, which takes strings only. */
  headers: z.custom<Record<string, string>>((value) => typeof value === "object" && value !== null && !Array.isArray(value)),
  /** The attempt's timeout: past it the skill aborts `ctx.signal`, as the gateway stops waiting. */
  timeoutMs: z.number().positive(),
  /** For a call another request may cancel: `skillmeshCancel(cancelId)` then aborts its `ctx.signal`. */
  cancelId: z.string().min(16).max(64).optional(),
});
export type SkillRpcCall = z.infer<typeof SkillRpcCallSchema>;

/** What a skill reads headers through: a request's `Headers`, or the RPC hop's record. */
export interface HeaderLookup {
  get(name: string): string | null;
}

/**
 * The RPC hop's headers as a lookup (lower-case names, as the gateway writes them): building a
 * `Headers` object for them cost a tenth of the skill's time on the trivial call.
 * @example headerLookupOf(call.headers).get("x-skillmesh-context")
 */
export function headerLookupOf(headers: Record<string, string>): HeaderLookup {
  // Checked here, per header read, rather than every header by a schema (a zod record was a twentieth of the skill's time).
  return {
    get: (name) => {
      const value: unknown = Object.hasOwn(headers, name) ? headers[name] : undefined;
      return typeof value === "string" ? value : null;
    },
  };
}

/** A Worker module (or binding) that serves the RPC hop: the answer is the JSON-RPC response as text. */
export interface SkillRpc {
  [SKILL_RPC_METHOD](call: SkillRpcCall): Promise<string>;
  [SKILL_CANCEL_METHOD](cancelId: string): Promise<void>;
}

/**
 * Whether an error thrown by an RPC call means the Worker has no such method (it was written
 * without the SDK, or before it served RPC): workerd says so only in the message.
 * @example if (isMissingRpcMethod(error)) return overHttp()
 */
export function isMissingRpcMethod(error: unknown): boolean {
  return error instanceof TypeError && /does not implement the method/.test(error.message);
}
