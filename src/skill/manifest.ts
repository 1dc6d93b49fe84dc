/** The manifest a skill Worker serves at `GET /manifest` and the gateway stores on registration. */
import { z } from "zod";
import { GuardrailsSchema } from "../policies/guardrails/schema.js";
import { MAX_JSON_DEPTH, exceedsDepth, isPlainKey } from "../lib/json/index.js";
import { PromptSchema, ResourceSchema, ResourceTemplateSchema, ToolAnnotationsSchema, ToolUiSchema } from "../protocols/mcp/index.js";
import { utf8Length } from "../lib/utf8/index.js";

/**
 * Method names the gateway keeps for itself: `rpc.*` (reserved by JSON-RPC 2.0), `skills.*` and `jobs.*`
 * (its built-in methods, `skills.list`, `skills.discover`, and any it adds later).
 */
export const RESERVED_NAME = /^(rpc|skills|jobs)\./;

/** JSON-RPC method / MCP tool name: not an inherited object property, not a reserved method. */
export const SkillNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "name must match [A-Za-z0-9_.-]{1,64}")
  .refine(isPlainKey, "name must not be an object property name such as __proto__ or constructor")
  .refine((name) => !RESERVED_NAME.test(name), "names starting with rpc., skills. or jobs. are reserved for the gateway's own methods");
/** Semver 2.0 (with optional pre-release and build). */
export const SemverSchema = z
  .string()
  .regex(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, "version must be semver, e.g. 1.2.0");
/** A capability tag: dotted words, e.g. `text.summarize` or `grid.modbus`. */
export const TagSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "tags must match [A-Za-z0-9_.:-]{1,64}");

/**
 * One host a skill may reach (its manifest's `egress`): a host name in lower case, `*.` before one
 * for its subdomains, or `*` for any host.
 */
export const EgressHostSchema = z
  .string()
  .max(253)
  .regex(
    /^(\*|(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*)$/,
    "an egress host is a host name in lower case (api.example.com), *.example.com for its subdomains, or *",
  );

/** Default per-skill timeout: 10 s. */
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
  /** How long one call may run as an async job (`Prefer: respond-async`, MCP tasks); default `timeoutMs`. */
  maxDurationMs: z.number().int().positive().max(3_600_000).optional(),
  /** Every call runs as an async job (an MCP task); one that asks for its answer in place is refused. */
  jobOnly: z.boolean().optional(),
  /** A pipeline (src/federation/pipeline): the skills its steps call. The gateway hands it a delegation token. */
  pipeline: z.object({ steps: z.array(SkillNameSchema).max(64) }).optional(),
  /** What a call costs: per call and/or per unit of something (e.g. 1,000 characters), in a currency (ISO 4217). */
  cost: z
    .object({
      currency: z.string().regex(/^[A-Z]{3}$/, "an ISO 4217 currency code such as USD"),
      perCall: z.number().min(0).optional(),
      perUnit: z.object({ amount: z.number().min(0), unit: z.string().min(1).max(64) }).optional(),
    })
    .optional(),
  /** What the skill promises: the share of calls that succeed (0–1) and the p95 latency. */
  reliability: z.object({ successRate: z.number().min(0).max(1).optional(), p95Ms: z.number().int().positive().optional() }).optional(),
  /** Overrides of the gateway's circuit-breaker defaults for this skill (see src/policies/breaker). */
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
  idempotencyTtlSeconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .optional(),
  /**
   * The hosts a dispatched skill may reach with `fetch` (src/federation/egress): `api.example.com`, every
   * subdomain with `*.example.com`, any host with `*`. Anything else is refused and audited as the
   * skill's; none declared, none reached. Enforced for skills in a dispatch namespace (src/federation/dispatch).
   */
  egress: z.array(EgressHostSchema).max(64).optional(),
  /** Per-call limits a dispatched skill runs under: CPU milliseconds and subrequests (Workers for Platforms custom limits). */
  limits: z
    .object({
      cpuMs: z.number().int().min(1).max(300_000).optional(),
      subRequests: z.number().int().min(1).max(10_000).optional(),
    })
    .strict()
    .optional(),
  /**
   * What the secrets guardrail does to this skill's calls (src/policies/guardrails): `redact` or `refuse`
   * credentials found in arguments and answers. It can only make its calls stricter than the door
   * they come through (a virtual server's own setting); default `off`.
   */
  guardrails: GuardrailsSchema.optional(),
  /** Its MCP App (the Apps extension): the `ui://` resource a host renders for its results, and who may call it. */
  ui: ToolUiSchema.optional(),
  /** A display name for clients (MCP `title`). */
  title: z.string().max(256).optional(),
  /** MCP tool annotations (hints a client may show; `idempotentHint` is `idempotent`). */
  annotations: ToolAnnotationsSchema.optional(),
  /**
   * `tool-result`: the skill answers an MCP tool result (a federated MCP tool, src/federation/upstream), which
   * MCP passes through as is; `outputSchema` is then the schema of its `structuredContent`.
   */
  answers: z.literal("tool-result").optional(),
  /** MCP resources the skill serves (read through the gateway's `resources/read`), fixed URIs and templates. */
  resources: z.array(ResourceSchema).max(64).optional(),
  resourceTemplates: z.array(ResourceTemplateSchema).max(32).optional(),
  /** MCP prompts the skill serves (`prompts/get`); a prompt name is unique in the skill, without dots. */
  prompts: z
    .array(PromptSchema.extend({ name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a prompt name matches [A-Za-z0-9_-]{1,64}") }))
    .max(32)
    .optional(),
  /** JSON Schema of the input (zod 4's `z.toJSONSchema`, io: input). */
  inputSchema: z.record(z.string(), z.unknown()),
  /** JSON Schema of the output (io: output). */
  outputSchema: z.record(z.string(), z.unknown()),
});
export type SkillManifest = z.infer<typeof SkillManifestSchema>;

/** The prefix of the tag the gateway gives every tool of an upstream (`upstream:<name>`): no registered manifest carries it. */
export const UPSTREAM_TAG_PREFIX = "upstream:";

/** Largest manifest the gateway registers (serialized), schemas included. */
export const MAX_MANIFEST_BYTES = 64 * 1024;

/**
 * A manifest as the gateway accepts it at registration: the shape, plus bounds on what it
 * stores and hands every caller of `tools/list` — schemas nest at most `MAX_JSON_DEPTH` deep
 * and the whole manifest is at most `MAX_MANIFEST_BYTES` — and none of what only the gateway says
 * of a deployment it made itself from an upstream (`upstream:<name>` tags, `answers:
 * "tool-result"`): a skill's manifest never claims to be an upstream's tool. (Stored registry
 * documents are parsed with the shape alone: they were bounded when written.)
 */
export const RegisteredManifestSchema = SkillManifestSchema.superRefine((manifest, ctx) => {
  const reserved = manifest.tags.find((tag) => tag.startsWith(UPSTREAM_TAG_PREFIX));
  if (reserved)
    ctx.addIssue({
      code: "custom",
      path: ["tags"],
      message: `${reserved.slice(0, 80)}: ${UPSTREAM_TAG_PREFIX} tags are the gateway's own (it tags a federated upstream's tools)`,
    });
  if (manifest.answers)
    ctx.addIssue({ code: "custom", path: ["answers"], message: `answers: "${manifest.answers}" is the gateway's own (a federated MCP tool's)` });
  for (const key of ["inputSchema", "outputSchema"] as const) {
    if (exceedsDepth(manifest[key], MAX_JSON_DEPTH)) {
      ctx.addIssue({ code: "custom", path: [key], message: `the schema nests deeper than ${MAX_JSON_DEPTH} levels` });
      return;
    }
  }
  const bytes = utf8Length(JSON.stringify(manifest));
  if (bytes > MAX_MANIFEST_BYTES) ctx.addIssue({ code: "custom", message: `the manifest is ${bytes} bytes; at most ${MAX_MANIFEST_BYTES} are registered` });
});
