/**
 * `GET /healthz`: whether the gateway is up and its store answers — `{"status":"ok"}` or
 * `"degraded"`, all an anonymous caller (a load balancer, an uptime check) learns. With the
 * admin token it also tells the store driver and the registry's revision and size.
 */
import { Hono } from "hono";
import { hasAdminToken } from "../src/gateway/admin-token.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/runtime.js";
import { errorText } from "../src/jsonrpc/index.js";

export const healthRoutes = new Hono<{ Bindings: GatewayEnv }>();

healthRoutes.get("/", async (c) => {
  const { store, snapshot } = gatewayRuntime(c.env);
  const storeOk = await store.ping().catch((error) => {
    console.error("[gateway] store ping failed:", errorText(error));
    return false;
  });
  const status = storeOk ? "ok" : "degraded";
  if (!(await hasAdminToken(c.req.header("authorization"), c.env.SKILLMESH_ADMIN_TOKEN))) return c.json({ status });
  const view = await snapshot.current().catch(() => undefined);
  return c.json({
    status,
    store: { driver: store.driver, ok: storeOk },
    registry: view ? { revision: view.rev, deployments: view.deployments().length } : null,
  });
});
