/**
 * The MCP peers of the benchmark that use the v2 SDK (`mcp-sdk-v2-server.ts` on Node,
 * `cf-mcp-handler/` on workerd) serve the same tool: `modbus.decode`'s own handler and zod
 * schemas, registered on a v2 `McpServer` here once.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { answerModbusTool, modbusDefinition as definition } from "./modbus-tool.js";

/**
 * A v2 `McpServer` named `name` with the `modbus.decode` tool.
 * @example createMcpHandler(() => modbusToolServer("sdk-v2-reference"))
 */
export function modbusToolServer(name: string): McpServer {
  const server = new McpServer({ name, version: "1.0.0" });
  server.registerTool(
    definition.name,
    { description: definition.description, inputSchema: definition.input, outputSchema: definition.output, annotations: { idempotentHint: true } },
    answerModbusTool,
  );
  return server;
}
