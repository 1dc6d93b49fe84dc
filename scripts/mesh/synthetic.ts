/**
 * Synthetic skills for runs at scale (`npm run bench -- --scale`, the listing tests): manifests
 * as real ones are, registered against one real skill's endpoint.
 */
import type { SkillManifest } from "../../src/skill/manifest.js";
import { registerSkill } from "./index.js";

/**
 * Skill `i`'s manifest: 12 described properties, about 2 KB of schema; tagged `bench.all`,
 * `bench.group<i % 100>` and `bench.only<i>`.
 * @example syntheticManifest(7).name // "bench.s7"
 */
export function syntheticManifest(i: number): SkillManifest {
  const properties = Object.fromEntries(
    Array.from({ length: 12 }, (_, p) => [
      `field_${p}`,
      {
        type: p % 3 ? "string" : "number",
        description: `Field ${p} of synthetic skill ${i}: what the caller passes, in a sentence or two, as real manifests do.`,
      },
    ]),
  );
  return {
    name: `bench.s${i}`,
    version: "1.0.0",
    description: `Synthetic skill ${i} of the scale benchmark: it routes to subtract.`,
    tags: [`bench.group${i % 100}`, "bench.all", `bench.only${i}`],
    idempotent: true,
    degraded: false,
    timeoutMs: 5_000,
    inputSchema: { type: "object", properties, required: ["field_0"], additionalProperties: false },
    outputSchema: { type: "number" },
  };
}

/**
 * Registers synthetic skills `from` … `to - 1` behind `binding`, `inFlight` registrations at a
 * time; `manifestOf` says what skill `i` is (another corpus than `syntheticManifest`'s).
 * @example await registerSynthetic(mesh.gatewayUrl, ADMIN_TOKEN, mesh.skills[0].binding, 0, 1_050)
 */
export async function registerSynthetic(
  gatewayUrl: string,
  adminToken: string,
  binding: string,
  from: number,
  to: number,
  inFlight = 8,
  manifestOf: (i: number) => SkillManifest = syntheticManifest,
): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < to) await registerSkill(gatewayUrl, adminToken, { binding }, { manifest: manifestOf(next++) });
    }),
  );
}
