/**
 * The request headers of the 2026-07-28 Streamable HTTP transport that mirror the body:
 * `Mcp-Name` and the `Mcp-Param-{Name}` headers a tool asks for with `x-mcp-header` on a property
 * of its input schema. A gateway, load balancer or WAF may route on them, so the server checks
 * that they say what the body says (spec: transports/streamable-http, "Request Metadata").
 */
import { valueAt } from "../../lib/json/index.js";
import { headerValueFor, headerValueOf } from "./index.js";

/** A property a tool mirrors into a header: the header's name part and the property's path. */
export interface ParamHeader {
  name: string;
  path: string[];
}

type JsonSchema = Record<string, unknown>;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, space and tab (RFC 9110 field values); anything else must be Base64-encoded. */
const PLAIN_VALUE = /^[\x20-\x7e\t]*$/;

const cache = new WeakMap<object, ParamHeader[]>();

/**
 * The `x-mcp-header` annotations of an input schema, reachable from its root through
 * `properties` only (the spec's "statically reachable" rule; others are not headers).
 * @example paramHeadersOf({ type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } }) // [{ name: "Region", path: ["region"] }]
 */
export function paramHeadersOf(inputSchema: JsonSchema): ParamHeader[] {
  let found = cache.get(inputSchema);
  if (found) return found;
  found = [];
  const visit = (schema: unknown, path: string[]) => {
    if (typeof schema !== "object" || schema === null) return;
    const { properties } = schema as { properties?: unknown };
    if (typeof properties !== "object" || properties === null) return;
    for (const [key, property] of Object.entries(properties)) {
      const name = (property as { "x-mcp-header"?: unknown } | null)?.["x-mcp-header"];
      if (typeof name === "string" && TOKEN.test(name)) found!.push({ name, path: [...path, key] });
      visit(property, [...path, key]);
    }
  };
  visit(inputSchema, []);
  cache.set(inputSchema, found);
  return found;
}

/**
 * Why a `tools/call`'s `Mcp-Param-*` headers disagree with its arguments, or undefined when they
 * agree: a value present in the arguments needs its header, equal after decoding (integers
 * compared as numbers, booleans as `true`/`false`); a header must be well-formed.
 * @example paramHeaderMismatch(tool.inputSchema, { region: "us-west1" }, request.headers) // undefined
 */
export function paramHeaderMismatch(inputSchema: JsonSchema, args: Record<string, unknown> | undefined, headers: Headers): string | undefined {
  for (const { name, path } of paramHeadersOf(inputSchema)) {
    const value = valueAt(args, path);
    const raw = headers.get(`mcp-param-${name}`);
    if (raw !== null && !PLAIN_VALUE.test(raw)) return `The Mcp-Param-${name} header holds characters a header may not carry; Base64-encode it (=?base64?…?=)`;
    const header = raw === null ? undefined : headerValueOf(raw);
    if (raw !== null && header === undefined) return `The Mcp-Param-${name} header is not valid Base64-encoded UTF-8`;
    if (value === undefined || value === null) continue;
    if (header === undefined) return `The Mcp-Param-${name} header is missing; the argument ${path.join(".")} is mirrored into it`;
    if (!sameValue(header, value)) return `The Mcp-Param-${name} header (${header}) does not match the argument ${path.join(".")} (${JSON.stringify(value)})`;
  }
  return undefined;
}

function sameValue(header: string, value: unknown): boolean {
  if (typeof value === "number") return header.trim() !== "" && Number(header) === value;
  if (typeof value === "boolean") return header === String(value);
  return header === value;
}

/**
 * The `Mcp-Param-*` headers a client sends with a `tools/call` of a tool whose input schema
 * mirrors arguments into headers (`x-mcp-header`): one per argument present, encoded as needed.
 * @example mirroredHeaders(tool.inputSchema, { region: "us-west1" }) // { "mcp-param-region": "us-west1" }
 */
export function mirroredHeaders(inputSchema: JsonSchema, args: Record<string, unknown> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { name, path } of paramHeadersOf(inputSchema)) {
    const value = valueAt(args, path);
    if (value === undefined || value === null || typeof value === "object") continue;
    headers[`mcp-param-${name.toLowerCase()}`] = headerValueFor(String(value));
  }
  return headers;
}
