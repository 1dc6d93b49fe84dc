import { describe, expect, it } from "vitest";
import { callerIdOfSubject, grantsOfScopes, isOAuthCallerId, oauthConfigOf } from "./oauth.js";

describe("OAuth settings", () => {
  it("needs both the issuers and the resource URL, and derives the metadata URL (RFC 9728 §3.1)", () => {
    expect(oauthConfigOf({ SKILLMESH_OAUTH_ISSUERS: "https://auth.example.com" })).toBeUndefined();
    expect(oauthConfigOf({ SKILLMESH_OAUTH_ISSUERS: "https://a.example, https://b.example", SKILLMESH_RESOURCE_URL: "https://gw.example.com/mcp" })).toEqual({
      issuers: ["https://a.example", "https://b.example"],
      resource: "https://gw.example.com/mcp",
      scopes: "skill:*",
      metadataUrl: "https://gw.example.com/.well-known/oauth-protected-resource/mcp",
    });
    expect(oauthConfigOf({ SKILLMESH_OAUTH_ISSUERS: "https://a.example", SKILLMESH_RESOURCE_URL: "https://gw.example.com/" })!.metadataUrl).toBe(
      "https://gw.example.com/.well-known/oauth-protected-resource",
    );
  });
});

describe("grantsOfScopes", () => {
  it("maps skill:, tag:, group: and admin: scopes, and ignores the rest", () => {
    expect(grantsOfScopes(["openid", "skill:text.*", "tag:grid.*", "group:beta", "admin:read", "skill:", "email"])).toEqual({
      skills: ["text.*"],
      tags: ["grid.*"],
      groups: ["beta"],
      admin: "read",
    });
    expect(grantsOfScopes(["admin:write", "admin:read"]).admin).toBe("write");
    expect(grantsOfScopes(["admin:root"]).admin).toBeUndefined();
  });
});

describe("callerIdOfSubject", () => {
  it("keeps a plain subject readable and hashes anything else", async () => {
    expect(await callerIdOfSubject("https://a.example", "agent-7")).toMatch(/^o:agent-7@[0-9a-f]{8}$/);
    expect(await callerIdOfSubject("https://a.example", "user with spaces")).toMatch(/^o_[0-9a-f]{16}$/);
    expect((await callerIdOfSubject("https://a.example", "x".repeat(60))).length).toBeLessThanOrEqual(64);
    for (const subject of ["agent-7", "user with spaces"]) expect(isOAuthCallerId(await callerIdOfSubject("https://a.example", subject))).toBe(true);
    expect(isOAuthCallerId("k_0123456789ab")).toBe(false);
  });

  it("is unique per issuer: the same subject of two issuers is two callers", async () => {
    expect(await callerIdOfSubject("https://a.example", "alice")).not.toBe(await callerIdOfSubject("https://b.example", "alice"));
    expect(await callerIdOfSubject("https://a.example", "user with spaces")).not.toBe(await callerIdOfSubject("https://b.example", "user with spaces"));
    expect(await callerIdOfSubject("https://a.example", "alice")).toBe(await callerIdOfSubject("https://a.example", "alice"));
  });
});
