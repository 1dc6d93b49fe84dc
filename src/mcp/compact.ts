/**
 * The compact catalog (`/mcp?catalog=search`): instead of every tool, `tools/list` lists three —
 * search the catalog, describe one entry, call a tool — so that an agent reaches any of 10,000
 * tools with a few hundred tokens of definitions in its context (docs/benchmarks.md measures
 * them). Calls through `catalog.call` go through the same call chain as a direct `tools/call`,
 * which also still works by name.
 *
 * Code mode (`/mcp?catalog=code`): search, describe (with the tool's TypeScript declarations) and
 * `code.execute`, which runs the agent's script over the tools it may call
 * (src/gateway/chain/execute.ts): one call instead of one per tool, and no intermediate result
 * through the model.
 */
import { z } from "zod";
import { SKILL_FILE, skillUriOf } from "../registry/packages/index.js";
import { ErrorCode, RpcError, parseParams } from "../protocols/jsonrpc/index.js";
import { type CallToolResult, type InputRequiredResult, type Tool, isInputRequired } from "../protocols/mcp/index.js";
import type { ToolSummary } from "../gateway/chain/catalog.js";
import type { Approvals } from "../gateway/chain/operation.js";
import { withHandle } from "./request-state.js";
import { UTF8_DECODER } from "../lib/utf8/index.js";
import type { McpBackend } from "./backend.js";
import { isPackageFile } from "./resources.js";
import { toolErrorOf, toolOf } from "./tools.js";
import { CODE_EXECUTE, ExecuteArgumentsSchema, SCRIPT_LIMITS, scriptExecution } from "../gateway/chain/execute.js";
import { declarationsOf } from "../gateway/code-mode/api.js";

/** The compact mode's tools, by name. */
export const COMPACT = { search: "catalog.search", describe: "catalog.describe", call: "catalog.call" } as const;
/** The most hits one search answers. */
export const MAX_SEARCH_LIMIT = 20;

export const SearchArgumentsSchema = z.strictObject({
  query: z.string().min(1).max(500),
  kind: z.enum(["tool", "skill", "resource"]).optional(),
  limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).default(8),
});
export const DescribeArgumentsSchema = z.strictObject({ name: z.string().min(1).max(256) });
export const CallArgumentsSchema = z.strictObject({ name: z.string().min(1).max(256), arguments: z.record(z.string(), z.unknown()).optional() });

/** The three tools `tools/list` lists in compact mode. */
export const COMPACT_TOOLS: Tool[] = [
  {
    name: COMPACT.search,
    description:
      "Search every tool, Agent Skill (instructions for a task) and resource of this gateway by what it does. Answers short summaries, best first: name, first sentence, tags, a tool's arguments (`name: type`, `?` optional), a skill's or resource's uri. Then call a tool with catalog.call, get its full schema or a skill's instructions with catalog.describe, or read a uri with resources/read.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "What you need, in a few words (e.g. 'decode a modbus frame')" },
        kind: { type: "string", enum: ["tool", "skill", "resource"], description: "Only tools, Agent Skills or resources" },
        limit: { type: "integer", minimum: 1, maximum: MAX_SEARCH_LIMIT, default: 8 },
      },
      required: ["query"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  {
    name: COMPACT.describe,
    description:
      "The full definition of one tool (description, input and output JSON Schemas), or one Agent Skill's SKILL.md and files, by the name catalog.search gave.",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  {
    name: COMPACT.call,
    description: "Call a tool by the name catalog.search gave, with its arguments (an object, as its signature or schema says).",
    inputSchema: { type: "object", properties: { name: { type: "string" }, arguments: { type: "object" } }, required: ["name"], additionalProperties: false },
  },
];

/** Code mode's tools: search and describe as the compact catalog's, and the script runner instead of `catalog.call`. */
export const CODE_TOOLS: Tool[] = [
  COMPACT_TOOLS[0]!,
  {
    ...COMPACT_TOOLS[1]!,
    description:
      "The full definition of one tool — description, input and output JSON Schemas, and its TypeScript declaration as a code.execute script calls it — or one Agent Skill's SKILL.md and files, by the name catalog.search gave.",
  },
  {
    name: CODE_EXECUTE,
    description: [
      "Run a JavaScript async arrow function over the tools you may call, in a sandbox without network; answer its return value (JSON), its console output and how many tool calls it made.",
      'Each tool is a function of its namespace: `modbus.decode(input)` calls modbus.decode, and returns its result or throws its error (`error.code`, `error.message`); a namespace that is not a JavaScript name is `tools["my-crm"].contacts(input)`.',
      "catalog.describe gives a tool's TypeScript declaration. Keep intermediate data in the script and return only what you need.",
      `Limits: ${SCRIPT_LIMITS.calls} tool calls, ${SCRIPT_LIMITS.sandbox.wallMs / 1000} s, a result of ${SCRIPT_LIMITS.sandbox.resultChars / (1024 * 1024)} MiB of JSON, ${SCRIPT_LIMITS.sandbox.logLines} console lines. No fetch, no imports. A tool marked destructive runs only once the user approves it (you are asked, if your client can be).`,
      'Example: async () => { const frames = ["01 03 02 00 2A 38 5B"]; const out = []; for (const frame of frames) out.push(await modbus.decode({ frame })); return out.filter((d) => !d.valid); }',
    ].join(" "),
    inputSchema: {
      type: "object",
      properties: { code: { type: "string", description: "An async arrow function: async () => { … return result; }" } },
      required: ["code"],
      additionalProperties: false,
    },
    annotations: { openWorldHint: true },
  },
];

/** `code.execute` as a tool summary: what a task of it (a job of `code.execute`) answers is shaped as its result. */
export const SCRIPT_TOOL: ToolSummary = {
  name: CODE_EXECUTE,
  description: CODE_TOOLS[2]!.description!,
  tags: [],
  idempotent: false,
  inputSchema: CODE_TOOLS[2]!.inputSchema,
  outputSchema: {
    type: "object",
    properties: { result: {}, logs: { type: "array", items: { type: "string" } }, calls: { type: "integer" }, execution: { type: "string" } },
  },
};

const isCompactName = (name: string): boolean => (Object.values(COMPACT) as string[]).includes(name);

/** Whether a `tools/call` names one of the compact tools that are answered here (search, describe; code mode's script runner is src/mcp/index.ts `scriptCall`). */
export const answersHere = (name: string): boolean => isCompactName(name) && name !== COMPACT.call;

/** A JSON answer as a tool result. */
const resultOf = (structured: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(structured) }],
  structuredContent: structured,
});

/**
 * Answers `catalog.search` or `catalog.describe`; a wrong argument or an unknown name is a tool
 * error the model can read (as a skill's own failures are).
 * @example await answerCompact("catalog.search", { query: "decode modbus" }, backend)
 */
export async function answerCompact(name: string, args: Record<string, unknown> | undefined, backend: McpBackend, codeMode = false): Promise<CallToolResult> {
  if (name === COMPACT.search) {
    const { query, kind, limit } = parseParams(SearchArgumentsSchema, args ?? {});
    // A search is work: an operation of the call chain, counted against the caller's rate as a call is.
    const results = await backend.run({ kind: "search", method: COMPACT.search, query: { query, limit, ...(kind ? { kind } : {}) } });
    return resultOf({ results });
  }
  const { name: wanted } = parseParams(DescribeArgumentsSchema, args ?? {});
  const skill = await backend.skill(wanted);
  if (skill) {
    const { name: toolName, description, inputSchema, outputSchema, annotations } = toolOf(skill);
    return resultOf({
      kind: "tool",
      name: toolName,
      description,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      ...(annotations ? { annotations } : {}),
      ...(codeMode ? { typescript: declarationsOf(skill) } : {}),
    });
  }
  // An Agent Skill's SKILL.md is read as a package file is: resolved for this caller, charged, audited.
  const notFound = { code: ErrorCode.InvalidParams, message: `Unknown tool or Agent Skill: ${wanted.slice(0, 200)}; ${COMPACT.search} finds them` };
  const uri = skillUriOf(wanted, SKILL_FILE);
  const file = await backend.run({ kind: "resource", method: COMPACT.describe, uri, notFound });
  const seen = isPackageFile(file) && (await backend.catalog().packages()).find(wanted);
  if (!seen || !isPackageFile(file)) throw new RpcError(notFound.code, notFound.message);
  return resultOf({ kind: "skill", name: wanted, uri: seen.entry.uri, skillMd: UTF8_DECODER.decode(file.bytes), resources: seen.entry.resources });
}

/**
 * `code.execute`: the script's run through the call chain (an operation of its own); its failure
 * is a tool error the model can read — the message, its console output, the tool calls it made.
 */
export async function answerScript(
  args: Record<string, unknown> | undefined,
  backend: McpBackend,
  approvals?: Approvals,
): Promise<CallToolResult | InputRequiredResult> {
  try {
    const { code } = parseParams(ExecuteArgumentsSchema, args ?? {});
    const ran = (await backend.run({ ...scriptExecution(code), ...(approvals ? { approvals } : {}) })) as Record<string, unknown>;
    // 2026-07-28: the caller is asked to approve a destructive call; it holds a handle of the execution's state, not the state.
    if (isInputRequired(ran)) return withHandle(backend.requestStates, CODE_EXECUTE, ran);
    return resultOf(ran);
  } catch (thrown) {
    if (!(thrown instanceof RpcError)) throw thrown;
    // A tool error as any tool's, with what a model needs to fix its script: its console and the calls it made.
    const failed = toolErrorOf(thrown.toJSON());
    const data = (thrown.data ?? {}) as { logs?: unknown; calls?: unknown };
    const lines: string[] = [];
    if (Array.isArray(data.logs) && data.logs.length) lines.push("Console:", ...data.logs.map(String));
    if (typeof data.calls === "number") lines.push(`Tool calls made: ${data.calls}`);
    return lines.length ? { ...failed, content: [{ type: "text", text: [failed.content[0]!.text, ...lines].join("\n") }] } : failed;
  }
}

/** The tool call `catalog.call` stands for: its tool's name and arguments. */
export function innerCall(args: Record<string, unknown> | undefined): { name: string; arguments: Record<string, unknown> } {
  const { name, arguments: inner } = parseParams(CallArgumentsSchema, args ?? {});
  if (isCompactName(name)) throw new RpcError(ErrorCode.InvalidParams, `${COMPACT.call} calls a tool of the catalog, not ${name}`);
  return { name, arguments: inner ?? {} };
}
