/** `/admin/servers`: virtual MCP servers (`/mcp/<server>`), curated sets of tools (src/gateway/servers). */
import { Hono } from "hono";
import { gatewayRuntime } from "../../src/gateway/chain/runtime.js";
import { DefinableServerNameSchema, ServerDefinitionSchema } from "../../src/gateway/servers/index.js";
import { describeIssues } from "../../src/protocols/jsonrpc/index.js";
import { jsonBodyGuard } from "../../src/protocols/jsonrpc/http.js";
import { type AdminEnv, AdminRefusal, bodyOf } from "./respond.js";

export const serverRoutes = new Hono<AdminEnv>();

serverRoutes.get("/", async (c) => c.json({ servers: await gatewayRuntime(c.env).servers.all() }));

/** Defines (or replaces) a virtual server: `{tools, tags, instructions?, aliases?, description?, title?, discoverable?}`. */
serverRoutes.put("/:name", jsonBodyGuard(), async (c) => {
  const name = DefinableServerNameSchema.safeParse(c.req.param("name"));
  if (!name.success) throw new AdminRefusal(400, "Invalid server name", describeIssues(name.error));
  const body = await bodyOf(c, ServerDefinitionSchema, "Invalid server");
  await gatewayRuntime(c.env).servers.put(name.data, body);
  return c.json({ name: name.data, server: body, url: `/mcp/${name.data}` });
});

serverRoutes.delete("/:name", async (c) => {
  if (!(await gatewayRuntime(c.env).servers.remove(c.req.param("name"))))
    throw new AdminRefusal(404, `No server ${c.req.param("name")}; GET /admin/servers lists them`);
  return c.json({ removed: c.req.param("name") });
});
