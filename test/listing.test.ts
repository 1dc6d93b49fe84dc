/**
 * The listing built-ins at scale: with more skills than one answer lists (`MAX_LISTED`, 1,000),
 * `skills.list`, `skills.discover` and `rpc.discover` page (`limit`, `cursor`) instead of
 * building answers of 20 MB, and a batch's answers together stay under `MAX_BATCH_ANSWER_CHARS`.
 * On a gateway in workerd with 1,050 synthetic skills (~2 KB of schema each) beside a real one.
 */
import { validateOpenRPCDocument } from "@open-rpc/schema-utils-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { registerSynthetic } from "../scripts/mesh/synthetic.js";
import { MAX_LISTED } from "../src/gateway/chain/builtins.js";
import { MAX_BATCH_ANSWER_CHARS } from "../src/protocols/jsonrpc/http.js";
import { ADMIN_TOKEN, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

const SYNTHETIC = 1_050;
let mesh: Mesh;
let everyName: string[];
const call = async (method: string, params?: unknown) => (await wireOf(mesh.gatewayUrl).rpc(method, params)).json;

beforeAll(async () => {
  mesh = await startMesh({ skills: [fixture("subtract")], adminToken: ADMIN_TOKEN });
  await registerSynthetic(mesh.gatewayUrl, ADMIN_TOKEN, mesh.skills[0]!.binding, 0, SYNTHETIC);
  everyName = [...Array.from({ length: SYNTHETIC }, (_, i) => `bench.s${i}`), "subtract"].sort();
}, 120_000);
afterAll(() => mesh?.dispose());

/** Every page of a listing, following `nextCursor` from the first. */
async function allPages(
  method: string,
  params: Record<string, unknown>,
  itemsOf: (result: any) => Array<{ name: string }>,
  cursorOf: (result: any) => string | undefined,
) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const answer = await call(method, { ...params, ...(cursor ? { cursor } : {}) });
    expect(answer.error).toBeUndefined();
    pages.push(itemsOf(answer.result).map((item) => item.name));
    cursor = cursorOf(answer.result);
  } while (cursor && pages.length < 100);
  return pages;
}

describe("more skills than one answer lists", () => {
  it("refuses to list them all at once, saying how to page", async () => {
    for (const [method, params] of [["skills.list"], ["skills.discover", { capability: "bench.*" }], ["rpc.discover"]] as const) {
      const { error, result } = await call(method, params);
      expect(result).toBeUndefined();
      expect(error).toMatchObject({ code: -32602, data: { count: expect.any(Number), maxListed: MAX_LISTED } });
      expect(error.data.count).toBeGreaterThan(MAX_LISTED);
      expect(error.message).toContain('"limit"');
    }
  });

  it("lists a narrower discovery whole, as an array", async () => {
    const { result } = await call("skills.discover", { capability: "bench.group7" });
    expect(Array.isArray(result)).toBe(true);
    expect(result.map((s: { name: string }) => s.name)).toEqual(everyName.filter((name) => name.startsWith("bench.s") && Number(name.slice(7)) % 100 === 7));
  });

  it("pages skills.list: every skill once, in name order, and no cursor after the last page", async () => {
    const pages = await allPages(
      "skills.list",
      { limit: 400 },
      (r) => r.skills,
      (r) => r.nextCursor,
    );
    expect(pages.map((p) => p.length)).toEqual([400, 400, 251]);
    expect(pages.flat()).toEqual(everyName);
    // The summaries are the unpaged ones: schemas and tags included.
    const { result } = await call("skills.list", { limit: 1 });
    expect(result.skills[0]).toMatchObject({ name: "bench.s0", tags: expect.arrayContaining(["bench.all"]), inputSchema: { type: "object" } });
    expect(Object.keys(result)).toEqual(["skills", "nextCursor"]);
  });

  it("pages skills.discover by glob, by position too", async () => {
    const pages = await allPages(
      "skills.discover",
      { capability: "bench.*", limit: MAX_LISTED },
      (r) => r.skills,
      (r) => r.nextCursor,
    );
    expect(pages.flat()).toEqual(everyName.filter((name) => name.startsWith("bench.")));
    // By position: capability, tags, limit, cursor.
    const byPosition = await call("skills.discover", ["bench.*", ["bench.all"], 300]);
    expect(byPosition.result.skills).toHaveLength(300);
  });

  it("pages rpc.discover: each page an OpenRPC document that passes the meta-schema", async () => {
    const first = (await call("rpc.discover", { limit: 500 })).result;
    expect(validateOpenRPCDocument(first)).toBe(true);
    expect(first["x-nextCursor"]).toEqual(expect.any(String));
    const pages = await allPages(
      "rpc.discover",
      { limit: 500 },
      (r) => r.methods,
      (r) => r["x-nextCursor"],
    );
    expect(pages.flat()).toEqual(everyName);
  });

  it("weighs at most as many skills.call candidates, and says to narrow the capability", async () => {
    const wide = await call("skills.call", { capability: "bench.*", arguments: { field_0: 1 } });
    expect(wide.error).toMatchObject({ code: -32602, data: { count: SYNTHETIC, maxCandidates: MAX_LISTED }, message: expect.stringContaining("narrow") });
    // A narrower capability is weighed and called (the synthetic skills answer from subtract's Worker: not its method).
    const narrow = await call("skills.call", { capability: "bench.group7", arguments: { field_0: 1 } });
    expect(narrow.error?.code).not.toBe(-32602);
  });

  it("answers a bad cursor or limit with -32602", async () => {
    expect((await call("skills.list", { cursor: "not-a-cursor" })).error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid cursor/) });
    expect((await call("skills.list", { limit: MAX_LISTED + 1 })).error).toMatchObject({ code: -32602 });
    expect((await call("rpc.discover", { limit: 0 })).error).toMatchObject({ code: -32602 });
  });
});

describe("a batch of large answers", () => {
  it("answers as many as fit in MAX_BATCH_ANSWER_CHARS and asks for the rest alone", async () => {
    // Twelve pages of 1,000 skills: about 2 MB each, 25 MB in all.
    const batch = Array.from({ length: 12 }, (_, id) => ({ jsonrpc: "2.0", method: "skills.list", params: { limit: MAX_LISTED }, id }));
    const { status, text, json } = await post(`${mesh.gatewayUrl}/rpc`, batch);
    expect(status).toBe(200);
    expect(text.length).toBeLessThanOrEqual(MAX_BATCH_ANSWER_CHARS + 12 * 1_000);
    expect(json.map((answer: { id: number }) => answer.id)).toEqual(batch.map((request) => request.id));
    const answered = json.filter((answer: { result?: unknown }) => answer.result);
    const refused = json.filter((answer: { error?: unknown }) => answer.error);
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(answered.length + refused.length).toBe(12);
    for (const answer of refused)
      expect(answer.error).toMatchObject({ code: -32600, data: { maxBatchAnswerChars: MAX_BATCH_ANSWER_CHARS }, message: expect.stringContaining("alone") });
    // The same on an event stream (the batch is its last event).
    const streamed = await (
      await fetch(`${mesh.gatewayUrl}/rpc`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify(batch),
      })
    ).text();
    const last = JSON.parse(
      streamed
        .trimEnd()
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .at(-1)!
        .slice(6),
    );
    expect(last.map((answer: { error?: { code: number } }) => answer.error?.code ?? 0)).toEqual(
      json.map((answer: { error?: { code: number } }) => answer.error?.code ?? 0),
    );
    // A small answer still fits after large ones.
    const mixed = await post(`${mesh.gatewayUrl}/rpc`, [...batch, { jsonrpc: "2.0", method: "subtract", params: [5, 3], id: "small" }]);
    expect(mixed.json.at(-1)).toEqual({ jsonrpc: "2.0", result: 2, id: "small" });
  });
});
