/**
 * The federated sides' peer: an MCP aggregator built the way TypeScript aggregators are built,
 * with the official v1 SDK on both sides in one Node process. Its client connects once to the
 * upstream given as the first argument (the 2025-11-25 handshake: one session), lists the tools
 * once, and every `tools/call` a caller sends is forwarded with `callTool`; to callers it is a
 * stateless Streamable HTTP server (a new low-level `Server` and transport per request, as the
 * SDK requires for stateless use; JSON responses) that lists the upstream's tools as they are.
 * Run in its own process; prints `{"port":N}` once its client is connected.
 * @example node --import tsx scripts/bench/sdk-aggregator.ts http://127.0.0.1:8787/session
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { serveStateless } from "./sdk-stateless.js";

const upstreamUrl = process.argv[2];
if (!upstreamUrl) throw new Error("usage: sdk-aggregator.ts <upstream MCP URL>");

const client = new Client({ name: "bench-sdk-aggregator", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(upstreamUrl)));
const { tools } = await client.listTools();

/** A stateless server for one request: the upstream's tools listed, each call forwarded. */
function aggregator(): Server {
  const server = new Server({ name: "bench-sdk-aggregator", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) => client.callTool({ name: request.params.name, arguments: request.params.arguments ?? {} }));
  return server;
}

const http = serveStateless(aggregator);
process.on("SIGTERM", () => {
  http.close();
  void client.close();
});
