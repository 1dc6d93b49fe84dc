/** A stored skill for unit tests of what reads the registry: one stable deployment, all traffic on it. */
import type { SkillDoc } from "../../src/registry/deployments/model.js";

/**
 * `name@1.0.0`, stable, bound to `X`, with its manifest's other fields (`extra`: resources, prompts…).
 * @example RegistryView.of(1, new Map([["a.one", skillDocOf("a.one")]]), new Set())
 */
export function skillDocOf(name: string, extra: Record<string, unknown> = {}): SkillDoc {
  const manifest = {
    name,
    version: "1.0.0",
    description: name,
    tags: ["t"],
    idempotent: true,
    degraded: false,
    timeoutMs: 1_000,
    inputSchema: {},
    outputSchema: {},
    ...extra,
  };
  const id = `${name}@1.0.0`;
  return {
    deployments: {
      [id]: { id, name, version: "1.0.0", tags: ["t"], manifest, endpoint: { binding: "X" }, role: "stable", registrationId: name, registeredAt: 0 },
    },
    routes: { "*": { "1.0.0": 100 } },
  } as SkillDoc;
}
