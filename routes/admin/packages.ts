/**
 * `/admin/agent-skills`: Agent Skills packages (src/registry/packages): the index in the store, the
 * files in an R2 bucket by digest; registered, split between versions as a tool is, removed.
 */
import { type Context, Hono } from "hono";
import { decodeBase64 } from "hono/utils/encode";
import type { z } from "zod";
import {
  type AgentSkillRoutingAnswer,
  AgentSkillUploadSchema,
  CanaryRequestSchema,
  PromoteRequestSchema,
  RollbackRequestSchema,
} from "../../src/admin/api/index.js";
import { gatewayRuntime } from "../../src/gateway/chain/runtime.js";
import { UTF8_ENCODER } from "../../src/lib/utf8/index.js";
import { jsonBodyGuard } from "../../src/protocols/jsonrpc/http.js";
import { MAX_PACKAGE_BYTES, type PackageFile } from "../../src/registry/packages/index.js";
import { type PackageEdit, routesOf } from "../../src/registry/packages/routing.js";
import { promote, rollback, setCanary } from "../../src/registry/routing/edits.js";
import { type AdminEnv, AdminRefusal, bodyOf } from "./respond.js";

export const packageRoutes = new Hono<AdminEnv>();

/** The largest upload of a package: its files at their bound, base64-encoded, and the JSON around them. */
const MAX_PACKAGE_UPLOAD_BYTES = Math.ceil((MAX_PACKAGE_BYTES * 4) / 3) + 1024 * 1024;

packageRoutes.get("/", async (c) => c.json({ agentSkills: await gatewayRuntime(c.env).packages.list() }));

packageRoutes.get("/:name", async (c) => {
  const record = await gatewayRuntime(c.env).packages.get(c.req.param("name"));
  if (!record) throw new AdminRefusal(404, `No Agent Skill ${c.req.param("name")}; GET /admin/agent-skills lists them`);
  return c.json(record);
});

/** Registers a version of an Agent Skills package: checked, its files stored by digest, its index written. */
packageRoutes.post("/", jsonBodyGuard(MAX_PACKAGE_UPLOAD_BYTES), async (c) => {
  const body = await bodyOf(c, AgentSkillUploadSchema, "Invalid Agent Skill upload");
  const files: PackageFile[] = [];
  for (const file of body.files) {
    try {
      files.push({ path: file.path, bytes: file.encoding === "base64" ? decodeBase64(file.content) : UTF8_ENCODER.encode(file.content) });
    } catch {
      throw new AdminRefusal(400, `Invalid Agent Skill upload: ${file.path} is not base64`);
    }
  }
  const { pkg, changed, stable } = await gatewayRuntime(c.env).packages.register(body.name, files);
  return c.json({ name: pkg.name, version: pkg.version, digest: pkg.digest, tools: pkg.tools, files: pkg.files, changed, stable }, changed ? 201 : 200);
});

/** Splits a package's callers between its versions, as a tool's: canary, promote, rollback (src/registry/packages/routing.ts). */
function packageRouteEdit<T extends z.ZodType>(schema: T, edit: (body: z.output<T>) => PackageEdit) {
  return async (c: Context<AdminEnv>) => {
    const body = await bodyOf(c, schema, "Invalid request body");
    const name = c.req.param("name")!;
    const { record, event } = await gatewayRuntime(c.env).packages.route(name, edit(body), c.get("by"));
    return c.json({ name, stable: record.stable, routes: routesOf(record), event: event! } satisfies AgentSkillRoutingAnswer);
  };
}
packageRoutes.post(
  "/:name/canary",
  jsonBodyGuard(),
  packageRouteEdit(CanaryRequestSchema, (body) => (doc, name, ctx) => setCanary(doc, name, body.version, body.groups, ctx)),
);
packageRoutes.post(
  "/:name/promote",
  jsonBodyGuard(),
  packageRouteEdit(PromoteRequestSchema, (body) => (doc, name, ctx) => promote(doc, name, body.version, ctx)),
);
packageRoutes.post(
  "/:name/rollback",
  jsonBodyGuard(),
  packageRouteEdit(RollbackRequestSchema, (body) => (doc, name, ctx) => rollback(doc, name, { ...ctx, version: body.version, reason: body.reason })),
);

/** Removes a package, or `?version=` one of its versions. */
packageRoutes.delete("/:name", async (c) => {
  const { name } = c.req.param();
  const version = c.req.query("version");
  const removed = await gatewayRuntime(c.env).packages.remove(name, version);
  if (!removed) throw new AdminRefusal(404, `No Agent Skill ${name}${version ? ` version ${version}` : ""}; GET /admin/agent-skills lists them`);
  return c.json({ removed });
});
