/**
 * The MCP wire format the gateway serves, defined once as zod schemas (types inferred from
 * them): protocol versions of both eras, the params of the methods it answers, tools and their
 * results. The rules are the MCP specification's (modelcontextprotocol.io, basic/transports and
 * server/tools of each revision); docs/architecture.md sums up what the gateway serves.
 */
import { z } from "zod";
import { JsonObjectSchema } from "../jsonrpc/index.js";

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
  /** On every result: who answered. */
  serverInfo: "io.modelcontextprotocol/serverInfo",
  /** On every message of a `subscriptions/listen` stream: the listen request's id. */
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** MCP error codes beyond JSON-RPC's. */
export const McpErrorCode = {
  /** An HTTP header disagrees with the body (or a required one is missing or malformed). */
  HeaderMismatch: -32020,
  /** The request's protocol version is not one this server speaks. */
  UnsupportedVersion: -32022,
} as const;

/** Who may reuse a cacheable result (2026-07-28 caching): anyone, or only the same authorization. */
export type CacheScope = "public" | "private";

const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * The value an `Mcp-Name` or `Mcp-Param-*` header carries: as is, or decoded from the Base64
 * sentinel form (`=?base64?…?=`, UTF-8) clients use for values that are not plain ASCII.
 * Undefined when the header is malformed (undecodable Base64 or UTF-8).
 * @example headerValueOf("=?base64?SGVsbG8sIOS4lueVjA==?=") // "Hello, 世界"
 */
export function headerValueOf(header: string): string | undefined {
  const encoded = BASE64_SENTINEL.exec(header);
  if (!encoded) return header;
  try {
    const binary = atob(encoded[1]!);
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

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

/** `subscriptions/listen` (2026-07-28): which change notifications the client wants. */
export const SubscriptionsListenParamsSchema = z
  .object({
    notifications: z
      .object({
        toolsListChanged: z.boolean().optional(),
        promptsListChanged: z.boolean().optional(),
        resourcesListChanged: z.boolean().optional(),
        resourceSubscriptions: z.array(z.string()).optional(),
      })
      .loose()
      .default({}),
  })
  .loose();

/** `notifications/cancelled` (2025 revisions): the client stops a request it sent. */
export const CancelledNotificationSchema = z.object({
  jsonrpc: z.literal("2.0"),
  method: z.literal("notifications/cancelled"),
  params: z.object({ requestId: z.union([z.string(), z.number().int()]), reason: z.string().optional() }).loose(),
});

export const CallToolParamsSchema = z
  .object({ name: z.string().min(1), arguments: JsonObjectSchema.optional() })
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
