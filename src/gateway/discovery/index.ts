/**
 * What a client reads before it connects: an MCP Server Card for `/mcp` and for each virtual server
 * an operator made discoverable, and an AI Catalog that lists them — as the Server Card extension
 * (modelcontextprotocol/experimental-ext-server-card, tracking SEP-2127: `schema.ts` and
 * `docs/discovery.md` of 2026-07-24) and the AI Catalog (Agent-Card/ai-catalog) define them.
 *
 * | document | where | media type |
 * |---|---|---|
 * | Server Card of `/mcp` | `GET /mcp/server-card` (the extension's reserved `<streamable-http-url>/server-card`) | `application/mcp-server-card+json` |
 * | Server Card of `/mcp/<server>` | `GET /mcp/<server>/server-card` | the same |
 * | AI Catalog | `GET /.well-known/ai-catalog.json` | `application/ai-catalog+json` |
 *
 * Both are public (no credential is read), the same for every caller, cacheable, and readable by
 * any web page (CORS `*`): what they say is what any 401 of `/mcp` says anyway — the endpoint, the
 * protocol versions, that a bearer credential is needed — and never a tool, a skill, an upstream
 * or a secret. A virtual server is listed only when its definition says `discoverable: true`.
 */
import { z } from "zod";
import { SUPPORTED_VERSIONS } from "../../protocols/mcp/index.js";
import type { RateWindow } from "../../policies/ratelimit/index.js";
import type { ServerDefinition } from "../servers/index.js";

/** The media type of a Server Card (what its route answers, and its catalog entry's `type`). */
export const SERVER_CARD_TYPE = "application/mcp-server-card+json";
/** The media type of an AI Catalog. */
export const AI_CATALOG_TYPE = "application/ai-catalog+json";
/** The `$schema` every Server Card names (the extension's `v1` family). */
export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
/** What the extension reserves after a streamable-HTTP URL for its card. */
export const SERVER_CARD_SUFFIX = "/server-card";
/** Where the AI Catalog is, for domain-level discovery. */
export const AI_CATALOG_PATH = "/.well-known/ai-catalog.json";

/**
 * Who answers on `/mcp` (its `serverInfo`): the card says the same name's version, as the
 * extension's "Consistency with Runtime Behavior" asks.
 * @example serverInfoOf("ops") // { name: "skillmesh-gateway/ops", version: "0.1.0" }
 */
export function serverInfoOf(server?: string): { name: string; version: string } {
  return { name: server === undefined ? GATEWAY_NAME : `${GATEWAY_NAME}/${server}`, version: GATEWAY_VERSION };
}
const GATEWAY_NAME = "skillmesh-gateway";
const GATEWAY_VERSION = "0.1.0";

/**
 * How often one client address may read the discovery documents: they are cacheable for an hour,
 * so a client that reads one more than once a second is polling (the extension asks hosts to rate
 * limit them).
 */
export const DISCOVERY_RATE: RateWindow = { limit: 60, windowMs: 60_000 };

/** The headers every discovery answer carries (CORS as the extension lists it, and its caching). */
export const DISCOVERY_HEADERS = { "cache-control": "public, max-age=3600" } as const;

/** `extension docs/discovery.md` "CORS Requirements", for Hono's `cors`. */
export const DISCOVERY_CORS = {
  origin: "*",
  allowMethods: ["GET"],
  allowHeaders: ["Content-Type", "If-None-Match"],
  exposeHeaders: ["ETag"],
};

/**
 * True for a request of a discovery document (or its CORS preflight): any page may read it.
 * @example isDiscoveryRequest("GET", "/mcp/ops/server-card") // true
 */
export function isDiscoveryRequest(method: string, path: string): boolean {
  return (method === "GET" || method === "HEAD" || method === "OPTIONS") && DISCOVERY_PATH.test(path);
}
const DISCOVERY_PATH = /^(?:\/\.well-known\/ai-catalog\.json|\/mcp(?:\/[^/]+)?\/server-card)$/;

/** An input a remote takes (a header's value, a URL variable), as the extension's `Input`. */
const InputSchema = z.looseObject({
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  format: z.enum(["string", "number", "boolean", "filepath"]).optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
  value: z.string().optional(),
  choices: z.array(z.string()).optional(),
});

/** A header a remote takes (`KeyValueInput`). */
const HeaderInputSchema = InputSchema.extend({ name: z.string(), variables: z.record(z.string(), InputSchema).optional() });

/** How to connect to a remote server (`Remote`). */
const RemoteSchema = z.looseObject({
  type: z.enum(["streamable-http", "sse"]),
  url: z.string().regex(/^(https?:\/\/[^\s]+|\{[a-zA-Z_][a-zA-Z0-9_]*\}[^\s]*)$/),
  headers: z.array(HeaderInputSchema).optional(),
  variables: z.record(z.string(), InputSchema).optional(),
  supportedProtocolVersions: z.array(z.string()).optional(),
});

/** A Server Card (the extension's `ServerCard`; open, as its schema is). */
export const ServerCardSchema = z.looseObject({
  $schema: z.literal(SERVER_CARD_SCHEMA),
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  version: z.string().max(255),
  description: z.string().min(1).max(100),
  title: z.string().min(1).max(100).optional(),
  websiteUrl: z.url().optional(),
  remotes: z.array(RemoteSchema).optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type ServerCard = z.infer<typeof ServerCardSchema>;

/**
 * An AI Catalog entry of a Server Card. `type` is the name the Server Card extension's discovery
 * text uses (since its ADR 0014, July 2026); the AI Catalog 1.0 text (April 2026) names the same
 * member `mediaType` and requires `displayName`. Both are written, so readers of either find it.
 */
const CatalogEntrySchema = z.looseObject({
  identifier: z.string().min(1),
  displayName: z.string().min(1),
  type: z.literal(SERVER_CARD_TYPE),
  mediaType: z.literal(SERVER_CARD_TYPE),
  url: z.url(),
  description: z.string().optional(),
  version: z.string().optional(),
});

/** An AI Catalog (`specVersion` 1.0). */
export const AiCatalogSchema = z.looseObject({
  specVersion: z.literal("1.0"),
  host: z.looseObject({ displayName: z.string().min(1), identifier: z.string().optional() }).optional(),
  entries: z.array(CatalogEntrySchema),
});
export type AiCatalog = z.infer<typeof AiCatalogSchema>;

/** Where the documents are served, and what a caller needs to connect. */
export interface Site {
  /** The gateway's origin as the client reached it, e.g. `https://mesh.example.com`. */
  origin: string;
  /** True when `/mcp` needs a bearer credential. */
  authRequired: boolean;
  /** True when OAuth access tokens are accepted (the 401 then names the authorization server). */
  oauth: boolean;
}

/** A virtual server as a card describes it: its name and definition. */
export interface ListedServer {
  name: string;
  definition: ServerDefinition;
}

/**
 * The Server Card of `/mcp` (no `server`) or of a virtual server.
 * @example serverCardOf({ origin: "https://mesh.example.com", authRequired: true, oauth: false }).name // "com.example.mesh/skillmesh-gateway"
 */
export function serverCardOf(site: Site, server?: ListedServer): ServerCard {
  const host = new URL(site.origin).hostname;
  const path = server ? `/mcp/${server.name}` : "/mcp";
  const headers = [
    ...(site.authRequired ?
      [
        {
          name: "Authorization",
          description: site.oauth ? "An API key, or an OAuth access token (a 401 names the authorization server)." : "An API key of this gateway.",
          isRequired: true,
          isSecret: true,
          value: "Bearer {token}",
          variables: { token: { description: site.oauth ? "The API key or access token." : "The API key.", isRequired: true, isSecret: true } },
        },
      ]
    : []),
    { name: "X-User-Group", description: "The group a canary rollout routes this client by (optional).", isRequired: false },
  ];
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: `${reverseDnsOf(host)}/${server ? `${GATEWAY_NAME}.${server.name}` : GATEWAY_NAME}`,
    version: GATEWAY_VERSION,
    description: clipped(server?.definition.description ?? (server ? `The ${server.name} tools of a Skillmesh gateway, over MCP.` : DEFAULT_DESCRIPTION), 100),
    title: clipped(server?.definition.title ?? (server ? `Skillmesh: ${server.name}` : "Skillmesh gateway"), 100),
    remotes: [{ type: "streamable-http", url: `${site.origin}${path}`, headers, supportedProtocolVersions: [...SUPPORTED_VERSIONS] }],
  };
}
const DEFAULT_DESCRIPTION = "Agent skills and federated MCP servers behind one Skillmesh gateway.";

/**
 * The AI Catalog of the gateway: `/mcp`, then each discoverable virtual server, by the URL of its card.
 * @example aiCatalogOf(site, []).entries[0].url // "https://mesh.example.com/mcp/server-card"
 */
export function aiCatalogOf(site: Site, servers: readonly ListedServer[]): AiCatalog {
  const host = new URL(site.origin).hostname;
  const entryOf = (server?: ListedServer) => {
    const card = serverCardOf(site, server);
    return {
      identifier: `urn:air:${host}:mcp:${card.name.slice(card.name.indexOf("/") + 1)}`,
      displayName: card.title ?? card.name,
      type: SERVER_CARD_TYPE,
      mediaType: SERVER_CARD_TYPE,
      url: `${card.remotes![0]!.url}${SERVER_CARD_SUFFIX}`,
      description: card.description,
      version: card.version,
    } as const;
  };
  return { specVersion: "1.0", host: { displayName: "Skillmesh gateway", identifier: host }, entries: [entryOf(), ...servers.map(entryOf)] };
}

/** The virtual servers a catalog lists, in name order. */
export function discoverableOf(servers: Record<string, ServerDefinition>): ListedServer[] {
  return Object.keys(servers)
    .filter((name) => servers[name]!.discoverable === true)
    .sort()
    .map((name) => ({ name, definition: servers[name]! }));
}

/**
 * A host name in reverse-DNS order (what a card's name starts with); an IP address or a name
 * without dots as it is.
 * @example reverseDnsOf("mesh.example.com") // "com.example.mesh"
 */
export function reverseDnsOf(host: string): string {
  const name = host.toLowerCase().replace(/[^a-z0-9.-]/g, "-");
  if (/^[\d.]+$/.test(name) || !name.includes(".")) return name;
  return name.split(".").reverse().join(".");
}

/** `text` cut to `max` characters (the last one an ellipsis when cut). */
function clipped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
