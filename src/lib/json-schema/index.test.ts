import { describe, expect, it } from "vitest";
import { accepts, schemaIssues } from "./index.js";

const schema = {
  type: "object",
  properties: { text: { type: "string" }, count: { type: "integer", minimum: 1 } },
  required: ["text"],
  additionalProperties: false,
};

describe("JSON Schema checks", () => {
  it("accepts what the schema allows and names each problem of what it does not", () => {
    expect(accepts(schema, { text: "hi" })).toBe(true);
    expect(schemaIssues(schema, { text: "hi", count: 2 })).toEqual([]);
    expect(schemaIssues(schema, { count: 0, extra: true })).toEqual([
      { path: "/", message: 'Instance does not have required property "text".' },
      { path: "/count", message: "0 is less than 1." },
      { path: "/", message: 'Property "extra" does not match additional properties schema.' },
    ]);
  });
});
