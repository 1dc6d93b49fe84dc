/**
 * Agents in a web page: the official MCP clients — the v2 SDK pinned to 2026-07-28 and the v1 SDK
 * (2025-11-25) — bundled for the browser with esbuild and run in Debian's chromium on a page of
 * an allowed origin (`SKILLMESH_ALLOWED_ORIGINS`), against a gateway in workerd with auth on.
 * CORS must let them do what they do from Node: list and call tools, receive progress on the
 * POST's event stream, read the headers an agent reads (`X-Skill-Version`, and `WWW-Authenticate`
 * on a 401, which a browser OAuth flow follows). A page of another origin gets nothing: its
 * preflight is refused and the browser hands its script no answer.
 */
import { type Server, createServer } from "node:http";
import { type AddressInfo } from "node:net";
import { build } from "esbuild";
import { type Browser, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, fixture } from "./support/fixtures.js";

/** What the page's module puts on `window` (the SDKs' clients and transports). */
const CLIENTS_ENTRY = `
export { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
`;

let mesh: Mesh;
let pages: Server;
let browser: Browser;
let allowedOrigin: string;
let otherOrigin: string;
let key: string;

beforeAll(async () => {
  const bundle = await build({
    stdin: { contents: CLIENTS_ENTRY, resolveDir: process.cwd(), loader: "ts" },
    bundle: true,
    platform: "browser",
    format: "esm",
    write: false,
    logLevel: "error",
  });
  const clientsJs = bundle.outputFiles[0]!.text;
  // One page server, two origins: 127.0.0.1 is allowed, localhost (another host, so another origin) is not.
  pages = createServer((req, res) => {
    if (req.url === "/clients.js") res.writeHead(200, { "content-type": "text/javascript" }).end(clientsJs);
    else res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><script type="module">window.clients = await import("/clients.js");</script>`);
  });
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  const { port } = pages.address() as AddressInfo;
  allowedOrigin = `http://127.0.0.1:${port}`;
  otherOrigin = `http://localhost:${port}`;
  mesh = await startMesh({
    skills: ["subtract", "test_tool_with_progress"].map(fixture),
    adminToken: ADMIN_TOKEN,
    gatewayVars: { SKILLMESH_AUTH: "required", SKILLMESH_ALLOWED_ORIGINS: allowedOrigin },
  });
  key = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "browser-agent", skills: ["*"] })).json.key;
  // Root (CI) cannot use chromium's sandbox.
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await mesh?.dispose();
  await new Promise((resolve) => pages?.close(resolve));
});

/** A new page of `origin` with the SDKs loaded. */
async function pageOf(origin: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => "clients" in globalThis);
  return page;
}

/** What a page of `origin` gets when its script fetches `url`: "answered", or the error's name (a refused CORS request is a TypeError). */
async function fetchFromPage(origin: string, url: string, init: { method?: string; headers: Record<string, string>; body?: string }): Promise<string> {
  return (await pageOf(origin)).evaluate(
    async ({ url, init }) => {
      try {
        await fetch(url, init);
        return "answered";
      } catch (error) {
        return (error as Error).name;
      }
    },
    { url, init },
  );
}

it("the v2 client (2026-07-28) on an allowed origin lists and calls tools with a bearer key, and gets progress on the event stream", async () => {
  const page = await pageOf(allowedOrigin);
  const seen = await page.evaluate(
    async ({ url, key }) => {
      const { ClientV2, TransportV2 } = (globalThis as any).clients;
      const client = new ClientV2({ name: "browser-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await client.connect(new TransportV2(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      const tools = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
      const result = await client.callTool({ name: "subtract", arguments: { minuend: 5, subtrahend: 3 } });
      const progress: number[] = [];
      const slow = await client.callTool(
        { name: "test_tool_with_progress", arguments: {} },
        { onprogress: (p: { progress: number }) => void progress.push(p.progress) },
      );
      const version = client.getNegotiatedProtocolVersion();
      await client.close();
      return { tools, result: result.structuredContent, slow: slow.content, progress, version };
    },
    { url: `${mesh.gatewayUrl}/mcp`, key },
  );
  expect(seen.version).toBe("2026-07-28");
  expect(seen.tools).toEqual(expect.arrayContaining(["subtract", "test_tool_with_progress"]));
  expect(seen.result).toEqual({ result: 2 });
  expect(seen.slow).toEqual([{ type: "text", text: "Progress complete" }]);
  expect(seen.progress).toEqual([0, 50, 100]);
});

it("the v1 client (2025-11-25) on an allowed origin lists and calls tools with a bearer key", async () => {
  const page = await pageOf(allowedOrigin);
  const seen = await page.evaluate(
    async ({ url, key }) => {
      const { Client, StreamableHTTPClientTransport } = (globalThis as any).clients;
      const client = new Client({ name: "browser-v1", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      const tools = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
      const result = await client.callTool({ name: "subtract", arguments: { minuend: 9, subtrahend: 4 } });
      await client.close();
      return { tools, result: result.structuredContent };
    },
    { url: `${mesh.gatewayUrl}/mcp`, key },
  );
  expect(seen.tools).toEqual(expect.arrayContaining(["subtract"]));
  expect(seen.result).toEqual({ result: 5 });
});

it("a page's script reads the headers an agent reads: X-Skill-Version on /rpc, WWW-Authenticate on a 401", async () => {
  const page = await pageOf(allowedOrigin);
  const seen = await page.evaluate(
    async ({ gateway, key }) => {
      const call = await fetch(`${gateway}/rpc`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "idempotency-key": "browser-1" },
        body: JSON.stringify({ jsonrpc: "2.0", method: "subtract", params: [42, 23], id: 1 }),
      });
      const anonymous = await fetch(`${gateway}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
        body: JSON.stringify({ jsonrpc: "2.0", method: "tools/list", id: 1 }),
      });
      return {
        body: await call.json(),
        version: call.headers.get("x-skill-version"),
        status: anonymous.status,
        challenge: anonymous.headers.get("www-authenticate"),
      };
    },
    { gateway: mesh.gatewayUrl, key },
  );
  expect(seen.body).toEqual({ jsonrpc: "2.0", result: 19, id: 1 });
  expect(seen.version).toBe("subtract@1.0.0");
  expect(seen.status).toBe(401);
  expect(seen.challenge).toMatch(/^Bearer/);
});

it("a page of an origin not allowed gets no answer; its preflight is refused, so its call is never sent", async () => {
  const outcome = await fetchFromPage(otherOrigin, `${mesh.gatewayUrl}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: "2.0", method: "subtract", params: [1, 1], id: 1 }),
  });
  expect(outcome).toBe("TypeError"); // the browser's "Failed to fetch": the preflight was refused
  const preflight = await fetch(`${mesh.gatewayUrl}/rpc`, { method: "OPTIONS", headers: { origin: otherOrigin, "access-control-request-method": "POST" } });
  expect(preflight.status).toBe(403);
  expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
});

it("the admin API answers no page: no CORS on /admin, even for an allowed origin", async () => {
  const preflight = await fetch(`${mesh.gatewayUrl}/admin/deployments`, {
    method: "OPTIONS",
    headers: { origin: allowedOrigin, "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
  });
  expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  const outcome = await fetchFromPage(allowedOrigin, `${mesh.gatewayUrl}/admin/deployments`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(outcome).toBe("TypeError");
});

it("any page reads the discovery documents (CORS *): the AI Catalog, then a Server Card it names, revalidated by its ETag", async () => {
  // The origin not allowed to call /rpc: the documents are public, the calls are not.
  const page = await pageOf(otherOrigin);
  const seen = await page.evaluate(async (gateway) => {
    const catalog = (await (await fetch(`${gateway}/.well-known/ai-catalog.json`)).json()) as { entries: Array<{ url: string }> };
    const url = catalog.entries[0]!.url;
    const card = await fetch(url, { headers: { accept: "application/mcp-server-card+json" } });
    const etag = card.headers.get("etag");
    // If-None-Match is no CORS-safelisted header: the browser sends a preflight first.
    const revalidate = { headers: { accept: "application/mcp-server-card+json", "if-none-match": etag! }, cache: "no-store" };
    const again = await fetch(url, revalidate as RequestInit);
    return { url, name: ((await card.json()) as { name: string }).name, etag, again: again.status };
  }, mesh.gatewayUrl);
  expect(seen.url).toBe(`${mesh.gatewayUrl}/mcp/server-card`);
  expect(seen.name).toMatch(/\/skillmesh-gateway$/);
  expect(seen.etag).toBeTruthy();
  expect(seen.again).toBe(304);
});
