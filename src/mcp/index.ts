/**
 * The gateway's MCP server: stateless, over Streamable HTTP, both eras on one endpoint.
 * `answerMcpPost` turns one POST (headers + body) into the HTTP status and JSON to send:
 * - the handshake era (2025-03-26, 2025-06-18, 2025-11-25): `initialize`, `ping`,
 *   `tools/list`, `tools/call`; batches only for 2025-03-26;
 * - the stateless era (2026-07-28): the version in every request's `_meta`, checked against the
 *   `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers; `server/discover`.
 * Tools are the registry's skills and calls go through the gateway's one call chain (`McpBackend`),
 * so MCP calls get canary routing, idempotency, retries and the breaker like `/rpc` calls.
 */
import type { SkillSummary } from "../gateway/catalog.js";
import {
  ErrorCode,
  type JsonRpcFailure,
  type JsonRpcRequest,
  type JsonRpcResponse,
  JsonRpcRequestSchema,
  type RequestSlot,
  MAX_BATCH,
  RpcError,
  describeIssues,
  detectableId,
  failure,
  failureFromThrown,
  parseParams,
  success,
} from "../jsonrpc/index.js";
import {
  CallToolParamsSchema,
  CancelledNotificationSchema,
  DEFAULT_VERSION,
  HANDSHAKE_VERSIONS,
  InitializeParamsSchema,
  ListToolsParamsSchema,
  META,
  McpErrorCode,
  SUPPORTED_VERSIONS,
  StatelessMetaSchema,
  SubscriptionsListenParamsSchema,
  type CacheScope,
  type Tool,
  headerValueOf,
  allowsBatches,
  isStateless,
} from "./protocol.js";
import type { CallStreaming } from "../gateway/policies.js";
import { progressRelay } from "../progress/index.js";
import { acceptsEventStream, sseStream } from "../sse/index.js";
import { CAPABILITY_TOOL } from "../gateway/capability.js";
import { paramHeaderMismatch } from "./headers.js";
import type { McpBackend } from "./backend.js";
import { McpTasks, TASKS_EXTENSION, declaresTasks } from "./tasks.js";
import { holdLongRequest } from "./waits.js";
import { argumentsToParams, toolErrorOf, toolOf, toolResultOf } from "./tools.js";
import { pageOf } from "../paging/index.js";
import { Cancellation, sleep } from "../signal/index.js";
import { randomHex } from "../hash/index.js";

export type { McpBackend } from "./backend.js";

export interface McpOptions {
  serverInfo: { name: string; version: string };
  /** Tools per `tools/list` page. */
  pageSize: number;
  instructions?: string;
  /** How long a 2026-07-28 client may consider `tools/list` and `server/discover` fresh (`ttlMs`). */
  listTtlMs: number;
  /** Whether shared caches may reuse a `tools/list` page: "private" when what a caller sees depends on its key. */
  listScope: CacheScope;
  /** How often a `subscriptions/listen` stream looks for changed tools (default 1 s: the registry's own poll). */
  watchMs?: number;
  /** How long a `subscriptions/listen` stream stays open before it ends gracefully (default 15 min). */
  listenMaxMs?: number;
  /** How often a quiet event stream sends a comment line (default 15 s). */
  heartbeatMs?: number;
}

/** What to send: an HTTP status and a JSON body (none for 202), or an event stream; `sessionId` for an `Mcp-Session-Id` header. */
export type McpAnswer =
  | { status: 200 | 202 | 400 | 404; body?: JsonRpcResponse | JsonRpcResponse[]; stream?: undefined; sessionId?: string }
  | { status: 200; stream: ReadableStream<Uint8Array>; body?: undefined; sessionId?: undefined };

/** The response header that gives a 2025-era client its session at `initialize` (and that it sends back). */
export const SESSION_HEADER = "mcp-session-id";

/**
 * A request's 2025-era session: the `Mcp-Session-Id` it sends back ("" without one, or with one
 * that is not visible ASCII of at most 128 characters). The gateway keeps no session state: the
 * id only keeps one client's `notifications/cancelled` away from another's calls.
 * @example mcpSessionOf(new Headers({ "mcp-session-id": "3f…" })) // "3f…"
 */
export function mcpSessionOf(headers: Headers): string {
  const session = headers.get(SESSION_HEADER) ?? "";
  return /^[\x21-\x7e]{1,128}$/.test(session) ? session : "";
}


/**
 * Answers one POST to `/mcp`.
 * @example const { status, body } = await answerMcpPost(request.headers, await request.text(), backend, options)
 */
export async function answerMcpPost(headers: Headers, text: string, backend: McpBackend, options: McpOptions): Promise<McpAnswer> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { status: 400, body: failure(null, ErrorCode.ParseError) };
  }
  const server = new McpServer(backend, options, mcpSessionOf(headers));
  if (!Array.isArray(parsed)) return server.answerMessage(headers, parsed, { index: 0, batch: false });

  const version = headers.get("mcp-protocol-version") ?? DEFAULT_VERSION;
  if (!allowsBatches(version) || parsed.length === 0 || parsed.length > MAX_BATCH) {
    const why = allowsBatches(version) ? `a batch holds 1 to ${MAX_BATCH} messages` : `protocol version ${version} takes one message per request`;
    return { status: 400, body: failure(null, ErrorCode.InvalidRequest, `Invalid Request: ${why}`) };
  }
  const answers = await Promise.all(parsed.map((message, index) => server.answerMessage(headers, message, { index, batch: true })));
  const bodies = answers.flatMap((a) => (a.body === undefined ? [] : [a.body as JsonRpcResponse]));
  return bodies.length ? { status: 200, body: bodies } : { status: 202 };
}

/** A message that is a response (to a server request we never send) or a notification: 202. */
function isAcceptedOnly(message: unknown): boolean {
  if (typeof message !== "object" || message === null) return false;
  const m = message as Record<string, unknown>;
  const isResponse = !("method" in m) && ("result" in m || "error" in m) && "id" in m;
  const isNotification = typeof m.method === "string" && !("id" in m);
  return m.jsonrpc === "2.0" && (isResponse || isNotification);
}

class McpServer {
  constructor(
    private readonly backend: McpBackend,
    private readonly options: McpOptions,
    /** The client's session (`mcpSessionOf`), which scopes its request ids for cancellation. */
    private readonly session: string,
  ) {
    this.tasks = new McpTasks(backend, async (name) => (await this.tool(name))?.skill, options.pageSize);
  }

  /** `tasks/*` and task creation, over the gateway's async jobs. */
  private readonly tasks: McpTasks;

  /** Answers one message; `slot` places it in its body (a batch element's `Idempotency-Key` is the header's plus its index). */
  async answerMessage(headers: Headers, message: unknown, slot: RequestSlot): Promise<McpAnswer> {
    if (isAcceptedOnly(message)) {
      await this.noteCancellation(message);
      return { status: 202 };
    }
    const checked = JsonRpcRequestSchema.safeParse(message);
    const id = checked.success ? checked.data.id : undefined;
    if (!checked.success || id === undefined || id === null || (typeof id === "number" && !Number.isInteger(id))) {
      return { status: 400, body: failure(detectableId(message), ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request (ids are strings or integers)") };
    }
    const request = checked.data;
    const version = slot.batch ? { version: DEFAULT_VERSION } : admit(headers, request);
    if ("error" in version) return { status: 400, body: { ...version.error, id } };
    const stateless = isStateless(version.version);
    try {
      if (stateless && request.method === "subscriptions/listen") return await this.listen(headers, request, id);
      const progressToken = progressTokenOf(request);
      if (request.method === "tools/call" && progressToken !== undefined && !slot.batch && acceptsEventStream(headers)) {
        // Checked before the stream starts, so a refusal keeps its HTTP status.
        const prepared = await this.prepareToolCall(headers, request, stateless);
        return this.streamed(id, stateless, progressToken, (streaming) => this.runToolCall(prepared, slot, streaming, !stateless));
      }
      const result = await this.answer(headers, request, version.version, slot);
      const answer: McpAnswer = { status: 200, body: success(id, stateless ? this.complete(result as object) : result) };
      // A handshake opens a session of its own (batches are 2025-03-26 and carry no initialize of use).
      return request.method === "initialize" && !stateless && !slot.batch ? { ...answer, sessionId: randomHex(16) } : answer;
    } catch (thrown) {
      const body = failureFromThrown(id, thrown);
      const code = body.error.code;
      const status = code === McpErrorCode.HeaderMismatch ? 400 : code === ErrorCode.MethodNotFound && stateless ? 404 : 200;
      return { status, body };
    }
  }

  /** One request's result; a thrown `RpcError` is its error. */
  private async answer(headers: Headers, request: JsonRpcRequest, version: string, slot: RequestSlot): Promise<unknown> {
    const stateless = isStateless(version);
    switch (request.method) {
      case "initialize":
        if (!stateless) return this.initialize(request);
        break;
      case "ping":
        if (!stateless) return {};
        break;
      case "server/discover":
        return this.discover();
      case "tools/list":
        return this.listTools(request, version);
      case "tools/call": {
        const prepared = await this.prepareToolCall(headers, request, stateless);
        // 2025-11-25: the client asks for a task. 2026-07-28: the server returns one, for a skill
        // that may run longer than a request, to a client that declared the tasks extension.
        if (version === TASKS_2025 && typeof (request.params as { task?: unknown }).task === "object") return this.createTask(prepared, slot, version);
        if (stateless && prepared.known.skill.maxDurationMs && declaresTasks(metaOf(request)?.[META.clientCapabilities])) return this.createTask(prepared, slot, version);
        return this.runToolCall(prepared, slot, {}, !stateless);
      }
      case "tasks/get":
      case "tasks/cancel":
      case "tasks/update":
      case "tasks/result":
      case "tasks/list": {
        const answer = await this.tasks.answer(request, slot, stateless);
        if (answer !== undefined) return answer;
        break;
      }
    }
    throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method}${stateless ? ` (protocol ${version})` : ""}`);
  }

  /**
   * A 2026-07-28 result: `resultType` (required on every result) and who answered in `_meta`
   * (the revision moved `serverInfo` there from the handshake).
   */
  private complete(result: object): object {
    const meta = (result as { _meta?: Record<string, unknown> })._meta;
    const resultType = (result as { resultType?: string }).resultType ?? "complete"; // "task" for a CreateTaskResult
    return { ...result, resultType, _meta: { ...meta, [META.serverInfo]: this.options.serverInfo } };
  }

  private initialize(request: JsonRpcRequest) {
    const params = parseParams(InitializeParamsSchema, request.params);
    const requested = params.protocolVersion;
    // Echo a version we speak with a handshake, else offer our newest (the client decides).
    const protocolVersion = (HANDSHAKE_VERSIONS as readonly string[]).includes(requested) ? requested : HANDSHAKE_VERSIONS[0];
    return {
      protocolVersion,
      // No list-change notifications in this era: there is no GET stream on a stateless server.
      capabilities: { tools: { listChanged: false }, ...(protocolVersion === TASKS_2025 ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}) },
      serverInfo: this.options.serverInfo,
      ...this.instructions(),
    };
  }

  /** `server/discover` (2026-07-28): the same for every caller, so publicly cacheable. */
  private discover() {
    return {
      supportedVersions: SUPPORTED_VERSIONS,
      // subscriptions/listen serves toolsListChanged; long skills answer with tasks (SEP-2663).
      capabilities: { tools: { listChanged: true }, extensions: { [TASKS_EXTENSION]: {} } },
      ...this.instructions(),
      ttlMs: this.options.listTtlMs,
      cacheScope: "public",
    };
  }

  private instructions() {
    return this.options.instructions ? { instructions: this.options.instructions } : {};
  }

  private async tools(): Promise<Tools> {
    return toolsOf(await this.backend.catalog());
  }

  /** One tool by name, as `tools/list` shows it (a call needs its own tool, not the whole list). */
  private async tool(name: string): Promise<ListedTool | undefined> {
    if (name === CAPABILITY_TOOL.name) return listedOf(CAPABILITY_TOOL);
    const skill = await this.backend.skill(name);
    return skill && listedOf(skill);
  }

  private async listTools(request: JsonRpcRequest, version: string) {
    const stateless = isStateless(version);
    const { cursor } = parseParams(ListToolsParamsSchema, request.params ?? {});
    const tools = await this.tools();
    // 2025-11-25 tools say whether they may run as tasks (every skill may: jobs run any of them).
    const { items, nextCursor } = pageOf(version === TASKS_2025 ? tools.withTaskSupport() : tools.list, this.options.pageSize, cursor);
    return {
      tools: items,
      ...(nextCursor ? { nextCursor } : {}),
      ...(stateless ? { ttlMs: this.options.listTtlMs, cacheScope: this.options.listScope } : {}),
    };
  }

  /** Submits a tool call as an async job (src/mcp/tasks.ts) and answers with its task, in the form of `version`. */
  private createTask(prepared: PreparedToolCall, slot: RequestSlot, version: string) {
    return this.tasks.create(prepared.known.skill, argumentsToParams(prepared.known.skill, prepared.args), slot, isStateless(version));
  }

  /** A `tools/call`'s tool and arguments, or the thrown error that refuses it (unknown tool, headers that disagree). */
  private async prepareToolCall(headers: Headers, request: JsonRpcRequest, stateless: boolean) {
    const params = parseParams(CallToolParamsSchema, request.params);
    const known = await this.tool(params.name);
    if (!known) throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}; tools/list names the tools`);
    const mismatch = stateless ? paramHeaderMismatch(known.tool.inputSchema, params.arguments, headers) : undefined;
    if (mismatch) throw new RpcError(McpErrorCode.HeaderMismatch, mismatch);
    return { id: request.id!, known, args: params.arguments };
  }

  /**
   * Runs a prepared tool call. In the 2025 revisions it can be cancelled by a
   * `notifications/cancelled` naming its id (2026-07-28 cancels by closing the stream only).
   */
  private async runToolCall(prepared: PreparedToolCall, slot: RequestSlot, streaming: CallStreaming, cancellable = false) {
    const { known } = prepared;
    const key = inFlightKey(this.backend.caller, this.session, prepared.id);
    // The cancellation arrives in another request, which may not touch this one's I/O (Workers
    // forbid it): that request flags the call and tells the skill itself (src/signal, src/forward).
    const cancellation = cancellable ? new Cancellation() : undefined;
    if (cancellation) inFlight.set(key, (inFlight.get(key) ?? new Set()).add(cancellation));
    try {
      return toolResultOf(known.skill, await this.backend.call(known.skill.name, argumentsToParams(known.skill, prepared.args), slot, cancellation ? { ...streaming, cancellation } : streaming));
    } catch (thrown) {
      // The tool's own failure (bad argument values included) is a result the model can read.
      const error = thrown instanceof RpcError ? thrown.toJSON() : new RpcError(ErrorCode.InternalError).toJSON();
      return toolErrorOf(error);
    } finally {
      const calls = inFlight.get(key);
      if (cancellation && calls?.delete(cancellation) && !calls.size) inFlight.delete(key);
    }
  }

  /**
   * Answers a `tools/call` that asked for progress on an event stream: `notifications/progress`
   * with the client's token as the skill reports, heartbeats while it is quiet, then the response.
   * Closing the stream cancels the call, and nothing more is sent for it.
   */
  private streamed(id: string | number, stateless: boolean, progressToken: string | number, run: (streaming: CallStreaming) => Promise<unknown>): McpAnswer {
    const stream = sseStream(async (sse) => {
      const onProgress = progressRelay(sse, { progressToken });
      let body: JsonRpcResponse;
      try {
        const result = await run({ onProgress, signal: sse.signal });
        body = success(id, stateless ? this.complete(result as object) : result);
      } catch (thrown) {
        body = failureFromThrown(id, thrown);
      }
      if (!sse.signal.aborted) sse.send(body);
    }, this.options.heartbeatMs);
    return { status: 200, stream };
  }

  /**
   * A 2025-era `notifications/cancelled`: cancels the call with that id of this caller and
   * session, if this isolate runs it. Two such calls (two clients of one caller sending no
   * session) make it ambiguous: neither is cancelled.
   */
  private async noteCancellation(message: unknown): Promise<void> {
    const checked = CancelledNotificationSchema.safeParse(message);
    if (!checked.success) return;
    const calls = inFlight.get(inFlightKey(this.backend.caller, this.session, checked.data.params.requestId));
    if (calls?.size === 1) await [...calls][0]!.cancel();
    else if (calls) console.warn(`[gateway] notifications/cancelled for request ${JSON.stringify(checked.data.params.requestId)} names ${calls.size} calls of one caller without a session: none cancelled (clients send Mcp-Session-Id)`);
  }

  /**
   * `subscriptions/listen` (2026-07-28): an event stream that acknowledges what it will send
   * (tool list changes only: the gateway has no prompts or resources), then sends
   * `notifications/tools/list_changed` whenever the tools this caller sees change, until the
   * client closes it or `listenMaxMs` passes (then a final result ends it gracefully).
   */
  private async listen(headers: Headers, request: JsonRpcRequest, id: string | number): Promise<McpAnswer> {
    const { notifications } = parseParams(SubscriptionsListenParamsSchema, request.params ?? {});
    if (!acceptsEventStream(headers)) {
      return { status: 400, body: failure(id, ErrorCode.InvalidRequest, "subscriptions/listen answers with an event stream: send Accept: application/json, text/event-stream") };
    }
    // A stream is a call: counted against the caller's limits, and a caller holds only a few at once.
    await this.backend.admit();
    const held = holdLongRequest(this.backend.caller);
    const tools = notifications.toolsListChanged === true;
    const meta = { [META.subscriptionId]: id };
    const watchMs = this.options.watchMs ?? 1_000;
    const until = Date.now() + (this.options.listenMaxMs ?? 15 * 60_000);
    const stream = sseStream(async (sse) => {
      try {
        sse.send({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: meta, notifications: tools ? { toolsListChanged: true } : {} } });
        let seen = tools ? (await this.tools()).list : undefined;
        while (!sse.signal.aborted && Date.now() < until) {
          held.renew();
          await sleep(Math.min(watchMs, until - Date.now()), sse.signal);
          if (!seen || sse.signal.aborted) continue;
          const now = await this.tools().then((t) => t.list, () => seen!); // a store outage is no change
          if (!sameTools(seen, now)) sse.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: meta } });
          seen = now;
        }
        if (!sse.signal.aborted) sse.send(success(id, this.complete({ _meta: meta })));
      } finally {
        held.release();
      }
    }, this.options.heartbeatMs);
    return { status: 200, stream };
  }
}

/**
 * The tool calls this isolate is running, by caller, session and request id, for
 * `notifications/cancelled` (2025 era: a separate POST names the request to stop). A cancellation
 * that reaches another isolate than its call finds nothing here: closing the stream is the way
 * that always works.
 */
const inFlight = new Map<string, Set<Cancellation>>();

function inFlightKey(caller: string, session: string, id: string | number): string {
  return `${caller}\n${session}\n${typeof id}:${id}`;
}

/** `params._meta.progressToken` of a request: a string or an integer. */
function progressTokenOf(request: JsonRpcRequest): string | number | undefined {
  const token = metaOf(request)?.progressToken;
  return typeof token === "string" || (typeof token === "number" && Number.isInteger(token)) ? token : undefined;
}

/** Same tools in the same order: lists are rebuilt from cached tool objects, so identity says it. */
function sameTools(a: Tool[], b: Tool[]): boolean {
  return a === b || (a.length === b.length && a.every((tool, i) => tool === b[i]));
}

/** A skill and the tool it is listed as. */
interface ListedTool {
  skill: SkillSummary;
  tool: Tool;
}

/** A `tools/call` checked and ready to run: its request id, tool and arguments. */
interface PreparedToolCall {
  id: string | number;
  known: ListedTool;
  args?: Record<string, unknown>;
}

/** The revision with the experimental core tasks (requestor-driven `params.task`). */
const TASKS_2025 = "2025-11-25";

/**
 * Tools per catalog: a catalog is rebuilt only when the registry changes, and a summary only
 * when its skill changes, so a change of one skill converts one tool again.
 */
const toolCache = new WeakMap<SkillSummary[], Tools>();
const listedCache = new WeakMap<SkillSummary, ListedTool>();
interface Tools {
  byName: Map<string, ListedTool>;
  /** In name order. */
  list: Tool[];
  /** The list as 2025-11-25 lists it: each tool with `execution.taskSupport: "optional"` (built once). */
  withTaskSupport(): Tool[];
}
/** A skill's tool, converted once per summary (a summary is rebuilt only when its skill changes). */
function listedOf(skill: SkillSummary): ListedTool {
  let listed = listedCache.get(skill);
  if (!listed) listedCache.set(skill, (listed = { skill, tool: toolOf(skill) }));
  return listed;
}

function toolsOf(catalog: SkillSummary[]): Tools {
  let tools = toolCache.get(catalog);
  if (!tools) {
    // Sorted by code unit, the order cursors compare in; `skills.call` (policy routing) is a tool too.
    const sorted = [...catalog, CAPABILITY_TOOL].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const list: Tool[] = [];
    let withTasks: Tool[] | undefined;
    tools = { byName: new Map(), list, withTaskSupport: () => (withTasks ??= list.map((tool) => ({ ...tool, execution: { taskSupport: "optional" } }))) };
    for (const skill of sorted) {
      const listed = listedOf(skill);
      tools.byName.set(skill.name, listed);
      tools.list.push(listed.tool);
    }
    toolCache.set(catalog, tools);
  }
  return tools;
}

/**
 * The protocol version a single request speaks, or the 400 error that refuses it: an unknown
 * version (-32022), or headers that disagree with the body (-32020).
 */
function admit(headers: Headers, request: JsonRpcRequest): { version: string } | { error: JsonRpcFailure } {
  const header = headers.get("mcp-protocol-version");
  const meta = metaOf(request);
  const fromMeta = typeof meta?.[META.protocolVersion] === "string" ? (meta[META.protocolVersion] as string) : undefined;
  const version = fromMeta ?? header ?? DEFAULT_VERSION;
  if (!SUPPORTED_VERSIONS.includes(version)) {
    return refuse(McpErrorCode.UnsupportedVersion, `Unsupported protocol version ${version}; this server speaks ${SUPPORTED_VERSIONS.join(", ")}`, {
      supported: SUPPORTED_VERSIONS,
      requested: version,
    });
  }
  if (fromMeta !== undefined && header !== fromMeta) {
    return refuse(McpErrorCode.HeaderMismatch, `The MCP-Protocol-Version header (${header ?? "missing"}) must equal _meta["${META.protocolVersion}"] (${fromMeta})`);
  }
  if (!isStateless(version)) return { version };
  if (fromMeta === undefined) {
    return refuse(McpErrorCode.HeaderMismatch, `Protocol ${version} carries its version in params._meta["${META.protocolVersion}"] too`);
  }
  const method = headers.get("mcp-method");
  if (method !== request.method) {
    return refuse(McpErrorCode.HeaderMismatch, `The Mcp-Method header (${method ?? "missing"}) must equal the request's method (${request.method})`);
  }
  // Mcp-Name mirrors the tool's name, or the task's id for tasks/* (SEP-2663).
  const named = request.method === "tools/call" ? "name" : /^tasks\/(get|update|cancel)$/.test(request.method) ? "taskId" : undefined;
  if (named) {
    const header = headers.get("mcp-name");
    const name = header === null ? undefined : headerValueOf(header); // Base64-encoded when not plain ASCII
    const bodyName = (request.params as Record<string, unknown> | undefined)?.[named];
    if (name !== bodyName) return refuse(McpErrorCode.HeaderMismatch, `The Mcp-Name header (${header ?? "missing"}) must equal params.${named} (${String(bodyName)})`);
  }
  const checked = StatelessMetaSchema.safeParse(meta);
  if (!checked.success) {
    return refuse(ErrorCode.InvalidParams, `Invalid params._meta for protocol ${version}`, { issues: describeIssues(checked.error) });
  }
  return { version };
}

function refuse(code: number, message: string, data?: unknown): { error: JsonRpcFailure } {
  return { error: failure(null, code, message, data) };
}

function metaOf(request: JsonRpcRequest): Record<string, unknown> | undefined {
  const params = request.params;
  if (!params || Array.isArray(params)) return undefined;
  const meta = params._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}
