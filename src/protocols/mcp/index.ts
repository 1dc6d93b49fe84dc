/**
 * The MCP wire format the gateway serves and speaks to upstream servers, defined once as zod
 * schemas (types inferred from them): protocol versions of both eras, the params of the methods it answers, tools and their
 * results. The rules are the MCP specification's (modelcontextprotocol.io, basic/transports and
 * server/tools of each revision); docs/architecture.md sums up what the gateway serves.
 */
import { encodeBase64 } from "hono/utils/encode";
import { z } from "zod";
import { ErrorCode, JsonObjectSchema, RpcError } from "../jsonrpc/index.js";

/** Versions served with the `initialize` handshake (the session era), newest first. */
export const HANDSHAKE_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
/** Versions served statelessly: the version travels in every request's `_meta`. */
export const STATELESS_VERSIONS = ["2026-07-28"] as const;
export const SUPPORTED_VERSIONS: readonly string[] = [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS];
/** Assumed when a client sends no `MCP-Protocol-Version` (transport spec). */
export const DEFAULT_VERSION = "2025-03-26";

/** True for a version of the stateless era (no `initialize`, `_meta` and headers on every request). */
export function isStateless(version: string): boolean {
  return (STATELESS_VERSIONS as readonly string[]).includes(version);
}

/** Batches were allowed only before 2025-06-18. */
export function allowsBatches(version: string): boolean {
  return version === "2025-03-26";
}

/** `_meta` keys of the stateless revision. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  /** On every result: who answered. */
  serverInfo: "io.modelcontextprotocol/serverInfo",
  /** On every message of a `subscriptions/listen` stream: the listen request's id. */
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  /** On a request: the least severe log message the client wants while it runs (none without it). */
  logLevel: "io.modelcontextprotocol/logLevel",
} as const;

/** MCP error codes beyond JSON-RPC's. */
export const McpErrorCode = {
  /** An HTTP header disagrees with the body (or a required one is missing or malformed). */
  HeaderMismatch: -32020,
  /** The request's protocol version is not one this server speaks. */
  UnsupportedVersion: -32022,
  /** 2025 revisions: `resources/read` of a URI the server has no resource for (2026-07-28 says -32602). */
  ResourceNotFound: -32002,
  /** 2026-07-28: the request needs a client capability (an extension) the client did not declare (HTTP 400). */
  MissingCapability: -32021,
} as const;

/** Who may reuse a cacheable result (2026-07-28 caching): anyone, or only the same authorization. */
export type CacheScope = "public" | "private";

const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * The value an `Mcp-Name` or `Mcp-Param-*` header carries: as is, or decoded from the Base64
 * sentinel form (`=?base64?…?=`, UTF-8) clients use for values that are not plain ASCII.
 * Undefined when the header is malformed (unpadded or undecodable Base64, or not UTF-8).
 * @example headerValueOf("=?base64?SGVsbG8sIOS4lueVjA==?=") // "Hello, 世界"
 */
export function headerValueOf(header: string): string | undefined {
  const encoded = BASE64_SENTINEL.exec(header);
  if (!encoded) return header;
  // Padded Base64 only (SEP-2243's table: "SGVsbG8" without its "=" is refused); atob would take it.
  if (encoded[1]!.length % 4 !== 0) return undefined;
  try {
    const binary = atob(encoded[1]!);
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/**
 * A value as an `Mcp-Name` or `Mcp-Param-*` header carries it: as is when it is plain visible
 * ASCII without leading or trailing space, else in the Base64 sentinel form (UTF-8).
 * @example headerValueFor("Hello, 世界") // "=?base64?SGVsbG8sIOS4lueVjA==?="
 */
export function headerValueFor(value: string): string {
  if (/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !BASE64_SENTINEL.test(value)) return value;
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

const Implementation = z.object({ name: z.string(), version: z.string(), title: z.string().optional() }).loose();

export const InitializeParamsSchema = z
  .object({ protocolVersion: z.string(), capabilities: z.record(z.string(), z.unknown()), clientInfo: Implementation })
  .loose();

/** The `_meta` a stateless request must carry. */
export const StatelessMetaSchema = z
  .object({
    [META.protocolVersion]: z.string(),
    [META.clientCapabilities]: z.record(z.string(), z.unknown()),
    [META.clientInfo]: Implementation.optional(),
  })
  .loose();

export const ListToolsParamsSchema = z.object({ cursor: z.string().optional() }).loose();

/** `subscriptions/listen` (2026-07-28): which change notifications the client wants. */
export const SubscriptionsListenParamsSchema = z
  .object({
    notifications: z
      .object({
        toolsListChanged: z.boolean().optional(),
        promptsListChanged: z.boolean().optional(),
        resourcesListChanged: z.boolean().optional(),
        resourceSubscriptions: z.array(z.string()).optional(),
      })
      .loose()
      .default({}),
  })
  .loose();

/** `notifications/cancelled` (2025 revisions): the client stops a request it sent. */
export const CancelledNotificationSchema = z.object({
  jsonrpc: z.literal("2.0"),
  method: z.literal("notifications/cancelled"),
  params: z.object({ requestId: z.union([z.string(), z.number().int()]), reason: z.string().optional() }).loose(),
});

export const CallToolParamsSchema = z.object({ name: z.string().min(1), arguments: JsonObjectSchema.optional() }).loose();

export const ToolAnnotationsSchema = z.object({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

/** A JSON Schema for a tool's input or output: MCP wants an object schema. */
const ObjectSchema = z.object({ type: z.literal("object") }).loose();

export const ToolSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string(),
  inputSchema: ObjectSchema,
  outputSchema: ObjectSchema.optional(),
  annotations: ToolAnnotationsSchema.optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type Tool = z.infer<typeof ToolSchema>;

/**
 * A tool as an upstream server lists it (`tools/list`): what the gateway reads of it, nothing
 * more (unknown fields are dropped). Unlike the gateway's own tools, a description may be absent.
 */
export const ListedToolSchema = z.object({
  name: z.string().min(1).max(128),
  title: z.string().max(256).optional(),
  description: z.string().max(4096).optional(),
  inputSchema: ObjectSchema,
  outputSchema: ObjectSchema.optional(),
  annotations: ToolAnnotationsSchema.optional(),
  /** Where an MCP App's UI is (`_meta.ui`, the Apps extension), among what else the server says. */
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type ListedTool = z.infer<typeof ListedToolSchema>;

/** The MCP Apps extension's name in capabilities' `extensions` (SEP-1865). */
export const UI_EXTENSION = "io.modelcontextprotocol/ui";
/** The deprecated flat key a tool's UI resource is also named by (hosts still read it). */
export const LEGACY_UI_RESOURCE_KEY = "ui/resourceUri";

/**
 * A tool's MCP App (its `_meta.ui`, the Apps extension): the `ui://` resource its host renders,
 * and who may call it (`model`, `app`; default both).
 */
export const ToolUiSchema = z.object({
  resourceUri: z
    .string()
    .max(2_048)
    .regex(/^ui:\/\/[^\s]+$/, "an MCP App's resource is a ui:// URI")
    .optional(),
  visibility: z
    .array(z.enum(["model", "app"]))
    .max(2)
    .optional(),
});
export type ToolUi = z.infer<typeof ToolUiSchema>;

/**
 * A listed tool's MCP App, from its `_meta.ui` (or the deprecated `_meta["ui/resourceUri"]`); undefined for none or one that does not parse.
 * @example toolUiOf({ ui: { resourceUri: "ui://map/view.html" } }) // { resourceUri: "ui://map/view.html" }
 */
export function toolUiOf(meta: Record<string, unknown> | undefined): ToolUi | undefined {
  if (!meta) return undefined;
  const nested = ToolUiSchema.safeParse(meta.ui);
  const legacy = typeof meta[LEGACY_UI_RESOURCE_KEY] === "string" ? (meta[LEGACY_UI_RESOURCE_KEY] as string) : undefined;
  const ui = { ...(nested.success ? nested.data : {}), ...(!(nested.success && nested.data.resourceUri) && legacy ? { resourceUri: legacy } : {}) };
  const checked = ToolUiSchema.safeParse(ui);
  return checked.success && (checked.data.resourceUri || checked.data.visibility) ? checked.data : undefined;
}

/** A page of `tools/list`. */
export const ListToolsResultSchema = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().max(1_024).optional() });

const BlockMeta = { annotations: z.record(z.string(), z.unknown()).optional(), _meta: z.record(z.string(), z.unknown()).optional() };

/** A content block of a tool result, any of the kinds the specification defines (unknown fields dropped). */
export const ContentBlockSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string(), ...BlockMeta }),
  z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string(), ...BlockMeta }),
  z.object({ type: z.literal("audio"), data: z.string(), mimeType: z.string(), ...BlockMeta }),
  z.object({
    type: z.literal("resource_link"),
    uri: z.string(),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    mimeType: z.string().optional(),
    size: z.number().optional(),
    ...BlockMeta,
  }),
  z.object({
    type: z.literal("resource"),
    resource: z.union([
      z.object({ uri: z.string(), mimeType: z.string().optional(), text: z.string(), _meta: BlockMeta._meta }),
      z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.string(), _meta: BlockMeta._meta }),
    ]),
    ...BlockMeta,
  }),
]);

/** A tool result as an upstream server answers it: checked block by block before any caller sees it. */
export const UpstreamToolResultSchema = z.object({
  content: z.array(ContentBlockSchema).max(10_000).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});
export type UpstreamToolResult = z.infer<typeof UpstreamToolResultSchema>;

// ---------------------------------------------------------------------------------------------
// Multi round-trip requests (2026-07-28, basic/patterns/mrtr): a server asks its caller for input
// (elicitation, sampling, roots) by answering `input_required`; the caller retries the request
// with `inputResponses` and the server's `requestState`, echoed. The gateway relays both ways
// between an MCP caller of its own and a federated upstream.
// ---------------------------------------------------------------------------------------------

/** Each kind of input request, and the client capability that says a client can answer it. */
export const INPUT_REQUEST_CAPABILITY = { "elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots" } as const;
/** The most input requests one answer may carry, and the longest `requestState` relayed. */
const MAX_INPUT_REQUESTS = 32;
const MAX_REQUEST_STATE_CHARS = 64 * 1024;

/** Each input request's params, as the revision defines them: only these fields are relayed. */
const ElicitParamsSchema = z.union([
  z.object({ mode: z.literal("url"), message: z.string().max(4_096), url: z.url({ protocol: /^https?$/ }), elicitationId: z.string().min(1).max(256) }),
  z.object({ mode: z.literal("form").optional(), message: z.string().max(4_096), requestedSchema: z.record(z.string(), z.unknown()) }),
]);
const SamplingParamsSchema = z.object({
  messages: z.array(z.object({ role: z.enum(["user", "assistant"]), content: z.unknown() })).max(256),
  maxTokens: z.number().int().positive(),
  systemPrompt: z
    .string()
    .max(64 * 1024)
    .optional(),
  modelPreferences: z.record(z.string(), z.unknown()).optional(),
  temperature: z.number().optional(),
  stopSequences: z.array(z.string().max(256)).max(32).optional(),
  includeContext: z.enum(["none", "thisServer", "allServers"]).optional(),
});
export const InputRequestSchema = z.discriminatedUnion("method", [
  z.object({ method: z.literal("elicitation/create"), params: ElicitParamsSchema }),
  z.object({ method: z.literal("sampling/createMessage"), params: SamplingParamsSchema }),
  z.object({ method: z.literal("roots/list"), params: z.object({}).optional() }),
]);
/**
 * An `input_required` result as the gateway relays it: its `inputRequests` (each checked by its
 * method's params) and `requestState` only — no `_meta`, caching fields or content of the
 * upstream's own reach the caller through it.
 */
/** The input requests one answer (or a task waiting for input) carries, by the asker's keys. */
export const InputRequestsSchema = z
  .record(z.string().min(1).max(256), InputRequestSchema)
  .refine((requests) => Object.keys(requests).length <= MAX_INPUT_REQUESTS, `at most ${MAX_INPUT_REQUESTS} input requests`);
export type InputRequests = z.infer<typeof InputRequestsSchema>;
export const InputRequiredResultSchema = z
  .object({
    resultType: z.literal("input_required"),
    inputRequests: InputRequestsSchema.optional(),
    requestState: z.string().max(MAX_REQUEST_STATE_CHARS).optional(),
  })
  .refine((result) => result.inputRequests !== undefined || result.requestState !== undefined, "an input_required result has inputRequests or requestState");
export type InputRequiredResult = z.infer<typeof InputRequiredResultSchema>;

/**
 * Whether an answer says it is an input request (`resultType: "input_required"`); the gateway
 * takes it for one only once it was checked where it came in (src/federation/upstream/mcp-client.ts).
 * @example isInputRequired({ resultType: "input_required", inputRequests: {…} }) // true
 */
export function isInputRequired(answer: unknown): answer is InputRequiredResult {
  return (answer as { resultType?: unknown } | undefined)?.resultType === "input_required";
}

/**
 * An `input_required` result with each elicitation's message prefixed by who asks (`[<askedBy>]`),
 * so a user never takes an upstream's question for the gateway's own.
 * @example attributedInputRequired(result, "crm.ask").inputRequests!.pw!.params // { message: "[crm.ask] Your password?", … }
 */
export function attributedInputRequired(result: InputRequiredResult, askedBy: string): InputRequiredResult {
  return result.inputRequests ? { ...result, inputRequests: attributedInputRequests(result.inputRequests, askedBy) } : result;
}

/**
 * Input requests with each elicitation's message prefixed by who asks (`[<askedBy>]`).
 * @example attributedInputRequests({ ok: { method: "elicitation/create", params: { message: "Sure?", requestedSchema } } }, "fs.delete") // message "[fs.delete] Sure?"
 */
export function attributedInputRequests(requests: InputRequests, askedBy: string): InputRequests {
  return Object.fromEntries(
    Object.entries(requests).map(([key, request]) => [
      key,
      request.method === "elicitation/create" ? { ...request, params: { ...request.params, message: `[${askedBy}] ${request.params.message}` } } : request,
    ]),
  );
}

/**
 * The client capabilities a -32021 names, as the gateway passes them on: only capability names
 * (and extension names), each `{}` — nothing else of what a server said in its error's data.
 * @example requiredCapabilitiesOf({ requiredCapabilities: { sampling: { tools: {} }, x: 1 } }) // { sampling: {} }
 */
export function requiredCapabilitiesOf(data: unknown): Record<string, unknown> | undefined {
  const required = (data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  if (typeof required !== "object" || required === null) return undefined;
  const named: Record<string, unknown> = {};
  for (const name of ["elicitation", "sampling", "roots"]) if (Object.hasOwn(required, name)) named[name] = {};
  const extensions = (required as { extensions?: unknown }).extensions;
  if (typeof extensions === "object" && extensions !== null) {
    const names = Object.keys(extensions)
      .filter((name) => /^[\w.\-/]{1,128}$/.test(name))
      .slice(0, 16);
    if (names.length) named.extensions = Object.fromEntries(names.map((name) => [name, {}]));
  }
  return Object.keys(named).length ? named : undefined;
}

/** A retried request's answers (`inputResponses`) and the server's state it echoes. */
export const InputRetrySchema = z.object({
  inputResponses: z
    .record(z.string().min(1).max(256), z.record(z.string(), z.unknown()))
    .refine((responses) => Object.keys(responses).length <= MAX_INPUT_REQUESTS, `at most ${MAX_INPUT_REQUESTS} input responses`)
    .optional(),
  requestState: z.string().max(MAX_REQUEST_STATE_CHARS).optional(),
});

/**
 * What an MCP caller brings to a multi round-trip: the client capabilities it declared for input
 * requests (only these may reach it), and on a retry its answers and the echoed state.
 */
export interface InputRound {
  capabilities: Partial<Record<(typeof INPUT_REQUEST_CAPABILITY)[keyof typeof INPUT_REQUEST_CAPABILITY], Record<string, unknown>>>;
  inputResponses?: Record<string, Record<string, unknown>>;
  requestState?: string;
  /** The caller declared the tasks extension: an upstream may answer its tool call with a task (SEP-2663). */
  tasks?: true;
}

/**
 * The input round of a 2026-07-28 request: its declared capabilities for input requests (from
 * `_meta`) and its retry fields; throws -32602 for retry fields that do not parse.
 * @example inputRoundOf({ name: "x", inputResponses: { confirm: { action: "accept" } }, _meta: {…} })
 */
export function inputRoundOf(params: Record<string, unknown> | undefined): InputRound {
  const declared = (params?._meta as Record<string, unknown> | undefined)?.[META.clientCapabilities];
  const capabilities: InputRound["capabilities"] = {};
  if (typeof declared === "object" && declared !== null) {
    for (const name of Object.values(INPUT_REQUEST_CAPABILITY)) {
      const value = (declared as Record<string, unknown>)[name];
      if (typeof value === "object" && value !== null && !Array.isArray(value)) capabilities[name] = value as Record<string, unknown>;
    }
  }
  const tasks = declaresTasks(declared) ? { tasks: true as const } : {};
  if (params?.inputResponses === undefined && params?.requestState === undefined) return { capabilities, ...tasks }; // a first round
  const retry = InputRetrySchema.safeParse({ inputResponses: params.inputResponses, requestState: params.requestState });
  if (!retry.success)
    throw new RpcError(ErrorCode.InvalidParams, `Invalid params: ${retry.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return {
    capabilities,
    ...tasks,
    ...(retry.data.inputResponses ? { inputResponses: retry.data.inputResponses } : {}),
    ...(retry.data.requestState !== undefined ? { requestState: retry.data.requestState } : {}),
  };
}

/**
 * The input requests of an `input_required` answer the caller did not declare it can answer
 * (a server must not send them; the gateway does not pass them on).
 * @example undeclaredInputRequests(result, { elicitation: {} }) // ["sampling/createMessage"]
 */
export function undeclaredInputRequests(result: InputRequiredResult, capabilities: InputRound["capabilities"]): string[] {
  return Object.values(result.inputRequests ?? {})
    .map((request) => request.method)
    .filter((method) => !capabilities[INPUT_REQUEST_CAPABILITY[method]]);
}

export const TextContentSchema = z.object({ type: z.literal("text"), text: z.string() });

export const CallToolResultSchema = z.object({
  content: z.array(TextContentSchema),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type CallToolResult = z.infer<typeof CallToolResultSchema>;

// ---------------------------------------------------------------------------------------------
// Tasks: the 2025-11-25 core `Task`, and the 2026-07-28 tasks extension's (SEP-2663)
// ---------------------------------------------------------------------------------------------

export const TaskStatusSchema = z.enum(["working", "input_required", "completed", "failed", "cancelled"]);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** What both forms of a task have. */
const TaskCommon = {
  taskId: z.string(),
  status: TaskStatusSchema,
  /** In words: "Queued", "step 2 of 5 (2/5)", the error's message. */
  statusMessage: z.string().optional(),
  /** ISO 8601. */
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
};

/** A 2025-11-25 `Task` (`tasks/get`, `tasks/list`, `tasks/cancel`, `CreateTaskResult.task`). */
export const Task2025Schema = z.object({ ...TaskCommon, ttl: z.number().nullable(), pollInterval: z.number().optional() });
export type Task2025 = z.infer<typeof Task2025Schema>;

/** A 2026-07-28 extension `Task`; as `tasks/get` answers it (`DetailedTask`), with the outcome of an ended one. */
export const Task2026Schema = z.object({
  ...TaskCommon,
  ttlMs: z.number().nullable(),
  pollIntervalMs: z.number().optional(),
  /** Completed: the tool's `CallToolResult`. */
  result: CallToolResultSchema.optional(),
  /** Failed: the JSON-RPC error the call would have answered. */
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
  /** Input required: what the task waits for, by the asker's keys (answered with `tasks/update`). */
  inputRequests: InputRequestsSchema.optional(),
});
export type Task2026 = z.infer<typeof Task2026Schema>;

/** The tasks extension's name, in client and server capabilities (SEP-2663). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/**
 * Whether client capabilities (a 2026-07-28 request's `_meta`) declare the tasks extension.
 * @example declaresTasks({ extensions: { "io.modelcontextprotocol/tasks": {} } }) // true
 */
export function declaresTasks(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
}

/** The tasks extension's requests about one task that the gateway sends the upstream running it. */
export type TaskMethod = "tasks/get" | "tasks/update" | "tasks/cancel";

/** An upstream task's id, as the gateway keeps it (never shown to the caller: its task is the gateway's). */
const UpstreamTaskIdSchema = z.string().min(1).max(256);

/** An upstream's answer that it runs a tool call as a task (a `CreateTaskResult`): only its id is kept. */
export const TaskStartedSchema = z.object({ resultType: z.literal("task"), taskId: UpstreamTaskIdSchema });
export type TaskStarted = z.infer<typeof TaskStartedSchema>;

/**
 * Whether an upstream's tool call answered with a task (checked where it came in: src/federation/upstream/mcp-client.ts).
 * @example isTaskStarted({ resultType: "task", taskId: "t-1" }) // true
 */
export function isTaskStarted(answer: unknown): answer is TaskStarted {
  return (answer as { resultType?: unknown } | undefined)?.resultType === "task";
}

/**
 * An upstream's `tasks/get` answer (a `DetailedTask`), only what the gateway relays: the status,
 * its message (cut to 1,024 characters), the input it waits for, the tool result of a completed
 * task, the code and message of a failed one.
 */
export const UpstreamTaskSchema = z.object({
  taskId: UpstreamTaskIdSchema,
  status: TaskStatusSchema,
  statusMessage: z
    .string()
    .optional()
    .transform((message) => message?.slice(0, 1_024)),
  inputRequests: InputRequestsSchema.optional(),
  result: UpstreamToolResultSchema.optional(),
  error: z.object({ code: z.number().int(), message: z.string().transform((message) => message.slice(0, 500)) }).optional(),
});
export type UpstreamTask = z.infer<typeof UpstreamTaskSchema>;

// ---------------------------------------------------------------------------------------------
// Resources and prompts a skill declares (src/skill): what `resources/list`,
// `resources/templates/list` and `prompts/list` list, and what a read or a get answers.
// ---------------------------------------------------------------------------------------------

const Described = { title: z.string().max(256).optional(), description: z.string().max(4_096).optional() };

/** A URI of a resource (or a template of them): any scheme but `skill://`, the Agent Skills packages'. */
const resourceUri = (pattern: RegExp, message: string) =>
  z
    .string()
    .max(2_048)
    .regex(pattern, message)
    .refine((uri) => !uri.startsWith("skill://"), "skill:// URIs are the Agent Skills packages'");
/** What a resource and a template of them both say. */
const ResourceFields = {
  name: z.string().min(1).max(256),
  ...Described,
  mimeType: z.string().max(256).optional(),
  /** What else it says of itself (an MCP App's `ui`: its CSP and permissions). */
  _meta: z.record(z.string(), z.unknown()).optional(),
};

/** A fixed resource: its URI, a name, a media type. */
export const ResourceSchema = z.object({
  uri: resourceUri(/^[a-z][a-z0-9+.-]*:/i, "a resource URI has a scheme, e.g. modbus://function-codes"),
  ...ResourceFields,
});
export type Resource = z.infer<typeof ResourceSchema>;

/** A family of resources: an RFC 6570 level-1 template (`modbus://registers/{address}`). */
export const ResourceTemplateSchema = z.object({
  uriTemplate: resourceUri(/^[a-z][a-z0-9+.-]*:[^{}]*(\{[A-Za-z0-9_]+\}[^{}]*)+$/i, "a URI template with {variables}, e.g. modbus://registers/{address}"),
  ...ResourceFields,
});
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;

/** A prompt: its name, and the arguments it takes (strings, as MCP's prompts take them). */
export const PromptSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "a prompt name matches [A-Za-z0-9_.-]{1,64}"),
  ...Described,
  arguments: z
    .array(z.object({ name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), ...Described, required: z.boolean().optional() }))
    .max(32)
    .optional(),
});
export type Prompt = z.infer<typeof PromptSchema>;

/** One resource's contents: text, or base64 bytes. */
/** What contents may say of themselves (an MCP App's `ui`: its CSP and permissions, which hosts read here first). */
const ContentsMeta = { _meta: z.record(z.string(), z.unknown()).optional() };
export const ResourceContentsSchema = z.union([
  z.object({ uri: z.string(), mimeType: z.string().optional(), text: z.string(), ...ContentsMeta }),
  z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.string(), ...ContentsMeta }),
]);
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;

/**
 * One resource's contents: a string as `text`, bytes as base64 `blob`.
 * @example resourceContentsOf("units://logo", "image/png", bytes) // { uri, mimeType: "image/png", blob: "iVBORw…" }
 */
export function resourceContentsOf(uri: string, mimeType: string | undefined, body: string | Uint8Array): ResourceContents {
  const type = mimeType ? { mimeType } : {};
  return typeof body === "string" ? { uri, ...type, text: body } : { uri, ...type, blob: encodeBase64(body.slice().buffer) };
}

/** `resources/read`'s answer. */
export const ReadResourceResultSchema = z.object({ contents: z.array(ResourceContentsSchema).max(64) });
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;

/** One message of a prompt. */
export const PromptMessageSchema = z.object({ role: z.enum(["user", "assistant"]), content: ContentBlockSchema });
/** `prompts/get`'s answer. */
export const GetPromptResultSchema = z.object({ description: z.string().optional(), messages: z.array(PromptMessageSchema).max(256) });
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;

/** A `sha256:` digest of a file's raw bytes, as the Skills extension (SEP-2640) writes it: 64 lowercase hex digits. */
export const AgentSkillDigestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, "a digest is sha256: and 64 lowercase hex digits");

/**
 * One skill as the Skills extension (SEP-2640) answers it in `skills/list` and `skills/get`: the
 * URI of its `SKILL.md`, its frontmatter verbatim, and every file with its digest (`resources`,
 * omitted only by a skill generated on demand). A skill has at most 512 files (SEP-2640 "Limits").
 */
export const AgentSkillEntrySchema = z.object({
  uri: z.string().min(1).max(2_048),
  frontmatter: z.record(z.string(), z.unknown()),
  resources: z
    .array(z.object({ uri: z.string().min(1).max(2_048), digest: AgentSkillDigestSchema }).loose())
    .max(512)
    .optional(),
});
export type AgentSkillEntry = z.infer<typeof AgentSkillEntrySchema>;

/** `skills/list`'s answer; each entry is parsed on its own (one bad entry does not hide the others). */
export const ListAgentSkillsResultSchema = z.object({ skills: z.array(z.unknown()), nextCursor: z.string().max(1_024).optional() });

/** `resources/read` and `prompts/get` params. */
export const ReadResourceParamsSchema = z.object({ uri: z.string().min(1).max(2_048) }).loose();
export const GetPromptParamsSchema = z.object({ name: z.string().min(1).max(256), arguments: z.record(z.string(), z.string()).optional() }).loose();

/** What `completion/complete` completes: a prompt's argument, or a resource template's variable. */
export const CompletionRefSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ref/prompt"), name: z.string().min(1).max(256) }),
  z.object({ type: z.literal("ref/resource"), uri: z.string().min(1).max(2_048) }),
]);
export type CompletionRef = z.infer<typeof CompletionRefSchema>;
/** `completion/complete` params: the argument being typed, and the ones already given. */
export const CompleteParamsSchema = z
  .object({
    ref: CompletionRefSchema,
    argument: z.object({ name: z.string().min(1).max(256), value: z.string().max(4_096) }),
    context: z.object({ arguments: z.record(z.string(), z.string().max(4_096)).optional() }).optional(),
  })
  .loose();
/** `completion/complete`'s answer: at most 100 values (the spec's bound), each a string. */
export const CompleteResultSchema = z.object({
  completion: z.object({ values: z.array(z.string().max(1_024)).max(100), total: z.number().int().nonnegative().optional(), hasMore: z.boolean().optional() }),
});
export type CompleteResult = z.infer<typeof CompleteResultSchema>;

/**
 * The variables of a URI that a template matches (each `{name}` one non-empty segment without `/`,
 * decoded); undefined when it does not match.
 * @example matchUriTemplate("modbus://registers/{address}", "modbus://registers/40108") // { address: "40108" }
 */
export function matchUriTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.split(/(\{[A-Za-z0-9_]+\})/).map((part) => {
    if (/^\{[A-Za-z0-9_]+\}$/.test(part)) {
      names.push(part.slice(1, -1));
      return "([^/?#]+)";
    }
    return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  });
  const match = new RegExp(`^${pattern.join("")}$`).exec(uri);
  if (!match) return undefined;
  try {
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
  } catch {
    return undefined;
  }
}
