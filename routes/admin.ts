/**
 * `/admin/*`: registry management. Every route needs `Authorization: Bearer
 * $SKILLMESH_ADMIN_TOKEN` (compared in constant time by Hono's bearerAuth); with no token
 * configured the admin API refuses everything.
 */
import { Hono, type Context } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { breakerKey, statusOf } from "../src/breaker/index.js";
import { type Endpoint, RegistrationSchema, type RegistryDoc, RoutingTableSchema } from "../src/registry/model.js";
import { RolloutError, promote, replaceRoutes, rollback, setCanary } from "../src/routing/rollout.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/runtime.js";
import { ErrorCode, errorText } from "../src/jsonrpc/index.js";
import { jsonBodyGuard } from "../src/jsonrpc/http.js";
import { type SkillManifest, SkillManifestSchema } from "../src/skill/manifest.js";
import { describeIssues } from "../src/jsonrpc/index.js";

export const adminRoutes = new Hono<{ Bindings: GatewayEnv }>();

/** The admin API's error body: `{ error: { code, message, issues? } }`. */
function adminError(c: Context, status: 400 | 401 | 404 | 409 | 502 | 503, message: string, issues?: unknown) {
  const code = status === 401 ? ErrorCode.Unauthorized : status === 404 ? ErrorCode.MethodNotFound : ErrorCode.InvalidRequest;
  return c.json({ error: { code, message, ...(issues ? { issues } : {}) } }, status);
}

adminRoutes.use("*", async (c, next) => {
  const token = c.env.SKILLMESH_ADMIN_TOKEN;
  if (!token) return adminError(c, 401, "The admin API is disabled: set SKILLMESH_ADMIN_TOKEN on the gateway");
  const unauthorized = { message: { error: { code: ErrorCode.Unauthorized, message: "Unauthorized: send Authorization: Bearer <SKILLMESH_ADMIN_TOKEN>" } } };
  return bearerAuth<{ Bindings: GatewayEnv }>({ token, noAuthenticationHeader: unauthorized, invalidAuthenticationHeader: unauthorized, invalidToken: unauthorized })(c, next);
});

adminRoutes.onError((error, c) => {
  if (error instanceof HTTPException) return error.getResponse(); // bearerAuth's 401 / 400
  console.error("[admin]", errorText(error));
  return adminError(c, 503, "The registry store is unavailable; retry in a few seconds");
});

/** Every deployment, every routing table, every breaker's state, and the recent rollout events. */
adminRoutes.get("/deployments", async (c) => {
  const { registry, store } = gatewayRuntime(c.env);
  const now = Date.now();
  const [{ rev, doc }, { expired }] = await Promise.all([registry.read(), registry.poll(now)]);
  const deployments = Object.values(doc.deployments)
    .filter((d) => !expired.includes(d.id))
    .sort((a, b) => a.id.localeCompare(b.id));
  const routes = Object.fromEntries(Object.entries(doc.routes).filter(([name]) => deployments.some((d) => d.name === name)));
  const breakers = Object.fromEntries(
    await Promise.all(deployments.map(async (d) => [d.id, statusOf(await store.get(breakerKey(d.id)))] as const)),
  );
  return c.json({ revision: rev, deployments, routes, breakers, events: doc.events });
});

/** Registers a deployment (idempotent by `registrationId`); re-registering is the heartbeat. */
adminRoutes.post("/deployments", jsonBodyGuard(), async (c) => {
  const body = RegistrationSchema.safeParse(await c.req.json().catch(() => undefined));
  if (!body.success) return adminError(c, 400, "Invalid registration", describeIssues(body.error));
  const { endpoint, ttlSeconds } = body.data;
  const manifest = body.data.manifest ?? (await fetchManifest(endpoint, c.env).catch((error: Error) => error));
  if (manifest instanceof Error) return adminError(c, 502, `Could not read the manifest from the endpoint: ${manifest.message}`);
  const registrationId = body.data.registrationId ?? (await defaultRegistrationId(manifest, endpoint));

  const { registry, snapshot } = gatewayRuntime(c.env);
  const outcome = await registry.register({ manifest, endpoint, registrationId, ttlSeconds }, Date.now());
  snapshot.invalidate();
  return c.json({ changed: outcome.changed, deployment: outcome.deployment }, outcome.changed ? 201 : 200);
});

/** Removes one deployment: `DELETE /admin/deployments/text.summarize@2.0.0`. */
adminRoutes.delete("/deployments/:id", async (c) => {
  const id = c.req.param("id");
  const { registry, snapshot } = gatewayRuntime(c.env);
  const removed = await registry.deregister([id], Date.now());
  snapshot.invalidate();
  if (!removed.length) return adminError(c, 404, `No deployment ${id}; GET /admin/deployments lists them`);
  return c.json({ removed });
});

// ---------------------------------------------------------------------------------------------
// Rollout: canary weights per group, promote, rollback (src/routing/rollout.ts holds the rules)
// ---------------------------------------------------------------------------------------------

const GroupName = z.string().regex(/^(\*|[A-Za-z0-9_.:-]{1,64})$/, "a group is * or [A-Za-z0-9_.:-]{1,64}");
const Percent = z.number().int().min(0).max(100);
const CanaryBody = z.object({ version: z.string().min(1), groups: z.record(GroupName, Percent) });
const VersionBody = z.object({ version: z.string().min(1) });
const RollbackBody = z.object({ version: z.string().min(1).optional(), reason: z.string().max(500).optional() });
const RoutesBody = z.object({ routes: RoutingTableSchema });

/** Parses a JSON body with `schema`, runs a rollout edit, and answers the skill's new table. */
function rolloutRoute<T extends z.ZodType>(schema: T, edit: (doc: RegistryDoc, skill: string, body: z.output<T>, now: number) => RegistryDoc) {
  return async (c: Context<{ Bindings: GatewayEnv }>) => {
    const body = schema.safeParse(await c.req.json().catch(() => ({})));
    if (!body.success) return adminError(c, 400, "Invalid request body", describeIssues(body.error));
    const skill = c.req.param("name")!;
    const { registry, snapshot } = gatewayRuntime(c.env);
    try {
      const doc = await registry.update(Date.now(), (current) => edit(current, skill, body.data, Date.now()));
      snapshot.invalidate();
      return c.json({ skill, routes: doc.routes[skill] ?? {}, event: doc.events[0] });
    } catch (error) {
      if (error instanceof RolloutError) return adminError(c, error.status, error.message);
      throw error;
    }
  };
}

/** One skill: its deployments, routing table and rollout events. */
adminRoutes.get("/skills/:name", async (c) => {
  const skill = c.req.param("name");
  const { doc } = await gatewayRuntime(c.env).registry.read();
  const deployments = Object.values(doc.deployments).filter((d) => d.name === skill);
  if (!deployments.length) return adminError(c, 404, `No skill ${skill} is registered`);
  return c.json({ skill, deployments, routes: doc.routes[skill] ?? {}, events: doc.events.filter((e) => e.skill === skill) });
});

adminRoutes.post("/skills/:name/canary", jsonBodyGuard(), rolloutRoute(CanaryBody, (doc, skill, body, now) => setCanary(doc, skill, body.version, body.groups, { now, by: "admin" })));
adminRoutes.post("/skills/:name/promote", jsonBodyGuard(), rolloutRoute(VersionBody, (doc, skill, body, now) => promote(doc, skill, body.version, { now, by: "admin" })));
adminRoutes.post("/skills/:name/rollback", jsonBodyGuard(), rolloutRoute(RollbackBody, (doc, skill, body, now) => rollback(doc, skill, { now, by: "admin", version: body.version, reason: body.reason })));
adminRoutes.put("/skills/:name/routes", jsonBodyGuard(), rolloutRoute(RoutesBody, (doc, skill, body, now) => replaceRoutes(doc, skill, body.routes, { now, by: "admin" })));

adminRoutes.notFound((c) => adminError(c, 404, "Unknown admin route: GET|POST /admin/deployments, DELETE /admin/deployments/:name@:version, GET /admin/skills/:name, POST /admin/skills/:name/{canary,promote,rollback}, PUT /admin/skills/:name/routes"));

/** Reads `GET /manifest` from a skill endpoint (binding or URL), within 5 s. */
async function fetchManifest(endpoint: Endpoint, env: GatewayEnv): Promise<SkillManifest> {
  const signal = AbortSignal.timeout(5_000);
  let response: Response;
  if ("url" in endpoint) {
    response = await fetch(new URL("manifest", endpoint.url.endsWith("/") ? endpoint.url : `${endpoint.url}/`), { signal });
  } else {
    const binding = env[endpoint.binding] as Fetcher | undefined;
    if (!binding?.fetch) throw new Error(`the gateway has no service binding ${endpoint.binding}`);
    response = await binding.fetch("https://skill.internal/manifest", { signal });
  }
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const parsed = SkillManifestSchema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new Error(`not a skill manifest (${z.prettifyError(parsed.error).split("\n")[0]})`);
  return parsed.data;
}

/** Same manifest at the same endpoint = same registration. */
async function defaultRegistrationId(manifest: SkillManifest, endpoint: Endpoint): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify({ manifest, endpoint })));
  return [...new Uint8Array(digest).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
