/**
 * OpenAPI services as tools: a document (3.0 or 3.1, JSON or YAML) read with Scalar's parser
 * (`@scalar/openapi-parser`: upgraded to 3.1, references resolved), each selected operation made
 * a manifest — its input schema built from its parameters and JSON body, its output schema its
 * success response's — and one call of an operation made an HTTP request whose status becomes
 * the gateway's codes: 429 → -32005, 5xx and unreachable → -32001, 401/403 → -32006, other 4xx →
 * -32602 with the API's own message (a model can act on it).
 */
import { dereference, upgrade } from "@scalar/openapi-parser";
import { BodyTooLarge, MAX_ANSWER_BYTES, boundedText } from "../../lib/body/index.js";
import { retryAfterMsOf } from "../../policies/failures/index.js";
import { MAX_JSON_DEPTH, exceedsDepth, safeJson } from "../../lib/json/index.js";
import { ErrorCode, RpcError, errorText } from "../../protocols/jsonrpc/index.js";
import type { Operation } from "../../registry/deployments/model.js";
import { MAX_MANIFEST_BYTES, type SkillManifest } from "../../skill/manifest.js";
import { utf8Length } from "../../lib/utf8/index.js";
import { type Skipped, type ToolSource, boundsRefusal, operatorFieldsOf, selects, skillNameOf } from "./definitions.js";
import { upstreamUnavailable as unavailable } from "./peer.js";

type Json = Record<string, unknown>;

export { MAX_DOCUMENT_BYTES } from "./model.js";
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
/** Methods that change nothing (RFC 9110 §9.2.1) and those safe to repeat (§9.2.2). */
const SAFE = new Set(["get", "head", "options"]);
const IDEMPOTENT = new Set(["get", "head", "options", "put", "delete"]);
/** Headers an operation's parameters may not set: the gateway's, or a credential's. */
const RESERVED_HEADERS = /^(authorization|cookie|host|content-type|content-length|accept|connection|transfer-encoding|traceparent|proxy-authorization)$/i;

/** The document's text parsed, upgraded to 3.1 and dereferenced; throws with what is wrong. */
export function parseDocument(source: string | Json): Json {
  const upgraded = upgrade(source as never);
  const specification = upgraded.specification as Json | undefined;
  if (!specification || typeof specification.openapi !== "string" || !/^3\.[01]\./.test(specification.openapi))
    throw new Error("not an OpenAPI 3.0 or 3.1 document");
  const resolved = dereference(specification as never);
  if (resolved.errors?.length)
    throw new Error(
      resolved.errors
        .slice(0, 3)
        .map((e) => e.message)
        .join("; "),
    );
  return resolved.schema as Json;
}

/** The document's first server URL, if it names an absolute one. */
export function serverUrlOf(document: Json): string | undefined {
  const url = (document.servers as Array<{ url?: unknown }> | undefined)?.[0]?.url;
  return typeof url === "string" && /^https?:\/\//.test(url) ? url : undefined;
}

/** One operation of a document as a tool: its upstream tool name, manifest and how to call it. */
export interface OperationTool {
  tool: string;
  manifest: SkillManifest;
  operation: Operation;
}

/**
 * The document's operations that the selection keeps (by operationId or `method_path` globs and
 * OpenAPI tags), each as a tool; the others are `skipped` with why.
 * @example const { tools } = operationsOf(parseDocument(yaml), source)
 */
export function operationsOf(document: Json, source: ToolSource & { operationTags?: string[] }): { tools: OperationTool[]; skipped: Skipped[] } {
  const tools: OperationTool[] = [];
  const skipped: Skipped[] = [];
  for (const [path, item] of Object.entries((document.paths as Record<string, Json> | undefined) ?? {})) {
    if (typeof item !== "object" || item === null) continue;
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const tool = typeof op.operationId === "string" ? op.operationId : `${method}_${path.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_|_$/g, "")}`;
      const opTags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === "string") : [];
      if (!selects(source, tool) || (source.operationTags?.length && !opTags.some((t) => source.operationTags!.includes(t)))) continue;
      // A path is under the API's base URL: one that does not start with / could name another host or port.
      const refusal = pathRefusal(path);
      if (refusal) {
        skipped.push({ tool, reason: refusal });
        continue;
      }
      let made: OperationTool | { refused: string };
      try {
        made = operationSkillOf(source, tool, method, path, op, [...((item.parameters as Json[] | undefined) ?? [])]);
      } catch (error) {
        if (!(error instanceof SchemaTooLarge)) throw error;
        made = { refused: error.message };
      }
      if ("refused" in made) skipped.push({ tool, reason: made.refused });
      else tools.push(made);
    }
  }
  return { tools, skipped };
}

function operationSkillOf(
  source: ToolSource,
  tool: string,
  method: (typeof METHODS)[number],
  path: string,
  op: Json,
  shared: Json[],
): OperationTool | { refused: string } {
  const named = skillNameOf(source.upstream, tool);
  if ("refused" in named) return named;
  // Every schema of the operation is written out within one budget.
  const budget = { left: MAX_SCHEMA_WEIGHT };
  const writeOut = (schema: unknown) => writtenOut(schema, budget);
  const properties: Json = {};
  const required: string[] = [];
  const parameters: Operation["parameters"] = [];
  // An operation's own parameter replaces a path item's of the same name and place.
  const all = new Map<string, Json>();
  for (const p of [...shared, ...((op.parameters as Json[] | undefined) ?? [])]) if (typeof p?.name === "string") all.set(`${String(p.in)}:${p.name}`, p);
  for (const p of all.values()) {
    const name = p.name as string;
    const where = p.in as Operation["parameters"][number]["in"];
    if (!["path", "query", "header", "cookie"].includes(where)) return { refused: `parameter ${name} is in ${String(where)}` };
    if (where === "header" && RESERVED_HEADERS.test(name)) continue;
    if (name in properties) return { refused: `two parameters are called ${name}` };
    const schema = writeOut(p.schema ?? {});
    properties[name] = typeof p.description === "string" && !schema.description ? { ...schema, description: p.description } : schema;
    const isRequired = where === "path" || p.required === true;
    if (isRequired) required.push(name);
    parameters.push({ name, in: where, required: isRequired });
  }
  let body: Operation["body"];
  const requestBody = op.requestBody as Json | undefined;
  if (requestBody) {
    const content = (requestBody.content as Record<string, Json> | undefined) ?? {};
    const mediaType = Object.keys(content).find((type) => /^application\/([\w.+-]+\+)?json\b/i.test(type));
    if (!mediaType) return { refused: "its request body is not JSON" };
    if ("body" in properties) return { refused: "a parameter is called body, which holds its request body" };
    properties.body = writeOut(content[mediaType]!.schema ?? {});
    body = { required: requestBody.required === true, mediaType };
    if (body.required) required.push("body");
  }
  const words = [op.summary, op.description].filter((w): w is string => typeof w === "string" && w.trim() !== "");
  const manifest: SkillManifest = {
    name: named.name,
    version: source.version,
    description: (words.join("\n\n") || `${method.toUpperCase()} ${path}`).slice(0, 4096),
    idempotent: IDEMPOTENT.has(method),
    ...operatorFieldsOf(source),
    ...(typeof op.summary === "string" ? { title: op.summary.slice(0, 256) } : {}),
    annotations: { readOnlyHint: SAFE.has(method), destructiveHint: method === "delete", idempotentHint: IDEMPOTENT.has(method), openWorldHint: true },
    inputSchema: { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false },
    outputSchema: successSchemaOf(op, writeOut),
  };
  const bound = boundsRefusal(manifest);
  return bound ? { refused: bound } : { tool, manifest, operation: { method, path, parameters, ...(body ? { body } : {}) } };
}

/** The schema of the first 2xx response's JSON content; `null` for one without content. */
function successSchemaOf(op: Json, writeOut: (schema: unknown) => Json): Json {
  const responses = (op.responses as Record<string, Json> | undefined) ?? {};
  const code = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort()[0];
  if (!code) return {};
  const content = (responses[code]!.content as Record<string, Json> | undefined) ?? {};
  const mediaType = Object.keys(content).find((type) => /json/i.test(type));
  if (!mediaType) return Object.keys(content).length ? { type: "string" } : { type: "null" };
  const schema = writeOut(content[mediaType]!.schema ?? {});
  // An object made of parts (allOf of objects) is an object: MCP then shows it as it is.
  const parts = schema.allOf as Json[] | undefined;
  if (schema.type === undefined && parts?.length && parts.every((part) => part.type === "object")) return { type: "object", ...schema };
  return schema;
}

/**
 * Why an operation's path cannot be called under the API's base URL, or undefined: it must start
 * with `/` (OpenAPI 3.1 §4.8.8.1) and hold no `//`, `\\`, `@`, `#`, `?` or `..` segment that could
 * move the request elsewhere.
 * @example pathRefusal("@attacker.example/x") // "its path @attacker.example/x does not start with /"
 */
export function pathRefusal(path: string): string | undefined {
  const shown = path.slice(0, 100);
  if (!path.startsWith("/")) return `its path ${shown} does not start with /`;
  // eslint-disable-next-line no-control-regex -- a control character in a path is refused too
  if (/\/\/|\\|[@#?]|(^|\/)\.\.?(\/|$)|[\u0000-\u001f\u007f]/.test(path)) return `its path ${shown} could lead out of the API's base URL`;
  return undefined;
}

/** A schema whose plain JSON Schema would pass the budget a definition may take (shared components copied over and over). */
export class SchemaTooLarge extends Error {
  constructor() {
    super(`its schemas would take more than ${MAX_SCHEMA_WEIGHT} characters once their references are written out`);
    this.name = "SchemaTooLarge";
  }
}
/** What one operation's schemas may weigh written out (nodes and characters): the manifest's own bound, twice. */
export const MAX_SCHEMA_WEIGHT = 2 * MAX_MANIFEST_BYTES;

/** Keys of an OpenAPI schema object that are not JSON Schema (3.1 §4.8.24), dropped. */
const OPENAPI_ONLY = new Set(["xml", "externalDocs", "discriminator", "example"]);

/**
 * A dereferenced schema as plain JSON Schema: a schema that contains itself (a recursive
 * component) is cut to `{}` where it recurs, and nesting stops at `MAX_JSON_DEPTH / 2`. The parser
 * shares a component among its references, so a document of a few KB can stand for a schema of
 * millions of nodes written out: what is written is weighed as it is written (`budget`, in nodes
 * and characters), and past `MAX_SCHEMA_WEIGHT` it throws `SchemaTooLarge` — long before the copy
 * could take the isolate's memory.
 */
export function jsonSchemaOf(schema: unknown, ancestors: unknown[] = [], budget = { left: MAX_SCHEMA_WEIGHT }): Json {
  return writtenOut(schema, budget, ancestors);
}

function writtenOut(schema: unknown, budget: { left: number }, ancestors: unknown[] = []): Json {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return {};
  if (ancestors.includes(schema) || ancestors.length >= MAX_JSON_DEPTH / 2) return {};
  if ((budget.left -= 1) < 0) throw new SchemaTooLarge();
  const within = [...ancestors, schema];
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (OPENAPI_ONLY.has(key) || key.startsWith("x-")) continue;
    if ((budget.left -= key.length) < 0) throw new SchemaTooLarge();
    if (["properties", "patternProperties", "$defs", "dependentSchemas"].includes(key) && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, writtenOut(v, budget, within)]));
    } else if (["allOf", "anyOf", "oneOf", "prefixItems"].includes(key) && Array.isArray(value)) {
      out[key] = value.map((v) => writtenOut(v, budget, within));
    } else if (
      ["items", "not", "additionalProperties", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"].includes(key) &&
      typeof value === "object" &&
      value !== null
    ) {
      out[key] = writtenOut(value, budget, within);
    } else {
      if ((budget.left -= weightOf(value)) < 0) throw new SchemaTooLarge();
      out[key] = value;
    }
  }
  if ("example" in schema && !("examples" in out)) out.examples = [(schema as Json).example];
  return out;
}

/** How many characters a plain value takes written out (a bound, cut short once it passes the budget). */
function weightOf(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (typeof value !== "object" || value === null) return 8;
  return utf8Length(JSON.stringify(value) ?? "");
}

/** One operation call's request: where, with what. */
export interface OperationCall {
  /** The service's base URL (the document's server, or the operator's). */
  url: string;
  operation: Operation;
  args: Record<string, unknown>;
  headers: Record<string, string>;
  /** A `query` credential's parameters. */
  query?: Record<string, string>;
  signal: AbortSignal;
  /** The tool, for messages. */
  label: string;
  /** Why the gateway may not call a URL (its endpoint policy), checked on the request's final URL. */
  urlRefusal?: (url: string) => string | undefined;
}

/**
 * The URL an operation is called at: the base URL and the operation's path with its path
 * arguments, each one segment (encoded); refused (-32001) unless it stays at the base URL's origin
 * and under its path — whatever the definitions or the arguments say.
 * @example operationUrl("https://api.example/v1", "/pets/{id}", { id: "a/b" }) // URL https://api.example/v1/pets/a%2Fb
 */
export function operationUrl(base: string, path: string, args: Record<string, unknown>, label = "the operation"): URL {
  const root = new URL(base);
  const prefix = root.pathname.replace(/\/+$/, "");
  const refusal = pathRefusal(path);
  const target =
    refusal ? undefined : new URL(`${root.origin}${prefix}${path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(args[name] ?? "")))}`);
  if (!target || target.origin !== root.origin || !target.pathname.startsWith(`${prefix}/`))
    throw unavailable(label, `would be called outside its API's base URL (${root.origin}${prefix})`);
  for (const [name, value] of root.searchParams) target.searchParams.append(name, value);
  return target;
}

/**
 * Calls an operation and returns what it answered (JSON, text, or null when it sent nothing), or
 * throws the `RpcError` its status means.
 * @example await callOperation({ url: "https://api.example/v1", operation, args: { petId: 1 }, headers: {}, signal, label: "petstore.showPetById" })
 */
export async function callOperation(call: OperationCall): Promise<unknown> {
  const { operation, args, label } = call;
  const target = operationUrl(call.url, operation.path, args, label);
  const headers: Record<string, string> = { ...call.headers, accept: "application/json, text/plain;q=0.5" };
  const cookies: string[] = [];
  for (const p of operation.parameters) {
    const value = args[p.name];
    if (value === undefined || value === null || p.in === "path") continue;
    const values = (Array.isArray(value) ? value : [value]).map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v)));
    if (p.in === "query") for (const v of values) target.searchParams.append(p.name, v);
    else if (p.in === "header") headers[p.name.toLowerCase()] = values.join(",");
    else cookies.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(values.join(","))}`);
  }
  if (cookies.length) headers.cookie = cookies.join("; ");
  for (const [name, value] of Object.entries(call.query ?? {})) target.searchParams.set(name, value);
  const refusal = call.urlRefusal?.(target.href);
  if (refusal) {
    console.error(`[upstream] ${label}: its request URL is refused: ${refusal}`);
    throw unavailable(label, "may not be called at the URL its definition gives (the gateway's endpoint policy refuses it)");
  }
  const init: RequestInit = { method: operation.method.toUpperCase(), headers, signal: call.signal, redirect: "manual" };
  if (operation.body && args.body !== undefined) {
    headers["content-type"] = operation.body.mediaType;
    init.body = JSON.stringify(args.body);
  }
  let response: Response;
  try {
    response = await fetch(target, init);
  } catch (error) {
    if (call.signal.aborted) throw error;
    console.error(`[upstream] ${label} unreachable:`, errorText(error));
    throw unavailable(label, "is unreachable");
  }
  let text: string;
  try {
    text = await boundedText(response, MAX_ANSWER_BYTES);
  } catch (error) {
    if (call.signal.aborted) throw error;
    throw unavailable(label, error instanceof BodyTooLarge ? `answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB` : "broke off its answer");
  }
  const status = response.status;
  if (status >= 200 && status < 300) return answerOf(label, response.headers.get("content-type") ?? "", text);
  const said = apiMessageOf(text);
  if (status === 429) {
    const retryAfterMs = retryAfterMsOf(response.headers.get("retry-after"));
    throw new RpcError(ErrorCode.RateLimited, `${label} is rate limited upstream; retry after ${Math.ceil(retryAfterMs / 1000)} s`, { retryAfterMs });
  }
  if (status >= 500) throw unavailable(label, `failed upstream (HTTP ${status}${said ? `: ${said}` : ""})`);
  if (status === 401 || status === 403)
    throw new RpcError(ErrorCode.Unauthorized, `${label}: the upstream refused the credential (HTTP ${status})${said ? `: ${said}` : ""}`, { status });
  if (status >= 400) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: ${label} answered HTTP ${status}${said ? `: ${said}` : ""}`, { status });
  throw unavailable(label, `answered HTTP ${status}, which the gateway does not follow`);
}

/** A success's body as the call's result: JSON (checked for depth), else its text; nothing is null. */
function answerOf(label: string, contentType: string, text: string): unknown {
  if (text === "") return null;
  if (!/json/i.test(contentType)) return text;
  const json = safeJson(text);
  if (json === undefined) throw unavailable(label, "answered JSON that does not parse");
  if (exceedsDepth(json, MAX_JSON_DEPTH)) throw unavailable(label, `answered JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  return json;
}

/** What an API said of an error, short: its `message`, `error`, `detail` or `title` field, else its text. */
function apiMessageOf(text: string): string {
  const json = safeJson(text) as Record<string, unknown> | undefined;
  const fields = json && typeof json === "object" ? [json.message, json.error, json.detail, json.title, (json.error as Json | undefined)?.message] : [];
  const said = fields.find((f): f is string => typeof f === "string") ?? (json === undefined ? text : "");
  return said.replace(/\s+/g, " ").trim().slice(0, 500);
}
