/** `/admin/audit`: the audit log, newest first, a page at a time. */
import { Hono } from "hono";
import { AuditQuerySchema } from "../../src/admin/api/index.js";
import { gatewayRuntime } from "../../src/gateway/chain/runtime.js";
import { describeIssues } from "../../src/protocols/jsonrpc/index.js";
import { type AdminEnv, AdminRefusal } from "./respond.js";

export const auditRoutes = new Hono<AdminEnv>();

/** `?caller=&skill=&outcome=ok|error|<code>&type=call|admin&since=&limit=&cursor=` */
auditRoutes.get("/", async (c) => {
  const query = AuditQuerySchema.safeParse(c.req.query());
  if (!query.success) throw new AdminRefusal(400, "Invalid audit query", describeIssues(query.error));
  const { audit } = gatewayRuntime(c.env);
  await audit.flushNow(); // this isolate's latest entries, and a backlog an outage left, are in the answer
  return c.json(await audit.read(query.data));
});
