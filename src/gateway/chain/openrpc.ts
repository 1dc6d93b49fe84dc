/** `rpc.discover`: an OpenRPC 1.2.6 document of every skill the gateway serves. */
import type { ToolSummary } from "./catalog.js";

type JsonSchema = Record<string, unknown>;

/** One OpenRPC content descriptor. */
interface Param {
  name: string;
  schema: JsonSchema;
  required: boolean;
  description?: string;
}

/**
 * A skill's params as OpenRPC sees them. An object input: its properties in declaration order
 * (the positional order too), by name or by position. A tuple: its items, by position. Any
 * other array (variadic, like `sum`): one descriptor for every value, by position.
 */
function contentDescriptorsOf(input: JsonSchema): { paramStructure: "either" | "by-position"; params: Param[] } {
  // Keep $defs reachable: a property schema's "#/$defs/…" refers to the input schema's root.
  const withDefs = (schema: unknown): JsonSchema => (input.$defs ? { ...(schema as JsonSchema), $defs: input.$defs } : (schema as JsonSchema));
  if (input.type === "object") {
    const required = new Set((input.required ?? []) as string[]);
    const properties = (input.properties ?? {}) as Record<string, unknown>;
    return {
      paramStructure: "either",
      params: Object.entries(properties).map(([name, schema]) => ({ name, schema: withDefs(schema), required: required.has(name) })),
    };
  }
  if (Array.isArray(input.prefixItems)) {
    const minItems = typeof input.minItems === "number" ? input.minItems : 0;
    return {
      paramStructure: "by-position",
      params: input.prefixItems.map((schema, i) => ({ name: `arg${i}`, schema: withDefs(schema), required: i < minItems })),
    };
  }
  return {
    paramStructure: "by-position",
    params: [{ name: "values", schema: withDefs(input.items ?? {}), required: false, description: "Any number of values, each one positional param" }],
  };
}

/**
 * Builds the OpenRPC document: one method per skill, params from the input schema, the result
 * from the output schema.
 * @example openRpcDocument(catalogOf(view)).methods.map((m) => m.name)
 */
export function openRpcDocument(skills: ToolSummary[]): Record<string, unknown> {
  return {
    openrpc: "1.2.6",
    info: {
      title: "Skillmesh gateway",
      version: "1.0.0",
      description: "Every method is a skill; skills.list and skills.discover find them by capability tag.",
    },
    methods: skills.map((skill) => ({
      name: skill.name,
      description: skill.description,
      tags: skill.tags.map((name) => ({ name })),
      ...contentDescriptorsOf(skill.inputSchema),
      result: { name: "result", schema: skill.outputSchema },
    })),
  };
}
