/**
 * The admin API as an OpenAPI 3.1 document, generated from its zod schemas (src/admin/api) with
 * zod-openapi, and written to src/admin/api/openapi.json by `npm run reference`; the gateway
 * serves that file at `GET /admin/openapi.json`. test/admin-openapi.test.ts validates it against
 * the OpenAPI 3.1 schema, holds it to the routes the gateway really has, and fails when the
 * file is out of date.
 */
import { z } from "zod";
import { createDocument } from "zod-openapi";
import {
  AdminErrorSchema,
  AuditListSchema,
  AuditQuerySchema,
  CanaryRequestSchema,
  DeploymentPageSchema,
  DeploymentsPageAnswerSchema,
  KeyCreateRequestSchema,
  KeyCreatedSchema,
  KeyListSchema,
  KeyUpdateRequestSchema,
  KeyViewSchema,
  PromoteRequestSchema,
  RegistrationAnswerSchema,
  RollbackRequestSchema,
  RolloutAnswerSchema,
  RolloutCommandSchema,
  RolloutRequestSchema,
  RoutesRequestSchema,
  RoutingEditAnswerSchema,
  SkillAnswerSchema,
  ApproveRequestSchema,
  SyncAnswerSchema,
  UpstreamListSchema,
  UpstreamRegistrationSchema,
  UpstreamRemovedSchema,
  AgentSkillListSchema,
  AgentSkillRegisteredSchema,
  AgentSkillRemovedSchema,
  AgentSkillRoutingAnswerSchema,
  AgentSkillUploadSchema,
  AgentSkillViewSchema,
  UpstreamViewSchema,
  ServerDefinitionSchema,
  ServerListSchema,
  ServerSavedSchema,
} from "../src/admin/api/index.js";
import { BreakerStatusSchema } from "../src/policies/breaker/state.js";
import { RolloutSchema } from "../src/registry/delivery/index.js";
import { ObservedSchema } from "../src/registry/metrics/index.js";
import { DeploymentSchema, RegistrationSchema, RoutingEventSchema, RoutingTableSchema } from "../src/registry/deployments/model.js";
import { AuditEntrySchema } from "../src/registry/audit/schema.js";

const json = (schema: z.ZodType, description: string) => ({ description, content: { "application/json": { schema } } });
const refusal = (description: string) => json(AdminErrorSchema, description);
const body = (schema: z.ZodType) => ({ required: true, content: { "application/json": { schema } } });
const skillPath = z.object({ name: z.string().meta({ description: "The skill's name, e.g. text.summarize" }) });
const agentSkillPath = z.object({ name: z.string().meta({ description: "The package's name (its SKILL.md name)" }) });
const upstreamPath = z.object({ name: z.string().meta({ description: "The upstream's name, the prefix of its tools' names" }) });
const serverPath = z.object({ name: z.string().meta({ description: "The virtual server's name: it answers at /mcp/<name>" }) });
const keyPath = z.object({ id: z.string().meta({ description: "The key's id (k_…) or its name" }) });
/** What every route may answer besides its own answer. */
const common = {
  "401": refusal("No credential, or one the gateway does not accept"),
  "403": refusal("A read-only admin key asking to write"),
  "429": refusal("Too many failed admin credentials from this address this minute"),
  "503": refusal("The store cannot be read or written; retry"),
};
const edit = (summary: string, schema: z.ZodType) => ({
  summary,
  requestParams: { path: skillPath },
  requestBody: body(schema),
  responses: {
    "200": json(RoutingEditAnswerSchema, "The skill's routing table and the event recorded"),
    "400": refusal("The edit would leave a group not adding up to 100, or names an unknown version"),
    "404": refusal("No such skill or version"),
    ...common,
  },
});

/** A routing edit of an Agent Skills package (its versions split as a tool's are). */
const packageEdit = (summary: string, schema: z.ZodType) => ({
  summary,
  requestParams: { path: agentSkillPath },
  requestBody: body(schema),
  responses: {
    "200": json(AgentSkillRoutingAnswerSchema, "The package's stable version, routing table and the event"),
    "400": refusal("The edit would leave a group not adding up to 100, or names the stable version"),
    "404": refusal("No such package or version"),
    ...common,
  },
});

/**
 * The document.
 * @example writeFileSync("src/admin/api/openapi.json", JSON.stringify(adminOpenApi(), null, 2))
 */
export function adminOpenApi() {
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Skillmesh admin API",
      version: "1",
      description:
        "The registry, routing edits, progressive delivery, API keys, dashboard sessions, the audit log and metrics of a Skillmesh gateway. Every route needs the admin token or an API key with admin access (read: GET only).",
    },
    servers: [{ url: "http://127.0.0.1:8787/admin", description: "npm run dev" }],
    security: [{ adminToken: [] }],
    // Named once, referred to everywhere they appear.
    components: {
      schemas: {
        Deployment: DeploymentSchema,
        RoutingTable: RoutingTableSchema,
        RoutingEvent: RoutingEventSchema,
        BreakerStatus: BreakerStatusSchema,
        Observed: ObservedSchema,
        Rollout: RolloutSchema,
        KeyView: KeyViewSchema,
        AuditEntry: AuditEntrySchema,
        AdminError: AdminErrorSchema,
      },
      securitySchemes: {
        adminToken: { type: "http", scheme: "bearer", description: "SKILLMESH_ADMIN_TOKEN, or an API key (sm_…) granted admin read or write" },
      },
    },
    paths: {
      "/deployments": {
        get: {
          summary: "A page of the registry: deployments, routing tables, breakers, observed numbers, rollouts, events",
          requestParams: { query: DeploymentPageSchema },
          responses: {
            "200": json(DeploymentsPageAnswerSchema, "A page of skills (nextCursor when more follow)"),
            "400": refusal("A bad limit or cursor"),
            ...common,
          },
        },
        post: {
          summary: "Register a deployment (by service binding or URL); re-registering is its heartbeat",
          requestBody: body(RegistrationSchema),
          responses: {
            "200": json(RegistrationAnswerSchema, "Already registered as it is"),
            "201": json(RegistrationAnswerSchema, "Registered"),
            "400": refusal("An invalid registration or endpoint"),
            "409": refusal("This name@version is registered with another definition"),
            "502": refusal("The endpoint's manifest could not be read"),
            ...common,
          },
        },
      },
      "/deployments/{id}": {
        delete: {
          summary: "Remove one deployment (its share of traffic returns to the stable version)",
          requestParams: { path: z.object({ id: z.string().meta({ description: "name@version" }) }) },
          responses: { "200": json(z.object({ removed: z.array(z.string()) }), "What was removed"), "404": refusal("No such deployment"), ...common },
        },
      },
      "/skills/{name}": {
        get: {
          summary: "One skill: deployments, routing table, observed numbers, events, rollout",
          requestParams: { path: skillPath },
          responses: { "200": json(SkillAnswerSchema, "The skill"), "404": refusal("No such skill"), ...common },
        },
      },
      "/skills/{name}/canary": { post: edit("Give a canary a share per group (stable takes the rest)", CanaryRequestSchema) },
      "/skills/{name}/promote": { post: edit("Make a version stable at 100% everywhere", PromoteRequestSchema) },
      "/skills/{name}/rollback": { post: edit("Send every group (or one canary's share) back to stable", RollbackRequestSchema) },
      "/skills/{name}/routes": { put: edit("Replace the whole routing table", RoutesRequestSchema) },
      "/skills/{name}/rollout": {
        post: {
          summary: "Start a progressive rollout: the canary raised step by step while it stays healthy",
          requestParams: { path: skillPath },
          requestBody: body(RolloutRequestSchema),
          responses: {
            "200": json(RolloutAnswerSchema, "The rollout"),
            "400": refusal("An invalid plan"),
            "404": refusal("No such skill or version"),
            "409": refusal("A rollout is already running"),
            ...common,
          },
        },
      },
      "/skills/{name}/rollout/{command}": {
        post: {
          summary: "Pause, resume or abort (roll back) the skill's rollout",
          requestParams: { path: skillPath.extend({ command: z.enum(["pause", "resume", "abort"]) }) },
          requestBody: body(RolloutCommandSchema),
          responses: {
            "200": json(RolloutAnswerSchema, "The rollout"),
            "404": refusal("No rollout"),
            "409": refusal("The rollout cannot do that now"),
            ...common,
          },
        },
      },
      "/keys": {
        get: { summary: "Every API key: grants, limits, revoked or not (never a secret)", responses: { "200": json(KeyListSchema, "The keys"), ...common } },
        post: {
          summary: "Issue an API key (the key is in this answer only)",
          requestBody: body(KeyCreateRequestSchema),
          responses: {
            "201": json(KeyCreatedSchema, "The key, once"),
            "400": refusal("Invalid grants"),
            "409": refusal("A key of that name exists"),
            ...common,
          },
        },
      },
      "/keys/{id}": {
        patch: {
          summary: "Change a key's grants or limits (null clears one)",
          requestParams: { path: keyPath },
          requestBody: body(KeyUpdateRequestSchema),
          responses: {
            "200": json(KeyViewSchema, "The key"),
            "400": refusal("Invalid changes"),
            "404": refusal("No such key"),
            "409": refusal("A key of that name exists"),
            ...common,
          },
        },
        delete: {
          summary: "Revoke a key: it stops working everywhere within about a second",
          requestParams: { path: keyPath },
          responses: { "200": json(KeyViewSchema, "The revoked key"), "404": refusal("No such key"), ...common },
        },
      },
      "/agent-skills": {
        get: {
          summary: "Every Agent Skills package: its versions, each with its frontmatter, files and digests",
          responses: { "200": json(AgentSkillListSchema, "The packages"), ...common },
        },
        post: {
          summary: "Register a version of an Agent Skills package (a SKILL.md and its files; metadata.version is its version)",
          requestBody: body(AgentSkillUploadSchema),
          responses: {
            "201": json(AgentSkillRegisteredSchema, "Registered: its version, digest and files"),
            "200": json(AgentSkillRegisteredSchema, "That version, with these files, was registered before: nothing changed"),
            "400": refusal("A package that does not pass the format, names a tool the gateway does not serve, or no bucket is bound"),
            "409": refusal("That version is registered with other files"),
            ...common,
          },
        },
      },
      "/agent-skills/{name}": {
        get: {
          summary: "One Agent Skills package",
          requestParams: { path: agentSkillPath },
          responses: { "200": json(AgentSkillViewSchema, "The package"), "404": refusal("No such package"), ...common },
        },
        delete: {
          summary: "Remove a package (or ?version= one version, not its stable one: its callers go back to the stable version)",
          requestParams: { path: agentSkillPath, query: z.object({ version: z.string().optional() }) },
          responses: {
            "200": json(AgentSkillRemovedSchema, "The versions removed"),
            "404": refusal("No such package or version"),
            "409": refusal("The stable version, while others remain"),
            ...common,
          },
        },
      },
      "/agent-skills/{name}/canary": {
        post: packageEdit(
          "Give a package version a share of callers per group (X-User-Group; sticky by X-User-Id); the stable version takes the rest",
          CanaryRequestSchema,
        ),
      },
      "/agent-skills/{name}/promote": { post: packageEdit("Make a package version the stable one, at 100% everywhere", PromoteRequestSchema) },
      "/agent-skills/{name}/rollback": {
        post: packageEdit("Send every group (or one version's share) back to the package's stable version", RollbackRequestSchema),
      },
      "/upstreams": {
        get: {
          summary: "Every upstream (MCP servers and OpenAPI services): versions, tools served, held changes, refresh status (never a secret)",
          responses: { "200": json(UpstreamListSchema, "The upstreams"), ...common },
        },
        post: {
          summary: "Register an MCP server or OpenAPI service (or another version of one): its tools become skills <name>.<tool>",
          requestBody: body(UpstreamRegistrationSchema),
          responses: {
            "201": json(SyncAnswerSchema, "Registered: what is served and what was skipped"),
            "400": refusal("An invalid registration, URL or document, or a secret without SKILLMESH_UPSTREAM_KEY"),
            "409": refusal("A tool's name is another skill's, or the name is another kind of upstream"),
            "502": refusal("The upstream's definitions could not be read"),
            ...common,
          },
        },
      },
      "/upstreams/{name}": {
        get: {
          summary: "One upstream",
          requestParams: { path: upstreamPath },
          responses: { "200": json(UpstreamViewSchema, "The upstream"), "404": refusal("No such upstream"), ...common },
        },
        delete: {
          summary: "Remove an upstream (or ?version= one version) and its tools' deployments",
          requestParams: { path: upstreamPath, query: z.object({ version: z.string().optional() }) },
          responses: { "200": json(UpstreamRemovedSchema, "The deployments removed"), "404": refusal("No such upstream or version"), ...common },
        },
      },
      "/upstreams/{name}/refresh": {
        post: {
          summary:
            "Read the upstream's definitions again: new and changed tools are held for approval (a breaking change withdraws the tool), removed ones withdrawn",
          requestParams: { path: upstreamPath },
          responses: { "200": json(SyncAnswerSchema, "What each version holds and removed"), "404": refusal("No such upstream"), ...common },
        },
      },
      "/upstreams/{name}/approve": {
        post: {
          summary:
            "Serve the held definitions named — tools by name, resources, templates and prompts as <subject>:<name> — each with the contractHash the operator reviewed (all or nothing)",
          requestParams: { path: upstreamPath },
          requestBody: body(ApproveRequestSchema),
          responses: {
            "200": json(SyncAnswerSchema, "What is served now, and what was approved with which hash"),
            "404": refusal("No such upstream or version, or nothing held under a name given"),
            "409": refusal("A held definition changed since it was reviewed (its hash differs), or a new tool's name is another skill's"),
            ...common,
          },
        },
      },
      "/servers": {
        get: {
          summary: "Every virtual MCP server (/mcp/<server>) and what it exposes",
          responses: { "200": json(ServerListSchema, "The servers by name"), ...common },
        },
      },
      "/servers/{name}": {
        put: {
          summary: "Define (or replace) a virtual MCP server: the tools it exposes by name and tag globs, its instructions, aliases",
          requestParams: { path: serverPath },
          requestBody: body(ServerDefinitionSchema),
          responses: { "200": json(ServerSavedSchema, "The server"), "400": refusal("An invalid name or definition"), ...common },
        },
        delete: {
          summary: "Remove a virtual MCP server",
          requestParams: { path: serverPath },
          responses: { "200": json(z.object({ removed: z.string() }), "Removed"), "404": refusal("No such server"), ...common },
        },
      },
      "/sessions": {
        delete: { summary: "Sign every dashboard session out", responses: { "200": json(z.object({ ended: z.literal(true) }), "Done"), ...common } },
      },
      "/audit": {
        get: {
          summary: "The audit log, newest first, a page at a time",
          requestParams: { query: AuditQuerySchema },
          responses: { "200": json(AuditListSchema, "A page of entries (nextCursor when older ones follow)"), "400": refusal("An invalid filter"), ...common },
        },
      },
      "/metrics": {
        get: {
          summary: "Prometheus metrics (text exposition format 0.0.4)",
          responses: { "200": { description: "Counters, histograms and gauges", content: { "text/plain": { schema: z.string() } } }, ...common },
        },
      },
      "/openapi.json": {
        get: {
          summary: "This document",
          responses: { "200": { description: "The admin API as OpenAPI 3.1", content: { "application/json": { schema: z.object({}).loose() } } }, ...common },
        },
      },
    },
  });
}
