/**
 * `GET /healthz`: whether the gateway is up and its store answers — `{"status":"ok"}` or
 * `"degraded"`, all an anonymous caller (a load balancer, an uptime check) learns. With the
 * admin token (or an admin key) it also tells the store driver and the registry's revision and
 * size.
 */
import { Hono } from "hono";
import { adminOf } from "../src/auth/admin.js";
import { allowsAdmin } from "../src/auth/index.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/runtime.js";
import { errorText } from "../src/jsonrpc/index.js";

export const healthRoutes = new Hono<{ Bindings: GatewayEnv }>();

healthRoutes.get("/", async (c) => {
  const { store, snapshot, keys } = gatewayRuntime(c.env);
  const storeOk = await store.ping().catch((error) => {
    console.error("[gateway] store ping failed:", errorText(error));
    return false;
  });
  const status = storeOk ? "ok" : "degraded";
  const { level } = await adminOf(c.req.raw.headers, c.env, keys).catch(() => ({ level: "none" as const }));
  if (!allowsAdmin(level, "GET")) return c.json({ status });
  const view = await snapshot.current().catch(() => undefined);
  return c.json({
    status,
    store: { driver: store.driver, ok: storeOk },
    registry: view ? { revision: view.rev, deployments: view.deployments().length } : null,
  });
});
