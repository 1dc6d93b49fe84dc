/**
 * Discovery before connection (src/gateway/discovery): a gateway in workerd with auth on serves the AI
 * Catalog at /.well-known/ai-catalog.json and a Server Card for /mcp and for each virtual server
 * defined `discoverable`, as the MCP Server Card extension (modelcontextprotocol/
 * experimental-ext-server-card, docs/discovery.md) says. Each card is checked against that
 * extension's own JSON Schema (test/fixtures/discovery/server-card.schema.json, its schema.json at
 * 8924e08), then used the way a client uses it: the official v2 client connects to the remote it
 * names and finds what the card said. (A page of another origin reading them is in
 * test/browser-clients.test.ts.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../scripts/mesh/bundle.js";
import type { AiCatalog, ServerCard } from "../src/gateway/discovery/index.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture } from "./support/fixtures.js";

const CARD_SCHEMA = JSON.parse(readFileSync(join(ROOT, "test/fixtures/discovery/server-card.schema.json"), "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ ...CARD_SCHEMA, $id: "server-card" });
const validCard = ajv.compile({ $ref: "server-card#/$defs/ServerCard" });

let mesh: Mesh;
let key: string;

beforeAll(async () => {
  mesh = await startMesh({ skills: ["subtract", "sum"].map(fixture), adminToken: ADMIN_TOKEN, gatewayVars: { SKILLMESH_AUTH: "required" } });
  key = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "discoverer", skills: ["*"] })).json.key;
  await admin(mesh.gatewayUrl, "PUT", "/servers/math", {
    tools: ["sub*"],
    description: "Subtraction, for agents that only subtract.",
    title: "Math tools",
    discoverable: true,
  });
  await admin(mesh.gatewayUrl, "PUT", "/servers/internal", { tools: ["sum"], description: "Not for the catalog." });
}, 120_000);
afterAll(() => mesh?.dispose());

/** A GET the way a discovering client sends it: no credential, the document's media type asked for. */
const discover = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${mesh.gatewayUrl}${path}`, { headers: { accept: "application/mcp-server-card+json, application/ai-catalog+json", ...headers } });

describe("the AI Catalog", () => {
  it("lists /mcp and the discoverable virtual servers by their cards' URLs, without a credential", async () => {
    const response = await discover("/.well-known/ai-catalog.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/ai-catalog+json");
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    const catalog = (await response.json()) as AiCatalog;
    expect(catalog.specVersion).toBe("1.0");
    const host = new URL(mesh.gatewayUrl).hostname;
    expect(catalog.entries).toEqual([
      expect.objectContaining({
        identifier: `urn:air:${host}:mcp:skillmesh-gateway`,
        type: "application/mcp-server-card+json",
        url: `${mesh.gatewayUrl}/mcp/server-card`,
      }),
      expect.objectContaining({
        identifier: `urn:air:${host}:mcp:skillmesh-gateway.math`,
        displayName: "Math tools",
        type: "application/mcp-server-card+json",
        url: `${mesh.gatewayUrl}/mcp/math/server-card`,
      }),
    ]);
    // A server not defined discoverable is not named anywhere in it.
    expect(JSON.stringify(catalog)).not.toContain("internal");
  });
});

describe("Server Cards", () => {
  it("each catalog entry's card is valid against the extension's schema, names its remote, and the v2 client finds there what it says", async () => {
    const { entries } = (await (await discover("/.well-known/ai-catalog.json")).json()) as AiCatalog;
    for (const entry of entries) {
      const response = await discover(new URL(entry.url).pathname);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/mcp-server-card+json");
      const card = (await response.json()) as ServerCard;
      expect(validCard(card), JSON.stringify(validCard.errors)).toBe(true);
      const remote = card.remotes![0]!;
      expect(remote).toMatchObject({ type: "streamable-http", supportedProtocolVersions: expect.arrayContaining(["2025-11-25", "2026-07-28"]) });
      // Auth is on: the card says a bearer credential is needed, and never holds one.
      expect(remote.headers).toContainEqual(expect.objectContaining({ name: "Authorization", isRequired: true, isSecret: true, value: "Bearer {token}" }));
      expect(JSON.stringify(card)).not.toContain(key);

      const client = new ClientV2({ name: "card-reader", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
      await client.connect(new TransportV2(new URL(remote.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      expect(remote.supportedProtocolVersions).toContain(client.getNegotiatedProtocolVersion());
      // "Consistency with Runtime Behavior": the version the server says is the card's.
      expect(client.getServerVersion()?.version).toBe(card.version);
      const tools = (await client.listTools()).tools.map((t) => t.name);
      await client.close();
      if (remote.url.endsWith("/mcp/math")) {
        expect(card).toMatchObject({ title: "Math tools", description: "Subtraction, for agents that only subtract." });
        expect(tools).toContain("subtract");
        expect(tools).not.toContain("sum");
      } else {
        expect(tools).toEqual(expect.arrayContaining(["subtract", "sum"]));
      }
    }
  });

  it("a virtual server not defined discoverable, or none of that name, has no card: the same 404", async () => {
    for (const server of ["internal", "nothing-here"]) {
      const response = await discover(`/mcp/${server}/server-card`);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: unknown }).error).toMatchObject({
        code: -32601,
        message: expect.stringContaining("/.well-known/ai-catalog.json"),
      });
    }
    // Made discoverable, it is there at once (the definitions are read again within seconds).
    await admin(mesh.gatewayUrl, "PUT", "/servers/internal", { tools: ["sum"], discoverable: true });
    await eventually(
      () => discover("/mcp/internal/server-card").then((r) => r.status),
      (status) => status === 200,
      15_000,
    );
    await admin(mesh.gatewayUrl, "PUT", "/servers/internal", { tools: ["sum"] });
  });

  it("answers its ETag's If-None-Match with 304, and says nothing different to a caller with a credential", async () => {
    const first = await discover("/mcp/server-card");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^(W\/)?"/);
    const again = await discover("/mcp/server-card", { "if-none-match": etag! });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    // A credential is not read here: a key, or a made-up one, gets the same card.
    for (const authorization of [`Bearer ${key}`, "Bearer sk_not-a-key"]) {
      const withCredential = await discover("/mcp/server-card", { authorization });
      expect(withCredential.status).toBe(200);
      expect(withCredential.headers.get("etag")).toBe(etag);
    }
  });

  it("a virtual server cannot be named server-card (it is /mcp's card)", async () => {
    const { status, json } = await admin(mesh.gatewayUrl, "PUT", "/servers/server-card", { tools: ["*"] });
    expect(status).toBe(400);
    expect(JSON.stringify(json)).toContain("reserved");
  });
});

describe("through the one call chain", () => {
  it("each read is audited (no caller but an address) and counted", async () => {
    const since = Date.now();
    await discover("/mcp/math/server-card");
    const entries = await eventually(
      async () => (await admin(mesh.gatewayUrl, "GET", `/audit?type=call&since=${since}`)).json.entries as Array<Record<string, unknown>>,
      (found) => found.some((e) => e.method === "GET /mcp/math/server-card"),
      10_000,
    );
    expect(entries.find((e) => e.method === "GET /mcp/math/server-card")).toMatchObject({ caller: "anonymous", code: 0, resource: "server-card:math" });
    // Counters land about a second after the reads.
    await eventually(
      () => fetch(`${mesh.gatewayUrl}/admin/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.text()),
      (metrics) => /skillmesh_calls_total\{skill="server-card",[^}]*kind="discovery"\} \d+/.test(metrics),
      10_000,
      200,
    );
  });

  it("one address reading more than 60 a minute gets 429 with Retry-After", async () => {
    let response: Response | undefined;
    for (let i = 0; i < 70; i++) {
      response = await discover("/.well-known/ai-catalog.json", { "cf-connecting-ip": "203.0.113.9" });
      if (response.status === 429) break;
      await response.arrayBuffer();
    }
    expect(response!.status).toBe(429);
    expect(response!.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await response!.json()) as { error: { code: number } }).error.code).toBe(-32005);
    // Another address is not held to that one's count.
    expect((await discover("/.well-known/ai-catalog.json", { "cf-connecting-ip": "203.0.113.10" })).status).toBe(200);
  });
});
