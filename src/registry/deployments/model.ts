/**
 * The registry's data: deployments and per-skill routing tables, as zod schemas (they are read
 * back from Redis, so they are checked, not trusted) with the types inferred from them.
 */
import { z } from "zod";
import { ScriptNameSchema } from "./script-name.js";
import { isPlainKey } from "../../lib/json/index.js";
import { RegisteredManifestSchema, SemverSchema, SkillManifestSchema, SkillNameSchema } from "../../skill/manifest.js";

/**
 * Where an SDK skill's deployment answers: a service binding of the gateway (static, fast), a
 * Worker in the gateway's dispatch namespace by its script name (src/federation/dispatch: added without a
 * gateway deploy), or a URL. Which URLs a gateway may call is its own setting
 * (src/federation/forward/endpoint-policy.ts), checked when a deployment registers.
 */
export const SkillEndpointSchema = z.union([
  z
    .object({
      binding: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "binding must be a Worker binding name")
        .refine(isPlainKey, "binding must not be an object property name"),
    })
    .strict(),
  z.object({ dispatch: ScriptNameSchema }).strict(),
  z.object({ url: z.url({ protocol: /^https?$/ }) }).strict(),
]);
export type SkillEndpoint = z.infer<typeof SkillEndpointSchema>;

/** An OpenAPI operation as the gateway calls it: its method and path, where each argument goes, and its body. */
export const OperationSchema = z.object({
  method: z.enum(["get", "put", "post", "delete", "patch", "head", "options"]),
  path: z.string(),
  parameters: z.array(z.object({ name: z.string(), in: z.enum(["path", "query", "header", "cookie"]), required: z.boolean() })),
  /** The JSON request body, as the `body` argument. */
  body: z.object({ required: z.boolean(), mediaType: z.string() }).optional(),
});
export type Operation = z.infer<typeof OperationSchema>;

/**
 * A tool of an upstream (src/federation/upstream): an MCP server's tool (with the era the server speaks) or
 * an OpenAPI operation at a base URL. Only the gateway makes these, from what it read of the
 * upstream; an admin registers the upstream, not its deployments.
 */
export const UpstreamEndpointSchema = z
  .object({
    upstream: z.discriminatedUnion("kind", [
      z.object({
        kind: z.literal("mcp"),
        name: z.string(),
        url: z.string(),
        tool: z.string(),
        era: z.object({ protocolVersion: z.string(), stateless: z.boolean() }),
      }),
      z.object({ kind: z.literal("openapi"), name: z.string(), url: z.string(), operation: OperationSchema }),
      /** An A2A agent's skill: its JSON-RPC endpoint and the skill's id. */
      z.object({ kind: z.literal("a2a"), name: z.string(), url: z.string(), skill: z.string() }),
    ]),
  })
  .strict();
export type UpstreamEndpoint = z.infer<typeof UpstreamEndpointSchema>["upstream"];

/** Where a deployment answers: an SDK skill's binding or URL, or an upstream's tool. */
export const EndpointSchema = z.union([...SkillEndpointSchema.options, UpstreamEndpointSchema]);
export type Endpoint = z.infer<typeof EndpointSchema>;

export const RoleSchema = z.enum(["stable", "canary", "degraded"]);
export type Role = z.infer<typeof RoleSchema>;

export const DeploymentSchema = z.object({
  /** `name@version`. */
  id: z.string(),
  name: SkillNameSchema,
  version: SemverSchema,
  tags: z.array(z.string()),
  manifest: SkillManifestSchema,
  endpoint: EndpointSchema,
  role: RoleSchema,
  /** Same id twice = same registration: nothing changes (a heartbeat only refreshes the TTL). */
  registrationId: z.string(),
  registeredAt: z.number(),
  /** Heartbeat TTL: the deployment disappears when not re-registered within it. */
  ttlSeconds: z.number().int().positive().optional(),
  /** `sha256:` of the manifest's canonical JSON (src/registry/deployments/contract.ts). */
  contractHash: z.string().optional(),
  /**
   * The operator registered it as a pipeline: each call gets a delegation token for the skills its
   * manifest's `pipeline.steps` name (src/identity/auth/delegation.ts). A manifest alone never makes one.
   */
  pipeline: z.literal(true).optional(),
});
export type Deployment = z.infer<typeof DeploymentSchema>;

/**
 * A deployment's endpoint in a word, for listings.
 * @example endpointLabel({ upstream: { kind: "mcp", name: "everything", url, tool: "echo", era } }) // "everything (MCP) echo"
 */
export function endpointLabel(endpoint: Endpoint): string {
  if ("binding" in endpoint) return endpoint.binding;
  if ("dispatch" in endpoint) return `${endpoint.dispatch} (dispatched)`;
  if ("url" in endpoint) return endpoint.url;
  const { upstream } = endpoint;
  return `${upstream.name} (${UPSTREAM_KIND_WORDS[upstream.kind]}) ${federatedWhat(upstream).replace(/^(tool|operation) /, "")}`;
}

/** An upstream's kind as a person reads it. */
export const UPSTREAM_KIND_WORDS: Record<UpstreamEndpoint["kind"], string> = { mcp: "MCP", openapi: "OpenAPI", a2a: "A2A" };

/**
 * What of its upstream a federated tool is, in words.
 * @example federatedWhat({ kind: "openapi", name: "petstore", url, operation: { method: "get", path: "/pets", parameters: [] } }) // "operation GET /pets"
 */
export function federatedWhat(upstream: UpstreamEndpoint): string {
  switch (upstream.kind) {
    case "mcp":
      return `tool ${upstream.tool}`;
    case "openapi":
      return `operation ${upstream.operation.method.toUpperCase()} ${upstream.operation.path}`;
    case "a2a":
      return `skill ${upstream.skill}`;
  }
}

/** A routing group (`X-User-Group`): `*` (the default) or a name that is plain data. */
export const GroupNameSchema = z
  .string()
  .regex(/^(\*|[A-Za-z0-9_.:-]{1,64})$/, "a group is * or [A-Za-z0-9_.:-]{1,64}")
  .refine(isPlainKey, "a group must not be an object property name such as __proto__ or constructor");

/** Per group (`*` = default), a percentage per version; each group adds up to 100. */
export const RoutingTableSchema = z.record(GroupNameSchema, z.record(SemverSchema, z.number().min(0).max(100)));
export type RoutingTable = z.infer<typeof RoutingTableSchema>;

/** A rollout event: who changed a skill's routing, when and why (newest first, capped). */
export const RoutingEventSchema = z.object({
  at: z.number(),
  skill: z.string(),
  type: z.enum(["canary", "promote", "rollback", "routes"]),
  version: z.string().optional(),
  /** "admin" or "breaker" (an automatic rollback). */
  by: z.string(),
  reason: z.string(),
});
export type RoutingEvent = z.infer<typeof RoutingEventSchema>;

/** Events kept per registry (older ones fall off). */
export const MAX_EVENTS = 100;

/** `name@version`: the key of a deployment in the registry. */
export const DeploymentIdSchema = z.string().refine((id) => {
  const at = id.lastIndexOf("@");
  return at > 0 && SkillNameSchema.safeParse(id.slice(0, at)).success && SemverSchema.safeParse(id.slice(at + 1)).success;
}, "a deployment id is name@version");

export const RegistryDocSchema = z.object({
  deployments: z.record(DeploymentIdSchema, DeploymentSchema),
  routes: z.record(SkillNameSchema, RoutingTableSchema),
  events: z.array(RoutingEventSchema).default([]),
});
export type RegistryDoc = z.infer<typeof RegistryDocSchema>;

/**
 * One skill as stored (its own key): every deployment of the skill and its routing table. The
 * skill is the registry's unit of change — its rules (one stable, weights adding up to 100)
 * span its versions and never another skill — so writers of different skills never conflict.
 */
export const SkillDocSchema = z.object({
  deployments: z.record(DeploymentIdSchema, DeploymentSchema),
  routes: RoutingTableSchema.optional(),
});
export type SkillDoc = z.infer<typeof SkillDocSchema>;

export const DEFAULT_GROUP = "*";

/** The empty registry. */
export function emptyRegistry(): RegistryDoc {
  return { deployments: {}, routes: {}, events: [] };
}

/** The skill of a deployment id. @example skillOf("text.summarize@2.0.0") // "text.summarize" */
export function skillOf(id: string): string {
  return id.slice(0, id.lastIndexOf("@"));
}

/** `name@version`, the id of a deployment. @example deploymentId("text.summarize", "2.0.0") */
export function deploymentId(name: string, version: string): string {
  return `${name}@${version}`;
}

/** What an admin sends to register a deployment. */
export const RegistrationSchema = z.strictObject({
  endpoint: SkillEndpointSchema,
  /** Optional: fetched from the endpoint's `GET /manifest` when absent. */
  manifest: RegisteredManifestSchema.optional(),
  registrationId: z.string().min(1).max(128).optional(),
  ttlSeconds: z.number().int().min(5).max(86_400).optional(),
  /** Replace the definition of an existing `name@version` (refused with 409 otherwise). */
  force: z.boolean().optional(),
  /**
   * The operator's word that this deployment is a pipeline: its calls carry a delegation token
   * with which its steps call the skills its manifest's `pipeline.steps` name, as the caller.
   */
  pipeline: z.boolean().optional(),
});
export type Registration = z.infer<typeof RegistrationSchema>;

/** Code-unit order: the order of the catalog and of MCP cursors. */
export function compareNames(a: string, b: string): number {
  return (
    a < b ? -1
    : a > b ? 1
    : 0
  );
}
