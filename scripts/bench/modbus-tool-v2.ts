/**
 * The MCP peers of the benchmark that use the v2 SDK (`mcp-sdk-v2-server.ts` on Node,
 * `cf-mcp-handler/` on workerd) serve the same tool: `modbus.decode`'s own handler and zod
 * schemas, registered on a v2 `McpServer` here once.
 */
import { ROOT_CONTEXT } from "@opentelemetry/api";
import { McpServer } from "@modelcontextprotocol/server";
import modbus from "../../skills/modbus-decode/index.js";
import { definitionOf } from "../../src/skill/index.js";

const definition = definitionOf(modbus);

/**
 * A v2 `McpServer` named `name` with the `modbus.decode` tool.
 * @example createMcpHandler(() => modbusToolServer("sdk-v2-reference"))
 */
export function modbusToolServer(name: string): McpServer {
  const server = new McpServer({ name, version: "1.0.0" });
  server.registerTool(
    definition.name,
    { description: definition.description, inputSchema: definition.input, outputSchema: definition.output, annotations: { idempotentHint: true } },
    async (args) => {
      const result = await definition.handler(args as never, {
        caller: "anonymous",
        env: {},
        requestId: undefined,
        waitUntil: () => {},
        progress: () => {},
        log: () => {},
        signal: new AbortController().signal,
        trace: ROOT_CONTEXT,
      });
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
    },
  );
  return server;
}
