import { describe, expect, it } from "vitest";
import { paramHeaderMismatch, paramHeadersOf } from "./headers.js";
import { headerValueOf } from "./index.js";

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    limit: { type: "integer", "x-mcp-header": "Limit" },
    dry: { type: "boolean", "x-mcp-header": "Dry" },
    target: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
    items: { type: "array", items: { type: "object", properties: { no: { type: "string", "x-mcp-header": "No" } } } },
  },
};

describe("Mcp-Param headers", () => {
  it("finds annotations reachable through properties only", () => {
    expect(paramHeadersOf(schema)).toEqual([
      { name: "Region", path: ["region"] },
      { name: "Limit", path: ["limit"] },
      { name: "Dry", path: ["dry"] },
      { name: "Zone", path: ["target", "zone"] },
    ]);
  });

  it("accepts headers that mirror the arguments, decoded and compared by type", () => {
    const headers = new Headers({
      "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
      "mcp-param-limit": "42.0",
      "mcp-param-dry": "false",
      "mcp-param-zone": "a",
    });
    expect(paramHeaderMismatch(schema, { region: "Hello, 世界", limit: 42, dry: false, target: { zone: "a" } }, headers)).toBeUndefined();
    // Absent or null arguments need no header.
    expect(paramHeaderMismatch(schema, { region: null }, new Headers())).toBeUndefined();
  });

  it("refuses a missing header, a different value and an undecodable one", () => {
    expect(paramHeaderMismatch(schema, { region: "us-west1" }, new Headers())).toMatch(/Mcp-Param-Region header is missing/);
    expect(paramHeaderMismatch(schema, { region: "us-west1" }, new Headers({ "mcp-param-region": "eu-west1" }))).toMatch(/does not match/);
    expect(paramHeaderMismatch(schema, { limit: 42 }, new Headers({ "mcp-param-limit": "" }))).toMatch(/does not match/);
    expect(paramHeaderMismatch(schema, { dry: true }, new Headers({ "mcp-param-dry": "True" }))).toMatch(/does not match/);
    expect(paramHeaderMismatch(schema, { target: { zone: "b" } }, new Headers({ "mcp-param-zone": "=?base64?//79?=" }))).toMatch(/not valid Base64/);
  });

  it("decodes the Base64 sentinel form and leaves other values as they are", () => {
    expect(headerValueOf("=?base64?IHBhZGRlZCA=?=")).toBe(" padded ");
    expect(headerValueOf("us-west1")).toBe("us-west1");
    expect(headerValueOf("=?base64?!!?=")).toBe("=?base64?!!?=");
  });

  it("refuses Base64 without its padding (SEP-2243's table), which atob would take", () => {
    expect(headerValueOf("=?base64?SGVsbG8=?=")).toBe("Hello");
    expect(headerValueOf("=?base64?SGVsbG8?=")).toBeUndefined();
  });
});
