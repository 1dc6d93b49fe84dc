import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { browserCors, isAllowedHost, isAllowedOrigin } from "./index.js";

describe("isAllowedOrigin", () => {
  it("lets requests without Origin through (agents and CLIs send none)", () => {
    expect(isAllowedOrigin(null, undefined)).toBe(true);
    expect(isAllowedOrigin(undefined, ["https://a.example"])).toBe(true);
  });
  it("allows loopback pages only when nothing is configured", () => {
    for (const origin of ["http://localhost:6274", "http://127.0.0.1", "https://[::1]:8443"]) expect(isAllowedOrigin(origin, undefined)).toBe(true);
    for (const origin of ["http://evil.example", "http://localhost.evil.example", "null"]) expect(isAllowedOrigin(origin, undefined)).toBe(false);
  });
  it("allows exactly the configured origins, or any with *", () => {
    const allowed = ["https://app.example.com", "https://b.example"]; // as src/gateway/config parses the setting
    expect(isAllowedOrigin("https://App.example.com", allowed)).toBe(true);
    expect(isAllowedOrigin("http://localhost:6274", allowed)).toBe(false);
    expect(isAllowedOrigin("https://anything.example", ["*"])).toBe(true);
  });
});

describe("isAllowedHost", () => {
  it("allows any host unless a list is configured", () => {
    expect(isAllowedHost("anything.example", undefined)).toBe(true);
    expect(isAllowedHost("anything.example", ["*"])).toBe(true);
  });
  it("compares host names without the port, case-insensitively", () => {
    const loopback = ["localhost", "127.0.0.1", "[::1]"];
    for (const host of ["localhost:8787", "127.0.0.1", "[::1]:8787", "LOCALHOST:1"]) expect(isAllowedHost(host, loopback), host).toBe(true);
    for (const host of ["evil.example:8787", "localhost.evil.example", "127.0.0.1.nip.io", ""]) expect(isAllowedHost(host, loopback), String(host)).toBe(false);
    // No Host header at all is no browser (a service binding's call): the rebinding check does not apply.
    expect(isAllowedHost(undefined, loopback)).toBe(true);
  });
});

describe("browserCors", () => {
  const app = new Hono();
  app.use(
    "/rpc",
    browserCors(() => ({ allowedOrigins: ["https://app.example"] }), ["x-skill-version"]),
  );
  app.post("/rpc", (c) => c.json({ ok: true }, 200, { "x-skill-version": "subtract@1.0.0" }));

  it("answers an allowed origin's preflight with the headers it asked for, cached for two hours", async () => {
    const preflight = await app.request("/rpc", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, mcp-param-region" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization,mcp-param-region");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    expect(preflight.headers.get("access-control-max-age")).toBe("7200");
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull(); // bearer headers, never cookies
  });
  it("lets an allowed origin read the answer and the exposed headers; another origin gets no grant", async () => {
    const allowed = await app.request("/rpc", { method: "POST", headers: { origin: "https://app.example" } });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(allowed.headers.get("access-control-expose-headers")).toBe("x-skill-version");
    expect(allowed.headers.get("vary")).toContain("Origin");
    const other = await app.request("/rpc", { method: "POST", headers: { origin: "https://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
  it("adds nothing to a request without Origin (an agent that is not a page)", async () => {
    const plain = await app.request("/rpc", { method: "POST" });
    expect([...plain.headers.keys()].filter((name) => name.startsWith("access-control") || name === "vary")).toEqual([]);
  });
});
