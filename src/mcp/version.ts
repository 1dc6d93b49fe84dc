/** Which protocol version (and so which era) one MCP request speaks, checked against its headers. */
import { ErrorCode, type JsonRpcFailure, type JsonRpcRequest, describeIssues, failure } from "../protocols/jsonrpc/index.js";
import { DEFAULT_VERSION, META, McpErrorCode, SUPPORTED_VERSIONS, StatelessMetaSchema, headerValueOf, isStateless } from "../protocols/mcp/index.js";

/**
 * The protocol version a single request speaks, or the 400 error that refuses it, in the order
 * the 2026-07-28 revision checks: headers that disagree with the body (-32020) before the version
 * is judged, then an unknown version (-32022), then a 2026-07-28 request without its `_meta` or the
 * version in it (-32602, invalid params), then the `Mcp-Method` and `Mcp-Name` mirrors (-32020).
 */
export function admit(headers: Headers, request: JsonRpcRequest): { version: string } | { error: JsonRpcFailure } {
  const header = headers.get("mcp-protocol-version")?.trim() ?? null;
  const meta = metaOf(request);
  const fromMeta = typeof meta?.[META.protocolVersion] === "string" ? (meta[META.protocolVersion] as string) : undefined;
  if (fromMeta !== undefined && header !== fromMeta) {
    return refuse(
      McpErrorCode.HeaderMismatch,
      `The MCP-Protocol-Version header (${header ?? "missing"}) must equal _meta["${META.protocolVersion}"] (${fromMeta.slice(0, 40)})`,
    );
  }
  const version = fromMeta ?? header ?? DEFAULT_VERSION;
  if (!SUPPORTED_VERSIONS.includes(version)) {
    return refuse(
      McpErrorCode.UnsupportedVersion,
      `Unsupported protocol version ${version.slice(0, 40)}; this server speaks ${SUPPORTED_VERSIONS.join(", ")}`,
      {
        supported: SUPPORTED_VERSIONS,
        requested: version.slice(0, 40),
      },
    );
  }
  if (!isStateless(version)) return { version };
  if (fromMeta === undefined) {
    return refuse(
      ErrorCode.InvalidParams,
      `Invalid params: protocol ${version} requests carry params._meta with "${META.protocolVersion}"${meta ? "" : " (this one has no _meta)"}`,
    );
  }
  const method = headers.get("mcp-method")?.trim();
  if (method !== request.method) {
    return refuse(McpErrorCode.HeaderMismatch, `The Mcp-Method header (${method ?? "missing"}) must equal the request's method (${request.method})`);
  }
  // Mcp-Name mirrors the tool's name, the prompt's, the resource's URI, or the task's id (SEP-2663);
  // surrounding whitespace is not part of a header's value (RFC 9110 §5.5).
  const named = NAMED_BY[request.method];
  if (named) {
    const header = headers.get("mcp-name")?.trim() ?? null;
    const name = header === null ? undefined : headerValueOf(header); // Base64-encoded when not plain ASCII
    const bodyName = (request.params as Record<string, unknown> | undefined)?.[named];
    if (name !== bodyName)
      return refuse(McpErrorCode.HeaderMismatch, `The Mcp-Name header (${header ?? "missing"}) must equal params.${named} (${String(bodyName).slice(0, 200)})`);
  }
  const checked = StatelessMetaSchema.safeParse(meta);
  if (!checked.success) {
    return refuse(ErrorCode.InvalidParams, `Invalid params._meta for protocol ${version}`, { issues: describeIssues(checked.error) });
  }
  return { version };
}

/** The param each method's `Mcp-Name` header mirrors (2026-07-28). */
const NAMED_BY: Record<string, string> = { "tools/call": "name", "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId" };

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
