/**
 * The gateway as an MCP client of an upstream server, over Streamable HTTP, in either era: the
 * 2025 revisions (an `initialize` handshake and an `Mcp-Session-Id` the gateway keeps per
 * isolate, opened again when the server forgets it) and 2026-07-28 (stateless: the version and
 * the method in every request's headers and `_meta`). Written for a hostile peer: every answer is
 * read within the call's signal and at most `MAX_ANSWER_BYTES` (an event stream too, all events
 * together), parsed with the wire schemas of src/protocols/mcp, and every way it can fail is an
 * `RpcError` a caller can act on — nothing the upstream sent reaches a caller unchecked.
 *
 * (The official SDK's client is a long-lived connection object that reads streams unbounded and
 * answers server requests itself; a gateway forwarding one call at a time within a deadline needs
 * these few requests with bounds, so they are written here on the same schemas.)
 */
import { BodyTooLarge, MAX_ANSWER_BYTES, boundedText } from "../../lib/body/index.js";
import { retryAfterMsOf } from "../../policies/failures/index.js";
import { safeJson } from "../../lib/json/index.js";
import { ErrorCode, JsonRpcResponseSchema, RpcError, errorText } from "../../protocols/jsonrpc/index.js";
import { mirroredHeaders } from "../../protocols/mcp/headers.js";
import {
  HANDSHAKE_VERSIONS,
  type InputRequiredResult,
  InputRequiredResultSchema,
  type InputRound,
  attributedInputRequired,
  ListToolsResultSchema,
  ListedToolSchema,
  INPUT_REQUEST_CAPABILITY,
  META,
  McpErrorCode,
  requiredCapabilitiesOf,
  STATELESS_VERSIONS,
  type ListedTool,
  type UpstreamToolResult,
  UpstreamToolResultSchema,
  headerValueFor,
  undeclaredInputRequests,
  isInputRequired,
  type GetPromptResult,
  GetPromptResultSchema,
  PromptSchema,
  type ReadResourceResult,
  ReadResourceResultSchema,
  ResourceSchema,
  type AgentSkillEntry,
  AgentSkillEntrySchema,
  ListAgentSkillsResultSchema,
  ResourceTemplateSchema,
  TASKS_EXTENSION,
  type TaskMethod,
  type TaskStarted,
  TaskStartedSchema,
  type UpstreamTask,
  UpstreamTaskSchema,
  attributedInputRequests,
} from "../../protocols/mcp/index.js";
import type { z } from "zod";
import { PROGRESS_METHOD, type Progress } from "../../protocols/progress/index.js";
import { LOG_METHOD, type LogLevel } from "../../protocols/logging/index.js";
import { acceptsEventStream, sseData } from "../../protocols/sse/index.js";
import { utf8Length } from "../../lib/utf8/index.js";
import { MAX_MANIFEST_BYTES } from "../../skill/manifest.js";
import type { McpEra, Offerings } from "./model.js";

/** Who the gateway says it is to upstream servers. */
export const CLIENT_INFO = { name: "skillmesh-gateway", version: "1.0.0" } as const;
/** How long a caller is told to wait after an upstream's transport failure. */
const RETRY_AFTER_MS = 1_000;
/** Pages of `tools/list` read at most, and tools kept at most, from one upstream. */
export const MAX_LIST_PAGES = 100;
export const MAX_UPSTREAM_TOOLS = 5_000;
/** The longest message of an upstream's error passed on to a caller. */
const MAX_MESSAGE_CHARS = 500;

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

/** The most bytes one listing (every page of `tools/list`; the three offering lists together) may take. */
export const LIST_BUDGET_BYTES = 8 * 1024 * 1024;

/**
 * Every tool the upstream lists (all pages, at most `MAX_UPSTREAM_TOOLS` tools and
 * `LIST_BUDGET_BYTES` in all, checked while reading), each checked as its page is parsed: a tool
 * that does not parse, or whose definition is larger than a manifest may be, is reported in
 * `invalid`, not kept.
 * @example const { tools } = await listTools(target, era)
 */
export async function listTools(target: McpTarget, era: McpEra): Promise<{ tools: ListedTool[]; invalid: Array<{ tool: string; reason: string }> }> {
  const tools: ListedTool[] = [];
  const invalid: Array<{ tool: string; reason: string }> = [];
  const budget: ReadBudget = { bytes: LIST_BUDGET_BYTES };
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES && tools.length < MAX_UPSTREAM_TOOLS; page++) {
    const result = ListToolsResultSchema.safeParse(await exchange(target, "tools/list", cursor === undefined ? {} : { cursor }, era, { budget }));
    if (!result.success) throw unavailable(target, "answered tools/list with something that is not a tool list");
    for (const raw of result.data.tools) {
      const name = typeof (raw as { name?: unknown })?.name === "string" ? String((raw as { name: string }).name).slice(0, 128) : "(unnamed)";
      const bytes = utf8Length(JSON.stringify(raw) ?? "");
      if (bytes > MAX_MANIFEST_BYTES) {
        invalid.push({ tool: name, reason: `its definition is ${bytes} bytes; at most ${MAX_MANIFEST_BYTES} are registered` });
        continue;
      }
      const tool = ListedToolSchema.safeParse(raw);
      if (!tool.success) invalid.push({ tool: name, reason: tool.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ") });
      else if (tools.length < MAX_UPSTREAM_TOOLS) tools.push(tool.data);
    }
    cursor = result.data.nextCursor;
    if (!cursor) break;
  }
  return { tools, invalid: invalid.slice(0, MAX_UPSTREAM_TOOLS) };
}

/** The most resources, templates and prompts kept of one upstream. */
export const MAX_UPSTREAM_OFFERINGS = 256;

/**
 * What an upstream serves besides tools: its resources, resource templates and prompts (all
 * pages, at most `MAX_UPSTREAM_OFFERINGS` of each and `LIST_BUDGET_BYTES` for the three lists
 * together, checked while reading; each checked — one that does not parse is left out). A list the
 * server does not answer (it has no resources, say) is empty.
 * @example const { resources, prompts } = await listOfferings(target, era)
 */
export async function listOfferings(target: McpTarget, era: McpEra): Promise<Offerings> {
  const budget: ReadBudget = { bytes: LIST_BUDGET_BYTES };
  const all = async <T>(method: string, key: string, schema: z.ZodType<T>): Promise<T[]> => {
    const items: T[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_LIST_PAGES && items.length < MAX_UPSTREAM_OFFERINGS; page++) {
        const result = (await exchange(target, method, cursor === undefined ? {} : { cursor }, era, { budget })) as Record<string, unknown> | undefined;
        for (const raw of Array.isArray(result?.[key]) ? (result[key] as unknown[]) : []) {
          const parsed = schema.safeParse(raw);
          if (parsed.success && items.length < MAX_UPSTREAM_OFFERINGS) items.push(parsed.data);
        }
        cursor = typeof result?.nextCursor === "string" ? result.nextCursor : undefined;
        if (!cursor) break;
      }
    } catch (error) {
      if (target.signal.aborted) throw error;
    }
    return items;
  };
  return {
    resources: await all("resources/list", "resources", ResourceSchema),
    resourceTemplates: await all("resources/templates/list", "resourceTemplates", ResourceTemplateSchema),
    prompts: await all("prompts/list", "prompts", PromptSchema),
  };
}

/** The most Agent Skills kept of one upstream. */
export const MAX_UPSTREAM_AGENT_SKILLS = 128;

/**
 * The Agent Skills an upstream lists (`skills/list` of the Skills extension, SEP-2640): all pages,
 * at most `MAX_UPSTREAM_AGENT_SKILLS` and `LIST_BUDGET_BYTES`, checked while reading; an entry that
 * does not parse is reported in `invalid`. Undefined when the server answers `skills/list` with an
 * error (it does not serve the extension); a transport failure throws.
 * @example const listed = await listAgentSkills(target, era) // { entries: [{ uri: "skill://git-workflow/SKILL.md", … }], invalid: [] }
 */
export async function listAgentSkills(
  target: McpTarget,
  era: McpEra,
): Promise<{ entries: AgentSkillEntry[]; invalid: Array<{ tool: string; reason: string }> } | undefined> {
  const budget: ReadBudget = { bytes: LIST_BUDGET_BYTES };
  const entries: AgentSkillEntry[] = [];
  const invalid: Array<{ tool: string; reason: string }> = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES && entries.length < MAX_UPSTREAM_AGENT_SKILLS; page++) {
    let raw: unknown;
    try {
      raw = await exchange(target, "skills/list", cursor === undefined ? {} : { cursor }, era, { budget });
    } catch (error) {
      // The server answered with an error of its own (-32601, say): it serves no skills.
      const refused =
        error instanceof RpcError &&
        (error.code === ErrorCode.InvalidParams || (error.data as { upstreamCode?: unknown } | undefined)?.upstreamCode !== undefined);
      if (refused && page === 0) return undefined;
      throw error;
    }
    const result = ListAgentSkillsResultSchema.safeParse(raw);
    if (!result.success) throw unavailable(target, "answered skills/list with something that is not a skill list");
    for (const item of result.data.skills) {
      const entry = AgentSkillEntrySchema.safeParse(item);
      const uri = typeof (item as { uri?: unknown })?.uri === "string" ? String((item as { uri: string }).uri).slice(0, 200) : "(no uri)";
      if (!entry.success) invalid.push({ tool: uri, reason: entry.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ") });
      else if (entries.length < MAX_UPSTREAM_AGENT_SKILLS) entries.push(entry.data);
    }
    cursor = result.data.nextCursor;
    if (!cursor) break;
  }
  return { entries, invalid: invalid.slice(0, MAX_UPSTREAM_AGENT_SKILLS) };
}

/**
 * Reads one of an upstream's resources, checked; the upstream's refusal as `callTool`'s is.
 * @example const { contents } = await readUpstreamResource(target, era, "demo://resource/static/document/architecture.md")
 */
export async function readUpstreamResource(
  target: McpTarget,
  era: McpEra,
  uri: string,
  round?: InputRound,
  budget?: ReadBudget,
): Promise<ReadResourceResult | InputRequiredResult> {
  const raw = await exchangeAsking(target, "resources/read", { uri }, era, era.stateless ? { "mcp-name": headerValueFor(uri) } : {}, round, {}, budget);
  if (isInputRequired(raw)) return raw;
  const result = ReadResourceResultSchema.safeParse(raw);
  if (!result.success) throw unavailable(target, "answered resources/read with something that is not resource contents");
  return result.data;
}

/**
 * Gets one of an upstream's prompts, checked.
 * @example const { messages } = await getUpstreamPrompt(target, era, "simple-prompt", {})
 */
export async function getUpstreamPrompt(
  target: McpTarget,
  era: McpEra,
  name: string,
  args: Record<string, string>,
  round?: InputRound,
): Promise<GetPromptResult | InputRequiredResult> {
  const raw = await exchangeAsking(target, "prompts/get", { name, arguments: args }, era, era.stateless ? { "mcp-name": headerValueFor(name) } : {}, round);
  if (isInputRequired(raw)) return raw;
  const result = GetPromptResultSchema.safeParse(raw);
  if (!result.success) throw unavailable(target, "answered prompts/get with something that is not a prompt");
  return result.data;
}

/**
 * Asks an upstream for completions of an argument (its answer is checked by the caller: src/gateway/chain/operations.ts).
 * @example await completeAtUpstream(target, era, { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "x" } })
 */
export function completeAtUpstream(target: McpTarget, era: McpEra, params: Record<string, unknown>): Promise<unknown> {
  return exchange(target, "completion/complete", params, era, {});
}

export interface ToolCallOptions {
  /** Set when the caller wants progress: the upstream is asked for it, its reports come here. */
  onProgress?: (progress: Progress) => void;
  /** The tool's input schema, for the 2026-07-28 `Mcp-Param-*` headers it mirrors arguments into. */
  inputSchema?: Record<string, unknown>;
  /**
   * A 2026-07-28 caller's part of a multi round-trip: its capabilities for input requests go
   * upstream (a server asks only for what they allow), with its answers and the echoed state.
   */
  inputRound?: InputRound;
  /** Set when the caller wants log messages: the least severe it wants (2026-07-28: sent in `_meta`), and where they go. */
  logLevel?: LogLevel;
  onLog?: (message: unknown) => void;
}

/**
 * Calls one tool and returns its result, checked; throws the `RpcError` for a failure: -32602
 * with the upstream's message when it refused the arguments, -32005 for its 429, -32001 for
 * anything else (unreachable, 5xx, not JSON-RPC, an endless stream, an error of its own). For a
 * caller that declared the tasks extension (`inputRound.tasks`), a 2026-07-28 server may answer
 * that it runs the call as a task: its id comes back (`TaskStarted`), for the gateway to adopt.
 * @example const result = await callTool(target, era, "echo", { message: "hi" })
 */
export async function callTool(
  target: McpTarget,
  era: McpEra,
  tool: string,
  args: Record<string, unknown>,
  options: ToolCallOptions = {},
): Promise<UpstreamToolResult | InputRequiredResult | TaskStarted> {
  const params: Record<string, unknown> = { name: tool, arguments: args };
  if (options.onProgress) params._meta = { progressToken: `p${nextId}` };
  const headers = era.stateless ? { "mcp-name": headerValueFor(tool), ...(options.inputSchema ? mirroredHeaders(options.inputSchema, args) : {}) } : {};
  const raw = await exchangeAsking(target, "tools/call", params, era, headers, options.inputRound, {
    onProgress: options.onProgress,
    onLog: options.onLog,
    logLevel: options.logLevel,
  });
  if (isInputRequired(raw)) return raw;
  if (era.stateless && options.inputRound?.tasks && (raw as { resultType?: unknown } | undefined)?.resultType === "task") {
    const started = TaskStartedSchema.safeParse(raw);
    if (!started.success) throw unavailable(target, "answered tools/call with a task that has no usable taskId");
    return started.data;
  }
  const result = UpstreamToolResultSchema.safeParse(raw);
  if (!result.success) throw unavailable(target, "answered tools/call with something that is not a tool result");
  return result.data;
}

/**
 * Asks a 2026-07-28 upstream about one of its tasks (`tasks/get`, checked: a `DetailedTask`, its
 * input requests attributed to `target.label`), or sends it a caller's answers (`tasks/update`)
 * or a cancellation (`tasks/cancel`): both acknowledged, so nothing of theirs comes back.
 * @example const task = await askTask(target, era, "tasks/get", { taskId: "t-1" })
 */
export async function askTask(
  target: McpTarget,
  era: McpEra,
  method: TaskMethod,
  params: { taskId: string; inputResponses?: Record<string, unknown> },
): Promise<UpstreamTask | undefined> {
  const raw = await exchange(target, method, params, era, {
    headers: { "mcp-name": headerValueFor(params.taskId) },
    capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
  if (method !== "tasks/get") return undefined;
  const task = UpstreamTaskSchema.safeParse(raw);
  if (!task.success || task.data.taskId !== params.taskId) throw unavailable(target, "answered tasks/get with something that is not the task asked about");
  return task.data.inputRequests ? { ...task.data, inputRequests: attributedInputRequests(task.data.inputRequests, target.label) } : task.data;
}

/**
 * Sends a request that may be answered `input_required` (a tool call, a prompt get, a resource
 * read: SEP-2322), with the caller's part of the round in a 2026-07-28 era (its capabilities, its
 * answers and the echoed state); such an answer comes back checked (`inputRequiredOf`), anything
 * else raw for its method to check.
 */
async function exchangeAsking(
  target: McpTarget,
  method: string,
  params: Record<string, unknown>,
  era: McpEra,
  headers: Record<string, string>,
  inputRound: InputRound | undefined,
  streaming: Pick<ExchangeOptions, "onProgress" | "onLog" | "logLevel"> = {},
  budget?: ReadBudget,
): Promise<unknown> {
  const round = era.stateless ? inputRound : undefined;
  const sent = {
    ...params,
    ...(round?.inputResponses ? { inputResponses: round.inputResponses } : {}),
    ...(round?.requestState !== undefined ? { requestState: round.requestState } : {}),
  };
  const capabilities = round && { ...round.capabilities, ...(round.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) };
  const raw = (await exchange(target, method, sent, era, { ...streaming, headers, capabilities, ...(budget ? { budget } : {}) })) as
    { resultType?: unknown } | undefined;
  return raw?.resultType === "input_required" ? inputRequiredOf(target, raw, round) : raw;
}

/**
 * An upstream's `input_required` answer, checked, for the caller to answer and retry: only when
 * the caller declared it can answer every request in it (else -32001: a 2025 caller, a /rpc
 * caller, a job or a pipeline step cannot, and the server should not have asked).
 */
function inputRequiredOf(target: McpTarget, raw: unknown, round: InputRound | undefined): InputRequiredResult {
  // Only what the revision defines is relayed, and each question names who asks it.
  const result = InputRequiredResultSchema.safeParse(raw);
  if (!result.success) throw unavailable(target, "answered input_required with something that is not an input request");
  // A caller without an input round (no 2026-07-28 MCP client) declared nothing, and can answer nothing.
  const undeclared = [...new Set(undeclaredInputRequests(result.data, round?.capabilities ?? {}))];
  if (!round)
    throw unavailable(
      target,
      `asked for input the caller cannot give (${undeclared.join(", ") || "input_required"}): only an MCP 2026-07-28 client that declares it can answer`,
    );
  // One that could, had it declared it: -32021, naming what to declare.
  if (undeclared.length) {
    const requiredCapabilities = Object.fromEntries(
      undeclared.map((method) => [INPUT_REQUEST_CAPABILITY[method as keyof typeof INPUT_REQUEST_CAPABILITY], {}]),
    );
    throw new RpcError(
      McpErrorCode.MissingCapability,
      `Missing client capability: ${target.label} asked for input the request did not declare it can give (${undeclared.join(", ")})`,
      { requiredCapabilities },
    );
  }
  return attributedInputRequired(result.data, target.label);
}

/** Forgets the isolate's sessions with an upstream (it was removed or its credential changed). */
export function forgetSessions(url: string): void {
  for (const key of sessions.keys()) if (key.startsWith(`${url}\n`)) sessions.delete(key);
}

// ---------------------------------------------------------------------------------------------

interface ExchangeOptions {
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
async function exchange(target: McpTarget, method: string, params: Record<string, unknown>, era: McpEra, options: ExchangeOptions = {}): Promise<unknown> {
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
  const answer = JsonRpcResponseSchema.safeParse(message);
  if (!answer.success || (status !== 200 && !answer.data.error)) throw unavailable(target, `answered HTTP ${status} without a JSON-RPC response`);
  const { error } = answer.data;
  if (!error) return answer.data.result;
  const said = String(error.message).slice(0, MAX_MESSAGE_CHARS);
  if (error.code === ErrorCode.InvalidParams) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: ${said}`);
  if (error.code === McpErrorCode.MissingCapability) {
    const required = requiredCapabilitiesOf(error.data);
    throw new RpcError(
      McpErrorCode.MissingCapability,
      `Missing client capability: ${target.label} needs a capability the request did not declare (${said})`,
      required ? { requiredCapabilities: required } : undefined,
    );
  }
  throw new RpcError(ErrorCode.SkillUnavailable, `${target.label} failed upstream: ${said}`, { retryAfterMs: RETRY_AFTER_MS, upstreamCode: error.code });
}

/**
 * A URL with a `query` credential's parameters added (the registered URL holds no secret).
 * @example urlWithQuery("https://mcp.example/mcp", { api_key: "…" }) // "https://mcp.example/mcp?api_key=…"
 */
export function urlWithQuery(url: string, query: Record<string, string> | undefined): string {
  if (!query) return url;
  const withQuery = new URL(url);
  for (const [name, value] of Object.entries(query)) withQuery.searchParams.set(name, value);
  return withQuery.href;
}

/** A stream that errors with `BodyTooLarge` once more than `maxBytes` went through it, and how many did. */
export function byteLimit(maxBytes: number): { stream: TransformStream<Uint8Array, Uint8Array>; seen: () => number } {
  let seen = 0;
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new BodyTooLarge(maxBytes));
      else controller.enqueue(chunk);
    },
  });
  return { stream, seen: () => seen };
}

function unavailable(target: McpTarget, what: string): RpcError {
  return upstreamUnavailable(target.label, what);
}

/**
 * -32001 for an upstream's transport failure, and when to retry: what both kinds of upstream answer.
 * @example throw upstreamUnavailable("petstore.listPets", "is unreachable")
 */
export function upstreamUnavailable(label: string, what: string): RpcError {
  return new RpcError(ErrorCode.SkillUnavailable, `${label} ${what}; retry after ${RETRY_AFTER_MS / 1000} s`, { retryAfterMs: RETRY_AFTER_MS });
}
