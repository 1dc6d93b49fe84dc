/**
 * `/admin/*`: registry, rollouts and API keys. Every route needs `Authorization: Bearer
 * $SKILLMESH_ADMIN_TOKEN` or an API key with admin access (`read`: GET only; `write`: all),
 * src/identity/auth/admin.ts; anything else is 401 (403 for a read-only key that tries to write).
 */
import { Hono, type Context, type Env, type Input } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { endpointRefusal } from "../src/federation/forward/endpoint-policy.js";
import { ManifestUnavailable, fetchManifest } from "../src/federation/forward/manifest.js";
import type { Rollout, Rollouts } from "../src/registry/delivery/index.js";
import { renderMetrics } from "../src/registry/metrics/prometheus.js";
import { RETRY_AFTER_STORE_MS, routeFailureStatus } from "../src/store/index.js";
import { breakerStatesOf, deploymentsPage, skillView, upstreamHealthOf } from "../src/admin/operator-view/index.js";
// Generated from the admin API's zod schemas by `npm run reference` (scripts/admin-openapi.ts).
import openApiDocument from "../src/admin/api/openapi.json";
import { sha256Hex } from "../src/lib/hash/index.js";
import { contractHashOf } from "../src/registry/deployments/contract.js";
import { own, safeJson } from "../src/lib/json/index.js";
import {
  AuditQuerySchema,
  CanaryRequestSchema,
  DeploymentPageSchema,
  KeyCreateRequestSchema,
  KeyUpdateRequestSchema,
  PromoteRequestSchema,
  RollbackRequestSchema,
  RolloutCommandSchema,
  RolloutRequestSchema,
  type RoutingEditAnswer,
  RoutesRequestSchema,
  AgentSkillUploadSchema,
  type AgentSkillRoutingAnswer,
  ApproveRequestSchema,
  UpstreamRegistrationSchema,
} from "../src/admin/api/index.js";
import type { Upstreams } from "../src/federation/upstream/index.js";
import { UpstreamError } from "../src/federation/upstream/kind.js";
import { type SyncReport, recordSync } from "../src/federation/upstream/sync.js";
import { NoUpstreamKey } from "../src/federation/upstream/secrets.js";
import { redactedUrls } from "../src/federation/upstream/definitions.js";
import { MAX_PACKAGE_BYTES, type PackageFile } from "../src/registry/packages/index.js";
import { PackageRefused } from "../src/registry/packages/registry.js";
import { type PackageEdit, routesOf } from "../src/registry/packages/routing.js";
import { UTF8_ENCODER } from "../src/lib/utf8/index.js";
import { decodeBase64 } from "hono/utils/encode";
import { DefinableServerNameSchema, ServerDefinitionSchema } from "../src/gateway/servers/index.js";
import { adminOf, adminThrottled, countFailedAdmin } from "../src/identity/auth/admin.js";
import { addressIdOf } from "../src/protocols/context/index.js";
import { allowsAdmin } from "../src/identity/auth/index.js";
import { KeyConflict, KeyNotFound, viewOf } from "../src/identity/keys/index.js";
import { DeploymentIdSchema, type Endpoint, RegistrationSchema, type RegistryDoc } from "../src/registry/deployments/model.js";
import { RoutingEditError, promote, replaceRoutes, rollback, setCanary } from "../src/registry/routing/edits.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/chain/runtime.js";
import { UI_HEADER, endAllSessions, sessionOf, sessionTokenOf } from "../src/admin/dashboard/session.js";
import { ErrorCode, describeIssues } from "../src/protocols/jsonrpc/index.js";
import { bodyText, jsonBodyGuard } from "../src/protocols/jsonrpc/http.js";
import type { SkillManifest } from "../src/skill/manifest.js";

/** The admin routes' Hono environment: `by` is who is asking (the credential's name), for the audit log and rollout events. */
type AdminEnv = { Bindings: GatewayEnv; Variables: { by: string } };

export const adminRoutes = new Hono<AdminEnv>();

/** The admin API's error body: `{ error: { code, message, issues? } }`. */
function adminError<E extends Env, P extends string, I extends Input>(
  c: Context<E, P, I>,
  status: 400 | 401 | 403 | 404 | 409 | 429 | 500 | 502 | 503,
  message: string,
  issues?: unknown,
) {
  const code =
    status === 401 || status === 403 ? ErrorCode.Unauthorized
    : status === 429 ? ErrorCode.RateLimited
    : status === 404 ? ErrorCode.MethodNotFound
    : status === 500 ? ErrorCode.InternalError
    : status === 503 ? ErrorCode.SkillUnavailable
    : ErrorCode.InvalidRequest;
  return c.json({ error: { code, message, ...(issues ? { issues } : {}) } }, status);
}

/**
 * The request body parsed with `schema`, or the 400 to answer: `{}` when the body is empty, and
 * a refusal when it is not JSON — never read as empty because it did not parse (a cut-off
 * `{"groups":` to `/rollback` rolled back every canary) — or does not match.
 * @example const body = await bodyOf(c, KeyCreateRequestSchema, "Invalid key"); if (body instanceof Response) return body; use(body.data)
 */
async function bodyOf<T extends z.ZodType>(c: Context, schema: T, refusal: string): Promise<{ data: z.output<T> } | Response> {
  const text = await bodyText(c);
  const json = text.trim() === "" ? {} : safeJson(text);
  if (json === undefined) return adminError(c, 400, `${refusal}: the body is not JSON`);
  const parsed = schema.safeParse(json);
  return parsed.success ? { data: parsed.data } : adminError(c, 400, refusal, describeIssues(parsed.error));
}

adminRoutes.use("*", async (c, next) => {
  const runtime = gatewayRuntime(c.env);
  const action = `${c.req.method} ${c.req.path}`;
  const audit = (entry: { by: string; status: number }) =>
    runtime.audit.record({ type: "admin", at: Date.now(), action, ...entry }, (p) => c.executionCtx.waitUntil(p));
  // A credential from an address that failed too often lately is not even looked at.
  const presented = c.req.header("authorization") !== undefined;
  const address = presented ? await addressIdOf(c.req.header("cf-connecting-ip")) : undefined;
  const waitMs = address ? await adminThrottled(runtime.store, address) : undefined;
  if (waitMs !== undefined) {
    c.header("retry-after", String(Math.ceil(waitMs / 1000)));
    return adminError(c, 429, `Too many failed admin credentials from this address; retry after ${Math.ceil(waitMs / 1000)} s`);
  }
  let { level, by } = await adminOf(c.req.raw.headers, runtime.config, runtime.keys);
  // The dashboard's session cookie (src/admin/dashboard/session.ts) stands for the credential it was opened with.
  const session = level === "none" && !c.req.header("authorization") ? await sessionOf(runtime, sessionTokenOf(c)) : undefined;
  if (session) {
    if (c.req.method !== "GET" && c.req.header(UI_HEADER) !== "1")
      return adminError(c, 403, `Forbidden: a change made with the dashboard's session needs the ${UI_HEADER} header`);
    ({ level, by } = session);
  }
  if (level === "none") {
    // A wrong credential (not a missing one) is counted against its address and audited under it.
    if (address) {
      await countFailedAdmin(runtime.store, address);
      audit({ by: address, status: 401 });
    }
    c.header("www-authenticate", 'Bearer realm="skillmesh-admin"');
    return adminError(c, 401, "Unauthorized: send Authorization: Bearer <SKILLMESH_ADMIN_TOKEN> or an API key with admin access");
  }
  if (!allowsAdmin(level, c.req.method)) {
    audit({ by, status: 403 });
    return adminError(c, 403, "Forbidden: this key may only read the admin API (admin: read)");
  }
  c.set("by", by);
  await next();
  if (c.req.method !== "GET") audit({ by, status: c.res.status }); // every change, whoever made it and how it went
  // A read-only admin never sees a credential in a URL (an upstream's, a skill's, a token URL), whichever route answers.
  if (level === "read" && c.res.headers.get("content-type")?.startsWith("application/json")) {
    const body = safeJson(await c.res.text());
    const headers = new Headers(c.res.headers);
    headers.delete("content-length");
    c.res = new Response(JSON.stringify(redactedUrls(body)), { status: c.res.status, headers });
  }
});

adminRoutes.onError((error, c) => {
  if (error instanceof HTTPException) return error.getResponse(); // a ready answer, e.g. an unreadable body
  const status = routeFailureStatus("[admin]", error);
  return adminError(c, status, status === 503 ? `The registry store is unavailable; retry in ${RETRY_AFTER_STORE_MS / 1000} s` : "Internal error");
});

/**
 * Deployments with their routing tables, breaker states and observed numbers, and the recent
 * rollout events: a page of `limit` skills (default and most 500) after `cursor` (a skill name,
 * the `nextCursor` of the page before), so a 10,000-skill registry is listed in bounded pieces.
 */
adminRoutes.get("/deployments", async (c) => {
  const page = DeploymentPageSchema.safeParse(c.req.query());
  if (!page.success) return adminError(c, 400, "Invalid query: limit is 1-500 skills, cursor the nextCursor of the previous page", describeIssues(page.error));
  return c.json(await deploymentsPage(gatewayRuntime(c.env), page.data));
});

/** Registers a deployment (idempotent by `registrationId`); re-registering is the heartbeat. */
adminRoutes.post("/deployments", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, RegistrationSchema, "Invalid registration");
  if (body instanceof Response) return body;
  const { endpoint, ttlSeconds, force } = body.data;
  const refusal = "url" in endpoint ? endpointRefusal(endpoint.url, { allowPrivate: gatewayRuntime(c.env).config.allowPrivateEndpoints }) : undefined;
  if (refusal) return adminError(c, 400, `Invalid registration: ${refusal}`);
  let manifest = body.data.manifest;
  try {
    manifest ??= await fetchManifest(endpoint, c.env);
  } catch (error) {
    if (error instanceof ManifestUnavailable) return adminError(c, 502, `Could not register: ${error.message}`);
    throw error;
  }
  const pipeline = body.data.pipeline === true;
  if (pipeline && !manifest.pipeline?.steps.length)
    return adminError(
      c,
      400,
      `Invalid registration: ${manifest.name}@${manifest.version} is registered as a pipeline, but its manifest declares no pipeline.steps (the skills its steps may call)`,
    );
  const registrationId = body.data.registrationId ?? (await defaultRegistrationId(manifest, endpoint, pipeline));

  const { registry, snapshot } = gatewayRuntime(c.env);
  const outcome = await registry.register(
    { manifest, endpoint, registrationId, ttlSeconds, force, pipeline, contractHash: await contractHashOf(manifest) },
    Date.now(),
  );
  if (outcome.conflict) {
    const id = outcome.deployment.id;
    return adminError(c, 409, `${id} is registered with another definition; register a new version (or send "force": true to replace it)`, {
      changes: outcome.conflict,
    });
  }
  snapshot.invalidate();
  return c.json({ changed: outcome.changed, deployment: outcome.deployment }, outcome.changed ? 201 : 200);
});

/** Removes one deployment: `DELETE /admin/deployments/text.summarize@2.0.0`. */
adminRoutes.delete("/deployments/:id", async (c) => {
  const id = c.req.param("id");
  if (!DeploymentIdSchema.safeParse(id).success) return adminError(c, 404, `No deployment ${id}: ids are name@version; GET /admin/deployments lists them`);
  const { registry, snapshot } = gatewayRuntime(c.env);
  const removed = await registry.deregister([id], Date.now());
  snapshot.invalidate();
  if (!removed.length) return adminError(c, 404, `No deployment ${id}; GET /admin/deployments lists them`);
  return c.json({ removed });
});

// ---------------------------------------------------------------------------------------------
// Rollout: canary weights per group, promote, rollback (src/registry/routing/edits.ts holds the rules)
// ---------------------------------------------------------------------------------------------

/** Parses a JSON body with `schema`, runs a rollout edit, and answers the skill's new table. */
function rolloutRoute<T extends z.ZodType>(
  schema: T,
  edit: (doc: RegistryDoc, skill: string, body: z.output<T>, ctx: { now: number; by: string }) => RegistryDoc,
) {
  return async (c: Context<AdminEnv>) => {
    const body = await bodyOf(c, schema, "Invalid request body");
    if (body instanceof Response) return body;
    const skill = c.req.param("name")!;
    const { registry, snapshot } = gatewayRuntime(c.env);
    try {
      const doc = await registry.update(skill, Date.now(), (current) => edit(current, skill, body.data, { now: Date.now(), by: c.get("by") }));
      snapshot.invalidate();
      return c.json({ skill, routes: own(doc.routes, skill) ?? {}, event: doc.events[0]! } satisfies RoutingEditAnswer);
    } catch (error) {
      if (error instanceof RoutingEditError) return adminError(c, error.status, error.message);
      throw error;
    }
  };
}

/** One skill: its deployments, routing table and rollout events. */
adminRoutes.get("/skills/:name", async (c) => {
  const skill = c.req.param("name");
  const answer = await skillView(gatewayRuntime(c.env), skill);
  return answer ? c.json(answer) : adminError(c, 404, `No skill ${skill} is registered`);
});

adminRoutes.post(
  "/skills/:name/canary",
  jsonBodyGuard(),
  rolloutRoute(CanaryRequestSchema, (doc, skill, body, ctx) => setCanary(doc, skill, body.version, body.groups, ctx)),
);
adminRoutes.post(
  "/skills/:name/promote",
  jsonBodyGuard(),
  rolloutRoute(PromoteRequestSchema, (doc, skill, body, ctx) => promote(doc, skill, body.version, ctx)),
);
adminRoutes.post(
  "/skills/:name/rollback",
  jsonBodyGuard(),
  rolloutRoute(RollbackRequestSchema, (doc, skill, body, ctx) => rollback(doc, skill, { ...ctx, version: body.version, reason: body.reason })),
);
adminRoutes.put(
  "/skills/:name/routes",
  jsonBodyGuard(),
  rolloutRoute(RoutesRequestSchema, (doc, skill, body, ctx) => replaceRoutes(doc, skill, body.routes, ctx)),
);

// ---------------------------------------------------------------------------------------------
// Progressive delivery: a canary raised step by step while healthy (src/registry/delivery)
// ---------------------------------------------------------------------------------------------

/** Runs a rollout operation; a refusal is answered with its status and reason. */
async function rolloutOperation(c: Context<AdminEnv>, operation: (rollouts: Rollouts) => Promise<Rollout>): Promise<Response> {
  const { rollouts, snapshot } = gatewayRuntime(c.env);
  try {
    const rollout = await operation(rollouts);
    snapshot.invalidate();
    return c.json({ rollout });
  } catch (error) {
    if (error instanceof RoutingEditError) return adminError(c, error.status, error.message);
    throw error;
  }
}

/** Starts one: `{version, steps, every, maxErrorRate, maxP95Ratio?, minCalls?, groups?}`. */
adminRoutes.post("/skills/:name/rollout", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, RolloutRequestSchema, "Invalid rollout");
  if (body instanceof Response) return body;
  return rolloutOperation(c, (rollouts) => rollouts.start(c.req.param("name"), body.data, c.get("by"), Date.now()));
});

/** Pauses, resumes or aborts (rolls back) the skill's rollout. */
adminRoutes.post("/skills/:name/rollout/:command{pause|resume|abort}", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, RolloutCommandSchema, "Invalid request body");
  if (body instanceof Response) return body;
  const command = c.req.param("command") as "pause" | "resume" | "abort";
  return rolloutOperation(c, (rollouts) => rollouts.command(c.req.param("name"), command, c.get("by"), Date.now(), body.data.reason));
});

// ---------------------------------------------------------------------------------------------
// Upstreams: MCP servers and OpenAPI services whose tools are served as skills (src/federation/upstream)
// ---------------------------------------------------------------------------------------------

/** Runs an upstream operation: a refusal is answered with its status and reason; the snapshot sees its deployments. */
async function upstreamOperation(c: Context<AdminEnv>, operation: (upstreams: Upstreams) => Promise<Response>): Promise<Response> {
  const runtime = gatewayRuntime(c.env);
  try {
    return await operation(runtime.upstreams);
  } catch (error) {
    if (error instanceof UpstreamError) return adminError(c, error.status, error.message, error.details);
    if (error instanceof NoUpstreamKey) return adminError(c, 400, `Invalid upstream: ${error.message}`);
    throw error;
  } finally {
    runtime.snapshot.invalidate();
  }
}

/** Held, removed and approved definitions of a sync, each an audit entry of its own. */
function auditSync(c: Context<AdminEnv>, reports: SyncReport[]) {
  recordSync(gatewayRuntime(c.env).audit, reports, c.get("by"), (p) => c.executionCtx.waitUntil(p));
}

adminRoutes.get("/upstreams", async (c) => c.json({ upstreams: await gatewayRuntime(c.env).upstreams.records.views() }));

adminRoutes.get("/upstreams/:name", async (c) => {
  const [view] = await gatewayRuntime(c.env).upstreams.records.views(c.req.param("name"));
  return view ? c.json(view) : adminError(c, 404, `No upstream ${c.req.param("name")}; GET /admin/upstreams lists them`);
});

/** Registers an MCP server or OpenAPI service (or another version of one): its tools become skills. */
adminRoutes.post("/upstreams", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, UpstreamRegistrationSchema, "Invalid upstream");
  if (body instanceof Response) return body;
  return upstreamOperation(c, async (upstreams) => c.json({ reports: [await upstreams.sync.register(body.data)] }, 201));
});

/** Reads an upstream's definitions again: new and changed ones are held for approval, removed ones withdrawn. */
adminRoutes.post("/upstreams/:name/refresh", async (c) =>
  upstreamOperation(c, async (upstreams) => {
    const reports = await upstreams.sync.refresh(c.req.param("name"));
    auditSync(c, reports);
    return c.json({ reports });
  }),
);

/**
 * Serves held definitions the operator reviewed: `{version?, tools?: {name: hash}, offerings?:
 * {"<subject>:<name>": hash}}`, each with the `contractHash` it saw (409 when what is held changed
 * since); the audit entry names each approved definition and its hash.
 */
adminRoutes.post("/upstreams/:name/approve", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, ApproveRequestSchema, "Invalid approval");
  if (body instanceof Response) return body;
  return upstreamOperation(c, async (upstreams) => {
    const reports = await upstreams.sync.approve(c.req.param("name"), body.data);
    auditSync(c, reports);
    return c.json({ reports });
  });
});

/** Removes an upstream (or `?version=` one of its versions) and its tools' deployments. */
adminRoutes.delete("/upstreams/:name", async (c) =>
  upstreamOperation(c, async (upstreams) => {
    const removed = await upstreams.sync.remove(c.req.param("name"), c.req.query("version"));
    return removed ?
        c.json({ removed })
      : adminError(
          c,
          404,
          `No upstream ${c.req.param("name")}${c.req.query("version") ? ` version ${c.req.query("version")}` : ""}; GET /admin/upstreams lists them`,
        );
  }),
);

// ---------------------------------------------------------------------------------------------
// Virtual MCP servers: /mcp/<server>, curated sets of tools (src/gateway/servers)
// ---------------------------------------------------------------------------------------------

adminRoutes.get("/servers", async (c) => c.json({ servers: await gatewayRuntime(c.env).servers.all() }));

/** Defines (or replaces) a virtual server: `{tools, tags, instructions?, aliases?, description?, title?, discoverable?}`. */
adminRoutes.put("/servers/:name", jsonBodyGuard(), async (c) => {
  const name = DefinableServerNameSchema.safeParse(c.req.param("name"));
  if (!name.success) return adminError(c, 400, "Invalid server name", describeIssues(name.error));
  const body = await bodyOf(c, ServerDefinitionSchema, "Invalid server");
  if (body instanceof Response) return body;
  await gatewayRuntime(c.env).servers.put(name.data, body.data);
  return c.json({ name: name.data, server: body.data, url: `/mcp/${name.data}` });
});

adminRoutes.delete("/servers/:name", async (c) =>
  (await gatewayRuntime(c.env).servers.remove(c.req.param("name"))) ?
    c.json({ removed: c.req.param("name") })
  : adminError(c, 404, `No server ${c.req.param("name")}; GET /admin/servers lists them`),
);

// ---------------------------------------------------------------------------------------------
// Agent Skills packages (src/registry/packages): the index in the store, the files in an R2 bucket
// ---------------------------------------------------------------------------------------------

/** The largest upload of a package: its files at their bound, base64-encoded, and the JSON around them. */
const MAX_PACKAGE_UPLOAD_BYTES = Math.ceil((MAX_PACKAGE_BYTES * 4) / 3) + 1024 * 1024;

adminRoutes.get("/agent-skills", async (c) => c.json({ agentSkills: await gatewayRuntime(c.env).packages.list() }));

adminRoutes.get("/agent-skills/:name", async (c) => {
  const record = await gatewayRuntime(c.env).packages.get(c.req.param("name"));
  return record ? c.json(record) : adminError(c, 404, `No Agent Skill ${c.req.param("name")}; GET /admin/agent-skills lists them`);
});

/** Registers a version of an Agent Skills package: checked, its files stored by digest, its index written. */
adminRoutes.post("/agent-skills", jsonBodyGuard(MAX_PACKAGE_UPLOAD_BYTES), async (c) => {
  const body = await bodyOf(c, AgentSkillUploadSchema, "Invalid Agent Skill upload");
  if (body instanceof Response) return body;
  const files: PackageFile[] = [];
  for (const file of body.data.files) {
    try {
      files.push({ path: file.path, bytes: file.encoding === "base64" ? decodeBase64(file.content) : UTF8_ENCODER.encode(file.content) });
    } catch {
      return adminError(c, 400, `Invalid Agent Skill upload: ${file.path} is not base64`);
    }
  }
  try {
    const { pkg, changed, stable } = await gatewayRuntime(c.env).packages.register(body.data.name, files);
    return c.json({ name: pkg.name, version: pkg.version, digest: pkg.digest, tools: pkg.tools, files: pkg.files, changed, stable }, changed ? 201 : 200);
  } catch (error) {
    if (error instanceof PackageRefused) return adminError(c, error.status, error.message, error.problems.length ? error.problems : undefined);
    throw error;
  }
});

/** Splits a package's callers between its versions, as a tool's: canary, promote, rollback (src/registry/packages/routing.ts). */
function packageRouteEdit<T extends z.ZodType>(schema: T, edit: (body: z.output<T>) => PackageEdit) {
  return async (c: Context<AdminEnv>) => {
    const body = await bodyOf(c, schema, "Invalid request body");
    if (body instanceof Response) return body;
    const name = c.req.param("name")!;
    try {
      const { record, event } = await gatewayRuntime(c.env).packages.route(name, edit(body.data), c.get("by"));
      return c.json({ name, stable: record.stable, routes: routesOf(record), event: event! } satisfies AgentSkillRoutingAnswer);
    } catch (error) {
      if (error instanceof PackageRefused || error instanceof RoutingEditError) return adminError(c, error.status, error.message);
      throw error;
    }
  };
}
adminRoutes.post(
  "/agent-skills/:name/canary",
  jsonBodyGuard(),
  packageRouteEdit(CanaryRequestSchema, (body) => (doc, name, ctx) => setCanary(doc, name, body.version, body.groups, ctx)),
);
adminRoutes.post(
  "/agent-skills/:name/promote",
  jsonBodyGuard(),
  packageRouteEdit(PromoteRequestSchema, (body) => (doc, name, ctx) => promote(doc, name, body.version, ctx)),
);
adminRoutes.post(
  "/agent-skills/:name/rollback",
  jsonBodyGuard(),
  packageRouteEdit(RollbackRequestSchema, (body) => (doc, name, ctx) => rollback(doc, name, { ...ctx, version: body.version, reason: body.reason })),
);

/** Removes a package, or `?version=` one of its versions. */
adminRoutes.delete("/agent-skills/:name", async (c) => {
  const { name } = c.req.param();
  const version = c.req.query("version");
  try {
    const removed = await gatewayRuntime(c.env).packages.remove(name, version);
    return removed ?
        c.json({ removed })
      : adminError(c, 404, `No Agent Skill ${name}${version ? ` version ${version}` : ""}; GET /admin/agent-skills lists them`);
  } catch (error) {
    if (error instanceof PackageRefused) return adminError(c, error.status, error.message);
    throw error;
  }
});

// ---------------------------------------------------------------------------------------------
// Metrics for Prometheus (src/registry/metrics/prometheus.ts): counters from the store, gauges read now
// ---------------------------------------------------------------------------------------------

adminRoutes.get("/metrics", async (c) => {
  const { store, snapshot, counters, rollouts, upstreams } = gatewayRuntime(c.env);
  const deployments = (await snapshot.current()).deployments();
  const [states, stored, allRollouts, upstreamHealth] = await Promise.all([
    breakerStatesOf(store, deployments),
    counters.read(),
    rollouts.list(),
    upstreams.records.views().then((views) => upstreamHealthOf(store, views)),
  ]);
  const breakerSamples = deployments.flatMap((d, i) => {
    const { state } = states[i]!;
    return (["closed", "open", "half-open"] as const).map((s) => ({ labels: { skill: d.name, version: d.version, state: s }, value: s === state ? 1 : 0 }));
  });
  const running = Object.values(allRollouts).filter((r) => r.state === "running" || r.state === "paused");
  const text = renderMetrics(stored, [
    { name: "skillmesh_breaker_state", help: "Each deployment's circuit breaker: 1 for its current state.", samples: breakerSamples },
    {
      name: "skillmesh_rollout_step",
      help: "Running or paused rollouts: the step the canary is at (1 = the first).",
      samples: running.map((r) => ({ labels: { skill: r.skill, version: r.version, state: r.state }, value: r.step + 1 })),
    },
    {
      name: "skillmesh_rollout_weight_percent",
      help: "Running or paused rollouts: the canary's weight at its current step.",
      samples: running.map((r) => ({ labels: { skill: r.skill, version: r.version }, value: r.steps[r.step]! })),
    },
    {
      name: "skillmesh_upstream_up",
      help: "Each federated upstream version: 1 when its last refresh succeeded and none of its tools' breakers is open, else 0.",
      samples: upstreamHealth.map((u) => ({ labels: { upstream: u.upstream, version: u.version, kind: u.kind }, value: u.status === "ok" ? 1 : 0 })),
    },
    {
      name: "skillmesh_upstream_tools",
      help: "Each federated upstream version's tools: served, held for approval, or withdrawn until approved.",
      samples: upstreamHealth.flatMap((u) =>
        (["served", "held", "withdrawn"] as const).map((state) => ({
          labels: { upstream: u.upstream, version: u.version, state },
          value: state === "served" ? u.tools : u[state],
        })),
      ),
    },
    {
      name: "skillmesh_upstream_last_refresh_timestamp_seconds",
      help: "When each federated upstream version's tools were last read (its registration or a refresh), successfully or not.",
      samples: upstreamHealth.flatMap((u) => (u.lastRefresh ? [{ labels: { upstream: u.upstream, version: u.version }, value: u.lastRefresh.at / 1000 }] : [])),
    },
  ]);
  return c.text(text, 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
});

// ---------------------------------------------------------------------------------------------
// API keys: issued, listed, edited and revoked here (src/identity/keys); the secret is shown only once
// ---------------------------------------------------------------------------------------------

/** Runs a key operation; an unknown key is 404, a name clash 409. */
async function keyRoute(c: Context, operation: () => Promise<Response>): Promise<Response> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof KeyNotFound) return adminError(c, 404, error.message);
    if (error instanceof KeyConflict) return adminError(c, 409, error.message);
    throw error;
  }
}

adminRoutes.get("/keys", async (c) => c.json({ keys: (await gatewayRuntime(c.env).keys.list()).map(viewOf) }));

adminRoutes.post("/keys", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, KeyCreateRequestSchema, "Invalid key");
  if (body instanceof Response) return body;
  return keyRoute(c, async () => {
    const { key, record } = await gatewayRuntime(c.env).keys.create(body.data, Date.now());
    return c.json({ key, view: viewOf(record) }, 201);
  });
});

adminRoutes.patch("/keys/:id", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, KeyUpdateRequestSchema, "Invalid key update");
  if (body instanceof Response) return body;
  return keyRoute(c, async () => c.json(viewOf(await gatewayRuntime(c.env).keys.update(c.req.param("id"), body.data, Date.now()))));
});

/** Revokes a key (by id or name): it stops working everywhere within about a second. */
adminRoutes.delete("/keys/:id", (c) => keyRoute(c, async () => c.json(viewOf(await gatewayRuntime(c.env).keys.revoke(c.req.param("id"), Date.now())))));

/** Signs every dashboard session out (each stands for a credential; this ends them all at once). */
adminRoutes.delete("/sessions", async (c) => {
  await endAllSessions(gatewayRuntime(c.env));
  return c.json({ ended: true });
});

/** The admin API as an OpenAPI 3.1 document (src/admin/api/openapi.json). */
adminRoutes.get("/openapi.json", (c) => c.json(openApiDocument));

/** The audit log, newest first, a page at a time: `?caller=&skill=&outcome=ok|error|<code>&type=call|admin&since=&limit=&cursor=`. */
adminRoutes.get("/audit", async (c) => {
  const query = AuditQuerySchema.safeParse(c.req.query());
  if (!query.success) return adminError(c, 400, "Invalid audit query", describeIssues(query.error));
  const { audit } = gatewayRuntime(c.env);
  await audit.flushNow(); // this isolate's latest entries, and a backlog an outage left, are in the answer
  return c.json(await audit.read(query.data));
});

adminRoutes.notFound((c) =>
  adminError(
    c,
    404,
    "Unknown admin route: GET|POST /admin/deployments, DELETE /admin/deployments/:name@:version, GET /admin/skills/:name, GET|POST /admin/upstreams, GET|DELETE /admin/upstreams/:name, POST /admin/upstreams/:name/{refresh,approve}, GET /admin/servers, PUT|DELETE /admin/servers/:name, POST /admin/skills/:name/{canary,promote,rollback,rollout}, POST /admin/skills/:name/rollout/{pause,resume,abort}, PUT /admin/skills/:name/routes, GET|POST /admin/keys, PATCH|DELETE /admin/keys/:id, DELETE /admin/sessions, GET|POST /admin/agent-skills, GET|DELETE /admin/agent-skills/:name, POST /admin/agent-skills/:name/{canary,promote,rollback}, GET /admin/audit, GET /admin/metrics, GET /admin/openapi.json (all of them), the dashboard at /admin/ui",
  ),
);

/** Same manifest at the same endpoint, registered as a pipeline or not = same registration. */
async function defaultRegistrationId(manifest: SkillManifest, endpoint: Endpoint, pipeline: boolean): Promise<string> {
  // The first 12 bytes of the digest.
  return (await sha256Hex(JSON.stringify(pipeline ? { manifest, endpoint, pipeline } : { manifest, endpoint }))).slice(0, 24);
}
