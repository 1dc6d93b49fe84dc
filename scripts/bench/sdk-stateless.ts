/**
 * The v1 SDK's stateless Streamable HTTP serving, as its docs show it, shared by the bench's SDK
 * peers: a new server and transport per request (the SDK requires it for stateless use,
 * GHSA-345p-7cg4-v4c7), JSON responses, errors answered 500 (never thrown), on Node's http
 * server on a free loopback port, which it prints as `{"port":N}`.
 */
import { createServer } from "node:http";
import type { Server as HttpServer } from "node:http";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** What both the high-level `McpServer` and the low-level `Server` offer. */
interface ConnectableServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves each POST with a server of its own from `serverFor`.
 * @example serveStateless(() => serverWithTool())
 */
export function serveStateless(serverFor: () => ConnectableServer): HttpServer {
  const http = createServer((req, res) => {
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    const server = serverFor();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    void (async () => {
      try {
        await server.connect(transport);
        await transport.handleRequest(req, res);
      } catch {
        if (!res.headersSent) res.writeHead(500).end();
      }
    })();
  });
  http.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: (http.address() as { port: number }).port })));
  return http;
}
