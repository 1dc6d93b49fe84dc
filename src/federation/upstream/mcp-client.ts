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
 */ import { ErrorCode, RpcError } from "../../protocols/jsonrpc/index.js";
import { mirroredHeaders } from "../../protocols/mcp/headers.js";
import {
  type InputRequiredResult,
  InputRequiredResultSchema,
  type InputRound,
  attributedInputRequired,
  ListToolsResultSchema,
  ListedToolSchema,
  INPUT_REQUEST_CAPABILITY,
  McpErrorCode,
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
import { type Progress } from "../../protocols/progress/index.js";
import { type LogLevel } from "../../protocols/logging/index.js";
import { utf8Length } from "../../lib/utf8/index.js";
import { MAX_MANIFEST_BYTES } from "../../skill/manifest.js";
import type { McpEra, Offerings } from "./model.js";
import { type ExchangeOptions, LIST_BUDGET_BYTES, type McpTarget, type ReadBudget, exchange, unavailable } from "./mcp-session.js";

/** Pages of `tools/list` read at most, and tools kept at most, from one upstream. */
export const MAX_LIST_PAGES = 100;
export const MAX_UPSTREAM_TOOLS = 5_000;
/** Each streamed tool call's progress token (unique in this isolate). */
let progressTokens = 0;

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
export const MAX_UPSTREAM_PACKAGES = 128;

/**
 * The Agent Skills an upstream lists (`skills/list` of the Skills extension, SEP-2640): all pages,
 * at most `MAX_UPSTREAM_PACKAGES` and `LIST_BUDGET_BYTES`, checked while reading; an entry that
 * does not parse is reported in `invalid`. Undefined when the server answers `skills/list` with an
 * error (it does not serve the extension); a transport failure throws.
 * @example const listed = await listUpstreamPackages(target, era) // { entries: [{ uri: "skill://git-workflow/SKILL.md", … }], invalid: [] }
 */
export async function listUpstreamPackages(
  target: McpTarget,
  era: McpEra,
): Promise<{ entries: AgentSkillEntry[]; invalid: Array<{ tool: string; reason: string }> } | undefined> {
  const budget: ReadBudget = { bytes: LIST_BUDGET_BYTES };
  const entries: AgentSkillEntry[] = [];
  const invalid: Array<{ tool: string; reason: string }> = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES && entries.length < MAX_UPSTREAM_PACKAGES; page++) {
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
      else if (entries.length < MAX_UPSTREAM_PACKAGES) entries.push(entry.data);
    }
    cursor = result.data.nextCursor;
    if (!cursor) break;
  }
  return { entries, invalid: invalid.slice(0, MAX_UPSTREAM_PACKAGES) };
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
  const raw = await exchangeAsking(target, era, { method: "resources/read", params: { uri }, name: uri, inputRound: round, budget });
  return isInputRequired(raw) ? raw : checked(target, raw, ReadResourceResultSchema, "answered resources/read with something that is not resource contents");
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
  const raw = await exchangeAsking(target, era, { method: "prompts/get", params: { name, arguments: args }, name, inputRound: round });
  return isInputRequired(raw) ? raw : checked(target, raw, GetPromptResultSchema, "answered prompts/get with something that is not a prompt");
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
  if (options.onProgress) params._meta = { progressToken: `p${++progressTokens}` };
  // The arguments a 2026-07-28 server wants mirrored in headers (a 2025 request sends none).
  const headers = era.stateless && options.inputSchema ? mirroredHeaders(options.inputSchema, args) : {};
  const streaming = { onProgress: options.onProgress, onLog: options.onLog, logLevel: options.logLevel };
  const raw = await exchangeAsking(target, era, { method: "tools/call", params, name: tool, headers, inputRound: options.inputRound, streaming });
  if (isInputRequired(raw)) return raw;
  if (era.stateless && options.inputRound?.tasks && (raw as { resultType?: unknown } | undefined)?.resultType === "task")
    return checked(target, raw, TaskStartedSchema, "answered tools/call with a task that has no usable taskId");
  return checked(target, raw, UpstreamToolResultSchema, "answered tools/call with something that is not a tool result");
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
async function exchangeAsking(target: McpTarget, era: McpEra, request: AskingRequest): Promise<unknown> {
  const { method, params, name, inputRound, streaming = {}, budget } = request;
  // 2026-07-28 only: what the request is about (`Mcp-Name`), and the headers of its own.
  const headers = era.stateless ? { ...(name !== undefined ? { "mcp-name": headerValueFor(name) } : {}), ...request.headers } : {};
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

/** An answer parsed with `schema`, or -32001 saying what the upstream answered instead. */
function checked<T>(target: McpTarget, raw: unknown, schema: z.ZodType<T>, what: string): T {
  const result = schema.safeParse(raw);
  if (!result.success) throw unavailable(target, what);
  return result.data;
}

/** One request that an upstream may answer with questions for the caller (2026-07-28, SEP-2322). */
interface AskingRequest {
  method: string;
  params: Record<string, unknown>;
  /** What it is about, for the 2026-07-28 `Mcp-Name` header: a tool's or prompt's name, a resource's URI. */
  name?: string;
  /** 2026-07-28 headers of its own (a tool call's mirrored `Mcp-Param-*`). */
  headers?: Record<string, string>;
  /** The caller's part of the round trip: what it can answer, its answers, the echoed state. */
  inputRound?: InputRound | undefined;
  streaming?: Pick<ExchangeOptions, "onProgress" | "onLog" | "logLevel">;
  /** What is left of a listing's bytes, when the request is part of one. */
  budget?: ReadBudget | undefined;
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
