/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865) through the gateway in workerd:
 * `@modelcontextprotocol/server-map` (the extension's own example server, nobody here wrote it)
 * federated, and read back by the official v2 client the way a host does it — with the
 * extension's host helper (`getToolUiResourceUri`, @modelcontextprotocol/ext-apps/app-bridge) and
 * its schema for the resource's `_meta.ui` (CSP). The app's URI is made the upstream's own, and a
 * caller who may not call the tool neither sees nor reads its UI.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { RESOURCE_MIME_TYPE, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";
import { McpUiResourceMetaSchema } from "@modelcontextprotocol/ext-apps";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, fixture, post } from "./support/fixtures.js";
import { type RunningProcess, startMapServer } from "./support/processes.js";

let mesh: Mesh;
let map: RunningProcess;
let mapKey: string;
let geocodeKey: string;

beforeAll(async () => {
  [mesh, map] = await Promise.all([
    startMesh({ skills: [fixture("app"), fixture("app-claim")], adminToken: ADMIN_TOKEN, gatewayVars: { SKILLMESH_AUTH: "required" } }),
    startMapServer(),
  ]);
  const added = await admin(mesh.gatewayUrl, "POST", "/upstreams", { kind: "mcp", name: "maps", url: `${map.url}/mcp` });
  expect(added.status, JSON.stringify(added.json)).toBe(201);
  mapKey = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "map-user", skills: ["maps.*", "test.chart"] })).json.key;
  geocodeKey = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "geocoder", skills: ["maps.geocode"] })).json.key;
}, 120_000);
afterAll(() => Promise.all([mesh?.dispose(), map?.stop()]));

/** The v2 client as an MCP Apps host: it declares the extension with the app media type. */
async function hostWith(key: string): Promise<Client> {
  const client = new Client(
    { name: "apps-host", version: "1.0.0" },
    { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } }, versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${mesh.gatewayUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

it("says it serves the extension, lists the tool with its app under the upstream's URI, and serves the app's HTML with its CSP", async () => {
  const host = await hostWith(mapKey);
  try {
    expect(host.getServerCapabilities()?.extensions).toHaveProperty(["io.modelcontextprotocol/ui"]);
    const { tools } = await host.listTools();
    const showMap = tools.find((t) => t.name === "maps.show-map")!;
    const uri = getToolUiResourceUri(showMap);
    expect(uri).toBe("ui://maps/cesium-map/mcp-app.html");
    expect(showMap._meta?.["ui/resourceUri"]).toBe(uri); // the deprecated key, which hosts still read
    expect(getToolUiResourceUri(tools.find((t) => t.name === "maps.geocode")!)).toBeUndefined();

    const { resources } = await host.listResources();
    expect(resources).toContainEqual(expect.objectContaining({ uri, mimeType: RESOURCE_MIME_TYPE }));
    const { contents } = await host.readResource({ uri: uri! });
    expect(contents).toHaveLength(1);
    const [app] = contents as Array<{ uri: string; mimeType?: string; text?: string; _meta?: { ui?: unknown } }>;
    expect(app).toMatchObject({ uri, mimeType: RESOURCE_MIME_TYPE });
    expect(app!.text).toMatch(/<html|<!doctype html/i);
    const ui = McpUiResourceMetaSchema.parse(app!._meta?.ui);
    expect(ui.csp?.connectDomains).toContain("https://*.openstreetmap.org");
  } finally {
    await host.close();
  }
});

it("its own URI is not served: only the upstream's name for it", async () => {
  const host = await hostWith(mapKey);
  try {
    await expect(host.readResource({ uri: "ui://cesium-map/mcp-app.html" })).rejects.toThrow(/not found/i);
  } finally {
    await host.close();
  }
});

it("a caller who may not call the tool that shows the app neither lists nor reads it", async () => {
  const host = await hostWith(geocodeKey);
  try {
    expect((await host.listTools()).tools.map((t) => t.name)).toEqual(expect.not.arrayContaining(["maps.show-map"]));
    expect((await host.listResources()).resources.map((r) => r.uri)).not.toContain("ui://maps/cesium-map/mcp-app.html");
    await expect(host.readResource({ uri: "ui://maps/cesium-map/mcp-app.html" })).rejects.toThrow(/not found/i);
  } finally {
    await host.close();
  }
  // The 2025 handshake says the extension too.
  const init = await post(
    `${mesh.gatewayUrl}/mcp`,
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "curl", version: "1" } } },
    { authorization: `Bearer ${geocodeKey}` },
  );
  expect(init.json.result.capabilities.extensions).toHaveProperty(["io.modelcontextprotocol/ui"]);
});

it("a skill's own app: its tool names it, and its read carries the CSP the skill declares", async () => {
  const host = await hostWith(mapKey);
  try {
    const chart = (await host.listTools()).tools.find((t) => t.name === "test.chart")!;
    const uri = getToolUiResourceUri(chart);
    expect(uri).toBe("ui://test.chart/view.html");
    const [view] = (await host.readResource({ uri: uri! })).contents as Array<{ mimeType?: string; _meta?: { ui?: unknown } }>;
    expect(view).toMatchObject({ mimeType: RESOURCE_MIME_TYPE });
    expect(McpUiResourceMetaSchema.parse(view!._meta?.ui)).toMatchObject({ csp: { resourceDomains: ["https://cdn.example.com"] }, prefersBorder: true });
  } finally {
    await host.close();
  }
  // A key that may not call the skill sees none of it.
  const other = await hostWith(geocodeKey);
  try {
    await expect(other.readResource({ uri: "ui://test.chart/view.html" })).rejects.toThrow(/not found/i);
  } finally {
    await other.close();
  }
});

it("a skill's manifest naming an upstream's app opens nothing: the app is its own tools' only", async () => {
  const claimKey = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "claimant", skills: ["test.app-claim"] })).json.key;
  const host = await hostWith(claimKey);
  try {
    expect((await host.listResources()).resources.map((r) => r.uri)).not.toContain("ui://maps/cesium-map/mcp-app.html");
    await expect(host.readResource({ uri: "ui://maps/cesium-map/mcp-app.html" })).rejects.toThrow(/not found/i);
  } finally {
    await host.close();
  }
});
