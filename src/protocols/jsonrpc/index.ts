/**
 * JSON-RPC 2.0, defined once: the wire format as zod schemas (types inferred from them), the
 * error codes of the spec and of the mesh, and `processJsonRpc`, which turns a raw body into the
 * answer (single, batch, or nothing for notifications) given one function that answers a request.
 * Skill Workers and the gateway both serve their `POST` bodies through it.
 */
import { z } from "zod";

// ---------------------------------------------------------------------------------------------
// Wire format
// ---------------------------------------------------------------------------------------------

/** A request id. `null` is allowed by the spec (though discouraged), fractions are not useful. */
export const JsonRpcIdSchema = z.union([z.string(), z.number(), z.null()]);
export type JsonRpcId = z.infer<typeof JsonRpcIdSchema>;

/**
 * A JSON object (what `JSON.parse` made of `{…}`), taken as it is: a `z.record` would copy it
 * key by key and a union would try each branch, on every call, for values whose contents the
 * skill's own schema checks anyway.
 */
export const JsonObjectSchema = z.custom<Record<string, unknown>>((value) => typeof value === "object" && value !== null && !Array.isArray(value), "an object");

/** `params`: by position (array) or by name (object), taken as they are (the skill's input schema checks what is in them). */
export const JsonRpcParamsSchema = z.custom<unknown[] | Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null,
  "an array or an object",
);
export type JsonRpcParams = z.infer<typeof JsonRpcParamsSchema>;

/** A request or notification (a notification has no `id` member at all). */
export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  method: z.string(),
  params: JsonRpcParamsSchema.optional(),
  id: JsonRpcIdSchema.optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

export const JsonRpcErrorObjectSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObjectSchema>;

export const JsonRpcSuccessSchema = z.object({
  jsonrpc: z.literal("2.0"),
  result: z.unknown(),
  /** Never beside a result (an answer with both is read as the failure it reports); `null` is tolerated, as some servers send it. */
  error: z.null().optional(),
  id: JsonRpcIdSchema,
});
export const JsonRpcFailureSchema = z.object({
  jsonrpc: z.literal("2.0"),
  error: JsonRpcErrorObjectSchema,
  id: JsonRpcIdSchema,
});
/**
 * A response: exactly one of `result` / `error`. The success first: most answers are one, and
 * a branch that fails first builds its issues for nothing (~2 µs of every forwarded call).
 */
export const JsonRpcResponseSchema = z.union([JsonRpcSuccessSchema, JsonRpcFailureSchema]);

/** What a peer's answer becomes when it is no answer, or an error (`resultOfAnswer`). */
export interface PeerAnswers {
  /** The peer sent no JSON-RPC response (or an HTTP error status without one): `what` says so. */
  notAnAnswer: (what: string) => Error;
  /** The peer answered with its error. */
  failed: (error: JsonRpcErrorObject) => Error;
}

/**
 * The result of a peer's JSON-RPC answer, or what its error becomes: one reader for every peer the
 * gateway calls (a skill Worker, an MCP server, an A2A agent), each saying what its failures mean.
 * @example resultOfAnswer(response.status, safeJson(text), { notAnAnswer: (what) => unavailable(what), failed: (e) => new RpcError(e.code, e.message, e.data) })
 */
export function resultOfAnswer(status: number, message: unknown, peer: PeerAnswers): unknown {
  const answer = JsonRpcResponseSchema.safeParse(message);
  if (!answer.success || (status !== 200 && !answer.data.error)) throw peer.notAnAnswer(`answered HTTP ${status} without a JSON-RPC response`);
  if (answer.data.error) throw peer.failed(answer.data.error);
  return answer.data.result;
}
export type JsonRpcSuccess = z.infer<typeof JsonRpcSuccessSchema>;
export type JsonRpcFailure = z.infer<typeof JsonRpcFailureSchema>;
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

// ---------------------------------------------------------------------------------------------
// Error codes
// ---------------------------------------------------------------------------------------------

/** Codes of the JSON-RPC 2.0 spec and of the mesh (the server range; docs/architecture.md lists them). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  SkillUnavailable: -32001,
  IdempotencyInFlight: -32002,
  IdempotencyMismatch: -32003,
  SkillTimeout: -32004,
  RateLimited: -32005,
  Unauthorized: -32006,
  /** The caller cancelled the call (closed its stream, disconnected, or sent notifications/cancelled). */
  Cancelled: -32007,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const standardMessages: Record<number, string> = {
  [ErrorCode.ParseError]: "Parse error",
  [ErrorCode.InvalidRequest]: "Invalid Request",
  [ErrorCode.MethodNotFound]: "Method not found",
  [ErrorCode.InvalidParams]: "Invalid params",
  [ErrorCode.InternalError]: "Internal error",
};

/**
 * An error meant for the caller: thrown anywhere below a JSON-RPC handler, it becomes the
 * response's `error` as is. Any other thrown value becomes a bare -32603 (no message, no stack).
 * @example throw new RpcError(ErrorCode.InvalidParams, "frame must be hex", { field: "frame" })
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string = standardMessages[code] ?? "Error",
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * Builds a failure response.
 * @example failure(null, ErrorCode.ParseError) // {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}
 */
export function failure(id: JsonRpcId, code: number, message?: string, data?: unknown): JsonRpcFailure {
  return { jsonrpc: "2.0", error: new RpcError(code, message, data).toJSON(), id };
}

/** Builds a success response. @example success(1, 19) */
export function success(id: JsonRpcId, result: unknown): JsonRpcSuccess {
  // `undefined` would vanish from the JSON and leave a response with neither result nor error.
  return { jsonrpc: "2.0", result: result === undefined ? null : result, id };
}

/**
 * Turns whatever was thrown into a failure that is safe to show a caller (never a stack). What
 * is not an `RpcError` is a bug somewhere: the caller gets a bare -32603, the log gets the error.
 */
export function failureFromThrown(id: JsonRpcId, thrown: unknown): JsonRpcFailure {
  if (thrown instanceof RpcError) return { jsonrpc: "2.0", error: thrown.toJSON(), id };
  console.error("[rpc] unexpected error, answered as -32603:", thrown);
  return failure(id, ErrorCode.InternalError);
}

/** A thrown value's message (and its causes') without the stack: what logs (and span statuses) get. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause === undefined ? error.message : `${error.message} (${errorText(error.cause)})`;
}

/** zod issues as plain data a model can act on: where, what, and the code. */
export function describeIssues(error: z.ZodError): Array<{ path: string; message: string; code: string }> {
  const pathOf = (path: PropertyKey[]) => path.map(String).join(".") || "(root)";
  // An undeclared field is its own issue at its own path (zod names them all at the object's).
  return error.issues.flatMap((issue): Array<{ path: string; message: string; code: string }> =>
    issue.code === "unrecognized_keys" ?
      issue.keys.map((key) => ({ path: pathOf([...issue.path, key]), message: "unknown field: the schema does not declare it", code: issue.code }))
    : [{ path: pathOf(issue.path), message: issue.message, code: issue.code }],
  );
}

/**
 * Parses params with a zod schema, or throws -32602 with the issues in `data.issues`.
 * @example const { cursor } = parseParams(z.object({ cursor: z.string().optional() }), request.params ?? {})
 */
export function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.output<T> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw new RpcError(ErrorCode.InvalidParams, "Invalid params", { issues: describeIssues(parsed.error) });
  return parsed.data;
}

/** True when the request is a notification: no `id` member, so no response is sent. */
export function isNotification(request: JsonRpcRequest): boolean {
  return !("id" in request) || request.id === undefined;
}

// ---------------------------------------------------------------------------------------------
// Processing a body
// ---------------------------------------------------------------------------------------------

/** Where a request sits in its body: its index in a batch, or a single request (index 0). */
export interface RequestSlot {
  index: number;
  batch: boolean;
}

/** Answers one valid request with its result; a thrown `RpcError` becomes the error response. */
export type RequestHandler = (request: JsonRpcRequest, slot: RequestSlot) => Promise<unknown>;

/**
 * Most requests in one batch. Each may become a subrequest to a skill, and a Worker's
 * subrequests per request are limited; a larger batch is refused whole, before any work.
 */
export const MAX_BATCH = 100;

/** What a body turned into: the response body to send, or `undefined` when nothing is sent. */
export type ProcessedBody = JsonRpcResponse | JsonRpcResponse[] | undefined;

/**
 * Parses a raw JSON-RPC body and answers it with `handle`: batches run concurrently, answers keep
 * the order of the batch, notifications get no response, an empty result means HTTP 204.
 * @example
 * const out = await processJsonRpc('{"jsonrpc":"2.0","method":"ping","id":1}', async () => "pong")
 * // {"jsonrpc":"2.0","result":"pong","id":1}
 */
export async function processJsonRpc(body: string, handle: RequestHandler): Promise<ProcessedBody> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return failure(null, ErrorCode.ParseError);
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return failure(null, ErrorCode.InvalidRequest);
    if (parsed.length > MAX_BATCH) {
      return failure(null, ErrorCode.InvalidRequest, `Invalid Request: a batch holds at most ${MAX_BATCH} requests`, { maxBatch: MAX_BATCH });
    }
    const answers = await Promise.all(parsed.map((item, index) => answerOne(item, { index, batch: true }, handle)));
    const sent = answers.filter((a): a is JsonRpcResponse => a !== undefined);
    return sent.length === 0 ? undefined : sent;
  }
  return answerOne(parsed, { index: 0, batch: false }, handle);
}

/** Validates one batch element or single body and answers it (or not, for a notification). */
async function answerOne(item: unknown, slot: RequestSlot, handle: RequestHandler): Promise<JsonRpcResponse | undefined> {
  const checked = JsonRpcRequestSchema.safeParse(item);
  if (!checked.success) return failure(detectableId(item), ErrorCode.InvalidRequest);
  const request = checked.data;
  let response: JsonRpcResponse;
  try {
    response = success(request.id ?? null, await handle(request, slot));
  } catch (thrown) {
    response = failureFromThrown(request.id ?? null, thrown);
  }
  return isNotification(request) ? undefined : response;
}

/** The id of an invalid request when it can be read unambiguously, else null (spec §5). */
export function detectableId(item: unknown): JsonRpcId {
  if (item === null || typeof item !== "object" || Array.isArray(item)) return null;
  const id = (item as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
