/**
 * The doors a caller comes in by, and what each lets it do — decided here once for every route
 * that acts for a caller (docs/security.md "Doors"):
 *
 * | door | route | a key limited to virtual servers | a pipeline's delegation token |
 * |---|---|---|---|
 * | `rpc` | `POST /rpc` | refused | its steps' calls |
 * | `mcp` | `POST /mcp` | refused | its steps' calls |
 * | `mcp` with a server | `POST /mcp/<server>` | its own servers only | its steps' calls, on the server |
 * | `well-known` | `/.well-known/agent-skills/*` | refused | refused |
 * | `credential` | `/upstreams/<name>/credential` | refused | refused |
 * | `a2a` | `/a2a/<agent>` (A2A: an agent's skills, its card) | refused | its steps' calls |
 *
 * The discovery documents (src/gateway/discovery: the AI Catalog, the Server Cards) are no door: they read
 * no credential and act for no one (src/identity/auth `publicCaller`).
 *
 * Through a virtual server (or with an OAuth `server:<name>` scope, which limits a token as a
 * key's `servers` do) the caller's access is narrowed to what the server exposes (`withinServer`).
 * A delegation token stands for its caller only in the calls of the steps its pipeline declares:
 * it never reads packages, nor reads, replaces or deletes its caller's upstream credentials, whose
 * effect would outlive the call.
 */
import type { Access, Caller } from "../../identity/auth/index.js";
import { type VirtualServer, withinServer } from "../servers/index.js";

/** Where a request came in. */
export type Door =
  | { kind: "rpc" }
  /** `/mcp`, or `/mcp/<serverName>` (`server`: its definition, when there is one). */
  | { kind: "mcp"; serverName?: string; server?: VirtualServer }
  | { kind: "well-known" }
  | { kind: "credential" }
  /** `/a2a/<agent>`: a federated A2A agent, spoken to in A2A. */
  | { kind: "a2a" };

/** A door that refuses its caller: HTTP 403, and why. */
export interface DoorRefusal {
  refused: string;
}

/**
 * What `caller` may do through `door`: its access (narrowed to a virtual server's tools), or why
 * the door refuses it (answered 403).
 * @example const entered = accessThrough(c.get("caller"), { kind: "well-known" }); if ("refused" in entered) return c.json(…, 403)
 */
export function accessThrough(caller: Caller, door: Door): { access: Access } | DoorRefusal {
  const serverName = door.kind === "mcp" ? door.serverName : undefined;
  if (!caller.access.allowsServer(serverName)) {
    return {
      refused:
        serverName !== undefined ?
          `Forbidden: this credential may not call through the virtual server ${serverName.slice(0, 64)}`
        : `Forbidden: this credential may call only through some virtual MCP servers (/mcp/<server>), not ${DOOR_WORDS[door.kind]}`,
    };
  }
  if (caller.delegation && (door.kind === "well-known" || door.kind === "credential")) {
    return { refused: `Forbidden: a pipeline's delegation token calls its steps' skills only, not ${DOOR_WORDS[door.kind]}` };
  }
  const server = door.kind === "mcp" ? door.server : undefined;
  return { access: server ? withinServer(caller.access, server) : caller.access };
}

const DOOR_WORDS: Record<Door["kind"], string> = {
  rpc: "/rpc",
  mcp: "/mcp",
  "well-known": "/.well-known/agent-skills",
  credential: "/upstreams/<name>/credential",
  a2a: "/a2a",
};
