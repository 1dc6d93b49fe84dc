/**
 * The streams that tell a client what changed: `subscriptions/listen` (2026-07-28) of its tool,
 * prompt or resource lists; a 2025 session's `GET /mcp` of those and of the resources it subscribed to.
 */
import { ErrorCode, type JsonRpcRequest, RpcError, failure, parseParams, success } from "../protocols/jsonrpc/index.js";
import { sleep } from "../lib/signal/index.js";
import { type SseWriter, acceptsEventStream, sseStream } from "../protocols/sse/index.js";
import type { McpAnswer, McpOptions } from "./answer.js";
import type { McpBackend } from "./backend.js";
import { META, SubscriptionsListenParamsSchema, type Tool } from "../protocols/mcp/index.js";
import { type Tools, sameTools } from "./tool-list.js";
import { type LongRequest, holdLongRequest } from "./waits.js";
import { MAX_SUBSCRIPTIONS, type Subscription } from "./subscriptions.js";

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
  // Skills' and upstreams' resources and templates, upstreams' Agent Skills (by their SKILL.md and
  // digests), and every Agent Skills package at the version this caller is served.
  const packages = (await catalog.packages()).all().map((p) => `${p.name}@${p.version}`);
  return JSON.stringify([offerings.resources, offerings.resourceTemplates, offerings.packages.map((s) => s.entry), packages]);
}

const unchanged = (list: Watched, before: unknown, now: unknown) => (list === "toolsListChanged" ? sameTools(before as Tool[], now as Tool[]) : before === now);

/**
 * `subscriptions/listen` (2026-07-28): an event stream that acknowledges what it will send — tool,
 * prompt and resource list changes, and updates of the `resourceSubscriptions` the caller may
 * read (each subscribed through the one door, as a read is; the others left out of the
 * acknowledgment) — then sends `notifications/{tools,prompts,resources}/list_changed` whenever
 * what this caller sees changes (a skill's tools, prompts or resources; an Agent Skills package,
 * or the version it is served) and `notifications/resources/updated` when what serves a subscribed
 * resource changes, until the client closes it or `listenMaxMs` passes (then a final result ends
 * it gracefully).
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
  const uris = [...new Set(notifications.resourceSubscriptions ?? [])];
  if (uris.length > MAX_SUBSCRIPTIONS)
    throw new RpcError(ErrorCode.InvalidParams, `Invalid params: at most ${MAX_SUBSCRIPTIONS} resourceSubscriptions a stream`);
  // A stream is an operation of the chain (charged, traced, audited), and a caller holds only a few at once.
  await backend.run({ kind: "session", method: "subscriptions/listen" });
  const held = holdLongRequest(backend.caller);
  const subscribed: Subscription[] = [];
  try {
    for (const uri of uris) {
      // One the caller may not read is left out of the acknowledgment (charged and audited as a read of it would be).
      const made = await backend.run({ kind: "subscribe", method: "subscriptions/listen", uri }).catch(notFoundAsUndefined);
      if (made) subscribed.push({ uri, ...(made as { servedBy?: string }) });
    }
  } catch (thrown) {
    held.release();
    throw thrown;
  }
  const lists = (Object.keys(WATCHED) as Watched[]).filter((list) => notifications[list] === true);
  const meta = { [META.subscriptionId]: id };
  return heldStream(options, held, async (sse, until) => {
    const acknowledged = {
      ...Object.fromEntries(lists.map((list) => [list, true])),
      ...(uris.length ? { resourceSubscriptions: subscribed.map((s) => s.uri) } : {}),
    };
    sse.send({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: meta, notifications: acknowledged } });
    const resources = subscribed.length ? inStream(subscribed) : undefined;
    await watch(server, sse, { lists, resources, until, held }, (method, params) => sse.send({ jsonrpc: "2.0", method, params: { _meta: meta, ...params } }));
    if (!sse.signal.aborted) sse.send(success(id, server.complete({ _meta: meta })));
  });
}

/**
 * The event stream of a long request that holds `held`: `body` runs until it returns (the client
 * gone, or `listenMaxMs` passed: `until`), then the slot is freed.
 */
function heldStream(options: McpOptions, held: LongRequest, body: (sse: SseWriter, until: number) => Promise<void>): McpAnswer {
  const until = Date.now() + (options.listenMaxMs ?? 15 * 60_000);
  const stream = sseStream(
    async (sse) => {
      try {
        await body(sse, until);
      } finally {
        held.release();
      }
    },
    options.heartbeatMs,
    options.clientGone,
  );
  return { status: 200, stream };
}

/** A thrown -32602 (nothing of that name for this caller) as undefined; anything else thrown on. */
function notFoundAsUndefined(thrown: unknown): undefined {
  if (thrown instanceof RpcError && thrown.code === ErrorCode.InvalidParams) return undefined;
  throw thrown;
}

/** Subscriptions a stream holds itself (a `subscriptions/listen`'s): what each resource was served by when it was last told. */
function inStream(subscriptions: Subscription[]): WatchedResources {
  return {
    list: async () => subscriptions,
    told: async (uri, servedBy) => {
      for (const s of subscriptions) if (s.uri === uri) s.servedBy = servedBy;
    },
  };
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
  await backend.run({ kind: "session", method: "GET /mcp" });
  const held = holdLongRequest(backend.caller, Date.now(), "session stream");
  // The compact catalog lists the same three tools whatever is registered.
  const lists = (Object.keys(WATCHED) as Watched[]).filter((list) => !(options.compact && list === "toolsListChanged"));
  const resources: WatchedResources = {
    list: () => backend.subscriptions.list(session),
    told: (uri, servedBy) => backend.subscriptions.told(session, uri, servedBy),
  };
  return heldStream(options, held, (sse, until) =>
    watch(server, sse, { lists, resources, until, held }, (method, params) => sse.send({ jsonrpc: "2.0", method, ...(params ? { params } : {}) })),
  );
}

/** Where a stream's resource subscriptions are kept: a 2025 session's in the store, a listen stream's in itself. */
interface WatchedResources {
  list(): Promise<Subscription[]>;
  /** Notes that the client was told `uri` is now served by `servedBy`. */
  told(uri: string, servedBy: string | undefined): Promise<void>;
}

/** How often a session's stream reads its subscriptions when nothing they could depend on changed. */
const SUBSCRIPTIONS_LOOK_MS = 30_000;

/** What one stream watches, until when, and the long-request slot it renews while it does. */
interface Watching {
  lists: Watched[];
  /** The resources subscribed to (read again at each look), told of when what serves them changes. */
  resources?: WatchedResources;
  until: number;
  held: LongRequest;
}

/**
 * Looks every `watchMs` at what the stream watches, until `until` or the stream closes, and calls
 * `tell` for each list that changed and each subscribed resource whose server changed since the
 * client last heard of it (noted where the subscriptions are kept: a 2025 session's in the store,
 * so it is told once, whichever of its streams tells it). A store outage is no change.
 */
async function watch(
  server: ListeningServer,
  sse: SseWriter,
  { lists, resources, until, held }: Watching,
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
  const updated = async (resources: WatchedResources) => {
    const catalog = backend.catalog();
    const current = await catalog.revision();
    if (current === revision && Date.now() - lookedAt < SUBSCRIPTIONS_LOOK_MS) return;
    [revision, lookedAt] = [current, Date.now()];
    for (const { uri, servedBy } of await resources.list()) {
      const now = await catalog.servedBy(uri);
      if (now === servedBy) continue;
      tell("notifications/resources/updated", { uri });
      await resources.told(uri, now);
    }
  };
  if (resources) await updated(resources).catch(() => undefined); // what changed while no stream was open
  while (!sse.signal.aborted && Date.now() < until) {
    held.renew();
    await sleep(Math.min(watchMs, until - Date.now()), sse.signal);
    if (sse.signal.aborted) continue;
    for (const list of lists) {
      const now = await stateOf(server, list).catch(() => seen.get(list));
      if (!unchanged(list, seen.get(list), now)) tell(WATCHED[list].method);
      seen.set(list, now);
    }
    if (resources) await updated(resources).catch(() => undefined);
  }
}
