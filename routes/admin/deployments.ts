/**
 * `/admin/deployments`: the registry's deployments, a page at a time with their routing tables,
 * breaker states and observed numbers; a registration (idempotent by `registrationId`, the
 * heartbeat); a removal.
 */
import { Hono } from "hono";
import { DeploymentPageSchema } from "../../src/admin/api/index.js";
import { deploymentsPage } from "../../src/admin/operator-view/index.js";
import { endpointRefusal } from "../../src/federation/forward/endpoint-policy.js";
import { fetchManifest } from "../../src/federation/forward/manifest.js";
import { gatewayRuntime } from "../../src/gateway/chain/runtime.js";
import { sha256Hex } from "../../src/lib/hash/index.js";
import { describeIssues } from "../../src/protocols/jsonrpc/index.js";
import { jsonBodyGuard } from "../../src/protocols/jsonrpc/http.js";
import { contractHashOf } from "../../src/registry/deployments/contract.js";
import { DeploymentIdSchema, type Endpoint, RegistrationSchema } from "../../src/registry/deployments/model.js";
import type { SkillManifest } from "../../src/skill/manifest.js";
import { type AdminEnv, AdminRefusal, bodyOf } from "./respond.js";

export const deploymentRoutes = new Hono<AdminEnv>();

/**
 * Deployments with their routing tables, breaker states and observed numbers, and the recent
 * rollout events: a page of `limit` skills (default and most 500) after `cursor` (a skill name,
 * the `nextCursor` of the page before), so a 10,000-skill registry is listed in bounded pieces.
 */
deploymentRoutes.get("/", async (c) => {
  const page = DeploymentPageSchema.safeParse(c.req.query());
  if (!page.success)
    throw new AdminRefusal(400, "Invalid query: limit is 1-500 skills, cursor the nextCursor of the previous page", describeIssues(page.error));
  return c.json(await deploymentsPage(gatewayRuntime(c.env), page.data));
});

/** Registers a deployment (idempotent by `registrationId`); re-registering is the heartbeat. */
deploymentRoutes.post("/", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, RegistrationSchema, "Invalid registration");
  const { endpoint, ttlSeconds, force } = body;
  const refusal = "url" in endpoint ? endpointRefusal(endpoint.url, { allowPrivate: gatewayRuntime(c.env).config.allowPrivateEndpoints }) : undefined;
  if (refusal) throw new AdminRefusal(400, `Invalid registration: ${refusal}`);
  const manifest = body.manifest ?? (await fetchManifest(endpoint, c.env));
  const pipeline = body.pipeline === true;
  if (pipeline && !manifest.pipeline?.steps.length)
    throw new AdminRefusal(
      400,
      `Invalid registration: ${manifest.name}@${manifest.version} is registered as a pipeline, but its manifest declares no pipeline.steps (the skills its steps may call)`,
    );
  const registrationId = body.registrationId ?? (await defaultRegistrationId(manifest, endpoint, pipeline));

  const { registry, snapshot } = gatewayRuntime(c.env);
  const outcome = await registry.register(
    { manifest, endpoint, registrationId, ttlSeconds, force, pipeline, contractHash: await contractHashOf(manifest) },
    Date.now(),
  );
  if (outcome.conflict) {
    const id = outcome.deployment.id;
    throw new AdminRefusal(409, `${id} is registered with another definition; register a new version (or send "force": true to replace it)`, {
      changes: outcome.conflict,
    });
  }
  snapshot.invalidate();
  return c.json({ changed: outcome.changed, deployment: outcome.deployment }, outcome.changed ? 201 : 200);
});

/** Removes one deployment: `DELETE /admin/deployments/text.summarize@2.0.0`. */
deploymentRoutes.delete("/:id", async (c) => {
  const id = c.req.param("id");
  if (!DeploymentIdSchema.safeParse(id).success) throw new AdminRefusal(404, `No deployment ${id}: ids are name@version; GET /admin/deployments lists them`);
  const { registry, snapshot } = gatewayRuntime(c.env);
  const removed = await registry.deregister([id], Date.now());
  snapshot.invalidate();
  if (!removed.length) throw new AdminRefusal(404, `No deployment ${id}; GET /admin/deployments lists them`);
  return c.json({ removed });
});

/** Same manifest at the same endpoint, registered as a pipeline or not = same registration. */
async function defaultRegistrationId(manifest: SkillManifest, endpoint: Endpoint, pipeline: boolean): Promise<string> {
  // The first 12 bytes of the digest.
  return (await sha256Hex(JSON.stringify(pipeline ? { manifest, endpoint, pipeline } : { manifest, endpoint }))).slice(0, 24);
}
