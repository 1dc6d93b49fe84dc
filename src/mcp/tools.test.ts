import { describe, expect, it } from "vitest";
import type { ToolSummary } from "../gateway/chain/catalog.js";
import { argumentsToParams, toolErrorOf, toolOf, toolResultOf, wrapInObject } from "./tools.js";

const skill = (inputSchema: Record<string, unknown>, outputSchema: Record<string, unknown>): ToolSummary => ({
  name: "s",
  description: "d",
  tags: ["t"],
  idempotent: false,
  inputSchema,
  outputSchema,
});
const objectIn = { type: "object", properties: { a: { type: "number" } } };

describe("toolOf", () => {
  it("lists an object-input skill with its schemas as they are and idempotentHint", () => {
    const tool = toolOf(skill(objectIn, { type: "object", properties: {} }));
    expect(tool.inputSchema).toBe(objectIn);
    expect(tool.annotations).toEqual({ idempotentHint: false });
  });

  it("wraps array input and scalar output in one property, keeping $schema and $defs at the root", () => {
    const output = { $schema: "https://json-schema.org/draft/2020-12/schema", $ref: "#/$defs/n", $defs: { n: { type: "number" } } };
    const tool = toolOf(skill({ type: "array", items: { type: "number" } }, output));
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: { params: { type: "array", items: { type: "number" } } },
      required: ["params"],
      additionalProperties: false,
    });
    expect(tool.outputSchema).toEqual({
      $schema: output.$schema,
      type: "object",
      properties: { result: { $ref: "#/$defs/n" } },
      required: ["result"],
      additionalProperties: false,
      $defs: output.$defs,
    });
  });

  it("wrapInObject leaves the original schema alone", () => {
    const schema = { type: "string", $defs: {} };
    wrapInObject(schema, "x");
    expect(schema).toEqual({ type: "string", $defs: {} });
  });
});

describe("argumentsToParams", () => {
  it("passes named arguments through, and unwraps the positional params of an array-input skill", () => {
    expect(argumentsToParams(skill(objectIn, {}), { a: 1 })).toEqual({ a: 1 });
    expect(argumentsToParams(skill(objectIn, {}), undefined)).toEqual({});
    expect(argumentsToParams(skill({ type: "array" }, {}), { params: [1, 2] })).toEqual([1, 2]);
    // Not an array: the skill answers it with its own "Invalid params".
    expect(argumentsToParams(skill({ type: "array" }, {}), { params: 3 })).toEqual({ params: 3 });
  });
});

describe("toolResultOf", () => {
  it("gives a string as the text itself and wraps it as structured content", () => {
    expect(toolResultOf(skill(objectIn, { type: "string" }), "hi")).toEqual({ content: [{ type: "text", text: "hi" }], structuredContent: { result: "hi" } });
  });
  it("gives an object as JSON text and as structured content", () => {
    expect(toolResultOf(skill(objectIn, { type: "object" }), { n: 1 })).toEqual({ content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } });
  });
});

describe("toolErrorOf", () => {
  it("lists argument issues line by line", () => {
    const result = toolErrorOf({ code: -32602, message: "Invalid params", data: { issues: [{ path: "text", message: "Too small" }] } });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toBe("Invalid arguments.\n- text: Too small");
  });
  it("keeps a specific message and says when to retry", () => {
    expect(toolErrorOf({ code: -32001, message: "down", data: { retryAfterMs: 1500 } }).content[0]!.text).toBe("down\nRetry after 2 s.");
    expect(toolErrorOf({ code: -32602, message: "Invalid params: takes positional params" }).content[0]!.text).toBe("Invalid params: takes positional params");
  });
});
