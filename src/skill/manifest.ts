/** The manifest a skill Worker serves at `GET /manifest` and the gateway stores on registration. */
import { z } from "zod";

/** JSON-RPC method / MCP tool name. */
export const SkillNameSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "name must match [A-Za-z0-9_.-]{1,64}");
/** Semver 2.0 (with optional pre-release and build). */
export const SemverSchema = z
  .string()
  .regex(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, "version must be semver, e.g. 1.2.0");
/** A capability tag: dotted words, e.g. `text.summarize` or `grid.modbus`. */
export const TagSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "tags must match [A-Za-z0-9_.:-]{1,64}");

/** Default per-skill timeout (DESIGN: 10 s). */
export const DEFAULT_TIMEOUT_MS = 10_000;

export const SkillManifestSchema = z.object({
  name: SkillNameSchema,
  version: SemverSchema,
  description: z.string().max(4096),
  tags: z.array(TagSchema).max(32),
  idempotent: z.boolean(),
  degraded: z.boolean(),
  /** How long the gateway waits for this skill before answering -32004. */
  timeoutMs: z.number().int().positive().max(300_000),
  /** Overrides of the gateway's circuit-breaker defaults for this skill (see src/breaker). */
  breaker: z
    .object({
      failureRate: z.number().gt(0).max(1),
      windowMs: z.number().int().min(1_000).max(600_000),
      minimumCalls: z.number().int().min(1).max(10_000),
      consecutiveFailures: z.number().int().min(1).max(1_000),
      openMs: z.number().int().min(100).max(3_600_000),
      maxOpenMs: z.number().int().min(100).max(3_600_000),
    })
    .partial()
    .optional(),
  /** How long the gateway keeps an answer for `Idempotency-Key` replays (default 1 h). */
  idempotencyTtlSeconds: z.number().int().min(1).max(7 * 86_400).optional(),
  /** JSON Schema of the input (zod 4's `z.toJSONSchema`, io: input). */
  inputSchema: z.record(z.string(), z.unknown()),
  /** JSON Schema of the output (io: output). */
  outputSchema: z.record(z.string(), z.unknown()),
});
export type SkillManifest = z.infer<typeof SkillManifestSchema>;
