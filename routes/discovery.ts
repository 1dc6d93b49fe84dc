/**
 * The discovery documents (src/gateway/discovery): `GET /mcp/server-card`, `GET /mcp/<server>/server-card`
 * (a virtual server defined `discoverable`) and `GET /.well-known/ai-catalog.json`. Public: no
 * credential is read, and any web page may read them (CORS `*`, as the Server Card extension asks).
 * Each read is still an operation of the one call chain: charged to the client's address
 * (`DISCOVERY_RATE`), traced, counted and audited. Answers carry an ETag; `If-None-Match` gets 304.
 */
import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import { RETAINED_304_HEADERS, etag } from "hono/etag";
import { publicCaller } from "../src/identity/auth/index.js";
import { AI_CATALOG_PATH, AI_CATALOG_TYPE, DISCOVERY_CORS, DISCOVERY_HEADERS, DISCOVERY_RATE, SERVER_CARD_TYPE } from "../src/gateway/discovery/index.js";
import type { DiscoveryRead } from "../src/gateway/chain/operation.js";
import type { GatewayEnv } from "../src/gateway/chain/runtime.js";
import { answerHeadersOf, callScopeOf } from "../src/gateway/chain/scope.js";
import { performed } from "./performed.js";

type DiscoveryEnv = { Bindings: GatewayEnv };
export const discoveryRoutes = new Hono<DiscoveryEnv>();

// Mounted at the root, so each middleware names its paths: nothing else of the gateway gets `*`.
const PATHS = [AI_CATALOG_PATH, "/mcp/server-card", "/mcp/:server/server-card"];
// A 304 keeps its CORS headers too, or a page's revalidation would fail.
const revalidated = etag({ retainedHeaders: [...RETAINED_304_HEADERS, "access-control-allow-origin", "access-control-expose-headers"] });
for (const path of PATHS) discoveryRoutes.use(path, cors(DISCOVERY_CORS), revalidated);

discoveryRoutes.get(PATHS[0]!, (c) => answered(c, { document: "ai-catalog" }, AI_CATALOG_TYPE));
discoveryRoutes.get(PATHS[1]!, (c) => answered(c, { document: "server-card" }, SERVER_CARD_TYPE));
discoveryRoutes.get(PATHS[2]!, (c) => answered(c, { document: "server-card", server: c.req.param("server") }, SERVER_CARD_TYPE));

/** Reads one document through the call chain and answers it as `type`, cacheable by anyone. */
async function answered(c: Context<DiscoveryEnv>, which: Pick<DiscoveryRead, "document" | "server">, type: string): Promise<Response> {
  const reader = await publicCaller(c.req.raw.headers, DISCOVERY_RATE);
  const scope = callScopeOf(c.req.raw.headers, reader, (p) => c.executionCtx.waitUntil(p), reader.access);
  const origin = new URL(c.req.url).origin;
  const operation: DiscoveryRead = { kind: "discovery", method: `GET ${c.req.path.slice(0, 120)}`, origin, ...which };
  const notFound = `No discoverable MCP server at ${c.req.path.slice(0, 120)}; ${AI_CATALOG_PATH} lists them`;
  const document = await performed<unknown>(c, scope, operation, notFound);
  if (document instanceof Response) return document;
  return new Response(JSON.stringify(document), { headers: { ...answerHeadersOf(scope), "content-type": type, ...DISCOVERY_HEADERS } });
}
