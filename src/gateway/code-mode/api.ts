/**
 * The typed API a script is written against: TypeScript declarations of a tool as the script calls
 * it (`modbus.decode(input)`), generated from the tool's pinned input and output schemas (its
 * listed summary: the registry's pinned manifest, or an upstream's pinned definition) with
 * `@cloudflare/codemode`'s `jsonSchemaToType`. Made once per summary: a summary is shared until
 * its tool changes (src/gateway/chain/catalog.ts), and a virtual server's alias is a summary of its own.
 */
import { jsonSchemaToType } from "@cloudflare/codemode";
import { bindableNamespace } from "./script.js";

/** What a tool's declarations are made of (a listed tool summary has it all). */
export interface DeclaredTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

const declarations = new WeakMap<DeclaredTool, string>();

/** `Modbus_decode` → `ModbusDecode`: a type name from a tool's name. */
const typeNameOf = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("")
    .replace(/^(\d)/, "T$1") || "Tool";

/** How a script reaches a tool's namespace: a constant, else `tools["…"]`. */
export const namespaceOf = (tool: string): { namespace: string; member: string } => {
  const dot = tool.indexOf(".");
  return dot > 0 ? { namespace: tool.slice(0, dot), member: tool.slice(dot + 1) } : { namespace: tool, member: "" };
};

/**
 * A tool's declarations: its input and output types and the namespace it is called through.
 * @example declarationsOf(summary) // "type ModbusDecodeInput = { frame: string; … }\n…declare const modbus: { decode(input: ModbusDecodeInput): Promise<ModbusDecodeOutput>; }"
 */
export function declarationsOf(tool: DeclaredTool): string {
  const cached = declarations.get(tool);
  if (cached !== undefined) return cached;
  const typeName = typeNameOf(tool.name);
  const typeOf = (schema: Record<string, unknown> | undefined, suffix: string) => {
    if (!schema || Object.keys(schema).length === 0) return `type ${typeName}${suffix} = unknown;`;
    try {
      return `${jsonSchemaToType(schema, `${typeName}${suffix}`).trim()};`;
    } catch {
      return `type ${typeName}${suffix} = unknown;`;
    }
  };
  const { namespace, member } = namespaceOf(tool.name);
  const doc = [tool.description.trim().replace(/\*\//g, "* /").replace(/\s+/g, " ").slice(0, 600)];
  if (tool.annotations?.destructiveHint === true && tool.annotations.readOnlyHint !== true) doc.push("Destructive: the caller is asked to approve each call.");
  const signature = `(input: ${typeName}Input): Promise<${typeName}Output>`;
  const key = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(member) ? member : JSON.stringify(member);
  // A namespace is a constant when its name can be one, else `tools["<namespace>"]`; a tool without a dot is the namespace itself, called.
  const holder =
    bindableNamespace(namespace) ? `declare const ${namespace}` : `declare const tools: { ${JSON.stringify(namespace)}: typeof ns }; declare const ns`;
  const text = [
    typeOf(tool.inputSchema, "Input"),
    typeOf(tool.outputSchema, "Output"),
    `/** ${doc.join(" ")} */`,
    member === "" ? `${holder}: { ${signature} };` : `${holder}: { ${key}${signature} };`,
  ].join("\n");
  declarations.set(tool, text);
  return text;
}
