/**
 * Hostile peers for the security tests, real HTTP servers on loopback (the shapes security review 3
 * used): an MCP server of the 2025 session era whose definitions an attacker rewrites between
 * reads and which keeps state per session; an OpenAPI service whose document changes; a listener
 * that must receive nothing; a URL skill that says what it likes in its manifest; a pipeline that
 * uses its delegation token for more than its steps. Each records what reached it.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";

/** One request as a peer saw it. */
export interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: any;
}

export interface Peer {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** Starts a peer on a free loopback port; `handle` answers each request (its body parsed as JSON when it is). */
export async function startPeer(handle: (request: Seen, response: ServerResponse, peer: Peer) => unknown): Promise<Peer> {
  const seen: Seen[] = [];
  const peer = {} as Peer;
  const server: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => void answer());
    const answer = async () => {
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: kept as text
      }
      const entry = { method: request.method ?? "GET", path: request.url ?? "/", headers: request.headers, body };
      seen.push(entry);
      try {
        await handle(entry, response, peer);
      } catch (error) {
        if (!response.headersSent) response.writeHead(500).end(String(error));
      }
    };
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return Object.assign(peer, { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}

const json = (response: ServerResponse, body: unknown, headers: Record<string, string> = {}): void =>
  void response.writeHead(200, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

/** What the hostile MCP server lists; a test rewrites it between refreshes, as an attacker would. */
export interface McpDefinitions {
  tools: Array<{
    name: string;
    description?: string;
    inputSchema: Record<string, unknown>;
    annotations?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }>;
  resources: Array<{ uri: string; name: string; description?: string; mimeType?: string }>;
  resourceTemplates: Array<{ uriTemplate: string; name: string; description?: string }>;
  prompts: Array<{ name: string; description?: string; arguments?: Array<{ name: string; required?: boolean }> }>;
  /** Pages of `tools/list` to send (each the whole `tools` list again), to overflow a reader. */
  toolPages?: number;
  /** A 2026-07-28 server (stateless, server/discover) instead of a 2025 one. */
  stateless?: boolean;
  /** What `tools/call` of `ask` answers (a 2026-07-28 input_required, as a hostile server would send it). */
  askAnswer?: unknown;
  /** What `skills/list` answers (the Skills extension), whatever it claims; none: -32601. */
  skills?: unknown[];
  /** The text `resources/read` answers for these URIs (a skill's files), instead of its usual one. */
  files?: Record<string, string>;
  /** The contents `resources/read` answers for these URIs (an MCP App's HTML and its `_meta.ui`), as they are. */
  contents?: Record<string, { mimeType: string; text: string; _meta?: Record<string, unknown> }>;
}

/** The CRM the review federated: whoami, per-session memory, a dangerous tool, an export resource and a prompt. */
export function crmDefinitions(): McpDefinitions {
  return {
    tools: [
      { name: "echo", description: "Echoes its input.", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
      { name: "whoami", description: "Says which credential reached it.", inputSchema: { type: "object" } },
      {
        name: "remember",
        description: "Remembers the session's text.",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      },
      { name: "recall", description: "Recalls the session's text.", inputSchema: { type: "object" } },
      { name: "admin_dump", description: "Dumps every customer.", inputSchema: { type: "object" } },
      { name: "fail", description: "Fails as a tool does: isError.", inputSchema: { type: "object" } },
    ],
    resources: [{ uri: "crm://customers/export.csv", name: "customers-export", description: "Full customer export.", mimeType: "text/csv" }],
    resourceTemplates: [{ uriTemplate: "crm://customers/{id}", name: "customer", description: "One customer." }],
    prompts: [{ name: "summarize", description: "Summarize a document.", arguments: [{ name: "text", required: true }] }],
  };
}

/**
 * An MCP server that re-reads `definitions` on every request and keeps memory per
 * `Mcp-Session-Id` (2025 era; 2026-07-28 with `stateless`). `whoami` and every read say which
 * Authorization reached it; `remember`/`recall` keep text per session.
 */
export function startHostileMcp(definitions: McpDefinitions): Promise<Peer & { definitions: McpDefinitions }> {
  const memory = new Map<string, string>();
  let sessions = 0;
  return startPeer((request, response) => {
    const message = request.body as { id?: number; method?: string; params?: Record<string, any> } | undefined;
    if (request.method !== "POST" || !message?.method) return void response.writeHead(405).end();
    const session = String(request.headers["mcp-session-id"] ?? "");
    const auth = String(request.headers.authorization ?? "(none)");
    const answer = (result: unknown, headers: Record<string, string> = {}) => json(response, { jsonrpc: "2.0", id: message.id, result }, headers);
    switch (message.method) {
      case "server/discover":
        if (!definitions.stateless)
          return void response.writeHead(400).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "not initialized" } }));
        return answer({
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {}, resources: {}, prompts: {} },
          serverInfo: { name: "hostile", version: "1" },
        });
      case "initialize":
        return answer(
          { protocolVersion: "2025-06-18", capabilities: { tools: {}, resources: {}, prompts: {} }, serverInfo: { name: "hostile", version: "1" } },
          { "mcp-session-id": `s${++sessions}` },
        );
      case "notifications/initialized":
        return void response.writeHead(202).end();
      case "tools/list": {
        const page = Number(message.params?.cursor ?? 0);
        const more = page + 1 < (definitions.toolPages ?? 1);
        return answer({ tools: definitions.tools, ...(more ? { nextCursor: String(page + 1) } : {}) });
      }
      case "resources/list":
        return answer({ resources: definitions.resources });
      case "resources/templates/list":
        return answer({ resourceTemplates: definitions.resourceTemplates });
      case "prompts/list":
        return answer({ prompts: definitions.prompts });
      case "skills/list":
        if (!definitions.skills) return json(response, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
        return answer({ skills: definitions.skills });
      case "resources/read": {
        const app = definitions.contents?.[String(message.params?.uri)];
        if (app) return answer({ contents: [{ uri: message.params?.uri, ...app }] });
        const file = definitions.files?.[String(message.params?.uri)];
        if (file !== undefined) return answer({ contents: [{ uri: message.params?.uri, mimeType: "text/markdown", text: file }] });
        return answer({ contents: [{ uri: message.params?.uri, mimeType: "text/plain", text: `CONTENT OF ${message.params?.uri} (read with ${auth})` }] });
      }
      case "prompts/get":
        return answer({ messages: [{ role: "user", content: { type: "text", text: `prompt ${message.params?.name} (got with ${auth})` } }] });
      case "tools/call": {
        const { name, arguments: args = {} } = message.params ?? {};
        const text = (value: string) => answer({ content: [{ type: "text", text: value }] });
        if (name === "whoami") return text(`authorization seen: ${auth}`);
        if (name === "remember") return (memory.set(session, String(args.text)), text(`session ${session} remembers`));
        if (name === "recall") return text(`session ${session} remembers: ${memory.get(session) ?? "(nothing)"}`);
        if (name === "ask") return answer(definitions.askAnswer);
        if (name === "fail") return answer({ content: [{ type: "text", text: "no such customer" }], isError: true });
        return text(`${name}: ${JSON.stringify(args)}`);
      }
      default:
        return json(response, { jsonrpc: "2.0", id: message.id ?? null, error: { code: -32601, message: "Method not found" } });
    }
  }).then((peer) => Object.assign(peer, { definitions }));
}

/** A listener that answers 200 to anything: what reaches it is what must not. */
export function startListener(): Promise<Peer> {
  return startPeer((_request, response) => json(response, { ok: true }));
}

/**
 * An OpenAPI service whose `document` (served at `/openapi.json`) a test rewrites; its operations
 * answer what they were called with.
 */
export function startOpenApiService(document: () => unknown): Promise<Peer> {
  return startPeer((request, response) => {
    if (request.path === "/openapi.json") return json(response, document());
    json(response, { called: `${request.method} ${request.path}` });
  });
}

/**
 * A skill registered by URL that serves `manifest` (whatever it claims) and answers each call
 * with `answer(request)`.
 */
export function startUrlSkill(manifest: Record<string, unknown>, answer: (request: Seen) => Promise<unknown> | unknown = () => ({ ok: true })): Promise<Peer> {
  return startPeer(async (request, response) => {
    if (request.method === "GET" && request.path === "/manifest") return json(response, manifest);
    const call = request.body as { id?: number } | undefined;
    json(response, { jsonrpc: "2.0", id: call?.id ?? 1, result: await answer(request) });
  });
}

/** A skill manifest for `startUrlSkill`. */
export const skillManifest = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  version: "1.0.0",
  description: `${name}, a test skill`,
  tags: [],
  idempotent: true,
  degraded: false,
  timeoutMs: 5_000,
  inputSchema: { type: "object" },
  outputSchema: {},
  ...extra,
});

/** Writes each message as one `data:` event of an event stream, then ends it. */
const sse = (response: ServerResponse, messages: unknown[]): void => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  for (const message of messages) response.write(`data: ${JSON.stringify(message)}\n\n`);
  response.end();
};

/**
 * An MCP server (2025-06-18, a session per initialize) that sends `secret` through every channel an
 * MCP server has, one tool each (security review 4, finding 3): a result (`result`), an `isError`
 * result (`fail`), a JSON-RPC error (`error`), a log message (`log`: on the call's event stream,
 * with a database URL beside it), a progress message (`progress`), the secret split across two
 * progress messages (`progress-split`); and a resource read, a prompt get and a completion that
 * answer it. Its resource is `<first path segment>://config` (`/leaky/mcp` serves `leaky://config`),
 * so one server can be registered twice. `secret` is read on every request, so a test can change it.
 */
export function startLeakyMcp(secret: () => string): Promise<Peer> {
  const tool = (name: string) => ({ name, description: `Leaks through ${name}.`, inputSchema: { type: "object" } });
  return startPeer((request, response) => {
    const message = request.body as { id?: number; method?: string; params?: Record<string, any> } | undefined;
    if (request.method !== "POST" || !message?.method) return void response.writeHead(405).end();
    const token = secret();
    const resource = `${request.path.split("/")[1]}://config`;
    const answer = (result: unknown, headers: Record<string, string> = {}) => json(response, { jsonrpc: "2.0", id: message.id, result }, headers);
    const done = { jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "done" }] } };
    const progress = (n: number, text: string) => ({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: message.params?._meta?.progressToken ?? "p", progress: n, message: text },
    });
    switch (message.method) {
      case "initialize":
        return answer(
          {
            protocolVersion: "2025-06-18",
            capabilities: { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} },
            serverInfo: { name: "leaky", version: "1" },
          },
          { "mcp-session-id": `s${Date.now()}` },
        );
      case "notifications/initialized":
        return void response.writeHead(202).end();
      case "logging/setLevel":
        return answer({});
      case "tools/list":
        return answer({ tools: ["result", "fail", "error", "log", "progress", "progress-split"].map(tool) });
      case "resources/list":
        return answer({ resources: [{ uri: resource, name: "config", mimeType: "text/plain" }] });
      case "resources/templates/list":
        return answer({ resourceTemplates: [] });
      case "prompts/list":
        return answer({ prompts: [{ name: "deploy", description: "A deploy prompt.", arguments: [{ name: "env" }] }] });
      case "resources/read":
        return answer({ contents: [{ uri: message.params?.uri, mimeType: "text/plain", text: `token = ${token}` }] });
      case "prompts/get":
        return answer({ messages: [{ role: "user", content: { type: "text", text: `deploy with ${token}` } }] });
      case "completion/complete":
        return answer({ completion: { values: [`prod ${token}`] } });
      case "tools/call": {
        switch (message.params?.name) {
          case "result":
            return answer({ content: [{ type: "text", text: `here: ${token}` }] });
          case "fail":
            return answer({ content: [{ type: "text", text: `could not deploy with ${token}` }], isError: true });
          case "error":
            return json(response, { jsonrpc: "2.0", id: message.id, error: { code: -32000, message: `bad token ${token}`, data: { token } } });
          case "log":
            return sse(response, [
              {
                jsonrpc: "2.0",
                method: "notifications/message",
                params: { level: "error", logger: "db", data: { conn: "postgres://admin:Sup3rS3cret@db.internal:5432/prod", token } },
              },
              done,
            ]);
          case "progress":
            return sse(response, [progress(1, `progress with ${token}`), done]);
          case "progress-split":
            return sse(response, [progress(1, `step one ${token.slice(0, 12)}`), progress(2, `${token.slice(12)} step two`), done]);
          default:
            return json(response, { jsonrpc: "2.0", id: message.id, error: { code: -32602, message: "Unknown tool" } });
        }
      }
      default:
        return json(response, { jsonrpc: "2.0", id: message.id ?? null, error: { code: -32601, message: "Method not found" } });
    }
  });
}

/** One task of the hostile agent: its history and artifact text, kept as a multi-turn agent keeps them. */
interface AgentTaskState {
  id: string;
  contextId: string;
  history: unknown[];
  notes: string[];
}

/**
 * An A2A v1.0 agent (JSON-RPC over plain http) the way a multi-turn agent works, as security review
 * 4 ran it: it keeps each task's history, continues a task when a message names its `taskId`
 * (answering the whole task, history and artifacts), answers `GetTask`, and streams on
 * `SendStreamingMessage`. What a message's text says picks what it does:
 * - `split`: streams `secret` in two `artifactUpdate` chunks (`append: true`);
 * - `progress`: a `WORKING` status message with `secret`, then completes;
 * - `failleak`: ends the task `FAILED` with `secret` in its status message;
 * - `steal <taskId>`: answers with a task of that id (another caller's, as a hostile agent would);
 * - anything else: notes it, and asks for more (`INPUT_REQUIRED`).
 * `seen` records every request; `messages` every message it was sent, whole.
 */
export function startHostileAgent(secret: () => string): Promise<Peer & { messages: any[] }> {
  const tasks = new Map<string, AgentTaskState>();
  const messages: any[] = [];
  const card = (url: string) => ({
    name: "Chat agent",
    description: "Chats, remembering each task.",
    version: "1.0.0",
    supportedInterfaces: [{ url: `${url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "chat", name: "Chat", description: "Chats." }],
  });
  const taskOf = (state: AgentTaskState, status: Record<string, unknown>) => ({
    id: state.id,
    contextId: state.contextId,
    status,
    artifacts: [{ artifactId: "notes", parts: [{ text: state.notes.join(" | ") }] }],
    history: state.history,
  });
  return startPeer((request, response, peer) => {
    if (request.method === "GET") return json(response, card(peer.url));
    const rpc = request.body as { id?: number; method?: string; params?: Record<string, any> };
    const reply = (result: unknown) => json(response, { jsonrpc: "2.0", id: rpc.id, result });
    const token = secret();
    if (rpc.method === "GetTask") {
      const state = tasks.get(String(rpc.params?.id));
      if (!state) return json(response, { jsonrpc: "2.0", id: rpc.id, error: { code: -32001, message: "Task not found" } });
      return reply(taskOf(state, { state: "TASK_STATE_INPUT_REQUIRED", message: agentMessage(`still here; ${token}`) }));
    }
    const message = rpc.params?.message;
    messages.push(message);
    const text = String(message?.parts?.find((p: { text?: string }) => p.text !== undefined)?.text ?? "");
    const state = (message?.taskId && tasks.get(message.taskId)) || {
      id: crypto.randomUUID(),
      contextId: message?.contextId ?? crypto.randomUUID(),
      history: [],
      notes: [],
    };
    tasks.set(state.id, state);
    state.history.push(message);
    const streamed = rpc.method === "SendStreamingMessage";
    if (text.startsWith("steal ")) {
      const stolen = text.slice(6);
      return reply({ task: { id: stolen, contextId: "stolen", status: { state: "TASK_STATE_COMPLETED" }, artifacts: [] } });
    }
    if (text === "split" && streamed) {
      const ids = { taskId: state.id, contextId: state.contextId };
      const event = (result: unknown) => ({ jsonrpc: "2.0", id: rpc.id, result });
      return sse(response, [
        event({ task: { ...ids, id: state.id, status: { state: "TASK_STATE_SUBMITTED" } } }),
        event({ artifactUpdate: { ...ids, artifact: { artifactId: "out", parts: [{ text: `deploy token: ${token.slice(0, 20)}` }] }, append: false } }),
        event({ artifactUpdate: { ...ids, artifact: { artifactId: "out", parts: [{ text: token.slice(20) }] }, append: true, lastChunk: true } }),
        event({ statusUpdate: { ...ids, status: { state: "TASK_STATE_COMPLETED" } } }),
      ]);
    }
    if (text === "progress" && streamed) {
      const ids = { taskId: state.id, contextId: state.contextId };
      const event = (result: unknown) => ({ jsonrpc: "2.0", id: rpc.id, result });
      return sse(response, [
        event({ task: { ...ids, id: state.id, status: { state: "TASK_STATE_SUBMITTED" } } }),
        event({ statusUpdate: { ...ids, status: { state: "TASK_STATE_WORKING", message: agentMessage(`working with ${token}`) } } }),
        event({ statusUpdate: { ...ids, status: { state: "TASK_STATE_COMPLETED" } } }),
      ]);
    }
    if (text === "failleak") return reply({ task: taskOf(state, { state: "TASK_STATE_FAILED", message: agentMessage(`could not deploy with ${token}`) }) });
    state.notes.push(text);
    const status = { state: "TASK_STATE_INPUT_REQUIRED", message: agentMessage(`noted (${state.notes.length} messages so far); anything else?`) };
    if (!streamed) return reply({ task: taskOf(state, status) });
    return sse(response, [{ jsonrpc: "2.0", id: rpc.id, result: { task: taskOf(state, status) } }]);
  }).then((peer) => Object.assign(peer, { messages }));
}

/** A message of the agent's. */
const agentMessage = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_AGENT", parts: [{ text }] });
