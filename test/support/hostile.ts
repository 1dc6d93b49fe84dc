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
  tools: Array<{ name: string; description?: string; inputSchema: Record<string, unknown>; annotations?: Record<string, unknown> }>;
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
