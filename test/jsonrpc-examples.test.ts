/**
 * Every example of the JSON-RPC 2.0 spec (section 7, test/fixtures/jsonrpc-examples.txt), sent
 * as is to the gateway and to the skill Workers (fixture skills `subtract`, `sum`, `get_data`,
 * `update`, `notify_hello`, `notify_sum`), all running in workerd.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, SPEC_FIXTURES, post } from "./support/fixtures.js";
import { methodsOf, readSpecExamples } from "./support/examples.js";

const cases = readSpecExamples();
let mesh: Mesh;

beforeAll(async () => {
  mesh = await startMesh({ skills: SPEC_FIXTURES, adminToken: ADMIN_TOKEN });
});
afterAll(() => mesh?.dispose());

async function expectExchange(url: string, request: string, expected: unknown) {
  const answer = await post(url, request);
  if (expected === undefined) {
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");
  } else {
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.json).toEqual(expected);
  }
}

it("reads all twelve examples of the spec", () => {
  expect(cases).toHaveLength(12);
});

describe("through the gateway (POST /rpc)", () => {
  it.each(cases.map((c) => [c.title, c] as const))("%s", async (_title, example) => {
    for (const { request, expected } of example.exchanges) await expectExchange(`${mesh.gatewayUrl}/rpc`, request, expected);
  });
});

describe("against the skill Worker itself (POST /)", () => {
  // A skill Worker serves its own method only: examples that mix several methods in one batch
  // are gateway examples. Examples naming no fixture method go to `subtract`.
  const single = cases.filter((c) => c.exchanges.every((e) => new Set(methodsOf(e.request).filter(isFixture)).size <= 1));

  it("covers every example that names at most one fixture method", () => {
    expect(single.map((c) => c.title)).not.toContain("rpc call Batch");
    expect(single.length).toBe(10);
  });

  it.each(single.map((c) => [c.title, c] as const))("%s", async (_title, example) => {
    for (const { request, expected } of example.exchanges) {
      const method = methodsOf(request).find(isFixture) ?? "subtract";
      await expectExchange(skillUrl(method), request, expected);
    }
  });
});

function isFixture(method: string): boolean {
  return ["subtract", "sum", "get_data", "update", "notify_hello", "notify_sum"].includes(method);
}

function skillUrl(method: string): string {
  return mesh.skills.find((s) => s.manifest.name === method)!.url;
}
