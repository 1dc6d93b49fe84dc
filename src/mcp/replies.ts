/**
 * A 2025-era client's replies to the requests the gateway sends it on a call's event stream (an
 * upstream's input requests: elicitation, sampling, roots). The client answers in another POST,
 * which may reach another isolate than the waiting call (and Workers forbid one request touching
 * another's I/O), so a reply is kept in the store under the caller and the request's id — random,
 * given out only on that caller's stream — and the waiting call polls for it. Another caller's
 * reply, or one to an id the gateway never gave out, is never kept.
 */
import { randomHex } from "../lib/hash/index.js";
import { ErrorCode, RpcError } from "../protocols/jsonrpc/index.js";
import type { Store } from "../store/index.js";
import { holdLongRequest } from "./waits.js";

/** How long a kept reply waits for its call to take it. */
const REPLY_TTL_MS = 10 * 60_000;
/** The longest a call waits for its caller's replies (a person may be answering an elicitation). */
export const MAX_REPLY_WAIT_MS = 10 * 60_000;
/** The poll interval starts here and grows by half each time up to `MAX_POLL_MS`. */
const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 500;
const PREFIX = "sm:reply:";
/** The ids the gateway gives its requests: `sm-in-`, a random nonce per round, and the request's index. */
const REPLY_ID = /^sm-in-[0-9a-f]{32}-\d{1,2}$/;

/** What a client answered one request with: its result, or its error. */
export type Reply = { result: Record<string, unknown> } | { error: { code: number; message: string } };

/** A JSON-RPC response as a client sent it (checked before it is kept). */
export interface JsonRpcReplyLike {
  jsonrpc?: unknown;
  id?: unknown;
  result?: unknown;
  error?: unknown;
}

/** One caller's replies. */
export interface Replies {
  /** Keeps a reply the caller POSTed (ignored unless its id is one the gateway gives out). */
  put(message: JsonRpcReplyLike): Promise<void>;
  /** Waits for the replies to `ids` (all of them), polling the store; throws when the caller goes or `waitMs` passes. */
  await(ids: string[], options: { signal: AbortSignal; waitMs: number }): Promise<Map<string, Reply>>;
}

/**
 * `count` new request ids for one round of requests sent to a client.
 * @example replyIdsFor(2) // ["sm-in-3fa1…-0", "sm-in-3fa1…-1"]
 */
export function replyIdsFor(count: number): string[] {
  const nonce = randomHex(16);
  return Array.from({ length: count }, (_, index) => `sm-in-${nonce}-${index}`);
}

/**
 * The replies of `caller`, kept in `store`.
 * @example const replies = repliesOf(store, "k_1"); await replies.put({ jsonrpc: "2.0", id: "sm-in-…-0", result: { action: "accept" } })
 */
export function repliesOf(store: Pick<Store, "mget" | "set" | "del">, caller: string): Replies {
  const keyOf = (id: string) => `${PREFIX}${caller}:${id}`;
  return {
    async put(message) {
      if (typeof message.id !== "string" || !REPLY_ID.test(message.id)) return;
      const reply = replyOf(message);
      if (reply) await store.set(keyOf(message.id), JSON.stringify(reply), { px: REPLY_TTL_MS });
    },
    async await(ids, { signal, waitMs }) {
      const held = holdLongRequest(caller);
      const until = Date.now() + waitMs;
      try {
        for (let pause = FIRST_POLL_MS; ; pause = Math.min(MAX_POLL_MS, pause * 1.5)) {
          const found = await store.mget(...ids.map(keyOf));
          if (found.every((raw) => raw !== null)) {
            await store.del(...ids.map(keyOf));
            return new Map(ids.map((id, index) => [id, JSON.parse(found[index]!) as Reply]));
          }
          if (signal.aborted) throw new RpcError(ErrorCode.Cancelled, "Cancelled: the caller went away before it answered the input requests");
          if (Date.now() + pause > until)
            throw new RpcError(ErrorCode.SkillTimeout, `Timed out: the caller did not answer the input requests within ${Math.round(waitMs / 1000)} s`);
          held.renew();
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
      } finally {
        held.release();
      }
    },
  };
}

/** A JSON-RPC response as a reply: its result object, or its error's code and message (bounded). */
function replyOf(message: { result?: unknown; error?: unknown }): Reply | undefined {
  if (typeof message.result === "object" && message.result !== null && !Array.isArray(message.result))
    return { result: message.result as Record<string, unknown> };
  const error = message.error as { code?: unknown; message?: unknown } | undefined;
  if (typeof error?.code !== "number") return undefined;
  return { error: { code: error.code, message: typeof error.message === "string" ? error.message.slice(0, 500) : "" } };
}
