import { describe, expect, it } from "vitest";
import { AiCatalogSchema, ServerCardSchema, aiCatalogOf, discoverableOf, isDiscoveryRequest, reverseDnsOf, serverCardOf } from "./index.js";

const SITE = { origin: "https://mesh.example.com", authRequired: true, oauth: false };

describe("reverseDnsOf", () => {
  it("reverses a DNS name, keeps an IP address or a single label as it is", () => {
    expect(reverseDnsOf("mesh.example.com")).toBe("com.example.mesh");
    expect(reverseDnsOf("127.0.0.1")).toBe("127.0.0.1");
    expect(reverseDnsOf("localhost")).toBe("localhost");
  });

  it("makes an IPv6 literal a name the card's pattern takes", () => {
    expect(ServerCardSchema.shape.name.safeParse(`${reverseDnsOf("[::1]")}/x`).success).toBe(true);
  });
});

describe("serverCardOf", () => {
  it("names /mcp under the host, with the bearer header auth needs and never a value for it", () => {
    const card = ServerCardSchema.parse(serverCardOf(SITE));
    expect(card.name).toBe("com.example.mesh/skillmesh-gateway");
    expect(card.remotes![0]!.url).toBe("https://mesh.example.com/mcp");
    expect(card.remotes![0]!.headers).toContainEqual(
      expect.objectContaining({ name: "Authorization", isRequired: true, isSecret: true, value: "Bearer {token}" }),
    );
  });

  it("says no Authorization header with auth off", () => {
    const card = serverCardOf({ ...SITE, authRequired: false });
    expect(card.remotes![0]!.headers!.map((h) => h.name)).toEqual(["X-User-Group"]);
  });

  it("gives a virtual server its own name, URL, title, and a description cut to the 100 characters a card allows", () => {
    const card = ServerCardSchema.parse(serverCardOf(SITE, { name: "ops", definition: { tools: [], tags: [], title: "Ops", description: "x".repeat(300) } }));
    expect(card).toMatchObject({ name: "com.example.mesh/skillmesh-gateway.ops", title: "Ops" });
    expect(card.description).toHaveLength(100);
    expect(card.remotes![0]!.url).toBe("https://mesh.example.com/mcp/ops");
  });
});

describe("aiCatalogOf", () => {
  it("lists /mcp first, then each server given, each by its card's URL under a distinct identifier", () => {
    const catalog = AiCatalogSchema.parse(aiCatalogOf(SITE, [{ name: "ops", definition: { tools: [], tags: [] } }]));
    expect(catalog.entries.map((e) => e.url)).toEqual(["https://mesh.example.com/mcp/server-card", "https://mesh.example.com/mcp/ops/server-card"]);
    expect(new Set(catalog.entries.map((e) => e.identifier)).size).toBe(2);
    expect(catalog.entries[1]).toMatchObject({ identifier: "urn:air:mesh.example.com:mcp:skillmesh-gateway.ops", type: "application/mcp-server-card+json" });
  });
});

describe("discoverableOf", () => {
  it("keeps only the servers defined discoverable, in name order", () => {
    const servers = { b: { tools: [], tags: [], discoverable: true }, a: { tools: [], tags: [], discoverable: true }, c: { tools: [], tags: [] } };
    expect(discoverableOf(servers).map((s) => s.name)).toEqual(["a", "b"]);
  });
});

describe("isDiscoveryRequest", () => {
  it("is the three documents' paths, read or preflighted, nothing else", () => {
    expect(isDiscoveryRequest("GET", "/.well-known/ai-catalog.json")).toBe(true);
    expect(isDiscoveryRequest("OPTIONS", "/mcp/server-card")).toBe(true);
    expect(isDiscoveryRequest("GET", "/mcp/ops/server-card")).toBe(true);
    expect(isDiscoveryRequest("POST", "/mcp/server-card")).toBe(false);
    expect(isDiscoveryRequest("GET", "/mcp")).toBe(false);
    expect(isDiscoveryRequest("GET", "/mcp/a/b/server-card")).toBe(false);
    expect(isDiscoveryRequest("GET", "/.well-known/agent-skills/index.json")).toBe(false);
  });
});
