import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/mesh/bundle.js";
import { type Mesh, startMesh } from "../../scripts/mesh/index.js";
import { ADMIN_TOKEN, post } from "../../test/support/fixtures.js";

// A pipeline needs the gateway and the skills of its steps: a mesh of the three.
describe("web.digest (workerd, through the gateway)", () => {
  let mesh: Mesh;
  beforeAll(async () => {
    mesh = await startMesh({ skills: ["html-extract", "text-summarize-v1", "web-digest"].map((dir) => join(ROOT, "skills", dir)), adminToken: ADMIN_TOKEN });
  });
  afterAll(() => mesh?.dispose());

  it("digests a page", async () => {
    const html =
      "<title>Solar</title><p>Solar panels turn sunlight into electricity. The weather was nice. Batteries store solar electricity for the night.</p>";
    const { json } = await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "web.digest", params: { html, sentences: 1 }, id: 1 });
    expect(json.result).toEqual({ title: "Solar", words: 17, summary: expect.any(String), sentences: [expect.any(String)] });
  });

  it("serves its manifest like a skill, saying which skills it calls", async () => {
    const manifest = mesh.skills.find((s) => s.manifest.name === "web.digest")!.manifest;
    expect(manifest).toMatchObject({ name: "web.digest", version: "1.0.0", pipeline: { steps: ["html.extract", "text.summarize"] } });
    expect(manifest.inputSchema).toMatchObject({ type: "object", required: ["html"] });
  });
});
