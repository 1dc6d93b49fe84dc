/**
 * Virtual MCP servers: named endpoints (`/mcp/<server>`) that each expose a curated set of the
 * gateway's tools — by skill-name and tag globs — with their own `instructions` and optional
 * aliases (a tool or prompt listed, called and got under another name). A key or OAuth token may be limited to
 * some of them (`servers` grants, `server:<name>` scopes). The default `/mcp` is unchanged. The
 * definitions are one document in the store (`sm:servers`), read at most every few seconds.
 */
import { z } from "zod";
import type { Access } from "../../identity/auth/index.js";
import { exposedBy, narrowedTo } from "../../identity/auth/access.js";
import { GlobSchema } from "../../lib/glob/index.js";
import { GuardrailsSchema } from "../../policies/guardrails/schema.js";
import { safeJson } from "../../lib/json/index.js";
import { ServerNameSchema } from "../../identity/keys/schema.js";
import { SkillNameSchema } from "../../skill/manifest.js";
import type { Store } from "../../store/index.js";

export { ServerNameSchema };

/**
 * A name a new virtual server may take: not `server-card`, which `/mcp/server-card` (the default
 * server's Server Card, src/gateway/discovery) holds.
 */
export const DefinableServerNameSchema = ServerNameSchema.refine((name) => name !== "server-card", {
  message: "server-card is reserved: /mcp/server-card is the Server Card of /mcp",
});

/** `PUT /admin/servers/:name`: what the server exposes and says. */
export const ServerDefinitionSchema = z.strictObject({
  /** Skill-name globs of the tools it exposes. */
  tools: z.array(GlobSchema).max(64).default([]),
  /** Tag globs: a skill with a matching tag is exposed too. */
  tags: z.array(GlobSchema).max(64).default([]),
  /** What its `initialize` (and `server/discover`) tells clients. */
  instructions: z.string().max(4_096).optional(),
  /** Names a tool or prompt is listed and called by here: alias → its own name (which is then unknown here). */
  aliases: z.record(SkillNameSchema, SkillNameSchema).optional(),
  description: z.string().max(500).optional(),
  /** Its title in its Server Card (src/gateway/discovery). */
  title: z.string().min(1).max(100).optional(),
  /** What the secrets guardrail does to calls through this server, at least (src/policies/guardrails): e.g. `{secrets: "refuse"}`. */
  guardrails: GuardrailsSchema.optional(),
  /** Listed in the AI Catalog, with a Server Card at `/mcp/<server>/server-card` (public: src/gateway/discovery). */
  discoverable: z.boolean().optional(),
});
export type ServerDefinition = z.infer<typeof ServerDefinitionSchema>;

const ServersDocSchema = z.object({ servers: z.record(ServerNameSchema, ServerDefinitionSchema) });
export const SERVERS_KEY = "sm:servers";
const CACHE_MS = 5_000;

/** A virtual server as its requests use it: which skills it exposes, under which names. */
export interface VirtualServer {
  name: string;
  definition: ServerDefinition;
  /** True when the server exposes the skill (before aliases). */
  exposes(name: string, tags: readonly string[]): boolean;
  /** The name a skill is listed under here. */
  listedName(skill: string): string;
  /** The skill a name called here stands for (an alias, or the name itself); undefined for a skill listed here under an alias. */
  skillOf(name: string): string | undefined;
}

/**
 * A virtual server of a definition.
 * @example virtualServerOf("ops", { tools: ["everything.*"], tags: [] }).exposes("everything.echo", []) // true
 */
export function virtualServerOf(name: string, definition: ServerDefinition): VirtualServer {
  const exposes = exposedBy(definition.tools, definition.tags);
  const aliases = definition.aliases ?? {};
  const aliasOf = new Map(Object.entries(aliases).map(([alias, skill]) => [skill, alias]));
  return {
    name,
    definition,
    exposes,
    listedName: (skill) => aliasOf.get(skill) ?? skill,
    skillOf: (called) =>
      Object.hasOwn(aliases, called) ? aliases[called]!
      : aliasOf.has(called) ? undefined
      : called,
  };
}

/**
 * A caller's access narrowed to what a virtual server exposes: its listings, lookups and calls
 * all see only those skills (`narrowedTo`: its signature reads back the same narrowing).
 * @example const access = withinServer(scope.access, server)
 */
export function withinServer(access: Access, server: VirtualServer): Access {
  return narrowedTo(access, server.name, server.definition);
}

/** The virtual servers' definitions: read, written and cached per isolate. */
export class VirtualServers {
  #cache?: { at: number; servers: Promise<Record<string, ServerDefinition>> };

  constructor(private readonly store: Store) {}

  /** Every server's definition (cached a few seconds). */
  all(): Promise<Record<string, ServerDefinition>> {
    if (this.#cache && Date.now() - this.#cache.at < CACHE_MS) return this.#cache.servers;
    const servers = this.#read();
    this.#cache = { at: Date.now(), servers };
    servers.catch(() => (this.#cache = undefined));
    return servers;
  }

  async get(name: string): Promise<VirtualServer | undefined> {
    const servers = await this.all();
    return Object.hasOwn(servers, name) ? virtualServerOf(name, servers[name]!) : undefined;
  }

  async put(name: string, definition: ServerDefinition): Promise<void> {
    const servers = { ...(await this.#read()), [name]: definition };
    await this.store.set(SERVERS_KEY, JSON.stringify({ servers }));
    this.#cache = undefined;
  }

  async remove(name: string): Promise<boolean> {
    const servers = await this.#read();
    if (!Object.hasOwn(servers, name)) return false;
    delete servers[name];
    await this.store.set(SERVERS_KEY, JSON.stringify({ servers }));
    this.#cache = undefined;
    return true;
  }

  async #read(): Promise<Record<string, ServerDefinition>> {
    const parsed = ServersDocSchema.safeParse(safeJson((await this.store.get(SERVERS_KEY)) ?? ""));
    return parsed.success ? parsed.data.servers : {};
  }
}
