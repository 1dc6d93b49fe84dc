/**
 * A credential in an upstream's URL — a token as a path segment (letters only, as some hosted MCP
 * servers issue them) or in the query — is never shown to a read-only admin, on any route of the
 * admin API (security review 4, item 5): one redaction at the API's output, tried on every GET
 * route the API's own OpenAPI document lists.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import openApi from "../src/admin/api/openapi.json" with { type: "json" };
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin } from "./support/fixtures.js";
import { type McpDefinitions, type Peer, crmDefinitions, startHostileMcp } from "./support/hostile.js";

// A hosted server's per-user URL: the token is the path, letters only.
const PATH_TOKEN = "qZxWvUtSrQpOnMlKjIhGfEdC";
const QUERY_TOKEN = "plainletterstokenvalue";

let mesh: Mesh;
let upstream: Peer & { definitions: McpDefinitions };
let reader: string;

beforeAll(async () => {
  [mesh, upstream] = await Promise.all([startMesh({ skills: [], adminToken: ADMIN_TOKEN }), startHostileMcp(crmDefinitions())]);
  const added = await admin(mesh.gatewayUrl, "POST", "/upstreams", {
    kind: "mcp",
    name: "crm",
    url: `${upstream.url}/u/${PATH_TOKEN}/mcp?team=${QUERY_TOKEN}`,
  });
  expect(added.status, JSON.stringify(added.json)).toBe(201);
  reader = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "auditor", admin: "read" })).json.key;
}, 120_000);
afterAll(() => Promise.all([mesh?.dispose(), upstream?.close()]));

it("no GET route of the admin API shows a read-only admin the credential in an upstream's URL", async () => {
  const names: Record<string, string> = { "/skills/{name}": "crm.echo", "/upstreams/{name}": "crm", "/agent-skills/{name}": "none" };
  const routes = Object.entries(openApi.paths as Record<string, { get?: unknown }>)
    .filter(([, operations]) => operations.get)
    .map(([path]) => path.replace("{name}", names[path] ?? "x"));
  expect(routes).toEqual(expect.arrayContaining(["/deployments", "/skills/crm.echo", "/upstreams", "/upstreams/crm", "/audit"]));
  for (const route of routes) {
    const response = await fetch(`${mesh.gatewayUrl}/admin${route}`, { headers: { authorization: `Bearer ${reader}` } });
    const text = await response.text();
    expect(text, route).not.toContain(PATH_TOKEN);
    expect(text, route).not.toContain(QUERY_TOKEN);
  }
  // The routes that show the URL show it redacted, and the operator's token (write) still reads the registration.
  const deployments = await (await fetch(`${mesh.gatewayUrl}/admin/deployments`, { headers: { authorization: `Bearer ${reader}` } })).json();
  expect(JSON.stringify(deployments)).toContain(`${upstream.url}/u/…/mcp?team=…`);
  expect(JSON.stringify((await admin(mesh.gatewayUrl, "GET", "/deployments")).json)).toContain(PATH_TOKEN);
});
