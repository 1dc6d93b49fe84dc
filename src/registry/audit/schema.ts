/** The audit log's entries and the filters of `GET /admin/audit`: defined once, parsed where they are read. */
import { z } from "zod";
import { GuardrailReportSchema } from "../../policies/guardrails/schema.js";

/** One call through `/rpc` or `/mcp`: who, what, how it went — never a secret or an argument. */
export const CallAuditSchema = z.object({
  type: z.literal("call"),
  at: z.number(),
  /** The caller's id (`k_…` key id, `c_…` hash, "anonymous"), never its credential. */
  caller: z.string(),
  /** The method: a skill or a built-in. */
  method: z.string(),
  /** `name@version` of the deployment that answered, if one did. */
  deployment: z.string().optional(),
  group: z.string().optional(),
  /** 0 when it succeeded, else the JSON-RPC error code. */
  code: z.number().int(),
  ms: z.number(),
  replayed: z.boolean().optional(),
  degraded: z.boolean().optional(),
  /** The skill exists but is outside the caller's grants (the caller was told it does not exist). */
  hidden: z.boolean().optional(),
  /** SHA-256 (first 32 hex digits) of the canonical JSON of the params: equal calls match, values stay unknown. */
  args: z.string().optional(),
  /** A read of an Agent Skills file: its `skill://` URI (the package version is `deployment`). */
  resource: z.string().optional(),
  /** What a guardrail did (src/policies/guardrails): the kinds of credential found and where, never the credential. */
  guardrail: GuardrailReportSchema.optional(),
  /**
   * Code mode: the script run (`code.execute`: its id, its tool calls, its size and text as the
   * content path passed it), or the execution a tool call was made by (its `id` alone).
   */
  execution: z.object({ id: z.string(), calls: z.number().int().optional(), bytes: z.number().int().optional(), script: z.string().optional() }).optional(),
});

/** One change through the admin API. */
export const AdminAuditSchema = z.object({
  type: z.literal("admin"),
  at: z.number(),
  /** `admin-token`, or the admin key's id. */
  by: z.string(),
  /** `POST /admin/skills/text.summarize/canary`, … */
  action: z.string(),
  status: z.number().int(),
});

/** A request a dispatched skill made to a host its manifest does not declare: refused, and kept as the skill's (src/federation/egress). */
export const EgressAuditSchema = z.object({
  type: z.literal("egress"),
  at: z.number(),
  /** `name@version` of the skill whose request it was. */
  deployment: z.string(),
  /** The HTTP method and the host asked for: never the path or the query (they may carry data). */
  method: z.string(),
  host: z.string(),
});

export const AuditEntrySchema = z.discriminatedUnion("type", [CallAuditSchema, AdminAuditSchema, EgressAuditSchema]);
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** `GET /admin/audit` filters. */
export const AuditQuerySchema = z.object({
  caller: z.string().max(64).optional(),
  /** A skill name (calls, refused egress), a package name (reads of its files) or a part of an admin action. */
  skill: z.string().max(128).optional(),
  /** `ok`, `error`, or one error code. */
  outcome: z.union([z.enum(["ok", "error"]), z.coerce.number().int()]).optional(),
  type: z.enum(["call", "admin", "egress"]).optional(),
  /** A code-mode execution's id (`x_…`): the script's entry and each of its tool calls'. */
  execution: z
    .string()
    .regex(/^x_[0-9a-f]{24}$/, "an execution id is x_ and 24 hex digits")
    .optional(),
  /** Entries at or after this time: ms since the epoch, or an ISO date. */
  since: z
    .string()
    .max(40)
    .refine((since) => /^\d+$/.test(since) || !Number.isNaN(Date.parse(since)), "since is ms since the epoch or an ISO date, e.g. 2026-12-01T00:00:00Z")
    .optional(),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  /** The `nextCursor` of the page before: go on with older entries. */
  cursor: z
    .string()
    .regex(/^\d{1,16}$/, "a cursor is the nextCursor of the page before")
    .optional(),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

/** `GET /admin/audit`: the entries, newest first, and the cursor of the next (older) page when there may be one. */
export const AuditListSchema = z.object({ entries: z.array(AuditEntrySchema), nextCursor: z.string().optional() });
