/**
 * Policy routing by capability (`skills.call`) in workerd, with auth on: candidates by tag that
 * the caller may call and whose input schema accepts the arguments, limits, ranking by each
 * `prefer`, fail-over when the chosen one is down, and never a skill outside the caller's grants.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
let key: string;
// test.flaky: 0.001 a call, promises 95%, p95 100 ms; test.unsafe: 0.002, 99%, 250 ms; sum: another input shape.
beforeAll(async () => {
  mesh = await startMesh({
    skills: [fixture("flaky-v1"), fixture("flaky-unsafe"), fixture("sum")],
    adminToken: ADMIN_TOKEN,
    gatewayVars: { SKILLMESH_AUTH: "required" },
  });
  key = `Bearer ${(await admin(mesh.gatewayUrl, "POST", "/keys", { name: "router", skills: ["*"] })).json.key}`;
});
afterAll(() => mesh?.dispose());

const route = (params: unknown, bearer = key) =>
  post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", id: 1, method: "skills.call", params }, { authorization: bearer });
const control = (name: string, mode: string) =>
  fetch(`${mesh.skills.find((s) => s.manifest.name === name)!.url}/control`, { method: "POST", body: JSON.stringify({ mode }) });

describe("skills.call", () => {
  it("picks by each preference among the candidates whose input accepts the arguments", async () => {
    const call = async (policy: unknown) => (await route({ capability: "fixture", arguments: { value: "v" }, policy })).json.result;
    const cheapest = await call({ prefer: "cheapest" });
    expect(cheapest).toMatchObject({ result: { value: "v", version: "1.0.0" }, servedBy: { skill: "test.flaky", version: "1.0.0" } });
    expect(cheapest.why).toMatch(/^cheapest of 2 candidates: cost 0.001, success rate 0.95, p95 100 ms \(declared\)$/);
    expect((await call({ prefer: "reliable" })).servedBy.skill).toBe("test.unsafe");
    expect((await call({ prefer: "fastest" })).servedBy.skill).toBe("test.flaky");
    expect((await call({ prefer: { cost: 0, latency: 0, reliability: 1 } })).servedBy.skill).toBe("test.unsafe");
    // sum has the tag too, but takes an array: never a candidate for these arguments.
    expect((await route({ capability: "fixture", arguments: [1, 2] })).json.result.servedBy.skill).toBe("sum");
  });

  it("respects the policy's limits, and says why nothing fits", async () => {
    expect(
      (await route({ capability: "fixture", arguments: { value: "v" }, policy: { prefer: "reliable", maxCostPerCall: 0.0015 } })).json.result.servedBy.skill,
    ).toBe("test.flaky");
    expect(
      (await route({ capability: "fixture", arguments: { value: "v" }, policy: { prefer: "cheapest", minSuccessRate: 0.98 } })).json.result.servedBy.skill,
    ).toBe("test.unsafe");
    const none = await route({ capability: "fixture", arguments: { value: "v" }, policy: { maxP95Ms: 50 } });
    expect(none.json.error).toMatchObject({ code: -32601, message: expect.stringContaining("over the policy's limits") });
    const rejected = await route({ capability: "fixture", arguments: { value: 42 } });
    expect(rejected.json.error.message).toContain("no candidate's input schema accepts the arguments");
  });

  it("fails over to the next candidate when the chosen one is down", async () => {
    await control("test.flaky", "503");
    try {
      const answer = (await route({ capability: "fixture", arguments: { value: "v" }, policy: { prefer: "cheapest" } })).json.result;
      expect(answer.servedBy.skill).toBe("test.unsafe");
      expect(answer.skipped).toEqual([{ skill: "test.flaky", error: expect.stringMatching(/^-32001/) }]);
    } finally {
      await control("test.flaky", "ok");
    }
    // A skill's own answer (here: its error) is final: no fail-over for it.
    await control("test.flaky", "throw");
    try {
      expect((await route({ capability: "fixture", arguments: { value: "v" }, policy: { prefer: "cheapest" } })).json.error.code).toBe(-32603);
    } finally {
      await control("test.flaky", "ok");
    }
  });

  it("never routes outside the caller's grants", async () => {
    const narrow = `Bearer ${(await admin(mesh.gatewayUrl, "POST", "/keys", { name: "narrow-router", skills: ["test.unsafe"] })).json.key}`;
    const answer = await route({ capability: "fixture", arguments: { value: "v" }, policy: { prefer: "cheapest" } }, narrow);
    expect(answer.json.result.servedBy.skill).toBe("test.unsafe");
    const nothing = await route({ capability: "fixture", arguments: [1, 2] }, narrow);
    expect(nothing.json.error.message).toContain("no candidate's input schema accepts");
  });

  it("is an MCP tool too: skills.call, listed beside the skills, with the same answer", async () => {
    const wire = wireOf(mesh.gatewayUrl);
    const headers = { authorization: key };
    const tools = await wire.mcp2025("tools/list", {}, { headers });
    const tool = tools.json.result.tools.find((t: { name: string }) => t.name === "skills.call");
    expect(tool.inputSchema).toMatchObject({ type: "object", required: ["arguments"], properties: { capability: { type: "string" } } });
    const called = await wire.mcp2025(
      "tools/call",
      { name: "skills.call", arguments: { capability: "fixture", arguments: { value: "v" }, policy: { prefer: "reliable" } } },
      { headers },
    );
    expect(called.json.result.structuredContent).toMatchObject({
      result: { value: "v" },
      servedBy: { skill: "test.unsafe", version: "1.0.0" },
      why: expect.stringMatching(/^reliable of 2/),
    });
  });
});
