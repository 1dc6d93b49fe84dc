/**
 * One HTTP request's calls, as both front doors (`/rpc`, `/mcp`) see them: who calls, what the
 * request headers ask for, and what the answer's headers report. Built once per request from
 * its headers, so both routes mean the same by `X-User-Group`, `Idempotency-Key`, … .
 */
import type { Access, Caller } from "../../identity/auth/index.js";
import type { Decision, Limits } from "../../policies/ratelimit/index.js";
import { type CallerContext, addressIdOf, callerContextOf } from "../../protocols/context/index.js";
import { type RouteKey, routeKeyOf } from "../../registry/routing/index.js";
import { type Context, parentContextOf } from "../../protocols/tracing/index.js";
import type { Guardrails } from "../../policies/guardrails/schema.js";

export interface CallScope {
  context: CallerContext;
  /** Which version answers this caller, where a skill or a package has several (its group and sticky key). */
  routeKey: RouteKey;
  /**
   * What the caller may see and call through the door it came in by (its key's grants, narrowed
   * to a virtual server's tools: src/gateway/chain/door.ts; everything with auth off).
   */
  access: Access;
  /**
   * The name a tool or prompt is listed and asked for by through this door, given its own: a
   * virtual server's alias (src/gateway/servers); its own name is then unknown there. Default: its own.
   */
  listedName?: (name: string) => string;
  /** What the door's virtual server says of the secrets guardrail (its calls are held to at least that). */
  guardrails?: Guardrails;
  /** The virtual server the request came in by: a job it submits runs behind that door again (its names, its guardrail). */
  server?: string;
  /** The rate and quota the caller is held to. */
  limits: Limits;
  /** The latest rate-limit decision of this request (for its `RateLimit` headers). */
  rateLimit?: Decision;
  /**
   * Who a skill's failure is charged to, for the circuit breakers: the caller's key id, else an
   * id of its client address, else "anonymous". Computed when first needed (on a failure).
   */
  principal: () => Promise<string>;
  /** The `Idempotency-Key` header, if any. */
  idempotencyKey?: string;
  /** The caller's time budget per call (`X-Timeout-Ms`); default twice the skill's timeout. */
  budgetMs?: number;
  /** `Prefer: respond-async` (RFC 7240): skill calls are accepted as async jobs, answered `{status: "queued", jobId}`. */
  respondAsync?: boolean;
  /** `X-Callback-Url`: where an async job's result is POSTed, signed, when it ends. */
  callbackUrl?: string;
  /** Set while a job runs its call (src/gateway/job-runner/workflow.ts): the skill's `maxDurationMs` applies, not its `timeoutMs`. */
  jobId?: string;
  /**
   * The grants a pipeline's steps run with (an `Access.signature`); default the caller's own.
   * A job's call is scoped to its one method, but its pipeline's steps get what its owner had.
   */
  delegatedGrants?: string;
  /** Set for a pipeline's step (it called with its call's delegation token): what the token stands for. */
  delegation?: Caller["delegation"];
  /** An OAuth caller's access token, for a `token-exchange` upstream to exchange (never logged or audited). */
  subjectToken?: string;
  /** The trace the calls' spans belong to: the caller's `traceparent`, else a new root. */
  trace: Context;
  /** Deployments that answered (for `X-Skill-Version`). */
  answeredBy: Set<string>;
  /** Set when any answer was replayed from an earlier request (`Idempotent-Replayed: 1`). */
  replayed?: boolean;
  /** Set when any answer came from a degraded fallback (`X-Skill-Degraded: 1`). */
  degraded?: boolean;
  /** Set when a call was accepted as an async job (`Preference-Applied: respond-async`). */
  queued?: boolean;
  /** Set for a tool call a code-mode script made: its execution's id (its audit entry and span name it). */
  execution?: string;
  /** Work that may finish after the response (breaker bookkeeping). */
  waitUntil: (promise: Promise<unknown>) => void;
}

/**
 * The scope of an authenticated request to the gateway, from its headers; `access` is what the
 * door it came in by lets the caller do (`accessThrough`, src/gateway/chain/door.ts).
 * @example const scope = callScopeOf(c.req.raw.headers, c.get("caller"), (p) => c.executionCtx.waitUntil(p), entered.access)
 */
export function callScopeOf(headers: Headers, caller: Caller, waitUntil: CallScope["waitUntil"], access: Access): CallScope {
  // A pipeline's step routes and reaches skills as the user of its call, whatever its headers say.
  const context = callerContextOf(headers, caller.id, caller.access.allowsGroup, caller.delegation?.context);
  let principal: Promise<string> | undefined;
  return {
    context,
    routeKey: routeKeyOf(context),
    ...(caller.delegation ? { delegation: caller.delegation } : {}),
    ...(caller.subjectToken ? { subjectToken: caller.subjectToken } : {}),
    access,
    limits: caller.limits,
    principal: () => (principal ??= context.caller !== "anonymous" ? Promise.resolve(context.caller) : addressIdOf(headers.get("cf-connecting-ip"))),
    idempotencyKey: headers.get("idempotency-key") ?? undefined,
    budgetMs: budgetOf(headers.get("x-timeout-ms")),
    respondAsync: prefersAsync(headers.get("prefer")),
    callbackUrl: headers.get("x-callback-url") ?? undefined,
    trace: parentContextOf(context.traceparent),
    answeredBy: new Set(),
    waitUntil,
  };
}

/** Every header `answerHeadersOf` may set (a page's script may read them: routes/index.ts). */
export const ANSWER_HEADERS = [
  "x-skill-version",
  "idempotent-replayed",
  "x-skill-degraded",
  "preference-applied",
  "ratelimit",
  "ratelimit-policy",
  "retry-after",
] as const;

/**
 * The response headers that report how a request's calls were answered.
 * @example return toHttpResponse(processed, answerHeadersOf(scope))
 */
export function answerHeadersOf(scope: CallScope): Record<string, string> {
  // A plain record: the Response is made with its headers in one go (a Headers object filled
  // here and again by the route was a few % of a trivial call).
  const headers: Record<string, string> = {};
  if (scope.answeredBy.size) headers["x-skill-version"] = [...scope.answeredBy].join(", ");
  if (scope.replayed) headers["idempotent-replayed"] = "1";
  if (scope.degraded) headers["x-skill-degraded"] = "1";
  if (scope.queued) headers["preference-applied"] = "respond-async";
  if (scope.rateLimit) {
    Object.assign(headers, scope.rateLimit.headers);
    if (!scope.rateLimit.allowed) headers["retry-after"] = String(Math.ceil(scope.rateLimit.retryAfterMs / 1000));
  }
  return headers;
}

/**
 * Whether a `Prefer` header (RFC 7240: comma-separated preferences, each with optional
 * `;`-parameters, names case-insensitive) asks for `respond-async`.
 * @example prefersAsync("respond-async, wait=10") // true
 */
export function prefersAsync(header: string | null): boolean {
  return !!header && header.split(",").some((preference) => preference.split(";")[0]!.trim().toLowerCase() === "respond-async");
}

/** `X-Timeout-Ms`: the caller's time budget for each call, 100 ms to 120 s; anything else is ignored. */
function budgetOf(header: string | null): number | undefined {
  const ms = Number(header);
  return header && Number.isInteger(ms) ? Math.min(120_000, Math.max(100, ms)) : undefined;
}
