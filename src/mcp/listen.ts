/** `subscriptions/listen` (2026-07-28): the stream that tells a client its tool, prompt or resource list changed. */
import { ErrorCode, type JsonRpcRequest, failure, parseParams, success } from "../jsonrpc/index.js";
import { sleep } from "../signal/index.js";
import { acceptsEventStream, sseStream } from "../sse/index.js";
import type { McpAnswer, McpOptions } from "./answer.js";
import type { McpBackend } from "./backend.js";
import { META, SubscriptionsListenParamsSchema, type Tool } from "../mcp-protocol/index.js";
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

/** What a listen stream watches, and how it reads each (a fingerprint: equal means unchanged). */
const WATCHED = {
  toolsListChanged: { method: "notifications/tools/list_changed" },
  promptsListChanged: { method: "notifications/prompts/list_changed" },
  resourcesListChanged: { method: "notifications/resources/list_changed" },
} as const;
type Watched = keyof typeof WATCHED;

/** The state of one watched list for this caller: tools by identity, prompts and resources by their JSON. */
async function stateOf(server: ListeningServer, list: Watched): Promise<unknown> {
  if (list === "toolsListChanged") return (await server.tools()).list;
  const catalog = server.backend.catalog();
  const offerings = await catalog.offerings();
  if (list === "promptsListChanged") return JSON.stringify(offerings.prompts);
  // Skills' and upstreams' resources and templates, and every Agent Skills package at the version this caller is served.
  const packages = (await catalog.packages()).all().map((p) => `${p.name}@${p.version}`);
  return JSON.stringify([offerings.resources, offerings.resourceTemplates, packages]);
}

const unchanged = (list: Watched, before: unknown, now: unknown) => (list === "toolsListChanged" ? sameTools(before as Tool[], now as Tool[]) : before === now);

/**
 * `subscriptions/listen` (2026-07-28): an event stream that acknowledges what it will send — tool,
 * prompt and resource list changes (not subscriptions to single resources) — then sends
 * `notifications/{tools,prompts,resources}/list_changed` whenever what this caller sees changes
 * (a skill's tools, prompts or resources; an Agent Skills package, or the version it is served),
 * until the client closes it or `listenMaxMs` passes (then a final result ends it gracefully).
 */
export async function listen(server: ListeningServer, headers: Headers, request: JsonRpcRequest, id: string | number): Promise<McpAnswer> {
  const { backend, options } = server;
  const { notifications } = parseParams(SubscriptionsListenParamsSchema, request.params ?? {});
  if (!acceptsEventStream(headers)) {
    return {
      status: 400,
      body: failure(id, ErrorCode.InvalidRequest, "subscriptions/listen answers with an event stream: send Accept: application/json, text/event-stream"),
    };
  }
  // A stream is a call: counted against the caller's limits, and a caller holds only a few at once.
  await backend.admit();
  const held = holdLongRequest(backend.caller);
  const lists = (Object.keys(WATCHED) as Watched[]).filter((list) => notifications[list] === true);
  const meta = { [META.subscriptionId]: id };
  const watchMs = options.watchMs ?? 1_000;
  const until = Date.now() + (options.listenMaxMs ?? 15 * 60_000);
  const stream = sseStream(
    async (sse) => {
      try {
        sse.send({
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: { _meta: meta, notifications: Object.fromEntries(lists.map((list) => [list, true])) },
        });
        const seen = new Map<Watched, unknown>();
        for (const list of lists) seen.set(list, await stateOf(server, list));
        while (!sse.signal.aborted && Date.now() < until) {
          held.renew();
          await sleep(Math.min(watchMs, until - Date.now()), sse.signal);
          if (sse.signal.aborted) continue;
          for (const list of lists) {
            const now = await stateOf(server, list).catch(() => seen.get(list)); // a store outage is no change
            if (!unchanged(list, seen.get(list), now)) sse.send({ jsonrpc: "2.0", method: WATCHED[list].method, params: { _meta: meta } });
            seen.set(list, now);
          }
        }
        if (!sse.signal.aborted) sse.send(success(id, server.complete({ _meta: meta })));
      } finally {
        held.release();
      }
    },
    options.heartbeatMs,
    options.clientGone,
  );
  return { status: 200, stream };
}
