/**
 * The benchmark's reference: the official MCP TypeScript SDK serving the same tool logic as
 * the gateway's `modbus.decode` skill (its own handler and zod schemas), statelessly on Node's
 * http server: a new `McpServer` and transport per request, as the SDK requires for stateless
 * use (GHSA-345p-7cg4-v4c7), JSON responses. Run in its own process; prints `{"port":N}`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { answerModbusTool, modbusDefinition as definition } from "./modbus-tool.js";
import { serveStateless } from "./sdk-stateless.js";

function serverWithTool(): McpServer {
  const server = new McpServer({ name: "sdk-reference", version: "1.0.0" });
  server.registerTool(
    definition.name,
    { description: definition.description, inputSchema: definition.input.shape, outputSchema: definition.output.shape, annotations: { idempotentHint: true } },
    answerModbusTool,
  );
  return server;
}

serveStateless(serverWithTool);
