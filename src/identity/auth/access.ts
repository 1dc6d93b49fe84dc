/**
 * What a caller may do, from the grants of its key (or token): which skills it may see and call
 * (by name glob or by capability-tag glob), which `X-User-Group` values it may use, and its
 * access to the admin API. A skill outside the grants is invisible and answers as if it did not
 * exist; a group outside them is ignored (the call routes as `*`).
 */
import { z } from "zod";
import { safeJson } from "../../lib/json/index.js";
import { globMatcher } from "../../lib/glob/index.js";

export type AdminLevel = "none" | "read" | "write";

export interface Access {
  /** May see and call the skill with this name and these tags. */
  allowsSkill(name: string, tags: readonly string[]): boolean;
  /** May route with this `X-User-Group`. */
  allowsGroup(group: string): boolean;
  /**
   * May call through this front door: a virtual MCP server's name, or undefined for `/rpc` and
   * `/mcp`. A key limited to some virtual servers (`servers`) is refused everywhere else.
   */
  allowsServer(server: string | undefined): boolean;
  admin: AdminLevel;
  /** True when nothing is restricted (auth off, or the admin token): callers skip the filters. */
  unrestricted: boolean;
  /** The same string for the same grants: catalogs filtered by them are cached under it. */
  signature: string;
}

/** Everything: auth is off. */
export const FULL_ACCESS: Access = {
  allowsSkill: () => true,
  allowsGroup: () => true,
  allowsServer: () => true,
  admin: "none",
  unrestricted: true,
  signature: "*",
};

export interface Grants {
  skills: readonly string[];
  tags: readonly string[];
  groups: readonly string[];
  admin?: "read" | "write";
  /** The virtual MCP servers it may call through (`/mcp/<server>`); unset or empty: any door. */
  servers?: readonly string[];
}

/**
 * The access the grants give.
 * @example accessOf({ skills: ["text.*"], tags: [], groups: ["beta"] }).allowsSkill("text.summarize", []) // true
 */
export function accessOf(grants: Grants): Access {
  const names = grants.skills.map(globMatcher);
  const tags = grants.tags.map(globMatcher);
  const groups = new Set(grants.groups);
  const servers = grants.servers?.length ? new Set(grants.servers) : undefined;
  return {
    allowsSkill: (name, skillTags) => names.some((matches) => matches(name)) || tags.some((matches) => skillTags.some(matches)),
    allowsGroup: (group) => groups.has(group) || groups.has("*"),
    allowsServer: (server) => !servers || (server !== undefined && servers.has(server)),
    admin: grants.admin ?? "none",
    unrestricted: false,
    signature: JSON.stringify([grants.skills, grants.tags, grants.groups, grants.admin ?? null, ...(servers ? [[...servers]] : [])]),
  };
}

const SignatureSchema = z.tuple([z.array(z.string()), z.array(z.string()), z.array(z.string())]).rest(z.unknown());
/** A signature of `narrowedTo`'s: the server's name, its definition (its tool and tag globs among it) and the access it narrows. */
const NarrowedSignatureSchema = z.tuple([
  z.literal("server"),
  z.string(),
  z.looseObject({ tools: z.array(z.string()).default([]), tags: z.array(z.string()).default([]) }),
  z.string(),
]);

/**
 * Whether a door exposes a skill: its name matches one of the tool globs, or one of its tags one
 * of the tag globs (a virtual server's `tools` and `tags`).
 * @example exposedBy(["modbus.*"], [])("modbus.decode", []) // true
 */
export function exposedBy(toolGlobs: readonly string[], tagGlobs: readonly string[]): (name: string, tags: readonly string[]) => boolean {
  const names = toolGlobs.map(globMatcher);
  const tagged = tagGlobs.map(globMatcher);
  return (name, tags) => names.some((m) => m(name)) || tagged.some((m) => tags.some(m));
}

/**
 * `access` narrowed to what a virtual server exposes, signed with the server's name and definition
 * so that `accessOfSignature` reads the same narrowing back (a pipeline's delegation, a job's grants).
 * @example narrowedTo(accessOf(key), "grid", { tools: ["modbus.*"], tags: [] }).allowsSkill("text.summarize", []) // false
 */
export function narrowedTo(access: Access, server: string, definition: { tools: readonly string[]; tags: readonly string[] }): Access {
  const exposes = exposedBy(definition.tools, definition.tags);
  return {
    ...access,
    allowsSkill: (name, tags) => exposes(name, tags) && access.allowsSkill(name, tags),
    unrestricted: false,
    signature: JSON.stringify(["server", server, definition, access.signature]),
  };
}

/**
 * The access a `signature` stands for, without admin access (what a pipeline's delegation
 * token carries, what a job's grants were): `accessOf`'s, or one `narrowedTo` a virtual server;
 * a signature that is neither gives nothing.
 * @example accessOfSignature(accessOf({ skills: ["text.*"], tags: [], groups: [] }).signature).allowsSkill("text.summarize", []) // true
 */
export function accessOfSignature(signature: string): Access {
  if (signature === FULL_ACCESS.signature) return { ...FULL_ACCESS, admin: "none" };
  const parsed = safeJson(signature);
  const narrowed = NarrowedSignatureSchema.safeParse(parsed);
  if (narrowed.success) {
    const [, server, definition, inner] = narrowed.data;
    return { ...narrowedTo(accessOfSignature(inner), server, definition), signature };
  }
  const grants = SignatureSchema.safeParse(parsed);
  const [skills, tags, groups] = grants.success ? grants.data : [[], [], []];
  return accessOf({ skills, tags, groups });
}

/**
 * What both accesses allow, never admin (a pipeline's step: its key's grants now, and the grants
 * its call had).
 * @example bothOf(accessOf(key), accessOfSignature(delegation.grants))
 */
export function bothOf(a: Access, b: Access): Access {
  if (a.unrestricted) return { ...b, admin: "none" };
  if (b.unrestricted) return { ...a, admin: "none" };
  return {
    allowsSkill: (name, tags) => a.allowsSkill(name, tags) && b.allowsSkill(name, tags),
    allowsGroup: (group) => a.allowsGroup(group) && b.allowsGroup(group),
    allowsServer: (server) => a.allowsServer(server) && b.allowsServer(server),
    admin: "none",
    unrestricted: false,
    signature: JSON.stringify(["both", a.signature, b.signature]),
  };
}

/**
 * The access of a pipeline's step: `base` narrowed to the skills named on every list of `steps`
 * (each pipeline the call went through declares its own), never admin.
 * @example delegatedAccess(accessOfSignature(grants), [["html.extract", "text.summarize"]]).allowsSkill("modbus.decode", []) // false
 */
export function delegatedAccess(base: Access, steps: ReadonlyArray<readonly string[]>): Access {
  const lists = steps.map((names) => new Set(names));
  return {
    allowsSkill: (name, tags) => lists.every((names) => names.has(name)) && base.allowsSkill(name, tags),
    allowsGroup: base.allowsGroup,
    allowsServer: base.allowsServer,
    admin: "none",
    unrestricted: false,
    signature: JSON.stringify(["steps", base.signature, steps]),
  };
}

/** Whether an admin request with this HTTP method is within `level`: reads need read, the rest write. */
export function allowsAdmin(level: AdminLevel, method: string): boolean {
  if (level === "write") return true;
  return level === "read" && (method === "GET" || method === "HEAD");
}

/**
 * The one rule of who may call what: the caller's access — its grants, narrowed by the door it
 * came in by — allows the tool, by its name or one of its tags. Every decision of "may this caller
 * call (or see) X" in the gateway is this one.
 * @example mayCall(scope.access, entry) // true
 */
export function mayCall(access: Access, tool: { readonly name: string; readonly tags: readonly string[] }): boolean {
  return access.allowsSkill(tool.name, tool.tags);
}
