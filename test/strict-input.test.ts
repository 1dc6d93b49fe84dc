/**
 * Strict inputs in workerd, as a model meets them: a field the skill's input does not declare
 * is refused with -32602 naming it (on /rpc, and as a tool error on /mcp), the published schema
 * says `additionalProperties: false`, and a skill that opts out (`strictInput: false`, as the
 * shipped text.summarize does to keep its released contract) still drops such fields.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, fixture } from "./support/fixtures.js";
import { ROOT } from "../scripts/mesh/bundle.js";
import { join } from "node:path";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
beforeAll(async () => {
  mesh = await startMesh({ skills: [fixture("subtract"), join(ROOT, "skills/text-summarize-v1")], adminToken: ADMIN_TOKEN });
});
afterAll(() => mesh?.dispose());

const rpc = (method: string, params: unknown) => wireOf(mesh.gatewayUrl).rpc(method, params);
const mcp = (method: string, params: unknown) => wireOf(mesh.gatewayUrl).mcp2025(method, params);

describe("strict inputs", () => {
  it("refuses a field the input does not declare, naming it", async () => {
    const { json } = await rpc("subtract", { minuend: 5, subtrahend: 2, volume: 11 });
    expect(json.error).toMatchObject({
      code: -32602,
      data: { issues: [{ path: "volume", code: "unrecognized_keys", message: expect.stringContaining("unknown field") }] },
    });
    expect((await rpc("subtract", { minuend: 5, subtrahend: 2 })).json.result).toBe(3);
    // A model reads the field's name in the tool error.
    const tool = await mcp("tools/call", { name: "subtract", arguments: { minuend: 5, subtrahnd: 2 } });
    expect(tool.json.result.isError).toBe(true);
    expect(tool.json.result.content[0].text).toContain("- subtrahnd: unknown field");
  });

  it("publishes the input as closed, and a skill that opts out stays open and drops the field", async () => {
    const tools = (await mcp("tools/list", {})).json.result.tools as Array<{ name: string; inputSchema: Record<string, unknown> }>;
    expect(tools.find((t) => t.name === "subtract")!.inputSchema.additionalProperties).toBe(false);
    expect(tools.find((t) => t.name === "text.summarize")!.inputSchema.additionalProperties).toBeUndefined();
    const { json } = await rpc("text.summarize", { text: "One. Two.", volume: 11 });
    expect(json.result.method).toBe("word-frequency");
  });
});
