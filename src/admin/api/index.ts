/**
 * The admin API's request and response bodies, defined once as zod schemas with their types
 * inferred: the routes parse requests with them, the CLI builds requests and reads answers with
 * them. (The registry's own shapes — deployments, routing tables — are in src/registry/deployments/model.ts.)
 */
import { z } from "zod";
import { BreakerStatusSchema } from "../../policies/breaker/state.js";
import { RolloutPlanSchema, RolloutSchema } from "../../registry/delivery/index.js";
import { ObservedSchema } from "../../registry/metrics/index.js";
import { DeploymentSchema, GroupNameSchema, RoutingEventSchema, RoutingTableSchema } from "../../registry/deployments/model.js";
import { HeldChangeSchema, RefreshStatusSchema, UpstreamViewSchema } from "../../federation/upstream/model.js";
import { ServerDefinitionSchema } from "../../gateway/servers/index.js";
import { MAX_PACKAGE_FILES } from "../../registry/packages/index.js";
import { PackageRecordSchema } from "../../registry/packages/registry.js";

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
export const ShareSchema = z.union([
  z.number().min(0).max(1),
  z
    .string()
    .regex(/^\d+(\.\d+)?%$/, "a percentage such as 1% or 0.5%")
    .transform((text) => Number(text.slice(0, -1)) / 100),
]);

/** `POST /admin/skills/:name/rollout`: progressive delivery of a canary (src/registry/delivery). */
export const RolloutRequestSchema = z
  .strictObject({
    version: z.string().min(1),
    /** The canary's weight per step, e.g. [5, 25, 50, 100] or "5,25,50,100". */
    steps: z.union([
      z.array(z.number()),
      z
        .string()
        .regex(/^\d+(,\d+)*$/, "steps such as 5,25,50,100")
        .transform((text) => text.split(",").map(Number)),
    ]),
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

/**
 * `GET /admin/deployments`: a page of the registry with what an operator looks at — deployments,
 * routing tables, breaker states, observed numbers (by deployment id), rollouts (by skill) and
 * the recent routing events; `nextCursor` when more skills follow. The dashboard shows it, the
 * CLI's `status` and `npm run dev`'s live reload read it.
 */
export const DeploymentsPageAnswerSchema = z.object({
  revision: z.number(),
  deployments: z.array(DeploymentSchema),
  routes: z.record(z.string(), RoutingTableSchema),
  breakers: z.record(z.string(), BreakerStatusSchema),
  observed: z.record(z.string(), ObservedSchema),
  rollouts: z.record(z.string(), RolloutSchema),
  events: z.array(RoutingEventSchema),
  nextCursor: z.string().optional(),
});
export type DeploymentsPageAnswer = z.output<typeof DeploymentsPageAnswerSchema>;

/** `GET /admin/skills/:name`: one skill's deployments, routing table, observed numbers, events and rollout. */
export const SkillAnswerSchema = z.object({
  skill: z.string(),
  deployments: z.array(DeploymentSchema),
  routes: RoutingTableSchema,
  observed: z.record(z.string(), ObservedSchema),
  events: z.array(RoutingEventSchema),
  rollout: RolloutSchema.optional(),
});
export type SkillAnswer = z.output<typeof SkillAnswerSchema>;

/** The answer of a routing edit (`canary`, `promote`, `rollback`, `routes`): the skill's table and the event it recorded. */
export const RoutingEditAnswerSchema = z.object({ skill: z.string(), routes: RoutingTableSchema, event: RoutingEventSchema });
export type RoutingEditAnswer = z.output<typeof RoutingEditAnswerSchema>;

/** `GET /admin/deployments?limit&cursor`: a page of skills (query strings, so parsed from text). */
export const DeploymentPageSchema = z.object({
  limit: z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(500)).default(500),
  cursor: z.string().min(1).max(128).optional(),
});

// ---------------------------------------------------------------------------------------------
// API keys, rates and the audit log: defined by their owners, part of the admin API
// ---------------------------------------------------------------------------------------------

export { GlobSchema } from "../../lib/glob/index.js";
export { RateSchema } from "../../policies/ratelimit/index.js";
export {
  AdminLevelSchema,
  KeyCreateRequestSchema,
  KeyCreatedSchema,
  type KeyGrants,
  KeyGrantsSchema,
  KeyListSchema,
  KeyNameSchema,
  type KeyUpdateRequest,
  KeyUpdateRequestSchema,
  type KeyView,
  KeyViewSchema,
} from "../../identity/keys/schema.js";
export {
  AdminAuditSchema,
  type AuditEntry,
  AuditEntrySchema,
  AuditListSchema,
  type AuditQuery,
  AuditQuerySchema,
  CallAuditSchema,
} from "../../registry/audit/schema.js";

/**
 * How the admin views (the dashboard and the CLI) print a time: UTC, to the second.
 * @example utcTime(Date.UTC(2026, 10, 30, 9, 5)) // "2026-11-30 09:05:00"
 */
export function utcTime(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

// ---------------------------------------------------------------------------------------------
// Upstreams: MCP servers and OpenAPI services behind the gateway (src/federation/upstream)
// ---------------------------------------------------------------------------------------------

export { UpstreamRegistrationSchema } from "../../federation/upstream/model.js";

/** A `sha256:` contract hash, as an approval names what it reviewed. */
const ContractHashSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, "a contract hash is sha256: and 64 hex digits, as the held change lists it");

/**
 * `POST /admin/upstreams/:name/approve`: the held changes an operator reviewed, each named (a tool
 * by its name; a resource, template, prompt or Agent Skill as `<subject>:<name>`, a skill by its
 * skill-path upstream) with the `contractHash` it saw.
 */
export const ApproveRequestSchema = z
  .strictObject({
    version: z.string().min(1).optional(),
    tools: z.record(z.string().min(1).max(256), ContractHashSchema).optional(),
    offerings: z
      .record(
        z
          .string()
          .regex(
            /^(resource|resourceTemplate|prompt|skill|app):.{1,2048}$/,
            "an offering is named <subject>:<name>, e.g. prompt:summarize, skill:git-workflow or app:ui://widget/map.html",
          ),
        ContractHashSchema,
      )
      .optional(),
  })
  .refine(
    (approval) => Object.keys(approval.tools ?? {}).length + Object.keys(approval.offerings ?? {}).length > 0,
    "name what you approve: tools and/or offerings, each with the contractHash you reviewed",
  );

/** What a registration, refresh or approval did to one upstream version. */
export const SyncReportSchema = z.object({
  upstream: z.string(),
  version: z.string(),
  served: z.array(z.string()),
  offerings: z.array(z.string()).default([]),
  held: z.array(HeldChangeSchema.pick({ subject: true, name: true, kind: true, contractHash: true, breaking: true, withdrawn: true, changes: true })),
  removed: z.array(z.string()),
  skipped: z.array(z.object({ tool: z.string(), reason: z.string() })),
  approved: z.array(z.object({ key: z.string(), contractHash: z.string() })).optional(),
});
export const SyncAnswerSchema = z.object({ reports: z.array(SyncReportSchema) });

export { AuthViewSchema, type UpstreamView, UpstreamViewSchema } from "../../federation/upstream/model.js";
export const UpstreamListSchema = z.object({ upstreams: z.array(UpstreamViewSchema) });

/**
 * One version of an upstream as `/healthz` (with an admin credential) and the metrics tell it:
 * `failing` when its last refresh failed or a breaker of one of its tools is open.
 */
export const UpstreamHealthSchema = z.object({
  upstream: z.string(),
  version: z.string(),
  kind: z.enum(["mcp", "openapi", "a2a"]),
  status: z.enum(["ok", "failing"]),
  /** Tools served, held for approval, and withdrawn (a breaking change, or removed upstream). */
  tools: z.number().int(),
  held: z.number().int(),
  withdrawn: z.number().int(),
  /** Its tools whose breaker is open (half-open counts: it has not recovered yet). */
  breakersOpen: z.number().int(),
  lastRefresh: RefreshStatusSchema.optional(),
});
export type UpstreamHealth = z.infer<typeof UpstreamHealthSchema>;

/** `DELETE /admin/upstreams/:name`: the deployments removed with it. */
export const UpstreamRemovedSchema = z.object({ removed: z.array(z.string()) });

// ---------------------------------------------------------------------------------------------
// Agent Skills packages (src/registry/packages)
// ---------------------------------------------------------------------------------------------

/** `POST /admin/agent-skills`: a package's folder name and its files (text, or base64 bytes). */
export const AgentSkillUploadSchema = z.strictObject({
  /** The package's folder name, which its `name` must equal. */
  name: z.string().min(1).max(64),
  files: z
    .array(z.strictObject({ path: z.string().min(1).max(512), content: z.string(), encoding: z.enum(["utf8", "base64"]).default("utf8") }))
    .min(1)
    .max(MAX_PACKAGE_FILES),
});
export type AgentSkillUpload = z.infer<typeof AgentSkillUploadSchema>;
export const AgentSkillFileSchema = z.object({ path: z.string(), digest: z.string(), bytes: z.number() });
/** What a registration did: the version, its digest and files, and whether anything changed. */
/** What a package's registration did: its version, digests and tools, whether anything changed, and the package's stable version (another one: this one is a canary at 0%). */
export const AgentSkillRegisteredSchema = z.object({
  name: z.string(),
  version: z.string(),
  digest: z.string(),
  tools: z.array(z.string()),
  files: z.array(AgentSkillFileSchema),
  changed: z.boolean(),
  stable: z.string(),
});
export const AgentSkillViewSchema = PackageRecordSchema;
export const AgentSkillListSchema = z.object({ agentSkills: z.array(PackageRecordSchema) });
export const AgentSkillRemovedSchema = z.object({ removed: z.array(z.string()) });
/** What a package's canary, promote or rollback did: its stable version, its table, the event. */
export const AgentSkillRoutingAnswerSchema = z.object({ name: z.string(), stable: z.string(), routes: RoutingTableSchema, event: RoutingEventSchema });
export type AgentSkillRoutingAnswer = z.infer<typeof AgentSkillRoutingAnswerSchema>;

// ---------------------------------------------------------------------------------------------
// Virtual MCP servers (src/gateway/servers)
// ---------------------------------------------------------------------------------------------

export { ServerDefinitionSchema } from "../../gateway/servers/index.js";
export const ServerListSchema = z.object({ servers: z.record(z.string(), ServerDefinitionSchema) });
export const ServerSavedSchema = z.object({ name: z.string(), server: ServerDefinitionSchema, url: z.string() });
