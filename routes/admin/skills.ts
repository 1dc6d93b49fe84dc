/**
 * `/admin/skills/:name`: one skill's deployments, routing table and rollout events; its routing
 * edits (canary weights per group, promote, rollback, a whole table; src/registry/routing/edits.ts
 * holds the rules); its progressive rollout (src/registry/delivery).
 */
import { type Context, Hono } from "hono";
import type { z } from "zod";
import {
  CanaryRequestSchema,
  PromoteRequestSchema,
  RollbackRequestSchema,
  RolloutCommandSchema,
  RolloutRequestSchema,
  type RoutingEditAnswer,
  RoutesRequestSchema,
} from "../../src/admin/api/index.js";
import { skillView } from "../../src/admin/operator-view/index.js";
import { gatewayRuntime } from "../../src/gateway/chain/runtime.js";
import { own } from "../../src/lib/json/index.js";
import { jsonBodyGuard } from "../../src/protocols/jsonrpc/http.js";
import type { RegistryDoc } from "../../src/registry/deployments/model.js";
import type { Rollout, Rollouts } from "../../src/registry/delivery/index.js";
import { promote, replaceRoutes, rollback, setCanary } from "../../src/registry/routing/edits.js";
import { type AdminEnv, AdminRefusal, bodyOf } from "./respond.js";

export const skillRoutes = new Hono<AdminEnv>();

/** Parses a JSON body with `schema`, runs a routing edit, and answers the skill's new table. */
function routingEdit<T extends z.ZodType>(
  schema: T,
  edit: (doc: RegistryDoc, skill: string, body: z.output<T>, ctx: { now: number; by: string }) => RegistryDoc,
) {
  return async (c: Context<AdminEnv>) => {
    const body = await bodyOf(c, schema, "Invalid request body");
    const skill = c.req.param("name")!;
    const { registry, snapshot } = gatewayRuntime(c.env);
    const doc = await registry.update(skill, Date.now(), (current) => edit(current, skill, body, { now: Date.now(), by: c.get("by") }));
    snapshot.invalidate();
    return c.json({ skill, routes: own(doc.routes, skill) ?? {}, event: doc.events[0]! } satisfies RoutingEditAnswer);
  };
}

/** One skill: its deployments, routing table and rollout events. */
skillRoutes.get("/:name", async (c) => {
  const skill = c.req.param("name");
  const answer = await skillView(gatewayRuntime(c.env), skill);
  if (!answer) throw new AdminRefusal(404, `No skill ${skill} is registered`);
  return c.json(answer);
});

skillRoutes.post(
  "/:name/canary",
  jsonBodyGuard(),
  routingEdit(CanaryRequestSchema, (doc, skill, body, ctx) => setCanary(doc, skill, body.version, body.groups, ctx)),
);
skillRoutes.post(
  "/:name/promote",
  jsonBodyGuard(),
  routingEdit(PromoteRequestSchema, (doc, skill, body, ctx) => promote(doc, skill, body.version, ctx)),
);
skillRoutes.post(
  "/:name/rollback",
  jsonBodyGuard(),
  routingEdit(RollbackRequestSchema, (doc, skill, body, ctx) => rollback(doc, skill, { ...ctx, version: body.version, reason: body.reason })),
);
skillRoutes.put(
  "/:name/routes",
  jsonBodyGuard(),
  routingEdit(RoutesRequestSchema, (doc, skill, body, ctx) => replaceRoutes(doc, skill, body.routes, ctx)),
);

/** Runs a rollout operation and answers the rollout; the snapshot sees its routing. */
async function rolloutOperation(c: Context<AdminEnv>, operation: (rollouts: Rollouts) => Promise<Rollout>): Promise<Response> {
  const { rollouts, snapshot } = gatewayRuntime(c.env);
  const rollout = await operation(rollouts);
  snapshot.invalidate();
  return c.json({ rollout });
}

/** Starts a rollout: `{version, steps, every, maxErrorRate, maxP95Ratio?, minCalls?, groups?}`. */
skillRoutes.post("/:name/rollout", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, RolloutRequestSchema, "Invalid rollout");
  return rolloutOperation(c, (rollouts) => rollouts.start(c.req.param("name"), body, c.get("by"), Date.now()));
});

/** Pauses, resumes or aborts (rolls back) the skill's rollout. */
skillRoutes.post("/:name/rollout/:command{pause|resume|abort}", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, RolloutCommandSchema, "Invalid request body");
  const command = c.req.param("command") as "pause" | "resume" | "abort";
  return rolloutOperation(c, (rollouts) => rollouts.command(c.req.param("name"), command, c.get("by"), Date.now(), body.reason));
});
