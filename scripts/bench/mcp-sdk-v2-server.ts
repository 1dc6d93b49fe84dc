/**
 * The benchmark's second MCP reference: the official v2 SDK (`@modelcontextprotocol/server`)
 * serving the same tool logic as the gateway's `modbus.decode` skill through `createMcpHandler` —
 * stateless, a server per request, as the v2 SDK serves HTTP — on Node via @hono/node-server.
 * Run in its own process; prints `{"port":N}`.
 */
import { serve } from "@hono/node-server";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { modbusToolServer } from "./modbus-tool-v2.js";

const handler = createMcpHandler(() => modbusToolServer("sdk-v2-reference"));

const server = serve({ fetch: (request) => handler.fetch(request), port: 0, hostname: "127.0.0.1" }, (info) =>
  console.log(JSON.stringify({ port: info.port })),
);
process.on("SIGTERM", () => server.close());
