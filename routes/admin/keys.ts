/** `/admin/keys`: API keys issued, listed, edited and revoked (src/identity/keys); the secret is shown only once. */
import { Hono } from "hono";
import { KeyCreateRequestSchema, KeyUpdateRequestSchema } from "../../src/admin/api/index.js";
import { gatewayRuntime } from "../../src/gateway/chain/runtime.js";
import { viewOf } from "../../src/identity/keys/index.js";
import { jsonBodyGuard } from "../../src/protocols/jsonrpc/http.js";
import { type AdminEnv, bodyOf } from "./respond.js";

export const keyRoutes = new Hono<AdminEnv>();

keyRoutes.get("/", async (c) => c.json({ keys: (await gatewayRuntime(c.env).keys.list()).map(viewOf) }));

keyRoutes.post("/", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, KeyCreateRequestSchema, "Invalid key");
  const { key, record } = await gatewayRuntime(c.env).keys.create(body, Date.now());
  return c.json({ key, view: viewOf(record) }, 201);
});

keyRoutes.patch("/:id", jsonBodyGuard(), async (c) => {
  const body = await bodyOf(c, KeyUpdateRequestSchema, "Invalid key update");
  return c.json(viewOf(await gatewayRuntime(c.env).keys.update(c.req.param("id"), body, Date.now())));
});

/** Revokes a key (by id or name): it stops working everywhere within about a second. */
keyRoutes.delete("/:id", async (c) => c.json(viewOf(await gatewayRuntime(c.env).keys.revoke(c.req.param("id"), Date.now()))));
