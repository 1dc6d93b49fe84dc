/** `GET /healthz`: the gateway is alive; says whether the store answers and what the registry holds. */
import { Hono } from "hono";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/runtime.js";
import { errorText } from "../src/jsonrpc/index.js";

export const healthRoutes = new Hono<{ Bindings: GatewayEnv }>();

healthRoutes.get("/", async (c) => {
  const { store, snapshot } = gatewayRuntime(c.env);
  const storeOk = await store.ping().catch((error) => {
    console.error("[gateway] store ping failed:", errorText(error));
    return false;
  });
  const view = await snapshot.current().catch(() => undefined);
  return c.json({
    status: storeOk ? "ok" : "degraded",
    store: { driver: store.driver, ok: storeOk },
    registry: view ? { revision: view.rev, deployments: view.deployments().length } : null,
  });
});
