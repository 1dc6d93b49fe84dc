/**
 * The benchmark's trivial MCP upstream: a 2026-07-28 stateless server that answers
 * `server/discover`, `tools/list` and `tools/call` of `subtract` (a - b) and nothing else, with
 * no SDK in the way — the floor of an upstream, as `bare-hop/` is the floor of a hop, so the
 * federated sides measure what the gateway adds. Under `/many` it lists 1,000 tools (`t0000` …
 * `t0999`, all `subtract`), for the listing side. Under `/session` it is a 2025-11-25 server
 * instead: `initialize` opens a session (`Mcp-Session-Id`), and every other request must carry
 * one it opened (else 404, as the transport says of an unknown session: so a `server/discover`
 * without one is refused, and a client falls back to the handshake). `GET /count` answers how many MCP requests this
 * isolate has served (the listing side checks that `tools/list` through the gateway sends none).
 * `GET /manifest` answers a name, so the bench mesh can start it like any Worker. Not deployed.
 */
const VERSION = "2026-07-28";
const SESSION_VERSION = "2025-11-25";
const MANY = 1_000;

const subtract = (name: string) => ({
  name,
  description: "Subtracts subtrahend from minuend",
  inputSchema: { type: "object", properties: { minuend: { type: "number" }, subtrahend: { type: "number" } }, required: ["minuend", "subtrahend"] },
  outputSchema: { type: "object", properties: { result: { type: "number" } }, required: ["result"] },
  annotations: { readOnlyHint: true, idempotentHint: true },
});
const ONE = [subtract("subtract")];
const THOUSAND = Array.from({ length: MANY }, (_, i) => subtract(`t${String(i).padStart(4, "0")}`));

let served = 0;
/** The sessions `/session` opened (one per client: a handful in a bench). */
const sessions = new Set<string>();

interface Call {
  id?: unknown;
  method?: unknown;
  params?: { name?: unknown; arguments?: { minuend?: unknown; subtrahend?: unknown } };
}

const SERVER_INFO = { name: "bench-trivial-upstream", version: "1.0.0" };

function answer(call: Call, tools: typeof ONE): unknown {
  switch (call.method) {
    case "server/discover":
      return { supportedVersions: [VERSION], capabilities: { tools: {} }, serverInfo: SERVER_INFO };
    case "tools/list":
      return { tools };
    case "tools/call": {
      const { minuend, subtrahend } = call.params?.arguments ?? {};
      if (typeof minuend !== "number" || typeof subtrahend !== "number") return undefined;
      const result = minuend - subtrahend;
      return { content: [{ type: "text", text: String(result) }], structuredContent: { result } };
    }
    default:
      return undefined;
  }
}

export default {
  async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (request.method === "GET" && pathname === "/manifest") return Response.json({ name: "bench.trivial-upstream" });
    if (request.method === "GET" && pathname === "/count") return Response.json({ served });
    if (request.method !== "POST") return new Response(null, { status: 405 });
    served++;
    const call = (await request.json().catch(() => ({}))) as Call;
    if (pathname === "/session") {
      if (call.method === "initialize") {
        const id = crypto.randomUUID();
        sessions.add(id);
        const result = { protocolVersion: SESSION_VERSION, capabilities: { tools: {} }, serverInfo: SERVER_INFO };
        return Response.json({ jsonrpc: "2.0", id: call.id, result }, { headers: { "mcp-session-id": id } });
      }
      const id = request.headers.get("mcp-session-id");
      if (id === null || !sessions.has(id))
        return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }, { status: 404 });
      if (call.id === undefined) return new Response(null, { status: 202 }); // notifications/initialized
    }
    const result = answer(call, pathname === "/many" ? THOUSAND : ONE);
    if (result === undefined)
      return Response.json({ jsonrpc: "2.0", id: call.id ?? null, error: { code: -32602, message: "Unknown method or bad arguments" } }, { status: 400 });
    return Response.json({ jsonrpc: "2.0", id: call.id, result });
  },
};
