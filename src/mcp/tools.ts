/**
 * Skills as MCP tools: the tool a skill is listed as, the params its arguments become, and the
 * tool result its answer (or its error) becomes. MCP wants object schemas for input and output;
 * a skill with an array input (positional only) or a non-object output is wrapped in one
 * property, `params` or `result`, and unwrapped on the way through.
 */
import type { ToolSummary } from "../gateway/chain/catalog.js";
import type { JsonRpcErrorObject, JsonRpcParams } from "../protocols/jsonrpc/index.js";
import { type CallToolResult, LEGACY_UI_RESOURCE_KEY, type Tool } from "../protocols/mcp/index.js";

/** The argument that carries an array-input skill's positional params. */
export const PARAMS_ARGUMENT = "params";
/** The `structuredContent` key that carries a non-object output. */
export const RESULT_FIELD = "result";

type JsonSchema = Record<string, unknown>;

/** True when MCP can take the schema as it is (an object schema). */
function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === "object";
}

/**
 * An object schema with one required property holding `schema`; `$schema` and `$defs` stay at
 * the root so `$ref`s keep resolving.
 * @example wrapInObject({ type: "array", items: { type: "number" } }, "params")
 */
export function wrapInObject(schema: JsonSchema, key: string): JsonSchema {
  const { $schema, $defs, ...inner } = schema;
  return {
    ...($schema === undefined ? {} : { $schema }),
    type: "object",
    properties: { [key]: inner },
    required: [key],
    additionalProperties: false,
    ...($defs === undefined ? {} : { $defs }),
  };
}

/**
 * The MCP tool a skill is listed as: its name, description, JSON Schemas (from zod, as the skill
 * declared them) and `idempotentHint` from `idempotent`.
 * @example toolOf(summary).annotations // { idempotentHint: true }
 */
export function toolOf(skill: ToolSummary): Tool {
  // A federated MCP tool's result passes through: its output schema is its structuredContent's, when it has one.
  const passThrough = skill.answers === "tool-result";
  const outputSchema =
    passThrough ?
      isObjectSchema(skill.outputSchema) ? skill.outputSchema
      : undefined
    : isObjectSchema(skill.outputSchema) ? skill.outputSchema
    : wrapInObject(skill.outputSchema, RESULT_FIELD);
  return {
    name: skill.name,
    ...(skill.title ? { title: skill.title } : {}),
    description: skill.description,
    inputSchema: (isObjectSchema(skill.inputSchema) ? skill.inputSchema : wrapInObject(skill.inputSchema, PARAMS_ARGUMENT)) as Tool["inputSchema"],
    ...(outputSchema ? { outputSchema: outputSchema as Tool["outputSchema"] } : {}),
    annotations:
      skill.annotations ? { ...skill.annotations, idempotentHint: skill.annotations.idempotentHint ?? skill.idempotent } : { idempotentHint: skill.idempotent },
    _meta: {
      "skillmesh/tags": skill.tags,
      ...(skill.contractHash ? { "skillmesh/contract": skill.contractHash } : {}),
      // The Apps extension's key, and the deprecated flat one hosts still read.
      ...(skill.ui ? { ui: skill.ui, ...(skill.ui.resourceUri ? { [LEGACY_UI_RESOURCE_KEY]: skill.ui.resourceUri } : {}) } : {}),
    },
  };
}

/**
 * The JSON-RPC params a tool call's arguments become: by name, or the positional `params`
 * argument of an array-input skill.
 * @example argumentsToParams(sumSkill, { params: [1, 2] }) // [1, 2]
 */
export function argumentsToParams(skill: ToolSummary, args: Record<string, unknown> | undefined): JsonRpcParams {
  if (isObjectSchema(skill.inputSchema)) return args ?? {};
  const positional = args?.[PARAMS_ARGUMENT];
  // Anything else goes to the skill as is, which answers it with its own "Invalid params".
  return Array.isArray(positional) ? positional : (args ?? {});
}

/**
 * The tool result of a skill's answer: the JSON as `structuredContent` (wrapped when it is not
 * an object) and as text (a string result is the text itself).
 * @example toolResultOf(summary, "hello") // { content: [{ type: "text", text: "hello" }], structuredContent: { result: "hello" } }
 */
export function toolResultOf(skill: ToolSummary, result: unknown): CallToolResult {
  // Checked block by block when it came in (src/federation/upstream/mcp-client.ts): passed on as the upstream answered it.
  if (skill.answers === "tool-result" && isPlainObject(result) && Array.isArray(result.content)) return result as CallToolResult;
  const structured = isObjectSchema(skill.outputSchema) && isPlainObject(result) ? result : { [RESULT_FIELD]: result };
  const text = typeof result === "string" ? result : JSON.stringify(result);
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/**
 * The tool result of a failed call (`isError: true`): the error's message, with what a model
 * needs to fix its arguments or to wait, and the error itself under `_meta`.
 * @example toolErrorOf({ code: -32602, message: "Invalid params", data: { issues: [...] } })
 */
export function toolErrorOf(error: JsonRpcErrorObject): CallToolResult {
  const lines = [error.code === -32602 && error.message === "Invalid params" ? "Invalid arguments." : error.message];
  const data = isPlainObject(error.data) ? error.data : {};
  if (Array.isArray(data.issues)) {
    for (const issue of data.issues as Array<{ path?: string; message?: string }>) lines.push(`- ${issue.path ?? "(root)"}: ${issue.message ?? "invalid"}`);
  }
  if (typeof data.retryAfterMs === "number" && !/retry after/i.test(error.message)) {
    lines.push(`Retry after ${Math.ceil(data.retryAfterMs / 1000)} s.`);
  }
  return { content: [{ type: "text", text: lines.join("\n") }], isError: true, _meta: { "skillmesh/error": error } };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
