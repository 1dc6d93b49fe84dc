/**
 * `/.well-known/oauth-protected-resource` (and `…/mcp`, the path-suffixed form of RFC 9728 §3.1):
 * the gateway's Protected Resource Metadata, so an MCP client that gets a 401 finds the
 * authorization server to ask for a token. 404 when OAuth is not configured.
 */
import { Hono } from "hono";
import { protectedResourceMetadata } from "../src/auth/oauth.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/runtime.js";
import { ErrorCode, failure } from "../src/jsonrpc/index.js";

export const wellKnownRoutes = new Hono<{ Bindings: GatewayEnv }>();

wellKnownRoutes.get("/oauth-protected-resource/*", (c) => metadata(c.env));
wellKnownRoutes.get("/oauth-protected-resource", (c) => metadata(c.env));

function metadata(env: GatewayEnv): Response {
  const config = gatewayRuntime(env).config.auth.oauth;
  if (!config) return Response.json(failure(null, ErrorCode.MethodNotFound, "OAuth is not configured on this gateway"), { status: 404 });
  return Response.json(protectedResourceMetadata(config), { headers: { "cache-control": "public, max-age=300" } });
}
