import { describe, expect, it } from "vitest";
import { allowedOriginsOf, isAllowedOrigin } from "./origin.js";

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
    const allowed = allowedOriginsOf(" https://App.example.com/ , https://b.example ");
    expect(allowed).toEqual(["https://app.example.com", "https://b.example"]);
    expect(isAllowedOrigin("https://app.example.com", allowed)).toBe(true);
    expect(isAllowedOrigin("http://localhost:6274", allowed)).toBe(false);
    expect(isAllowedOrigin("https://anything.example", allowedOriginsOf("*"))).toBe(true);
    expect(allowedOriginsOf("  ")).toBeUndefined();
  });
});
