/**
 * Upstreams: MCP servers and OpenAPI services an operator put behind the gateway. Their wire
 * formats are defined once here as zod schemas — what an admin sends to register one, how its
 * credentials are described, and the record the gateway keeps (read back from the store, so
 * parsed, not trusted). Each of an upstream's tools is also a deployment in the registry
 * (src/registry/deployments), so every rule of the call chain applies to it as to an SDK skill.
 */
import { z } from "zod";
import { GlobSchema } from "../../lib/glob/index.js";
import { isPlainKey } from "../../lib/json/index.js";
import { PromptSchema, ResourceSchema, ResourceTemplateSchema } from "../../protocols/mcp/index.js";
import { UpstreamEndpointSchema } from "../../registry/deployments/model.js";
import { SemverSchema, SkillManifestSchema, TagSchema } from "../../skill/manifest.js";

/**
 * An upstream's name: the prefix of its tools' names (`everything` → `everything.echo`). Plain
 * words, so a tool name stays a valid skill name, and not one of the gateway's own prefixes.
 */
export const UpstreamNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, "an upstream's name is 1-32 lower-case letters, digits, _ or -")
  .refine(isPlainKey, "an upstream's name must not be an object property name")
  .refine((name) => !["rpc", "skills", "jobs"].includes(name), "rpc, skills and jobs are the gateway's own prefixes");
export type UpstreamName = z.infer<typeof UpstreamNameSchema>;

/** A secret as an admin sends it: the value itself. It is sealed before it is stored and never answered back. */
const SecretSchema = z.string().min(1).max(8_192);
/** An HTTP header name a credential travels in. */
const HeaderNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,64}$/, "a header name is letters, digits and -")
  .refine(
    (name) =>
      !/^(host|content-length|content-type|accept|mcp-session-id|mcp-protocol-version|mcp-method|mcp-name|traceparent|connection|transfer-encoding)$/i.test(
        name,
      ),
    "that header is the gateway's to set",
  );

/**
 * How the gateway authenticates to an upstream. `none`; a static `bearer` token, `header` or `query` parameter;
 * OAuth 2 `client_credentials` (the gateway is the OAuth client, with a static client id); or
 * `per-caller`: each caller brings its own token (`PUT /upstreams/<name>/credential`), which
 * goes upstream as `Authorization: Bearer …` (or in `header`). The caller's own Skillmesh
 * credential never goes upstream.
 */
export const UpstreamAuthSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("none") }),
  z.strictObject({ type: z.literal("bearer"), token: SecretSchema }),
  z.strictObject({ type: z.literal("header"), name: HeaderNameSchema, value: SecretSchema }),
  /** A secret a hosted server takes in its URL's query (`?api_key=…`): sealed, added to each request's URL, never shown. */
  z.strictObject({
    type: z.literal("query"),
    name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "a query parameter's name is letters, digits, _, . or -"),
    value: SecretSchema,
  }),
  z.strictObject({
    type: z.literal("client_credentials"),
    tokenUrl: z.url({ protocol: /^https?$/ }),
    clientId: z.string().min(1).max(256),
    clientSecret: SecretSchema,
    scope: z.string().max(1_024).optional(),
    audience: z.string().max(1_024).optional(),
  }),
  z.strictObject({
    type: z.literal("per-caller"),
    header: HeaderNameSchema.optional(),
    /** The operator's own token, used only to read the upstream's definitions (registration and refresh). */
    listToken: SecretSchema.optional(),
  }),
  /**
   * The caller's own identity at the upstream (RFC 8693 token exchange): each OAuth caller's access
   * token is exchanged at `tokenUrl` (the gateway authenticating as `clientId`) for a token the
   * upstream accepts, kept per caller until it expires.
   */
  z.strictObject({
    type: z.literal("token-exchange"),
    tokenUrl: z.url({ protocol: /^https?$/ }),
    clientId: z.string().min(1).max(256),
    clientSecret: SecretSchema,
    /** Where the token is meant to be used (RFC 8693 `audience`, `resource`), and its scope. */
    audience: z.string().max(1_024).optional(),
    resource: z.url().optional(),
    scope: z.string().max(1_024).optional(),
    /** The operator's own token, used only to read the upstream's definitions (registration and refresh). */
    listToken: SecretSchema.optional(),
  }),
]);
export type UpstreamAuth = z.infer<typeof UpstreamAuthSchema>;

/** Which of a source's tools become skills: name globs to include (default all) and to leave out. */
const SelectionFields = {
  include: z.array(GlobSchema).max(64).optional(),
  exclude: z.array(GlobSchema).max(64).optional(),
};

/** What the operator says about every tool of an upstream: tags, timeout, whether they are a fallback. */
const CommonFields = {
  name: UpstreamNameSchema,
  version: SemverSchema.default("1.0.0"),
  tags: z.array(TagSchema).max(32).default([]),
  /** Each call's timeout (as a skill's `timeoutMs`); default 10 s. */
  timeoutMs: z.number().int().positive().max(300_000).optional(),
  /** Register its tools as degraded deployments: the fallback of skills of the same names. */
  degraded: z.boolean().optional(),
  /** Overrides of the circuit breaker's defaults for its tools (as a skill manifest's `breaker`). */
  breaker: SkillManifestSchema.shape.breaker,
  /** What the secrets guardrail does to its tools' calls (src/policies/guardrails); default `{secrets: "redact"}`. */
  guardrails: SkillManifestSchema.shape.guardrails,
  auth: UpstreamAuthSchema.default({ type: "none" }),
  ...SelectionFields,
};

/** The largest OpenAPI document the gateway reads (fetched, or sent as text). */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

/** `POST /admin/upstreams`: an MCP server (Streamable HTTP), an OpenAPI document and its base URL, or an A2A agent. */
export const UpstreamRegistrationSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("mcp"), url: z.url({ protocol: /^https?$/ }), ...CommonFields }),
  /**
   * An A2A agent (v1.0): `url` is its Agent Card's URL, or its base URL (the card is then read at
   * `<url>/.well-known/agent-card.json`). Each of its skills is a tool `<name>.<skill id>`.
   */
  z.strictObject({ kind: z.literal("a2a"), url: z.url({ protocol: /^https?$/ }), ...CommonFields }),
  z.strictObject({
    kind: z.literal("openapi"),
    /**
     * Where the gateway reads the document (an http(s) URL), or the document itself: its text
     * (JSON or YAML, as a file holds it) or its JSON.
     */
    document: z.union([
      z.url({ protocol: /^https?$/ }),
      z
        .string()
        .min(1)
        .max(MAX_DOCUMENT_BYTES)
        .refine(
          (text) => !/^\s*[a-z][a-z0-9+.-]*:\/\//i.test(text) || /\n/.test(text),
          "a document URL is http or https; a document sent as text is JSON or YAML",
        ),
      z.record(z.string(), z.unknown()),
    ]),
    /** The base URL operations are called on; default the document's first `servers` URL. */
    url: z.url({ protocol: /^https?$/ }).optional(),
    /** Only operations with one of these OpenAPI tags (default all). */
    operationTags: z.array(z.string().min(1).max(128)).max(64).optional(),
    /**
     * Send the upstream's credential when reading a document from another origin than the API's
     * (`url`): off by default, so a document host learns no secret of the API.
     */
    documentAuth: z.boolean().optional(),
    ...CommonFields,
  }),
]);
export type UpstreamRegistration = z.infer<typeof UpstreamRegistrationSchema>;

/** Which MCP era an upstream server speaks: the 2025 handshake (sessions) or 2026-07-28 (stateless). */
export const McpEraSchema = z.object({ protocolVersion: z.string(), stateless: z.boolean() });
export type McpEra = z.infer<typeof McpEraSchema>;

/** A sealed secret as stored (src/federation/upstream/secrets.ts): AES-GCM, bound to what it belongs to. */
export const SealedSchema = z.object({ iv: z.string(), data: z.string() });
export type Sealed = z.infer<typeof SealedSchema>;

/** An upstream's credentials as stored: the kind and its public parts; every secret sealed. */
export const StoredAuthSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("none") }),
  z.object({ type: z.literal("bearer"), token: SealedSchema }),
  z.object({ type: z.literal("header"), name: z.string(), value: SealedSchema }),
  z.object({ type: z.literal("query"), name: z.string(), value: SealedSchema }),
  z.object({
    type: z.literal("client_credentials"),
    tokenUrl: z.string(),
    clientId: z.string(),
    clientSecret: SealedSchema,
    scope: z.string().optional(),
    audience: z.string().optional(),
  }),
  z.object({ type: z.literal("per-caller"), header: z.string().optional(), listToken: SealedSchema.optional() }),
  z.object({
    type: z.literal("token-exchange"),
    tokenUrl: z.string(),
    clientId: z.string(),
    clientSecret: SealedSchema,
    audience: z.string().optional(),
    resource: z.string().optional(),
    scope: z.string().optional(),
    listToken: SealedSchema.optional(),
  }),
]);
export type StoredAuth = z.infer<typeof StoredAuthSchema>;

/** What a held change is of: a tool, or a resource, a resource template, a prompt, an Agent Skill or an MCP App. */
export const HeldSubjectSchema = z.enum(["tool", "resource", "resourceTemplate", "prompt", "skill", "app"]);
export type HeldSubject = z.infer<typeof HeldSubjectSchema>;

/**
 * An Agent Skill an MCP upstream serves (the Skills extension, SEP-2640), as pinned: where its
 * `SKILL.md` is upstream, its skill-path there (`acme/billing/refunds`; served as
 * `skill://<upstream>/<path>/…`), its frontmatter as listed (checked against the `SKILL.md` the
 * gateway read), and every file with the digest the upstream listed: a read is served only when
 * its bytes have that digest (src/federation/upstream/packages.ts).
 */
export const UpstreamPackageSchema = z.object({
  uri: z.string(),
  path: z.string(),
  frontmatter: z.record(z.string(), z.unknown()),
  /** `SKILL.md` first: the file's path in the skill, its URI upstream and its `sha256:` digest. */
  files: z.array(z.object({ path: z.string(), uri: z.string(), digest: z.string() })),
});
export type UpstreamPackage = z.infer<typeof UpstreamPackageSchema>;

/**
 * An MCP App an upstream's tool shows (its `_meta.ui.resourceUri`), as pinned at each sync: the
 * `ui://` resource upstream, the `sha256:` of its contents' bytes (the HTML and script a host runs),
 * their size and media type, and the contents' `_meta.ui` (its CSP, permissions, domain: where the
 * app may connect and what it may use). A read is served only when both are still what was pinned
 * (src/gateway/chain/operations.ts); a refresh that reads others holds the app for approval.
 */
export const UpstreamAppSchema = z.object({
  uri: z.string(),
  digest: z.string(),
  bytes: z.number().int().nonnegative(),
  mimeType: z.string().optional(),
  ui: z.unknown().optional(),
});
export type UpstreamApp = z.infer<typeof UpstreamAppSchema>;

/** An offering as the upstream lists it: an Agent Skill, an MCP App, a resource, a resource template or a prompt. */
export const OfferingSchema = z.union([UpstreamPackageSchema, UpstreamAppSchema, ResourceSchema, ResourceTemplateSchema, PromptSchema]);

/**
 * A definition the upstream now serves that is not being served: a new tool, resource, template
 * or prompt, or a changed one (any word of it: a tool's description, schemas, annotations or
 * endpoint; an offering's name, title, description, arguments), held until an operator approves
 * it by its `contractHash`. A breaking change of a tool withdraws the tool meanwhile
 * (`withdrawn`): the old definition would be called wrongly. A changed offering keeps its pinned
 * definition served.
 */
export const HeldChangeSchema = z.object({
  subject: HeldSubjectSchema,
  /** Its name upstream: a tool's or a prompt's name, a resource's URI, a template's URI template. */
  name: z.string(),
  kind: z.enum(["new", "changed"]),
  /** `sha256:` of the whole definition held (a tool's manifest and endpoint; an offering as listed): what an approval names. */
  contractHash: z.string(),
  /** The served definition's hash, for a changed one. */
  previousHash: z.string().optional(),
  /** A tool: its manifest, and where it will be called once approved. */
  manifest: SkillManifestSchema.optional(),
  endpoint: UpstreamEndpointSchema.optional(),
  /** An offering: its definition as listed. */
  offering: OfferingSchema.optional(),
  /** The served definition it would replace (a tool's manifest and endpoint, an offering), to compare in full. */
  previous: z.unknown().optional(),
  /** What differs, in short words (src/registry/deployments/contract.ts). */
  changes: z.array(z.string()),
  breaking: z.boolean(),
  withdrawn: z.boolean(),
  seenAt: z.number(),
});
export type HeldChange = z.infer<typeof HeldChangeSchema>;

/**
 * The held changes of an upstream, by version: `sm:upstream:<name>:held`, apart from the record
 * the call path reads (bounded in count and bytes: src/federation/upstream/held.ts).
 */
export const HeldDocSchema = z.object({ versions: z.record(z.string(), z.array(HeldChangeSchema)) });
export type HeldDoc = z.infer<typeof HeldDocSchema>;

/** The last time the gateway read an upstream's definitions, and how it went. */
export const RefreshStatusSchema = z.object({ at: z.number(), ok: z.boolean(), error: z.string().optional() });

/** What an MCP upstream serves besides tools. */
export const OfferingsSchema = z.object({
  resources: z.array(ResourceSchema),
  resourceTemplates: z.array(ResourceTemplateSchema),
  prompts: z.array(PromptSchema),
  /** Its Agent Skills, when it serves the Skills extension (absent in records of before). */
  skills: z.array(UpstreamPackageSchema).optional(),
  /** The MCP Apps its tools show, each pinned by its contents' digest and `_meta.ui` (absent in records of before). */
  apps: z.array(UpstreamAppSchema).optional(),
});
export type Offerings = z.infer<typeof OfferingsSchema>;

/** One version of an upstream: where it answers and what of it is served. */
export const UpstreamVersionSchema = z.object({
  url: z.string(),
  /** For an OpenAPI upstream: where its document is read (absent when it was sent inline); for an A2A agent: its card's URL. */
  documentUrl: z.string().optional(),
  /** For an A2A agent: who its card says it is (the gateway's card of it says the same). */
  agent: z.object({ name: z.string(), description: z.string(), version: z.string() }).optional(),
  /** For an MCP upstream: the era it speaks. */
  era: McpEraSchema.optional(),
  registeredAt: z.number(),
  /** Tool name (the upstream's) → the skill it is served as. */
  tools: z.record(z.string(), z.string()),
  /** Tools the upstream stopped serving, when the gateway noticed. */
  removed: z.array(z.object({ tool: z.string(), at: z.number() })).default([]),
  refresh: RefreshStatusSchema.optional(),
  /**
   * An MCP upstream's resources, resource templates and prompts as served: pinned at registration,
   * a new or changed one held for approval at a refresh (src/federation/upstream/held.ts), a removed one withdrawn.
   */
  offerings: OfferingsSchema.optional(),
  /** The credential this version was registered with (every secret sealed); absent in records of before: the upstream's `auth`. */
  auth: StoredAuthSchema.optional(),
});
export type UpstreamVersion = z.infer<typeof UpstreamVersionSchema>;

/** An upstream as stored: `sm:upstream:<name>`. */
export const UpstreamRecordSchema = z.object({
  name: UpstreamNameSchema,
  kind: z.enum(["mcp", "openapi", "a2a"]),
  tags: z.array(z.string()),
  timeoutMs: z.number().int().positive().optional(),
  degraded: z.boolean().optional(),
  breaker: SkillManifestSchema.shape.breaker,
  guardrails: SkillManifestSchema.shape.guardrails,
  /** The credential of records written before credentials were kept per version; each version's own `auth` comes first. */
  auth: StoredAuthSchema.optional(),
  include: z.array(z.string()).optional(),
  exclude: z.array(z.string()).optional(),
  operationTags: z.array(z.string()).optional(),
  documentAuth: z.boolean().optional(),
  versions: z.record(SemverSchema, UpstreamVersionSchema),
  createdAt: z.number(),
});
export type UpstreamRecord = z.infer<typeof UpstreamRecordSchema>;

/** An upstream's credentials as shown to an admin: the kind and its public parts, never a secret. */
export const AuthViewSchema = z.object({
  type: z.enum(["none", "bearer", "header", "query", "client_credentials", "per-caller", "token-exchange"]),
  name: z.string().optional(),
  tokenUrl: z.string().optional(),
  clientId: z.string().optional(),
  scope: z.string().optional(),
  audience: z.string().optional(),
  resource: z.string().optional(),
  header: z.string().optional(),
  listToken: z.boolean().optional(),
});
export type AuthView = z.infer<typeof AuthViewSchema>;

/** One version as the admin API shows it: its credential described, its held changes beside it, no secret in a URL. */
export const UpstreamVersionViewSchema = UpstreamVersionSchema.omit({ auth: true }).extend({ auth: AuthViewSchema, held: z.array(HeldChangeSchema) });
/** An upstream as `GET /admin/upstreams` shows it. */
export const UpstreamViewSchema = UpstreamRecordSchema.omit({ auth: true, versions: true }).extend({
  versions: z.record(z.string(), UpstreamVersionViewSchema),
});
export type UpstreamView = z.infer<typeof UpstreamViewSchema>;

/** `PUT /upstreams/<name>/credential`: a caller's own token for a `per-caller` upstream. */
export const CallerCredentialSchema = z.strictObject({ token: SecretSchema });
