/**
 * `modbus.decode`'s own handler and zod schemas, for the benchmark's SDK peers (the v1 SDK's
 * server in `mcp-sdk-server.ts`, the v2 SDK's in `modbus-tool-v2.ts`): each registers the tool
 * with its SDK and answers it here, so the peers run the same tool logic as the gateway's skill.
 */
import { ROOT_CONTEXT } from "@opentelemetry/api";
import modbus from "../../skills/modbus-decode/index.js";
import { definitionOf } from "../../src/skill/index.js";

/** The skill's definition: its name, description and zod input and output. */
export const modbusDefinition = definitionOf(modbus);

/**
 * Runs the handler as a tool call of an anonymous caller, answered as an MCP tool result.
 * @example await answerModbusTool({ frame: "01 03 02 00 2A 38 5A" })
 */
export async function answerModbusTool(args: unknown): Promise<{ content: Array<{ type: "text"; text: string }>; structuredContent: Record<string, unknown> }> {
  const result = await modbusDefinition.handler(args as never, {
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
}
