/**
 * The skill's side of the gateway's RPC hop (src/protocols/hop/rpc.ts): `skillmeshCall` serves a call the
 * gateway makes over a service binding, `skillmeshCancel` cancels one it made with a `cancelId`.
 */
import { answerTooLargeMessage, MAX_ANSWER_BYTES } from "../lib/body/index.js";
import { BINDING_PATH } from "../protocols/hop/index.js";
import { ABORT_AFTER_TIMEOUT_MS, type SkillRpcCall, SkillRpcCallSchema, headerLookupOf } from "../protocols/hop/rpc.js";
import { answerJson } from "../protocols/jsonrpc/http.js";
import { ErrorCode, type ProcessedBody, describeIssues, failure } from "../protocols/jsonrpc/index.js";
import { Cancellation, anySignal } from "../lib/signal/index.js";
import type { Delivery, SkillAnswerer } from "./answerer.js";

/** The two methods a skill Worker offers the gateway's RPC hop. */
export interface RpcReceiver<Env> {
  /** The gateway's RPC hop: the same body and headers as a `POST /`, the answer as text. */
  call(received: SkillRpcCall, env: Env, ctx: ExecutionContext): Promise<string>;
  /** The gateway's cancel of a call it made with a `cancelId` (in a request of its own): the call's `ctx.signal` aborts. */
  cancel(cancelId: unknown): Promise<void>;
}

/**
 * The RPC hop's receiving side for one skill.
 * @example const { call, cancel } = rpcReceiverOf(answerer)
 */
export function rpcReceiverOf<Env>(answerer: SkillAnswerer<Env>): RpcReceiver<Env> {
  /** Calls of this isolate that the gateway may cancel, by their `cancelId`. */
  const cancellable = new Map<string, Cancellation>();
  return {
    async call(received, env, ctx) {
      const checked = SkillRpcCallSchema.safeParse(received);
      if (!checked.success)
        return JSON.stringify(
          failure(null, ErrorCode.InvalidRequest, "Invalid Request: not a call of the gateway's RPC hop", { issues: describeIssues(checked.error) }),
        );
      const call = checked.data;
      const delivery: Delivery<Env> = {
        body: call.body,
        headers: headerLookupOf(call.headers),
        method: "POST",
        pathOf: () => BINDING_PATH,
        env,
        waitUntil: (p) => ctx.waitUntil(p),
      };
      const refusal = await answerer.refusalOf(delivery);
      if (refusal) return JSON.stringify(refusal);
      // A call with a signal of its caller's, or that streams, comes over HTTP (src/protocols/hop/rpc.ts):
      // this one's aborts are the gateway's timeout, kept here, and with a cancelId the gateway's
      // cancel (`cancel`, another request: polled) — timers only for a handler that asks.
      const deadline = Date.now() + call.timeoutMs + ABORT_AFTER_TIMEOUT_MS;
      const cancellation = call.cancelId ? new Cancellation() : undefined;
      if (cancellation) cancellable.set(call.cancelId!, cancellation);
      let watched: ReturnType<Cancellation["watch"]> | undefined;
      let answered = false;
      const signalOf = () => {
        const timeout = AbortSignal.timeout(Math.max(0, deadline - Date.now()));
        // Read first after the answer (by work the handler left in waitUntil): no poll is left running.
        watched = answered ? undefined : cancellation?.watch();
        return watched ? anySignal([timeout, watched.signal]) : timeout;
      };
      let processed: ProcessedBody;
      try {
        processed = await answerer.answer(delivery, signalOf, () => {});
      } finally {
        answered = true;
        watched?.stop();
        if (cancellation) cancellable.delete(call.cancelId!);
      }
      const text = processed === undefined ? "" : answerJson(processed);
      if (text.length <= MAX_ANSWER_BYTES) return text;
      answerer.logError(`an answer of ${text.length} characters is past the ${MAX_ANSWER_BYTES} the gateway reads`);
      return JSON.stringify(failure(null, ErrorCode.InternalError, answerTooLargeMessage(answerer.manifest.name)));
    },
    async cancel(cancelId) {
      if (typeof cancelId === "string") await cancellable.get(cancelId)?.cancel();
    },
  };
}
