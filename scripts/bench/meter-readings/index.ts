/** Code mode's data-heavy task, its source (scripts/bench/code-mode.ts): a meter's readings, many rows for a small ask. */
import { defineSkill, z } from "../../../src/skill/index.js";

const Reading = z.object({ at: z.string(), kwh: z.number(), voltage: z.number(), status: z.enum(["ok", "fault"]) });

export default defineSkill({
  name: "meter.readings",
  version: "1.0.0",
  description: "Every reading of one meter over the last days: time, energy (kWh), voltage and status, one row per 15 minutes.",
  tags: ["grid.meter", "bench"],
  input: z.object({ meter: z.string().describe("The meter's id, e.g. m-17"), days: z.number().int().min(1).max(31).describe("How many days back") }),
  output: z.object({ meter: z.string(), readings: z.array(Reading) }),
  idempotent: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: ({ meter, days }) => {
    const start = Date.UTC(2026, 10, 1);
    const readings = Array.from({ length: days * 96 }, (_, i) => {
      // Deterministic: a fault every 97th reading, a sagging voltage around it.
      const fault = i % 97 === 13;
      return {
        at: new Date(start + i * 15 * 60_000).toISOString(),
        kwh: Math.round((0.4 + ((i * 7919) % 100) / 250) * 1000) / 1000,
        voltage: fault ? 196.5 : 229 + ((i * 31) % 7),
        status: fault ? ("fault" as const) : ("ok" as const),
      };
    });
    return { meter, readings };
  },
});
