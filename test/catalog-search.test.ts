/**
 * The compact catalog (`/mcp?catalog=search`) at 10,000 tools, through the official v2 MCP client:
 * three tool definitions within 2,000 tokens (o200k_base, js-tiktoken), the search finding the
 * tool an agent asks for among 10,000 (recall on the 50 queries of scripts/bench/catalog-corpus.ts),
 * describe and call through it, and grants applied to what it finds and calls.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORPUS_SIZE, QUERIES, corpusManifest } from "../scripts/bench/catalog-corpus.js";
import { tokensOf } from "../scripts/bench/tokens.js";
import { agentSkillDirs, registerAgentSkill } from "../scripts/mesh/agent-skills.js";
import { skillDirs } from "../scripts/mesh/bundle.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { registerSynthetic } from "../scripts/mesh/synthetic.js";
import { ADMIN_TOKEN, admin, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
let everything: string;
let retailOnly: string;
beforeAll(async () => {
  mesh = await startMesh({ skills: skillDirs(), adminToken: ADMIN_TOKEN, gatewayVars: { SKILLMESH_AUTH: "required" } });
  const binding = mesh.skills.find((s) => s.manifest.name === "modbus.decode")!.binding;
  await registerSynthetic(mesh.gatewayUrl, ADMIN_TOKEN, binding, 0, CORPUS_SIZE, 8, corpusManifest);
  for (const dir of agentSkillDirs()) await registerAgentSkill(mesh.gatewayUrl, ADMIN_TOKEN, dir);
  everything = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "everything", skills: ["*"] })).json.key;
  retailOnly = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "retail", skills: ["retail.*"] })).json.key;
}, 300_000);
afterAll(() => mesh?.dispose());

async function clientWith(key: string, path = "/mcp?catalog=search") {
  const client = new Client({ name: "catalog-search-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${mesh.gatewayUrl}${path}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}
type Hit = { kind: string; name: string; summary: string; signature?: string; uri?: string };
const hitsOf = (result: unknown) => (result as { structuredContent: { results: Hit[] } }).structuredContent.results;

describe("the compact catalog at 10,000 tools", () => {
  it("lists three tools within 2,000 tokens, where the full list's first page alone is many times that", async () => {
    const client = await clientWith(everything);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["catalog.search", "catalog.describe", "catalog.call"]);
    const tokens = tokensOf(JSON.stringify(tools));
    console.log(`compact tools/list: ${tokens} tokens (o200k_base)`);
    expect(tokens).toBeLessThanOrEqual(2_000);
    // The same key's full list, for contrast: its first page alone is more.
    const full = await wireOf(mesh.gatewayUrl).mcp2025("tools/list", {}, { key: everything });
    expect(tokensOf(JSON.stringify(full.json.result.tools))).toBeGreaterThan(10 * tokens);
    await client.close();
  });

  it("finds the tool asked for among 10,000: recall on 50 queries", async () => {
    const client = await clientWith(everything);
    let first = 0;
    let inFive = 0;
    const misses: string[] = [];
    for (const { query, want } of QUERIES) {
      const hits = hitsOf(await client.callTool({ name: "catalog.search", arguments: { query, limit: 5 } }));
      const rank = hits.findIndex((h) => h.name === want);
      if (rank === 0) first++;
      if (rank >= 0) inFive++;
      else misses.push(`${query} → ${hits.map((h) => h.name).join(", ")} (wanted ${want})`);
    }
    console.log(`recall@1 ${first}/${QUERIES.length}, recall@5 ${inFive}/${QUERIES.length}${misses.length ? `; missed:\n  ${misses.join("\n  ")}` : ""}`);
    expect(QUERIES).toHaveLength(50);
    expect(inFive / QUERIES.length).toBeGreaterThanOrEqual(0.9);
    expect(first / QUERIES.length).toBeGreaterThanOrEqual(0.7);
    // A hit is short: a summary of one sentence, and a tool's arguments in one line.
    const [hit] = hitsOf(await client.callTool({ name: "catalog.search", arguments: { query: "decode a modbus rtu frame", limit: 1 } }));
    expect(hit).toEqual({
      kind: "tool",
      name: "modbus.decode",
      summary: expect.stringMatching(/^Decode one Modbus RTU frame/),
      tags: expect.arrayContaining(["protocol.modbus"]),
      signature: expect.stringMatching(/^frame: string, role\?: auto\|request\|response$/),
    });
    await client.close();
  });

  it("describes a tool and an Agent Skill, and calls a tool through catalog.call", async () => {
    const client = await clientWith(everything);
    const tool = (await client.callTool({ name: "catalog.describe", arguments: { name: "modbus.decode" } })).structuredContent as {
      inputSchema: { required: string[] };
    };
    expect(tool.inputSchema.required).toEqual(["frame"]);
    const skill = (await client.callTool({ name: "catalog.describe", arguments: { name: "modbus-triage" } })).structuredContent as {
      uri: string;
      skillMd: string;
    };
    expect(skill.uri).toBe("skill://modbus-triage/SKILL.md");
    expect(skill.skillMd).toContain("# Modbus capture triage");
    const [found] = hitsOf(await client.callTool({ name: "catalog.search", arguments: { query: "triage a modbus capture", kind: "skill" } }));
    expect(found).toMatchObject({ kind: "skill", name: "modbus-triage", uri: "skill://modbus-triage/SKILL.md" });
    const called = await client.callTool({ name: "catalog.call", arguments: { name: "modbus.decode", arguments: { frame: "11 03 00 6B 00 03 76 87" } } });
    expect(called.structuredContent).toMatchObject({ slave: 17, function: "Read Holding Registers", crc: { valid: true } });
    // Bad arguments are a tool error the model can read; the tools by name still answer.
    const bad = await client.callTool({ name: "catalog.search", arguments: { query: "" } });
    expect(bad.isError).toBe(true);
    expect((await client.callTool({ name: "catalog.call", arguments: { name: "modbus.decode", arguments: { frame: 1 } } })).isError).toBe(true);
    expect((await client.callTool({ name: "catalog.describe", arguments: { name: "no.such.tool" } })).isError).toBe(true);
    expect((await client.callTool({ name: "modbus.decode", arguments: { frame: "11 03 00 6B 00 03 76 87" } })).structuredContent).toMatchObject({ slave: 17 });
    await client.close();
  });

  it("finds and calls only what a key may call", async () => {
    const client = await clientWith(retailOnly);
    const hits = hitsOf(await client.callTool({ name: "catalog.search", arguments: { query: "decode a modbus rtu frame", limit: 20 } }));
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.kind === "tool" && (h.name.startsWith("retail.") || h.name === "skills.call"))).toBe(true);
    expect(hitsOf(await client.callTool({ name: "catalog.search", arguments: { query: "triage a modbus capture", kind: "skill" } }))).toEqual([]);
    const refused = await client.callTool({ name: "catalog.call", arguments: { name: "modbus.decode", arguments: { frame: "11 03 00 6B 00 03 76 87" } } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("Unknown tool: modbus.decode; catalog.search finds the tools you may call");
    expect((await client.callTool({ name: "catalog.describe", arguments: { name: "modbus-triage" } })).isError).toBe(true);
    await client.close();
  });

  it("refuses an unknown catalog mode", async () => {
    const answer = await post(
      `${mesh.gatewayUrl}/mcp?catalog=tiny`,
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
      { authorization: `Bearer ${everything}`, "mcp-protocol-version": "2025-11-25" },
    );
    expect(answer.status).toBe(400);
    expect(answer.json.error.message).toContain('?catalog= is "search"');
  });
});
