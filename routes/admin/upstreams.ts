/**
 * `/admin/upstreams`: MCP servers, OpenAPI services and A2A agents whose tools are served as skills
 * (src/federation/upstream): registered, read again, their held changes approved, removed. Every
 * sync's held, removed and approved definitions are audit entries of their own.
 */
import { type Context, Hono } from "hono";
import { ApproveRequestSchema, UpstreamRegistrationSchema } from "../../src/admin/api/index.js";
import type { Upstreams } from "../../src/federation/upstream/index.js";
import { type SyncReport, recordSync } from "../../src/federation/upstream/sync.js";
import { gatewayRuntime } from "../../src/gateway/chain/runtime.js";
import { jsonBodyGuard } from "../../src/protocols/jsonrpc/http.js";
import { type AdminEnv, AdminRefusal, bodyOf } from "./respond.js";

export const upstreamRoutes = new Hono<AdminEnv>();

/** Runs an upstream operation; whatever it did, the snapshot sees its deployments. */
async function upstreamOperation(c: Context<AdminEnv>, operation: (upstreams: Upstreams) => Promise<Response>): Promise<Response> {
  const runtime = gatewayRuntime(c.env);
  try {
    return await operation(runtime.upstreams);
  } finally {
    runtime.snapshot.invalidate();
  }
}

/** Held, removed and approved definitions of a sync, each an audit entry of its own. */
function auditSync(c: Context<AdminEnv>, reports: SyncReport[]) {
  recordSync(gatewayRuntime(c.env).audit, reports, c.get("by"), (p) => c.executionCtx.waitUntil(p));
}

upstreamRoutes.get("/", async (c) => c.json({ upstreams: await gatewayRuntime(c.env).upstreams.records.views() }));

upstreamRoutes.get("/:name", async (c) => {
  const [view] = await gatewayRuntime(c.env).upstreams.records.views(c.req.param("name"));
  if (!view) throw new AdminRefusal(404, `No upstream ${c.req.param("name")}; GET /admin/upstreams lists them`);
  return c.json(view);
});

/** Registers an MCP server, OpenAPI service or A2A agent (or another version of one): its tools become skills. */
upstreamRoutes.post("/", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, UpstreamRegistrationSchema, "Invalid upstream");
  return upstreamOperation(c, async (upstreams) => c.json({ reports: [await upstreams.sync.register(body)] }, 201));
});

/** Reads an upstream's definitions again: new and changed ones are held for approval, removed ones withdrawn. */
upstreamRoutes.post("/:name/refresh", async (c) =>
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
upstreamRoutes.post("/:name/approve", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, ApproveRequestSchema, "Invalid approval");
  return upstreamOperation(c, async (upstreams) => {
    const reports = await upstreams.sync.approve(c.req.param("name"), body);
    auditSync(c, reports);
    return c.json({ reports });
  });
});

/** Removes an upstream (or `?version=` one of its versions) and its tools' deployments. */
upstreamRoutes.delete("/:name", async (c) =>
  upstreamOperation(c, async (upstreams) => {
    const { name } = c.req.param();
    const version = c.req.query("version");
    const removed = await upstreams.sync.remove(name, version);
    if (!removed) throw new AdminRefusal(404, `No upstream ${name}${version ? ` version ${version}` : ""}; GET /admin/upstreams lists them`);
    return c.json({ removed });
  }),
);
