/**
 * The streams that tell a client what changed: `subscriptions/listen` (2026-07-28) of its tool,
 * prompt or resource lists; a 2025 session's `GET /mcp` of those and of the resources it subscribed to.
 */
import { ErrorCode, type JsonRpcRequest, failure, parseParams, success } from "../jsonrpc/index.js";
import { sleep } from "../signal/index.js";
import { type SseWriter, acceptsEventStream, sseStream } from "../sse/index.js";
import type { McpAnswer, McpOptions } from "./answer.js";
import type { McpBackend } from "./backend.js";
import { META, SubscriptionsListenParamsSchema, type Tool } from "../mcp-protocol/index.js";
import { type Tools, sameTools } from "./tool-list.js";
import { type LongRequest, holdLongRequest } from "./waits.js";

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
  const until = Date.now() + (options.listenMaxMs ?? 15 * 60_000);
  const stream = sseStream(
    async (sse) => {
      try {
        sse.send({
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: { _meta: meta, notifications: Object.fromEntries(lists.map((list) => [list, true])) },
        });
        await watch(server, sse, { lists, until, held }, (method) => sse.send({ jsonrpc: "2.0", method, params: { _meta: meta } }));
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

/**
 * A 2025 session's own stream (`GET /mcp` with its `Mcp-Session-Id`): what the server tells the
 * client unasked — `notifications/{tools,prompts,resources}/list_changed` when what this caller sees
 * changes, and `notifications/resources/updated` for each resource the session subscribed to
 * (`resources/subscribe`) when what serves it changes (another version of its skill, upstream or
 * package is routed to the caller). It ends after `listenMaxMs`; the client opens another.
 */
export async function sessionStream(server: ListeningServer, session: string): Promise<McpAnswer> {
  const { backend, options } = server;
  await backend.admit();
  const held = holdLongRequest(backend.caller, Date.now(), "session stream");
  const until = Date.now() + (options.listenMaxMs ?? 15 * 60_000);
  const stream = sseStream(
    async (sse) => {
      try {
        // The compact catalog lists the same three tools whatever is registered.
        const lists = (Object.keys(WATCHED) as Watched[]).filter((list) => !(options.compact && list === "toolsListChanged"));
        await watch(server, sse, { lists, session, until, held }, (method, params) => sse.send({ jsonrpc: "2.0", method, ...(params ? { params } : {}) }));
      } finally {
        held.release();
      }
    },
    options.heartbeatMs,
    options.clientGone,
  );
  return { status: 200, stream };
}

/** How often a session's stream reads its subscriptions when nothing they could depend on changed. */
const SUBSCRIPTIONS_LOOK_MS = 30_000;

/** What one stream watches, until when, and the long-request slot it renews while it does. */
interface Watching {
  lists: Watched[];
  /** A 2025 session: the resources it subscribed to (read again at each look) are told of when what serves them changes. */
  session?: string;
  until: number;
  held: LongRequest;
}

/**
 * Looks every `watchMs` at what the stream watches, until `until` or the stream closes, and calls
 * `tell` for each list that changed and each subscribed resource whose server changed since the
 * session last heard of it (noted in the store, so it is told once, whichever stream tells it).
 * A store outage is no change.
 */
async function watch(
  server: ListeningServer,
  sse: SseWriter,
  { lists, session, until, held }: Watching,
  tell: (method: string, params?: { uri: string }) => void,
): Promise<void> {
  const { backend } = server;
  const watchMs = server.options.watchMs ?? 1_000;
  const seen = new Map<Watched, unknown>();
  for (const list of lists) seen.set(list, await stateOf(server, list));
  // The subscriptions are read when what serves resources may have changed, and every
  // `SUBSCRIPTIONS_LOOK_MS` besides (a subscription stored just after a change): not every second.
  let revision: string | undefined;
  let lookedAt = 0;
  const updated = async (session: string) => {
    const catalog = backend.catalog();
    const current = await catalog.revision();
    if (current === revision && Date.now() - lookedAt < SUBSCRIPTIONS_LOOK_MS) return;
    [revision, lookedAt] = [current, Date.now()];
    for (const { uri, servedBy } of await backend.subscriptions.list(session)) {
      const now = await catalog.servedBy(uri);
      if (now === servedBy) continue;
      tell("notifications/resources/updated", { uri });
      await backend.subscriptions.told(session, uri, now);
    }
  };
  if (session) await updated(session).catch(() => undefined); // what changed while no stream was open
  while (!sse.signal.aborted && Date.now() < until) {
    held.renew();
    await sleep(Math.min(watchMs, until - Date.now()), sse.signal);
    if (sse.signal.aborted) continue;
    for (const list of lists) {
      const now = await stateOf(server, list).catch(() => seen.get(list));
      if (!unchanged(list, seen.get(list), now)) tell(WATCHED[list].method);
      seen.set(list, now);
    }
    if (session) await updated(session).catch(() => undefined);
  }
}
