import { describe, expect, it } from "vitest";
import { redactedUrl, redactedUrls } from "./definitions.js";

describe("redactedUrl", () => {
  it("hides query values and path segments that could be a token, letters-only ones included", () => {
    expect(redactedUrl("https://mcp.example/s/5f0c2e9a7b1d4c3e8a6f0b2d9c7e1a4f/mcp?team=ops")).toBe("https://mcp.example/s/…/mcp?team=…");
    expect(redactedUrl("https://mcp.example/u/qZxWvUtSrQpOnMlKjIhGfEdC/mcp")).toBe("https://mcp.example/u/…/mcp");
    expect(redactedUrl("https://mcp.example/u/abcdefghijklmnopqrstuvwx/mcp")).toBe("https://mcp.example/u/…/mcp");
  });

  it("leaves a URL of words as it is", () => {
    expect(redactedUrl("https://api.example/customer-management/v2/mcp")).toBe("https://api.example/customer-management/v2/mcp");
    expect(redactedUrl("http://127.0.0.1:4010/openapi.json")).toBe("http://127.0.0.1:4010/openapi.json");
  });

  it("redacts every URL of a JSON value, and nothing else", () => {
    expect(redactedUrls({ a: ["https://x.example/?k=1", "not a url ?k=1"], n: 3 })).toEqual({ a: ["https://x.example/?k=…", "not a url ?k=1"], n: 3 });
  });
});
