/**
 * A call's outcome: its result or its JSON-RPC error, and who answered. Every policy of the call
 * chain (src/gateway/chain/policies.ts) passes one on; idempotent replay stores and replays it.
 */
import { z } from "zod";
import { GuardrailReportSchema } from "../guardrails/schema.js";
import { JsonRpcErrorObjectSchema } from "../../protocols/jsonrpc/index.js";

/** Who answered: after `ok` and the answer, so that a replay has its fields in the first answer's order. */
const whoAnswered = {
  deployment: z.string().optional(),
  degraded: z.boolean().optional(),
  replayed: z.boolean().optional(),
  /** What a guardrail did to the call (src/policies/guardrails): for its audit entry and counters. */
  guardrail: GuardrailReportSchema.optional(),
};

/** What one call produced, as stored and replayed (`replayed` is set on a replay only). */
export const OutcomeSchema = z.union([
  z.object({ ok: z.literal(true), result: z.unknown(), ...whoAnswered }),
  z.object({ ok: z.literal(false), error: JsonRpcErrorObjectSchema, ...whoAnswered }),
]);
export type Outcome = z.infer<typeof OutcomeSchema>;
