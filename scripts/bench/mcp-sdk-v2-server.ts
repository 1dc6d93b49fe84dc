/**
 * The benchmark's second MCP reference: the official v2 SDK (`@modelcontextprotocol/server`)
 * serving the same tool logic as the gateway's `modbus.decode` skill (its own handler and zod
 * schemas) through `createMcpHandler` — stateless, a server per request, as the v2 SDK serves
 * HTTP — on Node via @hono/node-server. Run in its own process; prints `{"port":N}`.
 */
import { serve } from "@hono/node-server";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
import modbus from "../../skills/modbus-decode/index.js";

const { definition } = modbus;

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "sdk-v2-reference", version: "1.0.0" });
  server.registerTool(
    definition.name,
    { description: definition.description, inputSchema: definition.input, outputSchema: definition.output, annotations: { idempotentHint: true } },
    async (args) => {
      const result = await definition.handler(args as never, { caller: "anonymous", env: {}, requestId: undefined, waitUntil: () => {}, progress: () => {}, signal: new AbortController().signal });
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
    },
  );
  return server;
});

const server = serve({ fetch: (request) => handler.fetch(request), port: 0, hostname: "127.0.0.1" }, (info) => console.log(JSON.stringify({ port: info.port })));
process.on("SIGTERM", () => server.close());
