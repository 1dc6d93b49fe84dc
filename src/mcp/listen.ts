/** `subscriptions/listen` (2026-07-28): the stream that tells a client its tool list changed. */
import { ErrorCode, type JsonRpcRequest, failure, parseParams, success } from "../jsonrpc/index.js";
import { sleep } from "../signal/index.js";
import { acceptsEventStream, sseStream } from "../sse/index.js";
import type { McpAnswer, McpOptions } from "./answer.js";
import type { McpBackend } from "./backend.js";
import { META, SubscriptionsListenParamsSchema } from "../mcp-protocol/index.js";
import { type Tools, sameTools } from "./tool-list.js";
import { holdLongRequest } from "./waits.js";

/** What a listen stream needs of the server answering it. */
export interface ListeningServer {
  backend: McpBackend;
  options: McpOptions;
  /** The tools the caller sees now. */
  tools(): Promise<Tools>;
  /** A 2026-07-28 result with `resultType` and who answered. */
  complete(result: object): object;
}

/**
 * `subscriptions/listen` (2026-07-28): an event stream that acknowledges what it will send
 * (tool list changes only: the gateway has no prompts or resources), then sends
 * `notifications/tools/list_changed` whenever the tools this caller sees change, until the
 * client closes it or `listenMaxMs` passes (then a final result ends it gracefully).
 */
export async function listen(server: ListeningServer, headers: Headers, request: JsonRpcRequest, id: string | number): Promise<McpAnswer> {
  const { backend, options } = server;
  const { notifications } = parseParams(SubscriptionsListenParamsSchema, request.params ?? {});
  if (!acceptsEventStream(headers)) {
    return { status: 400, body: failure(id, ErrorCode.InvalidRequest, "subscriptions/listen answers with an event stream: send Accept: application/json, text/event-stream") };
  }
  // A stream is a call: counted against the caller's limits, and a caller holds only a few at once.
  await backend.admit();
  const held = holdLongRequest(backend.caller);
  const tools = notifications.toolsListChanged === true;
  const meta = { [META.subscriptionId]: id };
  const watchMs = options.watchMs ?? 1_000;
  const until = Date.now() + (options.listenMaxMs ?? 15 * 60_000);
  const stream = sseStream(async (sse) => {
    try {
      sse.send({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: meta, notifications: tools ? { toolsListChanged: true } : {} } });
      let seen = tools ? (await server.tools()).list : undefined;
      while (!sse.signal.aborted && Date.now() < until) {
        held.renew();
        await sleep(Math.min(watchMs, until - Date.now()), sse.signal);
        if (!seen || sse.signal.aborted) continue;
        const now = await server.tools().then((t) => t.list, () => seen!); // a store outage is no change
        if (!sameTools(seen, now)) sse.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: meta } });
        seen = now;
      }
      if (!sse.signal.aborted) sse.send(success(id, server.complete({ _meta: meta })));
    } finally {
      held.release();
    }
  }, options.heartbeatMs);
  return { status: 200, stream };
}
