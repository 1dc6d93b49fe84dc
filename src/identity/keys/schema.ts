/** API keys on the wire: what a key may do (its grants), and the admin API's requests and views of keys. */
import { z } from "zod";
import { GlobSchema } from "../../lib/glob/index.js";
import { RateSchema } from "../../policies/ratelimit/index.js";
import { GroupNameSchema } from "../../registry/deployments/model.js";

export const AdminLevelSchema = z.enum(["read", "write"]);

/** A virtual MCP server's name (`/mcp/<server>`). */
export const ServerNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, "a server name is 1-32 lower-case letters, digits, _ or -");

/** What a key may do. Unset lists allow nothing: a key names what it may call. */
export const KeyGrantsSchema = z.object({
  /** Skill names it may see and call (globs). */
  skills: z.array(GlobSchema).max(64).default([]),
  /** Skills it may see and call by capability tag (globs). */
  tags: z.array(GlobSchema).max(64).default([]),
  /** `X-User-Group` values it may use; any other routes as `*`. */
  groups: z.array(GroupNameSchema).max(64).default([]),
  /** Virtual MCP servers (`/mcp/<server>`) it may call through; unset: every door, `/rpc` and `/mcp` included. */
  servers: z.array(ServerNameSchema).max(64).optional(),
  /** Access to the admin API: none, `read` (GET) or `write` (everything). */
  admin: AdminLevelSchema.optional(),
  /** Calls per time window across every gateway isolate, e.g. `100/min`. */
  rate: RateSchema.optional(),
  /** A longer, durable budget, e.g. `50000/day`. */
  quota: RateSchema.optional(),
});
export type KeyGrants = z.infer<typeof KeyGrantsSchema>;

export const KeyNameSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "a key name is [A-Za-z0-9_.:-]{1,64}");

/** `POST /admin/keys`. */
export const KeyCreateRequestSchema = KeyGrantsSchema.extend({ name: KeyNameSchema }).strict();

/** `PATCH /admin/keys/:id`: the fields given replace the key's (`null` clears an optional one). */
export const KeyUpdateRequestSchema = z.strictObject({
  name: KeyNameSchema.optional(),
  skills: z.array(GlobSchema).max(64).optional(),
  tags: z.array(GlobSchema).max(64).optional(),
  groups: z.array(GroupNameSchema).max(64).optional(),
  servers: z.array(ServerNameSchema).max(64).nullable().optional(),
  admin: AdminLevelSchema.nullable().optional(),
  rate: RateSchema.nullable().optional(),
  quota: RateSchema.nullable().optional(),
});
export type KeyUpdateRequest = z.infer<typeof KeyUpdateRequestSchema>;

/** A key as the admin API shows it: never its secret, never its hash. */
export const KeyViewSchema = KeyGrantsSchema.extend({
  id: z.string(),
  name: z.string(),
  /** The key's first and last characters, to recognise it: `sm_Ab3d…x9Yz`. */
  hint: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  revokedAt: z.number().optional(),
});
export type KeyView = z.infer<typeof KeyViewSchema>;

/** `POST /admin/keys` answers the key itself, once. */
export const KeyCreatedSchema = z.object({ key: z.string(), view: KeyViewSchema });
export const KeyListSchema = z.object({ keys: z.array(KeyViewSchema) });
