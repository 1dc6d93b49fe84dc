/**
 * The Agent2Agent protocol (A2A v1.0, a2a-protocol.org/v1.0.0/specification), as far as the gateway
 * speaks it: its wire formats defined once as zod schemas (an Agent Card, a message, a task, a
 * stream's events; the JSON-RPC binding's field names) and parsed where they come in, and the
 * translations between an agent's answer and an MCP tool result.
 *
 * An agent's skills are descriptive in A2A (a message goes to the agent, not to a skill); the
 * gateway serves each skill as a tool of its own, so grants, limits, breaker, audit and canary
 * apply per skill, and names the skill it was called as in the message's
 * `metadata.skillId`.
 */
import { z } from "zod";

/** The protocol version the gateway speaks, sent in the `A2A-Version` header. */
export const A2A_VERSION = "1.0";
/** The JSON-RPC error of a request in a protocol version the server does not speak (`VersionNotSupportedError`). */
export const VERSION_NOT_SUPPORTED = -32009;

/**
 * Why a request's `A2A-Version` (header or query parameter) is not one the gateway speaks; none
 * given is 0.3, as the specification says (3.6.2).
 * @example versionRefusal(undefined) // "The requested A2A protocol version '0.3' is not supported. Supported versions: 1.0"
 */
export function versionRefusal(requested: string | undefined): string | undefined {
  const version = requested?.trim() || "0.3";
  return version.split(".")[0] === A2A_VERSION.split(".")[0] ?
      undefined
    : `The requested A2A protocol version '${version.slice(0, 16)}' is not supported. Supported versions: ${A2A_VERSION}`;
}

/** Where an agent serves its card, below its base URL. */
export const AGENT_CARD_PATH = ".well-known/agent-card.json";
/** The largest Agent Card the gateway reads. */
export const MAX_AGENT_CARD_BYTES = 1024 * 1024;
/** The most skills kept of one agent. */
export const MAX_AGENT_SKILLS = 256;

const Text = (max: number) => z.string().max(max);
const Metadata = z.record(z.string(), z.unknown()).optional();

/** One part of a message or an artifact: text, structured data, a file by URL, or bytes (base64). */
export const PartSchema = z
  .object({
    text: Text(1024 * 1024).optional(),
    data: z.unknown().optional(),
    url: Text(2_048).optional(),
    raw: z.string().optional(),
    mediaType: Text(256).optional(),
    filename: Text(256).optional(),
    metadata: Metadata,
  })
  .loose();
export type Part = z.infer<typeof PartSchema>;

/** A message: the user's or the agent's. */
export const MessageSchema = z
  .object({
    messageId: Text(256),
    contextId: Text(256).optional(),
    taskId: Text(256).optional(),
    role: z.enum(["ROLE_USER", "ROLE_AGENT", "ROLE_UNSPECIFIED"]),
    parts: z.array(PartSchema).max(256),
    metadata: Metadata,
  })
  .loose();
export type Message = z.infer<typeof MessageSchema>;

/** A task's states; the terminal ones end a stream. */
export const TaskStateSchema = z.enum([
  "TASK_STATE_UNSPECIFIED",
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_AUTH_REQUIRED",
]);
export type TaskState = z.infer<typeof TaskStateSchema>;
/** States a task does not leave. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]);
/** States in which the agent did not do what was asked. */
const FAILED_STATES: ReadonlySet<TaskState> = new Set(["TASK_STATE_FAILED", "TASK_STATE_REJECTED", "TASK_STATE_CANCELED"]);

export const TaskStatusSchema = z.object({ state: TaskStateSchema, message: MessageSchema.optional(), timestamp: Text(64).optional() }).loose();

export const ArtifactSchema = z
  .object({
    artifactId: Text(256),
    name: Text(256).optional(),
    description: Text(4_096).optional(),
    parts: z.array(PartSchema).max(256),
    metadata: Metadata,
  })
  .loose();

/** A task: its ids, status, the artifacts it made and its history. */
export const TaskSchema = z
  .object({
    id: Text(256),
    contextId: Text(256),
    status: TaskStatusSchema,
    artifacts: z.array(ArtifactSchema).max(256).optional(),
    history: z.array(MessageSchema).max(1_000).optional(),
    metadata: Metadata,
  })
  .loose();
export type Task = z.infer<typeof TaskSchema>;

/** `SendMessage`'s answer: a task, or a message for a simple interaction. */
export const SendMessageResultSchema = z.union([z.object({ task: TaskSchema }), z.object({ message: MessageSchema })]);
export type SendMessageResult = z.infer<typeof SendMessageResultSchema>;

/** One event of a stream (`SendStreamingMessage`, `SubscribeToTask`). */
export const StreamResponseSchema = z.union([
  z.object({ task: TaskSchema }),
  z.object({ message: MessageSchema }),
  z.object({ statusUpdate: z.object({ taskId: Text(256), contextId: Text(256), status: TaskStatusSchema, metadata: Metadata }).loose() }),
  z.object({
    artifactUpdate: z
      .object({ taskId: Text(256), contextId: Text(256), artifact: ArtifactSchema, append: z.boolean().optional(), lastChunk: z.boolean().optional() })
      .loose(),
  }),
]);
export type StreamResponse = z.infer<typeof StreamResponseSchema>;

/** One of an agent's skills, as its card describes it. */
export const AgentSkillSchema = z
  .object({
    id: Text(128),
    name: Text(256),
    description: Text(4_096),
    tags: z.array(Text(128)).max(64).optional(),
    examples: z.array(Text(1_024)).max(32).optional(),
  })
  .loose();
export type AgentSkill = z.infer<typeof AgentSkillSchema>;

/** Where and how an agent is spoken to. */
export const AgentInterfaceSchema = z.object({ url: Text(2_048), protocolBinding: Text(64), protocolVersion: Text(32).optional() }).loose();

/** An Agent Card: who the agent is, where it answers and the skills it has. */
export const AgentCardSchema = z
  .object({
    name: Text(256),
    description: Text(4_096),
    version: Text(64),
    supportedInterfaces: z.array(AgentInterfaceSchema).min(1).max(16),
    capabilities: z.object({ streaming: z.boolean().optional() }).loose().optional(),
    defaultInputModes: z.array(Text(128)).max(32).optional(),
    defaultOutputModes: z.array(Text(128)).max(32).optional(),
    skills: z.array(AgentSkillSchema).max(MAX_AGENT_SKILLS),
  })
  .loose();
export type AgentCard = z.infer<typeof AgentCardSchema>;

/**
 * Where an agent's card is read: the URL itself when it names a `.json` document, else the
 * well-known path below it.
 * @example agentCardUrlOf("https://agent.example") // "https://agent.example/.well-known/agent-card.json"
 */
export function agentCardUrlOf(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname.endsWith(".json")) return parsed.href;
  parsed.pathname = `${parsed.pathname.replace(/\/$/, "")}/${AGENT_CARD_PATH}`;
  return parsed.href;
}

/**
 * The card's JSON-RPC interface of this protocol version, when it is at the card's own origin (an
 * agent's card does not decide where the gateway sends what a caller says); else why not.
 * @example jsonRpcInterfaceOf(card, "https://agent.example/.well-known/agent-card.json") // { url: "https://agent.example/a2a" }
 */
export function jsonRpcInterfaceOf(card: AgentCard, cardUrl: string): { url: string } | { refused: string } {
  const found = card.supportedInterfaces.find(
    (i) => i.protocolBinding.toUpperCase() === "JSONRPC" && (i.protocolVersion === undefined || i.protocolVersion.split(".")[0] === A2A_VERSION.split(".")[0]),
  );
  if (!found) return { refused: `its card names no JSON-RPC interface of A2A ${A2A_VERSION}` };
  let url: URL;
  try {
    url = new URL(found.url);
  } catch {
    return { refused: "its JSON-RPC interface's URL is not a URL" };
  }
  if (url.origin !== new URL(cardUrl).origin)
    return { refused: `its JSON-RPC interface (${url.origin}) is not at its card's origin (${new URL(cardUrl).origin})` };
  return { url: url.href };
}

/**
 * What a call of one of an agent's skills carries: a text message (what `/rpc` and `/mcp` callers
 * send), or an A2A caller's whole message — its parts (text, data, files), its id and metadata, the
 * task and context it continues and the tasks it refers to.
 */
export interface AgentToolArguments {
  message?: string;
  parts?: Part[];
  messageId?: string;
  metadata?: Record<string, unknown>;
  contextId?: string;
  taskId?: string;
  referenceTaskIds?: string[];
}

/**
 * The message the gateway sends for a call of one of an agent's skills: the caller's own parts,
 * id and metadata when it sent a whole message, else one text part; `metadata.skillId` always the
 * skill called (the gateway's word).
 * @example messageOf("summarize", { message: "Hello" }, "m_1") // { messageId: "m_1", role: "ROLE_USER", parts: [{ text: "Hello" }], metadata: { skillId: "summarize" } }
 */
export function messageOf(skill: string, args: AgentToolArguments, messageId: string): Message {
  return {
    messageId: args.messageId ?? messageId,
    role: "ROLE_USER",
    parts: args.parts ?? [{ text: args.message ?? "" }],
    ...(args.contextId ? { contextId: args.contextId } : {}),
    ...(args.taskId ? { taskId: args.taskId } : {}),
    ...(args.referenceTaskIds?.length ? { referenceTaskIds: args.referenceTaskIds } : {}),
    metadata: { ...args.metadata, skillId: skill },
  };
}

/**
 * The tasks and the context a call's arguments name (those it continues or refers to): each must be
 * the caller's own (src/gateway/chain/policies.ts, `conversations`).
 * @example conversationsOf({ message: "more", taskId: "t1", contextId: "c1" }) // { taskIds: ["t1"], contextId: "c1" }
 */
export function conversationsOf(args: unknown): { taskIds: string[]; contextId?: string } {
  const named = (args ?? {}) as AgentToolArguments;
  const taskIds = [named.taskId, ...(Array.isArray(named.referenceTaskIds) ? named.referenceTaskIds : [])].filter(
    (id): id is string => typeof id === "string" && id.length > 0,
  );
  return { taskIds, ...(typeof named.contextId === "string" && named.contextId ? { contextId: named.contextId } : {}) };
}

/** One A2A part as a tool argument (what `PartSchema` reads). */
const PART_SCHEMA = {
  type: "object",
  description: "An A2A part: text, data (any JSON), a file by url, or raw bytes (base64); with mediaType, filename and metadata.",
  properties: {
    text: { type: "string" },
    data: {},
    url: { type: "string", maxLength: 2_048 },
    raw: { type: "string" },
    mediaType: { type: "string", maxLength: 256 },
    filename: { type: "string", maxLength: 256 },
    metadata: { type: "object" },
  },
} as const;

/**
 * The input every skill of an agent takes as a tool: a text message (or an A2A caller's whole
 * message: its parts, id and metadata), and the conversation it continues.
 */
export const SKILL_INPUT_SCHEMA = {
  type: "object",
  properties: {
    message: { type: "string", minLength: 1, maxLength: 100_000, description: "What to ask the agent." },
    parts: {
      type: "array",
      items: PART_SCHEMA,
      minItems: 1,
      maxItems: 256,
      description: "The message's A2A parts, sent as they are (message is then their text).",
    },
    messageId: { type: "string", minLength: 1, maxLength: 256, description: "The message's id (default: one of the gateway's)." },
    metadata: { type: "object", description: "The message's metadata (its skillId is always the skill called)." },
    contextId: { type: "string", maxLength: 256, description: "The conversation to continue (a previous answer's contextId)." },
    taskId: { type: "string", maxLength: 256, description: "The task to continue (an answer's taskId, when it asked for input)." },
    referenceTaskIds: { type: "array", items: { type: "string", maxLength: 256 }, maxItems: 32, description: "Tasks of yours this message refers to." },
  },
  required: ["message"],
  additionalProperties: false,
} as const;

/** A skill of an agent as the gateway's card of it shows it: the caller may call it as the tool `tool`. */
export interface ReachableSkill {
  id: string;
  name: string;
  description: string;
}

/**
 * The gateway's Agent Card of a federated agent for one caller: who the agent is (as its card
 * said when it was pinned), the gateway's own JSON-RPC endpoint for it, and only the skills the
 * caller may call; a bearer credential when the gateway requires one.
 * @example gatewayAgentCardOf({ name: "Text agent", description: "…", version: "1.0.0" }, "https://gw.example/a2a/text", skills, true)
 */
export function gatewayAgentCardOf(agent: { name: string; description: string; version: string }, endpoint: string, skills: ReachableSkill[], bearer: boolean) {
  return {
    name: agent.name,
    description: agent.description,
    version: agent.version,
    supportedInterfaces: [{ url: endpoint, protocolBinding: "JSONRPC", protocolVersion: A2A_VERSION }],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: skills.map((s) => ({ id: s.id, name: s.name, description: s.description, tags: [] as string[] })),
    ...(bearer ?
      {
        securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
        securityRequirements: [{ schemes: { bearer: { list: [] as string[] } } }],
      }
    : {}),
  };
}

/** `GetTask` and `CancelTask` params: the task's id (a `GetTask`'s `historyLength` is the agent's default). */
export const TaskIdParamsSchema = z.object({ id: z.string().min(1).max(256), historyLength: z.number().int().min(0).optional() }).loose();

/** `SendMessage` and `SendStreamingMessage` params, as the gateway's A2A endpoint takes them. */
export const SendMessageParamsSchema = z
  .object({ message: MessageSchema, configuration: z.record(z.string(), z.unknown()).optional(), metadata: Metadata })
  .loose();

/**
 * A caller's message as the arguments of the skill's tool, whole: its text (the tool's `message`:
 * its text parts, data as JSON, a file by its URL), its parts as they are, its id and metadata, and
 * the task and context it continues; undefined when it has nothing (no part, or empty ones).
 * @example argumentsOf({ messageId: "m", role: "ROLE_USER", parts: [{ text: "Hi" }] }) // { message: "Hi", parts: [{ text: "Hi" }], messageId: "m" }
 */
export function argumentsOf(message: Message): AgentToolArguments | undefined {
  const text = textsOf(message.parts).join("\n");
  if (!text) return undefined;
  const { skillId: _skill, ...metadata } = message.metadata ?? {};
  const references = (message as { referenceTaskIds?: unknown }).referenceTaskIds;
  return {
    message: text,
    parts: message.parts,
    messageId: message.messageId,
    ...(Object.keys(metadata).length ? { metadata } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(Array.isArray(references) && references.length ? { referenceTaskIds: references.filter((r): r is string => typeof r === "string") } : {}),
  };
}

/** The texts of parts (data as JSON, a file by its URL). */
function textsOf(parts: Part[]): string[] {
  return parts.flatMap((part) =>
    part.text !== undefined ? [part.text]
    : part.data !== undefined ? [JSON.stringify(part.data)]
    : part.url !== undefined ? [part.url]
    : [],
  );
}

/**
 * An agent's answer as an MCP tool result: the text of its artifacts (or of its message), its
 * status message when it did not complete, and the answer itself in `structuredContent` (a `task`
 * with its id, context and state, or a `message`); `isError` when the task failed, was rejected or
 * canceled.
 * @example toolResultOf({ task }) // { content: [{ type: "text", text: "…" }], structuredContent: { task } }
 */
export function toolResultOf(answer: SendMessageResult): {
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: true;
} {
  if ("message" in answer) return { content: textsOf(answer.message.parts).map((text) => ({ type: "text", text })), structuredContent: answer };
  const { task } = answer;
  const texts = (task.artifacts ?? []).flatMap((a) => textsOf(a.parts));
  const state = task.status.state;
  if (state !== "TASK_STATE_COMPLETED") texts.push(`[${state}] ${textsOf(task.status.message?.parts ?? []).join(" ")}`.trim());
  return { content: texts.map((text) => ({ type: "text", text })), structuredContent: answer, ...(FAILED_STATES.has(state) ? { isError: true as const } : {}) };
}

/**
 * A task as a stream's events leave it: the first task, then each status and artifact update
 * applied; undefined until a task or a message came.
 * @example let task; for (const event of events) task = appliedEvent(task, event)
 */
export function appliedEvent(answer: SendMessageResult | undefined, event: StreamResponse): SendMessageResult | undefined {
  if ("task" in event || "message" in event) return event;
  if (!answer || !("task" in answer)) return answer;
  const task = { ...answer.task };
  if ("statusUpdate" in event) task.status = event.statusUpdate.status;
  else {
    const { artifact, append } = event.artifactUpdate;
    const artifacts = [...(task.artifacts ?? [])];
    const at = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
    if (at < 0) artifacts.push(artifact);
    else artifacts[at] = append ? { ...artifacts[at]!, parts: [...artifacts[at]!.parts, ...artifact.parts] } : artifact;
    task.artifacts = artifacts;
  }
  return { task };
}

/**
 * An agent's answer with each run of adjacent plain text parts (a message's, a status message's,
 * an artifact's — a streamed artifact's appended chunks among them) joined into one part: the text
 * as the agent wrote it, read whole (a secret split across two chunks is one secret again).
 * @example joinedText({ message: { …, parts: [{ text: "ghp_A1b2" }, { text: "C3d4…" }] } }) // parts: [{ text: "ghp_A1b2C3d4…" }]
 */
export function joinedText(answer: SendMessageResult): SendMessageResult {
  if ("message" in answer) return { message: { ...answer.message, parts: joinedParts(answer.message.parts) } };
  const { task } = answer;
  return {
    task: {
      ...task,
      status: task.status.message ? { ...task.status, message: { ...task.status.message, parts: joinedParts(task.status.message.parts) } } : task.status,
      ...(task.artifacts ? { artifacts: task.artifacts.map((a) => ({ ...a, parts: joinedParts(a.parts) })) } : {}),
    },
  };
}

/** Parts with each run of adjacent parts that are text alone (no other field) joined. */
function joinedParts(parts: Part[]): Part[] {
  const plain = (part: Part | undefined): part is { text: string } => !!part && typeof part.text === "string" && Object.keys(part).length === 1;
  const joined: Part[] = [];
  for (const part of parts) {
    const last = joined.at(-1);
    if (plain(last) && plain(part)) joined[joined.length - 1] = { text: last.text + part.text };
    else joined.push(part);
  }
  return joined;
}

/** The text of a status update (what a caller is told as progress). */
export function statusTextOf(status: z.infer<typeof TaskStatusSchema>): string {
  return `${status.state}${status.message ? `: ${textsOf(status.message.parts).join(" ")}` : ""}`.slice(0, 1_000);
}
