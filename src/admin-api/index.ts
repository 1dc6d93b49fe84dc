/**
 * The admin API's request and response bodies, defined once as zod schemas with their types
 * inferred: the routes parse requests with them, the CLI builds requests and reads answers with
 * them. (The registry's own shapes — deployments, routing tables — are in src/registry/model.ts.)
 */
import { z } from "zod";
import { RolloutPlanSchema, RolloutSchema } from "../delivery/index.js";
import { DeploymentSchema, GroupNameSchema, RoutingTableSchema } from "../registry/model.js";

// ---------------------------------------------------------------------------------------------
// Registration and errors
// ---------------------------------------------------------------------------------------------

/** `POST /admin/deployments` (the request is the registry's RegistrationSchema): the deployment as registered. */
export const RegistrationAnswerSchema = z.object({ changed: z.boolean(), deployment: DeploymentSchema });

/** Every refusal of the admin API: `{"error": {"code", "message", "issues"?}}`. */
export const AdminErrorSchema = z.object({ error: z.object({ code: z.number(), message: z.string(), issues: z.unknown().optional() }) });

// ---------------------------------------------------------------------------------------------
// Rollouts
// ---------------------------------------------------------------------------------------------

const Percent = z.number().int().min(0).max(100);
// Request bodies are strict: a misspelt field ("quotas", "ttl") is an error, not a setting silently left out.
export const CanaryRequestSchema = z.strictObject({ version: z.string().min(1), groups: z.record(GroupNameSchema, Percent) });
export const PromoteRequestSchema = z.strictObject({ version: z.string().min(1) });
export const RollbackRequestSchema = z.strictObject({ version: z.string().min(1).optional(), reason: z.string().max(500).optional() });
export const RoutesRequestSchema = z.strictObject({ routes: RoutingTableSchema });

/** A duration: milliseconds, or a string such as `500ms`, `30s`, `5m`, `1h`. */
export const DurationSchema = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .regex(/^\d+(ms|s|m|h)$/, "a duration such as 30s, 5m or 1h")
    .transform((text) => {
      const [, amount, unit] = text.match(/^(\d+)(ms|s|m|h)$/)!;
      return Number(amount) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit as "ms" | "s" | "m" | "h"];
    }),
]);

/** A share: a fraction (0.01) or a percentage string (`1%`). */
export const ShareSchema = z.union([z.number().min(0).max(1), z.string().regex(/^\d+(\.\d+)?%$/, "a percentage such as 1% or 0.5%").transform((text) => Number(text.slice(0, -1)) / 100)]);

/** `POST /admin/skills/:name/rollout`: progressive delivery of a canary (src/delivery). */
export const RolloutRequestSchema = z
  .strictObject({
    version: z.string().min(1),
    /** The canary's weight per step, e.g. [5, 25, 50, 100] or "5,25,50,100". */
    steps: z.union([z.array(z.number()), z.string().regex(/^\d+(,\d+)*$/, "steps such as 5,25,50,100").transform((text) => text.split(",").map(Number))]),
    every: DurationSchema,
    groups: z.array(z.string()).optional(),
    maxErrorRate: ShareSchema,
    maxP95Ratio: z.number().min(1).optional(),
    minCalls: z.number().int().min(1).optional(),
  })
  .transform(({ every, ...plan }) => ({ ...plan, everyMs: every }))
  .pipe(RolloutPlanSchema);

/** The answer of every rollout operation. */
export const RolloutAnswerSchema = z.object({ rollout: RolloutSchema });

/** `POST /admin/skills/:name/rollout/{pause,resume,abort}`. */
export const RolloutCommandSchema = z.strictObject({ reason: z.string().max(500).optional() });

/** `GET /admin/deployments?limit&cursor`: a page of skills (query strings, so parsed from text). */
export const DeploymentPageSchema = z.object({
  limit: z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(500)).default(500),
  cursor: z.string().min(1).max(128).optional(),
});

// ---------------------------------------------------------------------------------------------
// API keys
// ---------------------------------------------------------------------------------------------

/** A skill name or tag glob (`*` any run of characters, `?` one). */
export const GlobSchema = z.string().regex(/^[A-Za-z0-9_.:*?-]{1,128}$/, "a glob is [A-Za-z0-9_.:*?-]{1,128}");

/** How often: `100/min`, `5/s`, `50000/day`, `1000000/month`. */
export const RateSchema = z
  .string()
  .regex(/^\d{1,9}\s*\/\s*(s|sec|second|m|min|minute|h|hour|d|day|month)$/, 'a rate is <count>/<s|min|h|day|month>, e.g. "100/min"');

export const AdminLevelSchema = z.enum(["read", "write"]);

/** What a key may do. Unset lists allow nothing: a key names what it may call. */
export const KeyGrantsSchema = z.object({
  /** Skill names it may see and call (globs). */
  skills: z.array(GlobSchema).max(64).default([]),
  /** Skills it may see and call by capability tag (globs). */
  tags: z.array(GlobSchema).max(64).default([]),
  /** `X-User-Group` values it may use; any other routes as `*`. */
  groups: z.array(GroupNameSchema).max(64).default([]),
  /** Access to the admin API: none, `read` (GET) or `write` (everything). */
  admin: AdminLevelSchema.optional(),
  /** Calls per time window across every gateway isolate, e.g. `100/min`. */
  rate: RateSchema.optional(),
  /** A longer, durable budget, e.g. `50000/day`. */
  quota: RateSchema.optional(),
});
export type KeyGrants = z.infer<typeof KeyGrantsSchema>;

export const KeyNameSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "a key name is [A-Za-z0-9_.:-]{1,64}");

/** `POST /admin/keys`. */
export const KeyCreateRequestSchema = KeyGrantsSchema.extend({ name: KeyNameSchema }).strict();

/** `PATCH /admin/keys/:id`: the fields given replace the key's (`null` clears an optional one). */
export const KeyUpdateRequestSchema = z.strictObject({
  name: KeyNameSchema.optional(),
  skills: z.array(GlobSchema).max(64).optional(),
  tags: z.array(GlobSchema).max(64).optional(),
  groups: z.array(GroupNameSchema).max(64).optional(),
  admin: AdminLevelSchema.nullable().optional(),
  rate: RateSchema.nullable().optional(),
  quota: RateSchema.nullable().optional(),
});
export type KeyUpdateRequest = z.infer<typeof KeyUpdateRequestSchema>;

/** A key as the admin API shows it: never its secret, never its hash. */
export const KeyViewSchema = KeyGrantsSchema.extend({
  id: z.string(),
  name: z.string(),
  /** The key's first and last characters, to recognise it: `sm_Ab3d…x9Yz`. */
  hint: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  revokedAt: z.number().optional(),
});
export type KeyView = z.infer<typeof KeyViewSchema>;

/** `POST /admin/keys` answers the key itself, once. */
export const KeyCreatedSchema = z.object({ key: z.string(), view: KeyViewSchema });
export const KeyListSchema = z.object({ keys: z.array(KeyViewSchema) });

// ---------------------------------------------------------------------------------------------
// Audit log
// ---------------------------------------------------------------------------------------------

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

export const AuditEntrySchema = z.discriminatedUnion("type", [CallAuditSchema, AdminAuditSchema]);
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** `GET /admin/audit` filters. */
export const AuditQuerySchema = z.object({
  caller: z.string().max(64).optional(),
  /** A skill name (calls) or a part of an admin action. */
  skill: z.string().max(128).optional(),
  /** `ok`, `error`, or one error code. */
  outcome: z.union([z.enum(["ok", "error"]), z.coerce.number().int()]).optional(),
  type: z.enum(["call", "admin"]).optional(),
  /** Entries at or after this time: ms since the epoch, or an ISO date. */
  since: z
    .string()
    .max(40)
    .refine((since) => /^\d+$/.test(since) || !Number.isNaN(Date.parse(since)), "since is ms since the epoch or an ISO date, e.g. 2026-12-01T00:00:00Z")
    .optional(),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  /** The `nextCursor` of the page before: go on with older entries. */
  cursor: z.string().regex(/^\d{1,16}$/, "a cursor is the nextCursor of the page before").optional(),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

/** `GET /admin/audit`: the entries, newest first, and the cursor of the next (older) page when there may be one. */
export const AuditListSchema = z.object({ entries: z.array(AuditEntrySchema), nextCursor: z.string().optional() });

/**
 * How the admin views (the dashboard and the CLI) print a time: UTC, to the second.
 * @example utcTime(Date.UTC(2026, 10, 30, 9, 5)) // "2026-11-30 09:05:00"
 */
export function utcTime(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}
