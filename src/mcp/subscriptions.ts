/**
 * The resources a 2025 session subscribed to (`resources/subscribe`), so its stream (`GET /mcp`)
 * tells it when one is updated: kept in the store under the caller and the session's id for a day
 * (the stream and the subscribe may reach different isolates), at most `MAX_SUBSCRIPTIONS` URIs a
 * session. 2026-07-28 has no such method (SEP-2575).
 */
import { z } from "zod";
import { ErrorCode, RpcError } from "../protocols/jsonrpc/index.js";
import { safeJson } from "../lib/json/index.js";
import type { Store } from "../store/index.js";

const PREFIX = "sm:subs:";
const SUBSCRIPTIONS_TTL_MS = 24 * 60 * 60_000;
/** The most resources one session may be subscribed to. */
export const MAX_SUBSCRIPTIONS = 64;

const SubscriptionsSchema = z.array(z.object({ uri: z.string(), servedBy: z.string().optional() })).max(MAX_SUBSCRIPTIONS);
/** A resource a session subscribed to, and what served it when the session last heard of it. */
export type Subscription = z.infer<typeof SubscriptionsSchema>[number];

/** One caller's sessions' resource subscriptions. */
export interface ResourceSubscriptions {
  /** Subscribes the session to `uri`, served now by `servedBy` (-32602 past `MAX_SUBSCRIPTIONS`). */
  add(session: string, uri: string, servedBy: string | undefined): Promise<void>;
  remove(session: string, uri: string): Promise<void>;
  /** What the session is subscribed to, oldest first. */
  list(session: string): Promise<Subscription[]>;
  /** Notes that the session was told `uri` is now served by `servedBy`. */
  told(session: string, uri: string, servedBy: string | undefined): Promise<void>;
}

/**
 * The resource subscriptions of `caller`'s sessions, in `store`: what each session subscribed to
 * and what served it when the session last heard, so a stream opened later (another isolate, a
 * reconnect) tells of a change since then, once.
 * @example await resourceSubscriptionsOf(store, "k_1").add("3fa1…", "skill://modbus-triage/SKILL.md", "package:modbus-triage@1.0.0/SKILL.md")
 */
export function resourceSubscriptionsOf(store: Pick<Store, "get" | "set">, caller: string): ResourceSubscriptions {
  const keyOf = (session: string) => `${PREFIX}${caller}:${session}`;
  const list = async (session: string) => {
    const subscriptions = SubscriptionsSchema.safeParse(safeJson((await store.get(keyOf(session))) ?? "[]"));
    return subscriptions.success ? subscriptions.data : [];
  };
  const save = (session: string, subscriptions: Subscription[]) => store.set(keyOf(session), JSON.stringify(subscriptions), { px: SUBSCRIPTIONS_TTL_MS });
  const entry = (uri: string, servedBy: string | undefined): Subscription => (servedBy === undefined ? { uri } : { uri, servedBy });
  /** Saves the session's subscriptions changed by `change`, when it is subscribed to `uri` (else writes nothing). */
  const rewrite = async (session: string, uri: string, change: (subscriptions: Subscription[]) => Subscription[]) => {
    const subscriptions = await list(session);
    if (subscriptions.some((s) => s.uri === uri)) await save(session, change(subscriptions));
  };
  return {
    list,
    async add(session, uri, servedBy) {
      const subscriptions = (await list(session)).filter((s) => s.uri !== uri);
      if (subscriptions.length >= MAX_SUBSCRIPTIONS)
        throw new RpcError(ErrorCode.InvalidParams, `A session may subscribe to at most ${MAX_SUBSCRIPTIONS} resources; unsubscribe from one first`);
      await save(session, [...subscriptions, entry(uri, servedBy)]);
    },
    remove: (session, uri) => rewrite(session, uri, (subscriptions) => subscriptions.filter((s) => s.uri !== uri)),
    told: (session, uri, servedBy) => rewrite(session, uri, (subscriptions) => subscriptions.map((s) => (s.uri === uri ? entry(uri, servedBy) : s))),
  };
}
