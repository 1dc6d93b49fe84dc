/** `rpc.discover`: an OpenRPC 1.2.6 document of every skill the gateway serves. */
import type { SkillSummary } from "./pipeline.js";

/**
 * Builds the OpenRPC document: one method per skill, params by name from the input schema.
 * @example openRpcDocument(summarize(view.deployments())).methods.map((m) => m.name)
 */
export function openRpcDocument(skills: SkillSummary[]): Record<string, unknown> {
  return {
    openrpc: "1.2.6",
    info: { title: "Skillmesh gateway", version: "1.0.0" },
    methods: skills.map((skill) => {
      const properties = (skill.inputSchema.properties ?? {}) as Record<string, unknown>;
      const required = new Set((skill.inputSchema.required ?? []) as string[]);
      return {
        name: skill.name,
        description: skill.description,
        tags: skill.tags.map((name) => ({ name })),
        paramStructure: skill.inputSchema.type === "object" ? "either" : "by-position",
        params: Object.entries(properties).map(([name, schema]) => ({ name, schema, required: required.has(name) })),
        result: { name: "result", schema: skill.outputSchema },
      };
    }),
  };
}
