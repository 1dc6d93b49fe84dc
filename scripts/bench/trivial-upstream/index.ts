/**
 * The benchmark's trivial MCP upstream: a 2026-07-28 stateless server that answers
 * `server/discover`, `tools/list` and `tools/call` of `subtract` (a - b) and nothing else, with
 * no SDK in the way — the floor of an upstream, as `bare-hop/` is the floor of a hop, so the
 * federated sides measure what the gateway adds. Under `/many` it lists 1,000 tools (`t0000` …
 * `t0999`, all `subtract`), for the listing side. `GET /count` answers how many MCP requests this
 * isolate has served (the listing side checks that `tools/list` through the gateway sends none).
 * `GET /manifest` answers a name, so the bench mesh can start it like any Worker. Not deployed.
 */
const VERSION = "2026-07-28";
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

interface Call {
  id?: unknown;
  method?: unknown;
  params?: { name?: unknown; arguments?: { minuend?: unknown; subtrahend?: unknown } };
}

function answer(call: Call, tools: typeof ONE): unknown {
  switch (call.method) {
    case "server/discover":
      return { supportedVersions: [VERSION], capabilities: { tools: {} }, serverInfo: { name: "bench-trivial-upstream", version: "1.0.0" } };
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
    const result = answer(call, pathname === "/many" ? THOUSAND : ONE);
    if (result === undefined)
      return Response.json({ jsonrpc: "2.0", id: call.id ?? null, error: { code: -32602, message: "Unknown method or bad arguments" } }, { status: 400 });
    return Response.json({ jsonrpc: "2.0", id: call.id, result });
  },
};
