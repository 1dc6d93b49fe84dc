/**
 * `GET /healthz`: whether the gateway is up and its store answers — `{"status":"ok"}` or
 * `"degraded"`, all an anonymous caller (a load balancer, an uptime check) learns. With the
 * admin token (or an admin key) it also tells the store driver, the registry's revision and
 * size, and each upstream version's health (src/admin/operator-view: `failing` when its last refresh
 * failed or a breaker of its tools is open — the gateway itself stays "ok").
 */
import { Hono } from "hono";
import { adminOf } from "../src/identity/auth/admin.js";
import { allowsAdmin } from "../src/identity/auth/index.js";
import { gatewayRuntime, type GatewayEnv } from "../src/gateway/chain/runtime.js";
import { errorText } from "../src/protocols/jsonrpc/index.js";
import { upstreamHealthOf } from "../src/admin/operator-view/index.js";

export const healthRoutes = new Hono<{ Bindings: GatewayEnv }>();

/** How long the health check waits for the store's answer. */
const HEALTH_PING_MS = 800;

healthRoutes.get("/", async (c) => {
  const { store, snapshot, keys, config, upstreams } = gatewayRuntime(c.env);
  // A hanging store must not hang the health check: it says "degraded" within the second.
  const late = new Promise<false>((resolve) => setTimeout(() => resolve(false), HEALTH_PING_MS));
  const ping = store.ping().catch((error) => {
    console.error("[gateway] store ping failed:", errorText(error));
    return false;
  });
  const storeOk = await Promise.race([ping, late]);
  const status = storeOk ? "ok" : "degraded";
  const { level } = await adminOf(c.req.raw.headers, config, keys).catch(() => ({ level: "none" as const }));
  if (!allowsAdmin(level, "GET")) return c.json({ status });
  const [view, upstreamHealth] = await Promise.all([
    snapshot.current().catch(() => undefined),
    upstreams.records
      .views()
      .then((views) => upstreamHealthOf(store, views))
      .catch(() => null),
  ]);
  return c.json({
    status,
    store: { driver: store.driver, ok: storeOk },
    registry: view ? { revision: view.rev, deployments: view.deployments().length } : null,
    upstreams: upstreamHealth,
  });
});
