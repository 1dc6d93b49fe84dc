/**
 * The gateway's settings, parsed once per env with one zod schema: every `SKILLMESH_*` variable
 * (and the Upstash ones) has its type, range and default here, and nowhere else. A bad value is
 * not a crash or a silent default: `configOf` returns the problems, and the gateway answers every
 * call and `/healthz` with them (routes/index.ts) until the setting is fixed.
 */
import { z } from "zod";
import { type OAuthConfig, oauthConfigOf } from "../auth/oauth.js";
import { RateSchema, type RateWindow, windowOf } from "../ratelimit/index.js";
import { SNAPSHOT_MAX_AGE_MS } from "../snapshot/index.js";
import { RETIRED_HOP_SECRET, privateKeyBytes } from "../hop/index.js";
import { HEARTBEAT_MS } from "../sse/index.js";
import { DEFAULT_STORE_TIMEOUT_MS } from "../store/index.js";
import type { StoreSettings } from "../store/from-env.js";

/** `a, b, c` → ["a", "b", "c"] (trimmed, lower-cased, trailing slashes dropped); empty → undefined. */
const list = z
  .string()
  .transform((value) => value.split(",").map((s) => s.trim().replace(/\/+$/, "").toLowerCase()).filter(Boolean))
  .transform((items) => (items.length ? items : undefined));

const milliseconds = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, "a whole number of milliseconds")
    .transform(Number)
    .pipe(z.number().min(min, `at least ${min}`).max(max, `at most ${max}`));

const flag = z.enum(["true", "false"], { error: 'either "true" or "false"' }).transform((value) => value === "true");

/** The raw settings, as Worker vars and secrets (all strings). */
export const SettingsSchema = z.object({
  SKILLMESH_ADMIN_TOKEN: z.string().min(16, "the admin token needs at least 16 characters").optional(),
  SKILLMESH_STORE: z.enum(["memory", "upstash"], { error: 'either "memory" or "upstash"' }).optional(),
  UPSTASH_REDIS_REST_URL: z.url({ protocol: /^https?$/, error: "an http(s) URL" }).optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  SKILLMESH_STORE_PREFIX: z.string().max(64).regex(/^[A-Za-z0-9_.:-]*$/, "letters, digits and _.:-").default(""),
  SKILLMESH_STORE_TIMEOUT_MS: milliseconds(10, 60_000).default(DEFAULT_STORE_TIMEOUT_MS),
  SKILLMESH_SNAPSHOT_MAX_AGE_MS: milliseconds(0, 60_000).default(SNAPSHOT_MAX_AGE_MS),
  SKILLMESH_AUTH: z.enum(["required", "off"], { error: 'either "required" (the default) or "off"' }).default("required"),
  SKILLMESH_RATE_PER_ADDRESS: RateSchema.optional(),
  SKILLMESH_QUOTA_PER_ADDRESS: RateSchema.optional(),
  SKILLMESH_ALLOWED_ORIGINS: list.optional(),
  SKILLMESH_ALLOWED_HOSTS: list.optional(),
  SKILLMESH_ALLOW_PRIVATE_ENDPOINTS: flag.default(false),
  SKILLMESH_MCP_PAGE_SIZE: z.string().regex(/^\d+$/, "a whole number").transform(Number).pipe(z.number().int().min(1).max(1_000)).default(100),
  SKILLMESH_MCP_LIST_TTL_MS: milliseconds(0, 86_400_000).default(30_000),
  SKILLMESH_SSE_HEARTBEAT_MS: milliseconds(100, 60_000).default(HEARTBEAT_MS),
  SKILLMESH_JOB_TTL_MS: milliseconds(60_000, 7 * 86_400_000).default(86_400_000),
  /** How long a job's runner holds it without renewing (src/jobs): past it, the job is stranded and recovered. */
  SKILLMESH_JOB_LEASE_MS: milliseconds(1_000, 600_000).default(30_000),
  SKILLMESH_OAUTH_ISSUERS: z.string().optional(),
  SKILLMESH_RESOURCE_URL: z.url({ protocol: /^https?$/, error: "an http(s) URL" }).optional(),
  SKILLMESH_OAUTH_SCOPES: z.string().max(512).optional(),
  /** Limits of each OAuth caller (a subject of one issuer), as an API key's `rate` and `quota`. */
  SKILLMESH_OAUTH_RATE: RateSchema.optional(),
  SKILLMESH_OAUTH_QUOTA: RateSchema.optional(),
  SKILLMESH_HOP_KEY: z.string().refine((key) => privateKeyBytes(key) !== undefined, "an Ed25519 private key (PKCS#8 PEM): npx skillmesh hop-key makes a pair").optional(),
  /** Retired: a secret shared with every skill let any skill sign as the gateway. Set, it is a problem that names its replacement. */
  SKILLMESH_HOP_SECRET: z.string().optional(),
  SKILLMESH_CALLBACK_SECRET: z.string().min(16, "the callback secret needs at least 16 characters").optional(),
  SKILLMESH_LOG_CALLS: flag.default(false),
});

/** What the gateway runs with. */
export interface GatewayConfig {
  adminToken?: string;
  store: StoreSettings;
  snapshotMaxAgeMs: number;
  auth: { required: boolean; ratePerAddress?: RateWindow; quotaPerAddress?: RateWindow; oauth?: OAuthConfig; oauthRate?: RateWindow; oauthQuota?: RateWindow };
  allowedOrigins?: string[];
  allowedHosts?: string[];
  allowPrivateEndpoints: boolean;
  mcpPageSize: number;
  /** How long an MCP client may consider a `tools/list` page fresh (2026-07-28 `ttlMs`). */
  mcpListTtlMs: number;
  /** How often a quiet event stream (progress, subscriptions/listen) sends a comment line. */
  sseHeartbeatMs: number;
  /** How long an async job's record (and result) is kept after its last change. */
  jobTtlMs: number;
  /** A running job's lease, renewed by its runner; a queued one's is four of them (src/jobs). */
  jobLeaseMs: number;
  /** The gateway's Ed25519 private key for signed hops (src/hop); skills hold only its public key. */
  hopKey?: string;
  /** Signs the POSTs of async jobs' results to their callback URLs (`X-Callback-Url`). */
  callbackSecret?: string;
  /** One log line per call (method, deployment, outcome, ms): `npm run dev -- --verbose`. */
  logCalls: boolean;
}

export type ConfigResult = { config: GatewayConfig; problems?: undefined } | { config?: undefined; problems: string[] };

const parsed = new WeakMap<object, ConfigResult>();

/**
 * The gateway's settings from its env, parsed once per env object (Workers hand every request
 * of an isolate the same one), or the list of what is wrong with them.
 * @example const { config, problems } = configOf(c.env)
 */
export function configOf(env: object): ConfigResult {
  let result = parsed.get(env);
  if (!result) parsed.set(env, (result = parse(env)));
  return result;
}

function parse(env: object): ConfigResult {
  const settings = Object.fromEntries(Object.entries(env).filter(([name, value]) => name in SettingsSchema.shape && typeof value === "string" && value !== ""));
  const checked = SettingsSchema.safeParse(settings);
  if (!checked.success) return { problems: checked.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`) };
  const s = checked.data;
  const problems: string[] = [];
  const driver = s.SKILLMESH_STORE ?? (s.UPSTASH_REDIS_REST_URL ? "upstash" : undefined);
  if (!driver) {
    problems.push("no store: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or SKILLMESH_STORE=memory for one isolate's own memory (local use only)");
  } else if (driver === "upstash" && (!s.UPSTASH_REDIS_REST_URL || !s.UPSTASH_REDIS_REST_TOKEN)) {
    problems.push("the upstash store needs UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN");
  }
  if (s.SKILLMESH_HOP_SECRET) {
    problems.push(RETIRED_HOP_SECRET);
  }
  if (!!s.SKILLMESH_OAUTH_ISSUERS !== !!s.SKILLMESH_RESOURCE_URL) problems.push("OAuth needs both SKILLMESH_OAUTH_ISSUERS and SKILLMESH_RESOURCE_URL");
  if (problems.length) return { problems };
  return {
    config: {
      adminToken: s.SKILLMESH_ADMIN_TOKEN,
      store: { driver: driver!, url: s.UPSTASH_REDIS_REST_URL, token: s.UPSTASH_REDIS_REST_TOKEN, prefix: s.SKILLMESH_STORE_PREFIX, timeoutMs: s.SKILLMESH_STORE_TIMEOUT_MS },
      snapshotMaxAgeMs: s.SKILLMESH_SNAPSHOT_MAX_AGE_MS,
      auth: {
        required: s.SKILLMESH_AUTH === "required",
        ...(s.SKILLMESH_RATE_PER_ADDRESS ? { ratePerAddress: windowOf(s.SKILLMESH_RATE_PER_ADDRESS) } : {}),
        ...(s.SKILLMESH_QUOTA_PER_ADDRESS ? { quotaPerAddress: windowOf(s.SKILLMESH_QUOTA_PER_ADDRESS) } : {}),
        oauth: oauthConfigOf(s),
        ...(s.SKILLMESH_OAUTH_RATE ? { oauthRate: windowOf(s.SKILLMESH_OAUTH_RATE) } : {}),
        ...(s.SKILLMESH_OAUTH_QUOTA ? { oauthQuota: windowOf(s.SKILLMESH_OAUTH_QUOTA) } : {}),
      },
      allowedOrigins: s.SKILLMESH_ALLOWED_ORIGINS,
      allowedHosts: s.SKILLMESH_ALLOWED_HOSTS,
      allowPrivateEndpoints: s.SKILLMESH_ALLOW_PRIVATE_ENDPOINTS,
      mcpPageSize: s.SKILLMESH_MCP_PAGE_SIZE,
      mcpListTtlMs: s.SKILLMESH_MCP_LIST_TTL_MS,
      sseHeartbeatMs: s.SKILLMESH_SSE_HEARTBEAT_MS,
      jobTtlMs: s.SKILLMESH_JOB_TTL_MS,
      jobLeaseMs: s.SKILLMESH_JOB_LEASE_MS,
      hopKey: s.SKILLMESH_HOP_KEY,
      callbackSecret: s.SKILLMESH_CALLBACK_SECRET,
      logCalls: s.SKILLMESH_LOG_CALLS,
    },
  };
}
