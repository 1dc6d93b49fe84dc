import { describe, expect, it } from "vitest";
import { isAllowedHost, isAllowedOrigin } from "./index.js";

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
    const allowed = ["https://app.example.com", "https://b.example"]; // as src/config parses the setting
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
