/** Which protocol version (and so which era) one MCP request speaks, checked against its headers. */
import { ErrorCode, type JsonRpcFailure, type JsonRpcRequest, describeIssues, failure } from "../jsonrpc/index.js";
import { DEFAULT_VERSION, META, McpErrorCode, SUPPORTED_VERSIONS, StatelessMetaSchema, headerValueOf, isStateless } from "../mcp-protocol/index.js";

/**
 * The protocol version a single request speaks, or the 400 error that refuses it: an unknown
 * version (-32022), or headers that disagree with the body (-32020).
 */
export function admit(headers: Headers, request: JsonRpcRequest): { version: string } | { error: JsonRpcFailure } {
  const header = headers.get("mcp-protocol-version");
  const meta = metaOf(request);
  const fromMeta = typeof meta?.[META.protocolVersion] === "string" ? (meta[META.protocolVersion] as string) : undefined;
  const version = fromMeta ?? header ?? DEFAULT_VERSION;
  if (!SUPPORTED_VERSIONS.includes(version)) {
    return refuse(McpErrorCode.UnsupportedVersion, `Unsupported protocol version ${version}; this server speaks ${SUPPORTED_VERSIONS.join(", ")}`, {
      supported: SUPPORTED_VERSIONS,
      requested: version,
    });
  }
  if (fromMeta !== undefined && header !== fromMeta) {
    return refuse(McpErrorCode.HeaderMismatch, `The MCP-Protocol-Version header (${header ?? "missing"}) must equal _meta["${META.protocolVersion}"] (${fromMeta})`);
  }
  if (!isStateless(version)) return { version };
  if (fromMeta === undefined) {
    return refuse(McpErrorCode.HeaderMismatch, `Protocol ${version} carries its version in params._meta["${META.protocolVersion}"] too`);
  }
  const method = headers.get("mcp-method");
  if (method !== request.method) {
    return refuse(McpErrorCode.HeaderMismatch, `The Mcp-Method header (${method ?? "missing"}) must equal the request's method (${request.method})`);
  }
  // Mcp-Name mirrors the tool's name, or the task's id for tasks/* (SEP-2663).
  const named = request.method === "tools/call" ? "name" : /^tasks\/(get|update|cancel)$/.test(request.method) ? "taskId" : undefined;
  if (named) {
    const header = headers.get("mcp-name");
    const name = header === null ? undefined : headerValueOf(header); // Base64-encoded when not plain ASCII
    const bodyName = (request.params as Record<string, unknown> | undefined)?.[named];
    if (name !== bodyName) return refuse(McpErrorCode.HeaderMismatch, `The Mcp-Name header (${header ?? "missing"}) must equal params.${named} (${String(bodyName)})`);
  }
  const checked = StatelessMetaSchema.safeParse(meta);
  if (!checked.success) {
    return refuse(ErrorCode.InvalidParams, `Invalid params._meta for protocol ${version}`, { issues: describeIssues(checked.error) });
  }
  return { version };
}

function refuse(code: number, message: string, data?: unknown): { error: JsonRpcFailure } {
  return { error: failure(null, code, message, data) };
}

/** A request's `params._meta`, when it has one. */
export function metaOf(request: JsonRpcRequest): Record<string, unknown> | undefined {
  const params = request.params;
  if (!params || Array.isArray(params)) return undefined;
  const meta = params._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}
