/**
 * The benchmark's third MCP reference: Cloudflare's own `createMcpHandler` (the `agents`
 * package, stateless, SDK v2 factory) on workerd — the runtime the gateway runs on — serving the
 * same tool logic as the gateway's `modbus.decode` skill in-process. `GET /manifest` answers the
 * skill's manifest so the bench mesh can start it like any Worker. Not deployed.
 */
import { createMcpHandler } from "agents/mcp";
import modbus from "../../../skills/modbus-decode/index.js";
import { modbusToolServer } from "../modbus-tool-v2.js";

const handler = createMcpHandler(() => modbusToolServer("cf-mcp-handler-reference"), { route: "/" });

export default {
  fetch(request: Request, env: unknown, ctx: ExecutionContext): Promise<Response> | Response {
    if (new URL(request.url).pathname === "/manifest") return Response.json(modbus.manifest);
    return handler(request, env, ctx);
  },
};
