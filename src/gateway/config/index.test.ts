import { describe, expect, it } from "vitest";
import { configOf } from "./index.js";

const memory = { SKILLMESH_STORE: "memory" };

describe("gateway settings", () => {
  it("parse every setting once, with its default", () => {
    const { config } = configOf({ ...memory });
    expect(config).toMatchObject({
      store: { driver: "memory", prefix: "", timeoutMs: 1_000 },
      snapshotMaxAgeMs: 1_000,
      auth: { required: true },
      allowPrivateEndpoints: false,
      mcpPageSize: 100,
    });
    expect(config!.adminToken).toBeUndefined();
  });

  it("take the gateway's hop key as an Ed25519 private key, and name the retired shared hop secret as a problem", async () => {
    const { generateHopKeys } = await import("../../protocols/hop/index.js");
    const { privateKey, publicKey } = await generateHopKeys();
    expect(configOf({ ...memory, SKILLMESH_HOP_KEY: privateKey }).config!.hopKey).toBe(privateKey);
    expect(configOf({ ...memory, SKILLMESH_HOP_KEY: publicKey }).problems).toEqual([expect.stringMatching(/^SKILLMESH_HOP_KEY: an Ed25519 private key/)]);
    expect(configOf({ ...memory, SKILLMESH_HOP_SECRET: "a-secret-every-skill-had" }).problems).toEqual([
      expect.stringMatching(/^SKILLMESH_HOP_SECRET is no longer used .* set SKILLMESH_HOP_KEY/),
    ]);
  });

  it("read lists, numbers, rates and flags into their types", () => {
    const { config } = configOf({
      ...memory,
      SKILLMESH_ALLOWED_ORIGINS: " https://App.example.com/ , https://b.example ",
      SKILLMESH_ALLOWED_HOSTS: "localhost,127.0.0.1",
      SKILLMESH_SNAPSHOT_MAX_AGE_MS: "0",
      SKILLMESH_AUTH: "off",
      SKILLMESH_RATE_PER_ADDRESS: "600/min",
      SKILLMESH_ALLOW_PRIVATE_ENDPOINTS: "true",
      SKILLMESH_OAUTH_ISSUERS: "https://auth.example.com",
      SKILLMESH_RESOURCE_URL: "https://gw.example.com/mcp",
      AUDIT_ANALYTICS: { writeDataPoint() {} }, // a binding, not a setting: ignored
    });
    expect(config).toMatchObject({
      allowedOrigins: ["https://app.example.com", "https://b.example"],
      allowedHosts: ["localhost", "127.0.0.1"],
      snapshotMaxAgeMs: 0,
      auth: { required: false, ratePerAddress: { limit: 600, windowMs: 60_000 }, oauth: { resource: "https://gw.example.com/mcp" } },
      allowPrivateEndpoints: true,
    });
  });

  it("say what is wrong with a bad value instead of falling back to a default", () => {
    const { problems } = configOf({
      ...memory,
      SKILLMESH_STORE_TIMEOUT_MS: "soon",
      SKILLMESH_AUTH: "maybe",
      SKILLMESH_MCP_PAGE_SIZE: "0",
      SKILLMESH_ALLOW_PRIVATE_ENDPOINTS: "yes",
      SKILLMESH_ADMIN_TOKEN: "short",
      SKILLMESH_RATE_PER_ADDRESS: "lots",
    });
    expect(problems!.map((p) => p.split(":")[0]).sort()).toEqual([
      "SKILLMESH_ADMIN_TOKEN",
      "SKILLMESH_ALLOW_PRIVATE_ENDPOINTS",
      "SKILLMESH_AUTH",
      "SKILLMESH_MCP_PAGE_SIZE",
      "SKILLMESH_RATE_PER_ADDRESS",
      "SKILLMESH_STORE_TIMEOUT_MS",
    ]);
  });

  it("refuse to run on the per-isolate memory store unless asked to, and half-set stores and OAuth", () => {
    expect(configOf({}).problems).toEqual([expect.stringMatching(/no store: set UPSTASH_REDIS_REST_URL .* or SKILLMESH_STORE=memory/)]);
    expect(configOf({ SKILLMESH_STORE: "upstash", UPSTASH_REDIS_REST_URL: "https://r.example.com" }).problems).toEqual([
      expect.stringMatching(/UPSTASH_REDIS_REST_TOKEN/),
    ]);
    expect(configOf({ UPSTASH_REDIS_REST_URL: "https://r.example.com", UPSTASH_REDIS_REST_TOKEN: "t" }).config!.store.driver).toBe("upstash");
    expect(configOf({ ...memory, SKILLMESH_RESOURCE_URL: "https://gw.example.com/mcp" }).problems).toEqual([
      expect.stringMatching(/both SKILLMESH_OAUTH_ISSUERS/),
    ]);
  });
});
