/**
 * The guardrails' settings and reports as data (zod), apart from the scanner (src/policies/guardrails/index.ts)
 * so that a skill's manifest, which every skill bundles, does not bundle the rule set.
 */
import { z } from "zod";

export const SecretsModeSchema = z.enum(["off", "redact", "refuse"]);
export type SecretsMode = z.infer<typeof SecretsModeSchema>;

/** What a skill's manifest, an upstream's registration or a virtual server's definition says of its calls. */
export const GuardrailsSchema = z.strictObject({ secrets: SecretsModeSchema });
export type Guardrails = z.infer<typeof GuardrailsSchema>;

/** An upstream's calls, unless its registration says otherwise: what a server nobody here wrote answers is redacted. */
export const UPSTREAM_GUARDRAILS: Guardrails = { secrets: "redact" };

/** One secret found: which rule found it (its message id, e.g. `GITHUB_TOKEN`), and where in the value (`token`, `items[2].url`). */
export const SecretFindingSchema = z.object({ kind: z.string().max(64), path: z.string().max(256) });
export type SecretFinding = z.infer<typeof SecretFindingSchema>;

/**
 * Where in a call's content it was found: what the caller sent (`arguments`: a tool's arguments,
 * an A2A message, a prompt's or a completion's arguments, answers to input requests), or what came
 * back — the `answer` (a result, a read, a prompt, a task), an `error` (its message and data, an
 * `isError` result, a failed task), a `log` or `progress` message, or a `stream`'s events.
 */
export const GuardedPartSchema = z.enum(["arguments", "answer", "error", "log", "progress", "stream"]);
export type GuardedPart = z.infer<typeof GuardedPartSchema>;

/** What the guardrail did to a call, for its audit entry and counters: at most 32 findings, each with the part it was in. */
export const GuardrailReportSchema = z.object({
  guardrail: z.literal("secrets"),
  action: z.enum(["redacted", "refused"]),
  findings: z.array(SecretFindingSchema.extend({ where: GuardedPartSchema })).max(32),
});
export type GuardrailReport = z.infer<typeof GuardrailReportSchema>;
