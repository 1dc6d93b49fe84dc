/**
 * The MCP wire format the gateway serves, defined once as zod schemas (types inferred from
 * them): protocol versions of both eras, the params of the methods it answers, tools and their
 * results. The rules are the MCP specification's (modelcontextprotocol.io, basic/transports and
 * server/tools of each revision); docs/architecture.md sums up what the gateway serves.
 */
import { z } from "zod";

/** Versions served with the `initialize` handshake (the session era), newest first. */
export const HANDSHAKE_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
/** Versions served statelessly: the version travels in every request's `_meta`. */
export const STATELESS_VERSIONS = ["2026-07-28"] as const;
export const SUPPORTED_VERSIONS: readonly string[] = [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS];
/** Assumed when a client sends no `MCP-Protocol-Version` (transport spec). */
export const DEFAULT_VERSION = "2025-03-26";

/** True for a version of the stateless era (no `initialize`, `_meta` and headers on every request). */
export function isStateless(version: string): boolean {
  return (STATELESS_VERSIONS as readonly string[]).includes(version);
}

/** Batches were allowed only before 2025-06-18. */
export function allowsBatches(version: string): boolean {
  return version === "2025-03-26";
}

/** `_meta` keys of the stateless revision. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
} as const;

/** MCP error codes beyond JSON-RPC's. */
export const McpErrorCode = {
  /** An HTTP header disagrees with the body (or a required one is missing). */
  HeaderMismatch: -32020,
  /** The request's protocol version is not one this server speaks. */
  UnsupportedVersion: -32022,
} as const;

const Implementation = z.object({ name: z.string(), version: z.string(), title: z.string().optional() }).loose();

export const InitializeParamsSchema = z
  .object({ protocolVersion: z.string(), capabilities: z.record(z.string(), z.unknown()), clientInfo: Implementation })
  .loose();

/** The `_meta` a stateless request must carry. */
export const StatelessMetaSchema = z
  .object({
    [META.protocolVersion]: z.string(),
    [META.clientCapabilities]: z.record(z.string(), z.unknown()),
    [META.clientInfo]: Implementation.optional(),
  })
  .loose();

export const ListToolsParamsSchema = z.object({ cursor: z.string().optional() }).loose();

export const CallToolParamsSchema = z
  .object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).optional() })
  .loose();

export const ToolAnnotationsSchema = z.object({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

/** A JSON Schema for a tool's input or output: MCP wants an object schema. */
const ObjectSchema = z.object({ type: z.literal("object") }).loose();

export const ToolSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string(),
  inputSchema: ObjectSchema,
  outputSchema: ObjectSchema.optional(),
  annotations: ToolAnnotationsSchema.optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type Tool = z.infer<typeof ToolSchema>;

export const TextContentSchema = z.object({ type: z.literal("text"), text: z.string() });

export const CallToolResultSchema = z.object({
  content: z.array(TextContentSchema),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type CallToolResult = z.infer<typeof CallToolResultSchema>;
