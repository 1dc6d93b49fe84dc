/**
 * The gateway's hop to a skill Worker bound by a service binding, made as a JS RPC call (Workers
 * RPC: a method of the skill's Worker module) instead of an HTTP request. It carries what the
 * HTTP hop carries — the JSON-RPC request as text, the same headers (caller context, signature,
 * trace, delegation) — and answers the JSON-RPC response as text, but without an HTTP request,
 * a router, body streams and a response on each side: on the trivial call that is the larger
 * part of what a hop costs (README "Benchmarks"). The skill SDK serves it (src/skill); a Worker
 * that does not (written without the SDK) is called over HTTP (src/forward).
 *
 * What goes over HTTP still: a call its caller can cancel (a `signal`: an event stream the caller
 * may close, MCP 2025's `notifications/cancelled`, a job's cancel) or that streams progress. A
 * caller that closes its stream tears its gateway request down: workerd then cancels an HTTP
 * subrequest, so the skill's `request.signal` fires, but an abort sent over RPC from that request
 * never arrives; and a signal passed over RPC (`enable_abortsignal_rpc`) made a trivial call cost
 * as much as the HTTP hop (README "Benchmarks"), so nothing is gained by it. A plain call's only
 * abort is its timeout, which the skill keeps itself: `timeoutMs`.
 */
import { z } from "zod";

/** The RPC method of a skill Worker's module that serves the gateway's hop. */
export const SKILL_RPC_METHOD = "skillmeshCall";

/** One call over the RPC hop, as the skill receives it (checked: another bound Worker could send anything). */
export const SkillRpcCallSchema = z.object({
  /** The JSON-RPC request, as the HTTP hop would POST it. */
  body: z.string(),
  /** The headers the HTTP hop would send with it (lower-case names). */
  headers: z.record(z.string(), z.string()),
  /** The attempt's timeout: past it the skill aborts `ctx.signal`, as the gateway stops waiting. */
  timeoutMs: z.number().positive(),
});
export type SkillRpcCall = z.infer<typeof SkillRpcCallSchema>;

/** A Worker module (or binding) that serves the RPC hop: the answer is the JSON-RPC response as text. */
export interface SkillRpc {
  [SKILL_RPC_METHOD](call: SkillRpcCall): Promise<string>;
}

/**
 * Whether an error thrown by an RPC call means the Worker has no such method (it was written
 * without the SDK, or before it served RPC): workerd says so only in the message.
 * @example if (isMissingRpcMethod(error)) return overHttp()
 */
export function isMissingRpcMethod(error: unknown): boolean {
  return error instanceof TypeError && /does not implement the method/.test(error.message);
}
