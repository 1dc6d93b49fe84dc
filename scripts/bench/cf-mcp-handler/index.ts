/**
 * The benchmark's third MCP reference: Cloudflare's own `createMcpHandler` (the `agents`
 * package, stateless, SDK v2 factory) on workerd — the runtime the gateway runs on — serving
 * the same tool logic as the gateway's `modbus.decode` skill (its own handler and zod schemas)
 * in-process. `GET /manifest` answers the skill's manifest so the bench mesh can start it like
 * any Worker. Not deployed.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "agents/mcp";
import modbus from "../../../skills/modbus-decode/index.js";

const { definition, manifest } = modbus;

const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: "cf-mcp-handler-reference", version: "1.0.0" });
    server.registerTool(
      definition.name,
      { description: definition.description, inputSchema: definition.input, outputSchema: definition.output, annotations: { idempotentHint: true } },
      async (args) => {
        const result = await definition.handler(args as never, { caller: "anonymous", env: {}, requestId: undefined, waitUntil: () => {}, progress: () => {}, signal: new AbortController().signal });
        return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
      },
    );
    return server;
  },
  { route: "/" },
);

export default {
  fetch(request: Request, env: unknown, ctx: ExecutionContext): Promise<Response> | Response {
    if (new URL(request.url).pathname === "/manifest") return Response.json(manifest);
    return handler(request, env, ctx);
  },
};
