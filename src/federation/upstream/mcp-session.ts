/**
 * The gateway's MCP transport to an upstream server, over Streamable HTTP, in either era: the
 * 2025 revisions (an `initialize` handshake and an `Mcp-Session-Id` the gateway keeps per
 * isolate, opened again when the server forgets it) and 2026-07-28 (stateless: the version and
 * the method in every request's headers and `_meta`). One request at a time, read within the
 * call's signal and at most `MAX_ANSWER_BYTES` (an event stream too, all events together); the
 * requests themselves (lists, calls, reads, tasks) are in mcp-client.ts.
 */
import { BodyTooLarge, MAX_ANSWER_BYTES, boundedText } from "../../lib/body/index.js";
import { retryAfterMsOf } from "../../policies/failures/index.js";
import { safeJson } from "../../lib/json/index.js";
import { ErrorCode, RpcError, errorText, resultOfAnswer } from "../../protocols/jsonrpc/index.js";
import { HANDSHAKE_VERSIONS, META, McpErrorCode, requiredCapabilitiesOf, STATELESS_VERSIONS } from "../../protocols/mcp/index.js";
import { PROGRESS_METHOD, type Progress } from "../../protocols/progress/index.js";
import { LOG_METHOD, type LogLevel } from "../../protocols/logging/index.js";
import { acceptsEventStream, sseData } from "../../protocols/sse/index.js";
import { utf8Length } from "../../lib/utf8/index.js";
import type { McpEra } from "./model.js";
import { RETRY_AFTER_MS, byteLimit, upstreamUnavailable, urlWithQuery } from "./peer.js";

/** Who the gateway says it is to upstream servers. */
export const CLIENT_INFO = { name: "skillmesh-gateway", version: "1.0.0" } as const;
/** The longest message of an upstream's error passed on to a caller. */
const MAX_MESSAGE_CHARS = 500;
/** The most bytes one listing (every page of `tools/list`; the three offering lists together) may take. */
export const LIST_BUDGET_BYTES = 8 * 1024 * 1024;

/** One upstream server as a call reaches it. */
export interface McpTarget {
  url: string;
  /** What the call is for, in messages: the skill, or the upstream while it registers. */
  label: string;
  /** The upstream credential's headers for this call (src/federation/upstream/credentials.ts). */
  headers: Record<string, string>;
  /** A `query` credential's parameters, added to the URL of each request. */
  query?: Record<string, string>;
  /**
   * Which session a 2025 server keeps for this call: the credential (a hash of it, never the
   * credential) and whose call it is — callers never share a session's state.
   */
  sessionKey: string;
  signal: AbortSignal;
}

/** A 2025-era session as this isolate keeps it. */
interface Session {
  id?: string;
  version: string;
}

/** This isolate's sessions, by upstream URL and session key, with when each was last used. */
const sessions = new Map<string, { session: Promise<Session>; usedAt: number }>();
/** A session unused this long is forgotten (the server expires it too); at most this many are kept. */
export const SESSION_IDLE_MS = 10 * 60_000;
export const MAX_SESSIONS = 1_000;
let nextId = 1;
/**
 * Which era an upstream speaks: 2026-07-28 when it answers `server/discover` with it among its
 * `supportedVersions`, else the 2025 handshake (whose session is then kept for the calls).
 * @example const era = await discoverEra({ url, label: "everything", headers: {}, sessionKey: "", signal })
 */
export async function discoverEra(target: McpTarget): Promise<McpEra> {
  const stateless = STATELESS_VERSIONS[0];
  try {
    const result = (await exchange(target, "server/discover", {}, { protocolVersion: stateless, stateless: true })) as { supportedVersions?: unknown };
    if (Array.isArray(result?.supportedVersions) && result.supportedVersions.includes(stateless)) return { protocolVersion: stateless, stateless: true };
  } catch (error) {
    if (target.signal.aborted) throw error;
    // A 2025 server refuses the request (400, "not initialized"): it is asked to initialize.
  }
  const session = await sessionOf(target, true);
  return { protocolVersion: session.version, stateless: false };
}
/** Forgets the isolate's sessions with an upstream (it was removed or its credential changed). */
export function forgetSessions(url: string): void {
  for (const key of sessions.keys()) if (key.startsWith(`${url}\n`)) sessions.delete(key);
}

export interface ExchangeOptions {
  headers?: Record<string, string>;
  onProgress?: ((progress: Progress) => void) | undefined;
  /** Receives the log messages the server sends while it answers (checked where they are relayed, src/protocols/logging). */
  onLog?: ((message: unknown) => void) | undefined;
  /** 2026-07-28: the least severe log message wanted, sent in `_meta` (none: the server logs nothing). */
  logLevel?: LogLevel | undefined;
  /** 2026-07-28: the client capabilities sent in `_meta` (the caller's, for input requests); none by default. */
  capabilities?: Record<string, unknown>;
  /** What is left of a listing's bytes (all its pages together): each answer is read within it. */
  budget?: ReadBudget;
}

/** Bytes left to read over several answers (a listing's pages), spent as they are read. */
export interface ReadBudget {
  bytes: number;
}

/** A session expired under a request: open a new one and send it again (once). */
class SessionExpired extends Error {}

/**
 * Sends one request in the upstream's era and returns its result; a 2025 session the server
 * forgot (404) is opened again and the request sent once more.
 */
export async function exchange(
  target: McpTarget,
  method: string,
  params: Record<string, unknown>,
  era: McpEra,
  options: ExchangeOptions = {},
): Promise<unknown> {
  const { onProgress, onLog, budget } = options;
  if (era.stateless) {
    const headers = { ...options.headers, "mcp-protocol-version": era.protocolVersion, "mcp-method": method };
    return send(target, method, statelessParams(params, era, options.capabilities, options.logLevel), { headers, onProgress, onLog, budget });
  }
  for (let attempt = 0; ; attempt++) {
    const session = await sessionOf(target, attempt > 0);
    try {
      return await send(target, method, params, { headers: { ...options.headers, ...sessionHeaders(session) }, onProgress, onLog, session, budget });
    } catch (error) {
      if (!(error instanceof SessionExpired) || attempt > 0) throw error instanceof SessionExpired ? unavailable(target, "forgot its session twice") : error;
    }
  }
}

function statelessParams(
  params: Record<string, unknown>,
  era: McpEra,
  capabilities: Record<string, unknown> = {},
  logLevel?: LogLevel,
): Record<string, unknown> {
  const meta = {
    ...((params._meta as Record<string, unknown> | undefined) ?? {}),
    [META.protocolVersion]: era.protocolVersion,
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: CLIENT_INFO,
    ...(logLevel ? { [META.logLevel]: logLevel } : {}),
  };
  return { ...params, _meta: meta };
}

function sessionHeaders(session: Session): Record<string, string> {
  return { "mcp-protocol-version": session.version, ...(session.id ? { "mcp-session-id": session.id } : {}) };
}

/** The isolate's session with the upstream for this credential and caller (opened on first use, or anew when `fresh`). */
function sessionOf(target: McpTarget, fresh: boolean): Promise<Session> {
  const key = `${target.url}\n${target.sessionKey}`;
  const now = Date.now();
  const known = fresh ? undefined : sessions.get(key);
  if (known && now - known.usedAt < SESSION_IDLE_MS) {
    known.usedAt = now;
    return known.session;
  }
  forgetIdleSessions(now);
  const session = openSession(target);
  sessions.set(key, { session, usedAt: now });
  // A handshake that failed is not kept: the next call tries again.
  session.catch(() => sessions.get(key)?.session === session && sessions.delete(key));
  return session;
}

/** Forgets sessions unused for `SESSION_IDLE_MS`, and the least recently used past `MAX_SESSIONS`. */
function forgetIdleSessions(now: number): void {
  for (const [key, { usedAt }] of sessions) if (now - usedAt >= SESSION_IDLE_MS) sessions.delete(key);
  if (sessions.size < MAX_SESSIONS) return;
  const oldest = [...sessions].sort(([, a], [, b]) => a.usedAt - b.usedAt).slice(0, sessions.size - MAX_SESSIONS + 1);
  for (const [key] of oldest) sessions.delete(key);
}

async function openSession(target: McpTarget): Promise<Session> {
  const params = { protocolVersion: HANDSHAKE_VERSIONS[0], capabilities: {}, clientInfo: CLIENT_INFO };
  const opened: { id?: string } = {};
  const result = (await send(target, "initialize", params, { headers: {}, opened })) as { protocolVersion?: unknown } | undefined;
  const version = typeof result?.protocolVersion === "string" ? result.protocolVersion : "";
  if (!(HANDSHAKE_VERSIONS as readonly string[]).includes(version))
    throw unavailable(target, `speaks MCP ${version.slice(0, 40) || "(no version)"}, which the gateway does not`);
  const session = { version, ...(opened.id ? { id: opened.id } : {}) };
  await notify(target, { jsonrpc: "2.0", method: "notifications/initialized" }, session);
  return session;
}

/** POSTs a notification (or a response to a server's request) and reads nothing back. */
async function notify(target: McpTarget, message: unknown, session?: Session): Promise<void> {
  const response = await post(target, message, session ? sessionHeaders(session) : {});
  await response.body?.cancel();
}

function post(target: McpTarget, message: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(urlWithQuery(target.url, target.query), {
    method: "POST",
    headers: { ...target.headers, ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(message),
    signal: target.signal,
    // A redirect is not followed: it would send the credential and the arguments elsewhere.
    redirect: "manual",
  });
}

/** How one request is sent: its headers, where progress goes, its session, the listing budget it reads within. */
interface SendOptions {
  headers: Record<string, string>;
  onProgress?: ((progress: Progress) => void) | undefined;
  onLog?: ((message: unknown) => void) | undefined;
  session?: Session;
  /** Receives a new session's id (the `initialize` of a handshake). */
  opened?: { id?: string };
  budget?: ReadBudget | undefined;
}

/**
 * One request and its response, as JSON or on an event stream (progress relayed, requests of the
 * server refused, everything within `MAX_ANSWER_BYTES` and the listing's budget).
 */
async function send(target: McpTarget, method: string, params: Record<string, unknown>, options: SendOptions): Promise<unknown> {
  const id = nextId++;
  try {
    return await sendAs(id, target, method, params, options);
  } catch (error) {
    // The 2025 revisions: a dropped connection is no cancellation, the client sends one
    // (basic/utilities/cancellation). 2026-07-28: closing the stream is the cancellation.
    if (options.session && target.signal.aborted) await cancelUpstream(target, id, options.session);
    throw error;
  }
}

/** How long the gateway spends telling a 2025 upstream that a request was cancelled. */
const CANCEL_NOTICE_MS = 500;

/** `notifications/cancelled` for request `id` in the session, best effort within `CANCEL_NOTICE_MS`. */
async function cancelUpstream(target: McpTarget, id: number, session: Session): Promise<void> {
  const message = {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id, reason: "The gateway's caller cancelled, or the call timed out" },
  };
  await notify({ ...target, signal: AbortSignal.timeout(CANCEL_NOTICE_MS) }, message, session).catch(() => {});
}

async function sendAs(id: number, target: McpTarget, method: string, params: Record<string, unknown>, options: SendOptions): Promise<unknown> {
  const { session, opened, onProgress, onLog, budget } = options;
  let response: Response;
  try {
    response = await post(target, { jsonrpc: "2.0", id, method, params }, options.headers);
  } catch (error) {
    if (target.signal.aborted) throw error;
    console.error(`[upstream] ${target.label} unreachable:`, errorText(error));
    throw unavailable(target, "is unreachable");
  }
  // A server that forgot the session answers 404 (the transport spec); many answer 400 with an
  // error that answers no request ("No valid session ID"): either way it is opened again, once.
  if (session?.id && (response.status === 404 || response.status === 400)) {
    const text = await boundedText(response, 64 * 1024).catch(() => "");
    const error = safeJson(text) as { id?: unknown } | undefined;
    if (response.status === 404 || error?.id === null || error?.id === undefined) throw new SessionExpired();
    return resultOf(target, response.status, error);
  }
  if (opened) opened.id = response.headers.get("mcp-session-id")?.slice(0, 1_024) ?? undefined;
  if (response.status === 429) {
    await response.body?.cancel();
    const retryAfterMs = retryAfterMsOf(response.headers.get("retry-after"));
    throw new RpcError(ErrorCode.RateLimited, `${target.label} is rate limited upstream; retry after ${Math.ceil(retryAfterMs / 1000)} s`, { retryAfterMs });
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    throw new RpcError(ErrorCode.SkillUnavailable, `${target.label}: the upstream refused the gateway's credential (HTTP ${response.status})`, {
      retryAfterMs: RETRY_AFTER_MS,
    });
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw unavailable(target, `answered with a redirect (HTTP ${response.status}), which the gateway does not follow`);
  }
  // Within one answer's bound, and what is left of a listing's (its pages together).
  const limit = Math.min(MAX_ANSWER_BYTES, budget?.bytes ?? MAX_ANSWER_BYTES);
  try {
    let message: unknown;
    if (acceptsEventStream(response.headers, "content-type") && response.body) {
      const counted = byteLimit(limit);
      message = await responseOnStream(target, response.body.pipeThrough(counted.stream), id, limit, { onProgress, onLog }, session);
      if (budget) budget.bytes -= counted.seen();
    } else {
      const text = await boundedText(response, limit);
      if (budget) budget.bytes -= utf8Length(text);
      message = safeJson(text);
    }
    return resultOf(target, response.status, message);
  } catch (error) {
    if (error instanceof RpcError || target.signal.aborted) throw error;
    if (error instanceof BodyTooLarge)
      throw unavailable(
        target,
        limit < MAX_ANSWER_BYTES ?
          `listed more than the ${LIST_BUDGET_BYTES / 1024 / 1024} MiB a listing may take`
        : `sent more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`,
      );
    console.error(`[upstream] ${target.label} broke off its answer:`, errorText(error));
    throw unavailable(target, "broke off its answer");
  }
}

/** The response to request `id` on an event stream: progress and log messages relayed, server requests refused. */
async function responseOnStream(
  target: McpTarget,
  body: ReadableStream<Uint8Array>,
  id: number,
  limit: number,
  { onProgress, onLog }: Pick<SendOptions, "onProgress" | "onLog">,
  session?: Session,
): Promise<unknown> {
  for await (const data of sseData(body, limit)) {
    const message = safeJson(data) as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown } | undefined;
    if (typeof message !== "object" || message === null) continue;
    if (message.id === id && ("result" in message || "error" in message)) {
      await body.cancel().catch(() => {});
      return message;
    }
    if (message.method === PROGRESS_METHOD)
      onProgress?.(message.params as Progress); // checked where it is relayed (src/protocols/progress)
    else if (message.method === LOG_METHOD)
      onLog?.(message.params); // checked where it is relayed (src/protocols/logging)
    else if (typeof message.method === "string" && message.id !== undefined && session) {
      // A request of the server's own (sampling, elicitation, roots): the gateway has no user to ask.
      void notify(
        target,
        { jsonrpc: "2.0", id: message.id, error: { code: ErrorCode.MethodNotFound, message: "The Skillmesh gateway does not answer server requests" } },
        session,
      ).catch(() => {});
    }
  }
  throw unavailable(target, "ended its event stream without an answer");
}
/**
 * The result of a JSON-RPC response, or the `RpcError` of its error: -32602 keeps its code, and
 * so does -32021 with the capabilities it names (the caller did not declare what the server needs).
 */
function resultOf(target: McpTarget, status: number, message: unknown): unknown {
  return resultOfAnswer(status, message, {
    notAnAnswer: (what) => unavailable(target, what),
    failed: (error) => {
      const said = String(error.message).slice(0, MAX_MESSAGE_CHARS);
      if (error.code === ErrorCode.InvalidParams) return new RpcError(ErrorCode.InvalidParams, `Invalid params: ${said}`);
      if (error.code === McpErrorCode.MissingCapability) {
        const required = requiredCapabilitiesOf(error.data);
        return new RpcError(
          McpErrorCode.MissingCapability,
          `Missing client capability: ${target.label} needs a capability the request did not declare (${said})`,
          required ? { requiredCapabilities: required } : undefined,
        );
      }
      return new RpcError(ErrorCode.SkillUnavailable, `${target.label} failed upstream: ${said}`, { retryAfterMs: RETRY_AFTER_MS, upstreamCode: error.code });
    },
  });
}

/** -32001 for this upstream's transport failure (`upstreamUnavailable`). */
export function unavailable(target: McpTarget, what: string): RpcError {
  return upstreamUnavailable(target.label, what);
}
