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
import {
  ErrorCode,
  type JsonRpcRequest,
  type JsonRpcResponse,
  JsonRpcRequestSchema,
  type RequestSlot,
  MAX_BATCH,
  RpcError,
  detectableId,
  failure,
  failureFromThrown,
  parseParams,
  success,
} from "../protocols/jsonrpc/index.js";
import {
  CallToolParamsSchema,
  CancelledNotificationSchema,
  DEFAULT_VERSION,
  HANDSHAKE_VERSIONS,
  type InputRequiredResult,
  type InputRound,
  InitializeParamsSchema,
  ListToolsParamsSchema,
  META,
  McpErrorCode,
  SUPPORTED_VERSIONS,
  UI_EXTENSION,
  allowsBatches,
  inputRoundOf,
  isInputRequired,
  isStateless,
} from "../protocols/mcp/index.js";
import type { CallStreaming } from "../gateway/chain/policies.js";
import { progressRelay } from "../protocols/progress/index.js";
import { type LogLevel, LogLevelSchema, logRelay } from "../protocols/logging/index.js";
import { z } from "zod";
import { type SseWriter, acceptsEventStream, sseStream } from "../protocols/sse/index.js";
import { CAPABILITY_TOOL } from "../gateway/chain/capability.js";
import { paramHeaderMismatch } from "../protocols/mcp/headers.js";
import type { McpAnswer, McpOptions } from "./answer.js";
import type { McpBackend } from "./backend.js";
import { callsUnder, inFlightKey, trackCall } from "./in-flight.js";
import { type ListeningServer, listen, sessionStream } from "./listen.js";
import { inputCapabilitiesOf, mcpSessionOf, sessionIdFor } from "./session.js";
import { type JsonRpcReplyLike, MAX_REPLY_WAIT_MS, type Reply, replyIdsFor } from "./replies.js";
import { withHandle } from "./request-state.js";
import { McpTasks, TASKS_EXTENSION, declaresTasks } from "./tasks.js";
import { isAdoptedTask } from "../registry/jobs/index.js";
import { type ListedTool, type Tools, listedOf, toolsOf } from "./tool-list.js";
import { argumentsToParams, toolErrorOf, toolResultOf } from "./tools.js";
import { SKILLS_EXTENSION, answerResources, isResourceMethod } from "./resources.js";
import { CODE_TOOLS, COMPACT, COMPACT_TOOLS, SCRIPT_TOOL, answerCompact, answerScript, answersHere, innerCall } from "./compact.js";
import { CODE_EXECUTE, ExecuteArgumentsSchema } from "../gateway/chain/execute.js";
import { admit, metaOf } from "./version.js";
import { pageOf } from "../protocols/paging/index.js";
import { Cancellation } from "../lib/signal/index.js";

export type { McpAnswer, McpOptions } from "./answer.js";
export type { McpBackend } from "./backend.js";
export { SESSION_HEADER, mcpSessionOf } from "./session.js";
export { renamedOf } from "./tool-list.js";
export { type RequestStates, requestStatesOf } from "./request-state.js";
export { type Replies, repliesOf } from "./replies.js";
export { type LogLevels, logLevelsOf } from "./log-levels.js";
export { type ResourceSubscriptions, resourceSubscriptionsOf } from "./subscriptions.js";

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

/**
 * Answers a `GET /mcp`: a 2025 session's own stream of what changed (src/mcp/listen.ts
 * `sessionStream`), for a client that sends its `Mcp-Session-Id` and accepts an event stream;
 * 2026-07-28 has none (405: `subscriptions/listen` is its stream).
 * @example await answerMcpGet(request.headers, backend, options)
 */
export async function answerMcpGet(headers: Headers, backend: McpBackend, options: McpOptions): Promise<McpAnswer> {
  if (isStateless(headers.get("mcp-protocol-version") ?? DEFAULT_VERSION))
    return { status: 405, body: failure(null, ErrorCode.InvalidRequest, "Protocol 2026-07-28 has no GET stream: POST subscriptions/listen") };
  const session = mcpSessionOf(headers);
  if (!session || !acceptsEventStream(headers))
    return {
      status: 400,
      body: failure(
        null,
        ErrorCode.InvalidRequest,
        "GET opens a session's stream: send the Mcp-Session-Id that initialize gave, with Accept: text/event-stream",
      ),
    };
  try {
    return await sessionStream(new McpServer(backend, options, session), session);
  } catch (thrown) {
    // The caller's limits (-32005) or a store outage: said as HTTP says it, for a GET.
    const body = failureFromThrown(null, thrown);
    return { status: body.error.code === ErrorCode.RateLimited ? 429 : 503, body };
  }
}

/** A message that is a response (to a server request we never send) or a notification: 202. */
function isAcceptedOnly(message: unknown): boolean {
  if (typeof message !== "object" || message === null) return false;
  const m = message as Record<string, unknown>;
  const isResponse = !("method" in m) && ("result" in m || "error" in m) && "id" in m;
  const isNotification = typeof m.method === "string" && !("id" in m);
  return m.jsonrpc === "2.0" && (isResponse || isNotification);
}

class McpServer implements ListeningServer {
  constructor(
    readonly backend: McpBackend,
    readonly options: McpOptions,
    /** The client's session (`mcpSessionOf`), which scopes its request ids for cancellation. */
    private readonly session: string,
  ) {}

  #tasks?: McpTasks;
  /** `tasks/*` and task creation, over the gateway's async jobs (made when a message needs them). */
  private get tasks(): McpTasks {
    return (this.#tasks ??= new McpTasks(this.backend, async (name) => (await this.tool(name))?.skill, this.options.pageSize));
  }

  /** Answers one message; `slot` places it in its body (a batch element's `Idempotency-Key` is the header's plus its index). */
  async answerMessage(headers: Headers, message: unknown, slot: RequestSlot): Promise<McpAnswer> {
    if (isAcceptedOnly(message)) {
      await this.noteCancellation(message);
      // A reply to a request the gateway sent on a call's stream, for the call that waits on it.
      if (!("method" in (message as object))) await this.backend.replies.put(message as JsonRpcReplyLike);
      return { status: 202 };
    }
    const checked = JsonRpcRequestSchema.safeParse(message);
    const id = checked.success ? checked.data.id : undefined;
    if (!checked.success || id === undefined || id === null || (typeof id === "number" && !Number.isInteger(id))) {
      return {
        status: 400,
        body: failure(detectableId(message), ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request (ids are strings or integers)"),
      };
    }
    let request = checked.data;
    const version = slot.batch ? { version: DEFAULT_VERSION } : admit(headers, request);
    if ("error" in version) return { status: 400, body: { ...version.error, id } };
    const stateless = isStateless(version.version);
    try {
      if (stateless && request.method === "subscriptions/listen") return await listen(this, headers, request, id);
      if (this.options.compact && request.method === "tools/call") {
        const script = this.options.codeMode ? await this.scriptCall(headers, request, version.version, slot, id) : undefined;
        if (script) return script;
        const compact = await this.compactCall(request);
        if ("result" in compact) return { status: 200, body: success(id, stateless ? this.complete(compact.result) : compact.result) };
        request = compact.request;
      }
      const progressToken = progressTokenOf(request);
      // A call streams when the caller asked for progress; or, for an upstream's tool, when a 2025
      // client that can answer input requests calls it (its questions go out on the stream), or
      // when the caller asked for log messages (a 2025 session's level, a 2026-07-28 request's).
      const isCall = request.method === "tools/call";
      const mayAsk = isCall && !stateless && Object.keys(inputCapabilitiesOf(this.session)).length > 0 && !isTaskRequest(request);
      const mayLog = isCall && (stateless ? logLevelOf(request) !== undefined : this.session !== "" && !isTaskRequest(request));
      let prepared: PreparedToolCall | undefined;
      if (isCall && (progressToken !== undefined || mayAsk || mayLog) && !slot.batch && acceptsEventStream(headers)) {
        // Checked before the stream starts, so a refusal keeps its HTTP status. (A job-only
        // skill's call is a task or refused: answered below, never in place.)
        prepared = await this.prepareToolCall(headers, request, stateless, mayAsk);
        // A tool's log messages (an upstream's, or a skill's `ctx.log`), at the level the caller set.
        const logLevel =
          mayLog ?
            stateless ? logLevelOf(request)
            : await this.backend.logLevels.get(this.session)
          : undefined;
        if (!prepared.known.skill.jobOnly && (progressToken !== undefined || prepared.inputRound || logLevel)) {
          const logs = logLevel && { minimum: logLevel, source: prepared.known.skill.name };
          const streamedCall = prepared;
          return this.streamed(id, stateless, { progressToken, logs }, (streaming, ask) => this.runToolCall(streamedCall, slot, streaming, !stateless, ask));
        }
      }
      // Answered in place: a call prepared above is not looked up again (a 2025 caller is asked nothing in place).
      const result = await this.answer(
        headers,
        request,
        version.version,
        slot,
        prepared && { ...prepared, inputRound: stateless ? prepared.inputRound : undefined },
      );
      const answer: McpAnswer = { status: 200, body: success(id, stateless ? this.complete(result as object) : result) };
      // A handshake opens a session of its own (batches are 2025-03-26 and carry no initialize of use).
      if (request.method !== "initialize" || stateless || slot.batch) return answer;
      return { ...answer, sessionId: sessionIdFor((request.params as { capabilities?: unknown } | undefined)?.capabilities) };
    } catch (thrown) {
      const body = failureFromThrown(id, thrown);
      const code = body.error.code;
      const status =
        code === McpErrorCode.HeaderMismatch || code === McpErrorCode.MissingCapability ? 400
        : code === ErrorCode.MethodNotFound && stateless ? 404
        : 200;
      return { status, body };
    }
  }

  /** One request's result; a thrown `RpcError` is its error. */
  private async answer(headers: Headers, request: JsonRpcRequest, version: string, slot: RequestSlot, preparedCall?: PreparedToolCall): Promise<unknown> {
    const stateless = isStateless(version);
    switch (request.method) {
      case "initialize":
        if (!stateless) return this.initialize(request);
        break;
      case "ping":
        if (!stateless) return {};
        break;
      case "logging/setLevel":
        if (!stateless) return this.setLogLevel(request);
        break;
      case "server/discover":
        return this.discover();
      case "tools/list":
        return this.listTools(request, version);
      case "tools/call": {
        const prepared = preparedCall ?? (await this.prepareToolCall(headers, request, stateless));
        // 2025-11-25: the client asks for a task. 2026-07-28: the server returns one, for a skill
        // that may run longer than a request (or only as a job), to a client that declared the tasks extension.
        const { skill } = prepared.known;
        if (version === TASKS_2025 && isTaskRequest(request)) return this.createTask(prepared, slot, version);
        if (stateless && (skill.maxDurationMs || skill.jobOnly) && declaresTasks(metaOf(request)?.[META.clientCapabilities]))
          return this.createTask(prepared, slot, version);
        if (skill.jobOnly) throw jobOnlyRefusal(skill.name, stateless);
        return this.runToolCall(prepared, slot, {}, !stateless);
      }
      case "tasks/get":
      case "tasks/cancel":
      case "tasks/update":
      case "tasks/result":
      case "tasks/list": {
        // 2026-07-28: the tasks extension's methods are for a client that declared it (SEP-2663).
        if (stateless && request.method !== "tasks/result" && request.method !== "tasks/list" && !declaresTasks(metaOf(request)?.[META.clientCapabilities])) {
          throw new RpcError(
            McpErrorCode.MissingCapability,
            `Missing client capability: ${request.method} is the tasks extension's; declare "${TASKS_EXTENSION}" in _meta["${META.clientCapabilities}"].extensions`,
            { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
          );
        }
        const answer = await this.tasks.answer(request, slot, stateless);
        if (answer !== undefined) return answer;
        break;
      }
    }
    if (isResourceMethod(request.method)) {
      const caching = stateless ? { caching: { ttlMs: this.options.listTtlMs, cacheScope: this.options.listScope } } : {};
      // 2026-07-28: a prompt get or resource read may ask its caller for input too (SEP-2322).
      const inputRound = stateless ? inputRoundOf(request.params as Record<string, unknown> | undefined) : undefined;
      return answerResources(request.method, request.params, {
        backend: this.backend,
        pageSize: this.options.pageSize,
        stateless,
        session: this.session,
        ...caching,
        ...(inputRound ? { inputRound } : {}),
      });
    }
    throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method}${stateless ? ` (protocol ${version})` : ""}`);
  }

  /**
   * A 2026-07-28 result: `resultType` (required on every result) and who answered in `_meta`
   * (the revision moved `serverInfo` there from the handshake).
   */
  complete(result: object): object {
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
      // List changes and subscribed resources' updates arrive on the session's GET stream.
      capabilities: {
        tools: { listChanged: true },
        // Skills' own resources and prompts, Agent Skills packages' files (skill://), and the Skills extension (SEP-2640) over them.
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        // Arguments of upstreams' prompts and templates, completed by their upstream.
        completions: {},
        // Federated tools' log messages, at the level a session sets (logging/setLevel).
        logging: {},
        extensions: { [SKILLS_EXTENSION]: {}, [UI_EXTENSION]: {} },
        ...(protocolVersion === TASKS_2025 ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
      },
      serverInfo: this.options.serverInfo,
      ...this.instructions(),
    };
  }

  /** `server/discover` (2026-07-28): the same for every caller, so publicly cacheable. */
  private discover() {
    return {
      supportedVersions: SUPPORTED_VERSIONS,
      // subscriptions/listen serves tools, prompts and resources list changes; long skills answer with tasks (SEP-2663).
      capabilities: {
        tools: { listChanged: true },
        // subscribe: resourceSubscriptions on subscriptions/listen.
        resources: { listChanged: true, subscribe: true },
        prompts: { listChanged: true },
        completions: {},
        // Federated tools' log messages, at the level a request asks in _meta.
        logging: {},
        extensions: { [TASKS_EXTENSION]: {}, [SKILLS_EXTENSION]: {}, [UI_EXTENSION]: {} },
      },
      ...this.instructions(),
      ttlMs: this.options.listTtlMs,
      cacheScope: "public",
    };
  }

  /**
   * `logging/setLevel` (2025 revisions): the session's level for the log messages of the
   * federated tools it calls (src/mcp/log-levels.ts); a request without a session has none to set.
   */
  private async setLogLevel(request: JsonRpcRequest) {
    const { level } = parseParams(SetLevelParamsSchema, request.params);
    if (!this.session)
      throw new RpcError(ErrorCode.InvalidParams, "Invalid params: logging/setLevel sets a session's level: send the Mcp-Session-Id initialize gave");
    await this.backend.run({ kind: "session", method: "logging/setLevel" });
    await this.backend.logLevels.set(this.session, level);
    return {};
  }

  private instructions() {
    return this.options.instructions ? { instructions: this.options.instructions } : {};
  }

  async tools(): Promise<Tools> {
    return toolsOf(await this.backend.tools());
  }

  /** One tool by name, as `tools/list` shows it (a call needs its own tool, not the whole list). */
  private async tool(name: string): Promise<ListedTool | undefined> {
    if (name === CAPABILITY_TOOL.name) return listedOf(CAPABILITY_TOOL);
    if (this.options.codeMode && name === CODE_EXECUTE) return listedOf(SCRIPT_TOOL);
    const skill = await this.backend.skill(name);
    return skill && listedOf(skill);
  }

  /**
   * A `tools/call` in compact mode: `catalog.search` and `catalog.describe` answered here (a
   * wrong argument is a tool error, as a skill's own is), `catalog.call` as the call it stands for.
   */
  private async compactCall(request: JsonRpcRequest): Promise<{ result: object } | { request: JsonRpcRequest }> {
    const params = parseParams(CallToolParamsSchema, request.params);
    if (!answersHere(params.name) && params.name !== COMPACT.call) return { request };
    try {
      if (answersHere(params.name)) return { result: await answerCompact(params.name, params.arguments, this.backend, !!this.options.codeMode) };
      const inner = innerCall(params.arguments);
      if (!(await this.tool(inner.name)))
        await this.backend.refuse(
          inner.name,
          new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${inner.name.slice(0, 200)}; ${COMPACT.search} finds the tools you may call`),
        );
      return { request: { ...request, params: { ...(request.params as object), ...inner } } };
    } catch (thrown) {
      if (!(thrown instanceof RpcError)) throw thrown;
      return { result: toolErrorOf(thrown.toJSON()) };
    }
  }

  /**
   * Code mode's `code.execute` (src/mcp/compact.ts), asked so that its caller can approve a
   * destructive tool call: 2025, on the call's event stream when the session declared elicitation;
   * 2026-07-28, in the next round (`input_required`) when the request declares it. Undefined for
   * any other tool.
   */
  private async scriptCall(headers: Headers, request: JsonRpcRequest, version: string, slot: RequestSlot, id: string | number): Promise<McpAnswer | undefined> {
    const params = parseParams(CallToolParamsSchema, request.params);
    if (params.name !== CODE_EXECUTE) return undefined;
    const stateless = isStateless(version);
    // A task: asked for (2025-11-25), or offered to a 2026-07-28 client that declared the extension (a script may run 30 s)
    // and cannot be asked to approve (one that declared elicitation too is answered in place, and asked).
    const asTask =
      stateless ?
        declaresTasks(metaOf(request)?.[META.clientCapabilities]) && !inputRoundOf(request.params as Record<string, unknown>).capabilities.elicitation
      : version === TASKS_2025 && isTaskRequest(request);
    if (asTask) {
      const script = ExecuteArgumentsSchema.safeParse(params.arguments ?? {});
      if (!script.success) return { status: 200, body: success(id, await answerScript(params.arguments, this.backend)) };
      const task = await this.tasks.create(SCRIPT_TOOL, script.data, slot, stateless);
      return { status: 200, body: success(id, stateless ? this.complete(task) : task) };
    }
    if (stateless) {
      const round = inputRoundOf(request.params as Record<string, unknown>);
      const state = round.requestState === undefined ? undefined : await this.backend.requestStates.kept(CODE_EXECUTE, round.requestState);
      const approvals =
        round.capabilities.elicitation ?
          { round: { ...(round.inputResponses ? { responses: round.inputResponses } : {}), ...(state !== undefined ? { state } : {}) } }
        : undefined;
      return { status: 200, body: success(id, this.complete(await answerScript(params.arguments, this.backend, approvals))) };
    }
    if (!inputCapabilitiesOf(this.session).elicitation || slot.batch || !acceptsEventStream(headers))
      return { status: 200, body: success(id, await answerScript(params.arguments, this.backend)) };
    return this.streamed(id, false, { progressToken: progressTokenOf(request), logs: undefined }, (_streaming, ask) =>
      answerScript(params.arguments, this.backend, ask ? { ask } : undefined),
    );
  }

  private async listTools(request: JsonRpcRequest, version: string) {
    const stateless = isStateless(version);
    const { cursor } = parseParams(ListToolsParamsSchema, request.params ?? {});
    if (this.options.compact)
      return { tools: this.options.codeMode ? CODE_TOOLS : COMPACT_TOOLS, ...(stateless ? { ttlMs: this.options.listTtlMs, cacheScope: "public" } : {}) };
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

  /**
   * A `tools/call`'s tool and arguments, or the thrown error that refuses it (unknown tool, headers
   * that disagree); `asksOnStream` when a 2025 call will stream, so its caller can be asked for input.
   */
  private async prepareToolCall(headers: Headers, request: JsonRpcRequest, stateless: boolean, asksOnStream = false) {
    const params = parseParams(CallToolParamsSchema, request.params);
    const known = await this.tool(params.name);
    // Charged and audited as any call of a skill the caller has none of.
    if (!known)
      return this.backend.refuse(params.name, new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${params.name.slice(0, 200)}; tools/list names the tools`));
    const mismatch = stateless ? paramHeaderMismatch(known.tool.inputSchema, params.arguments, headers) : undefined;
    if (mismatch) throw new RpcError(McpErrorCode.HeaderMismatch, mismatch);
    // An upstream's tool: what the caller can answer of its input requests (2026-07-28: declared
    // in the request, with its answers on a retry and the upstream's state its handle stands for;
    // 2025: declared at initialize, carried by the session, answered on the call's stream).
    if (!known.skill.upstream) return { id: request.id!, known, args: params.arguments };
    if (!stateless)
      return { id: request.id!, known, args: params.arguments, ...(asksOnStream ? { inputRound: { capabilities: inputCapabilitiesOf(this.session) } } : {}) };
    const round = inputRoundOf(request.params as Record<string, unknown>);
    if (round.requestState !== undefined) round.requestState = await this.backend.requestStates.kept(known.skill.name, round.requestState);
    return { id: request.id!, known, args: params.arguments, inputRound: round };
  }

  /**
   * Runs a prepared tool call. In the 2025 revisions it can be cancelled by a
   * `notifications/cancelled` naming its id (2026-07-28 cancels by closing the stream only). An
   * upstream's input requests go back to a 2026-07-28 caller in the answer; with `ask` (a 2025
   * caller's stream) the gateway asks them itself and calls again with the answers, round by round.
   */
  private async runToolCall(prepared: PreparedToolCall, slot: RequestSlot, streaming: CallStreaming, cancellable = false, ask?: AskCaller) {
    const { known } = prepared;
    const key = inFlightKey(this.backend.caller, this.session, prepared.id);
    // The cancellation arrives in another request, which may not touch this one's I/O (Workers
    // forbid it): that request flags the call and tells the skill itself (src/lib/signal, src/federation/forward).
    const cancellation = cancellable ? new Cancellation() : undefined;
    const done = cancellation && trackCall(key, cancellation);
    try {
      const params = argumentsToParams(known.skill, prepared.args);
      for (let round = prepared.inputRound, rounds = 1; ; rounds++) {
        const passed = { ...streaming, ...(cancellation ? { cancellation } : {}), ...(round ? { inputRound: round } : {}) };
        const answer = await this.backend.call(known.skill.name, params, slot, passed);
        // An upstream running the call as a task of its own (the caller declared the extension), adopted as the caller's job.
        if (known.skill.upstream && isAdoptedTask(answer)) return this.tasks.adopted(answer.jobId);
        // An upstream asking the caller for input, as checked on its way in (src/federation/upstream/mcp-client.ts).
        if (!round || !isInputRequired(answer)) return toolResultOf(known.skill, answer);
        const asked = answer;
        if (ask) {
          if (rounds >= MAX_INPUT_ROUNDS) throw new RpcError(ErrorCode.SkillUnavailable, `${known.skill.name} asked for input ${rounds} times in one call`);
          round = { capabilities: round.capabilities, inputResponses: await ask(asked.inputRequests ?? {}), ...pick(asked, "requestState") };
          continue;
        }
        // 2026-07-28: the caller gets a handle of the upstream's state, not the state.
        return withHandle(this.backend.requestStates, known.skill.name, asked);
      }
    } catch (thrown) {
      // A capability the caller did not declare is the request's fault, not the tool's: -32021 (HTTP 400).
      if (thrown instanceof RpcError && thrown.code === McpErrorCode.MissingCapability) throw thrown;
      // The tool's own failure (bad argument values included) is a result the model can read; an
      // upstream tool's is its result as the upstream sent it (counted by the chain as a failure).
      const error = thrown instanceof RpcError ? thrown.toJSON() : new RpcError(ErrorCode.InternalError).toJSON();
      const toolResult = known.skill.answers === "tool-result" ? (error.data as { toolResult?: unknown } | undefined)?.toolResult : undefined;
      return toolResult ?? toolErrorOf(error);
    } finally {
      done?.();
    }
  }

  /**
   * Answers a `tools/call` that asked for progress on an event stream: `notifications/progress`
   * with the client's token as the skill reports, heartbeats while it is quiet, then the response.
   * Closing the stream cancels the call, and nothing more is sent for it.
   */
  private streamed(
    id: string | number,
    stateless: boolean,
    relayed: { progressToken: string | number | undefined; logs: { minimum: LogLevel; source: string } | undefined },
    run: (streaming: CallStreaming, ask?: AskCaller) => Promise<unknown>,
  ): McpAnswer {
    const { progressToken, logs } = relayed;
    const stream = sseStream(
      async (sse) => {
        const onProgress = progressToken === undefined ? undefined : progressRelay(sse, { progressToken });
        const streaming: CallStreaming = {
          ...(onProgress ? { onProgress } : {}),
          ...(logs ? { logLevel: logs.minimum, onLog: logRelay(sse, logs) } : {}),
          signal: sse.signal,
        };
        let body: JsonRpcResponse;
        try {
          const result = await run(streaming, stateless ? undefined : this.askOn(sse));
          body = success(id, stateless ? this.complete(result as object) : result);
        } catch (thrown) {
          body = failureFromThrown(id, thrown);
        }
        if (!sse.signal.aborted) sse.send(body);
      },
      this.options.heartbeatMs,
      this.options.clientGone,
    );
    return { status: 200, stream };
  }

  /**
   * How a 2025 caller is asked for input: each request on the call's stream, with an id of the
   * gateway's; its replies arrive in other POSTs (src/mcp/replies.ts), and are the answers by key.
   */
  private askOn(sse: SseWriter): AskCaller {
    return async (requests) => {
      const keys = Object.keys(requests);
      const ids = replyIdsFor(keys.length);
      keys.forEach((key, index) => sse.send({ jsonrpc: "2.0", id: ids[index], method: requests[key]!.method, params: requests[key]!.params ?? {} }));
      const waitMs = Math.min(MAX_REPLY_WAIT_MS, this.backend.budgetMs ?? MAX_REPLY_WAIT_MS);
      const replies = await this.backend.replies.await(ids, { signal: sse.signal, waitMs });
      return Object.fromEntries(keys.map((key, index) => [key, answeredWith(requests[key]!.method, replies.get(ids[index]!)!)]));
    };
  }

  /**
   * A 2025-era `notifications/cancelled`: cancels the call with that id of this caller and
   * session, if this isolate runs it. Two such calls (two clients of one caller sending no
   * session) make it ambiguous: neither is cancelled.
   */
  private async noteCancellation(message: unknown): Promise<void> {
    const checked = CancelledNotificationSchema.safeParse(message);
    if (!checked.success) return;
    const calls = callsUnder(inFlightKey(this.backend.caller, this.session, checked.data.params.requestId));
    if (calls?.size === 1) await [...calls][0]!.cancel();
    else if (calls)
      console.warn(
        `[gateway] notifications/cancelled for request ${JSON.stringify(checked.data.params.requestId)} names ${calls.size} calls of one caller without a session: none cancelled (clients send Mcp-Session-Id)`,
      );
  }
}

/** `params._meta.progressToken` of a request: a string or an integer. */
function progressTokenOf(request: JsonRpcRequest): string | number | undefined {
  const token = metaOf(request)?.progressToken;
  return typeof token === "string" || (typeof token === "number" && Number.isInteger(token)) ? token : undefined;
}

/** A `tools/call` checked and ready to run: its request id, tool and arguments. */
interface PreparedToolCall {
  id: string | number;
  known: ListedTool;
  args?: Record<string, unknown>;
  inputRound?: InputRound;
}

/** The least severe log message a 2026-07-28 request wants (`_meta` logLevel), if it named a level. */
function logLevelOf(request: JsonRpcRequest): LogLevel | undefined {
  const level = LogLevelSchema.safeParse(metaOf(request)?.[META.logLevel]);
  return level.success ? level.data : undefined;
}

/** `logging/setLevel`'s params. */
const SetLevelParamsSchema = z.object({ level: LogLevelSchema }).loose();

/** Whether a `tools/call` asks to run as a task (2025-11-25, `params.task`). */
function isTaskRequest(request: JsonRpcRequest): boolean {
  return typeof (request.params as { task?: unknown } | undefined)?.task === "object";
}

/** Asks the caller an upstream's input requests (2025: on the call's stream); their answers by key. */
type AskCaller = (requests: NonNullable<InputRequiredResult["inputRequests"]>) => Promise<Record<string, Record<string, unknown>>>;

/** The most rounds of input requests one call may ask its caller before the gateway stops it. */
const MAX_INPUT_ROUNDS = 8;

/** A client's reply to one input request as its answer, or the error that ends the call when it refused. */
function answeredWith(method: string, reply: Reply): Record<string, unknown> {
  if ("result" in reply) return reply.result;
  throw new RpcError(ErrorCode.InvalidParams, `Invalid params: the caller answered ${method} with an error (${reply.error.code}: ${reply.error.message})`);
}

/** `{ [key]: value }` when `object` has a defined `key`, else `{}`. */
function pick<T extends object, K extends keyof T>(object: T, key: K): Partial<Pick<T, K>> {
  return object[key] === undefined ? {} : ({ [key]: object[key] } as Partial<Pick<T, K>>);
}

/** The revision with the experimental core tasks (requestor-driven `params.task`). */
const TASKS_2025 = "2025-11-25";

/**
 * The refusal of a job-only skill's call that asks for its answer in place: 2026-07-28, -32021
 * naming the tasks extension (SEP-2663's "required capabilities"); 2025, -32601, as a tool whose
 * `taskSupport` is "required" is refused when called without a task.
 */
function jobOnlyRefusal(name: string, stateless: boolean): RpcError {
  if (stateless) {
    return new RpcError(
      McpErrorCode.MissingCapability,
      `Missing client capability: ${name} runs only as a task; declare "${TASKS_EXTENSION}" in _meta["${META.clientCapabilities}"].extensions`,
      {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      },
    );
  }
  return new RpcError(ErrorCode.MethodNotFound, `${name} runs only as a task: call it with params.task (protocol 2025-11-25), then tasks/result`);
}
