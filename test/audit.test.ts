/**
 * The audit log in workerd on a real redis-server (security review round 2, finding 5): what a
 * caller chooses is stored cut to size, so one entry can neither fill the store nor sink a
 * batch; refused methods count against the caller's limits; the log is read a page at a time;
 * and the calls served while the store was stopped for 30 s are all in the log once it answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { startLocalUpstash } from "../scripts/redis-rest/serve.js";
import { MAX_AUDIT_TEXT } from "../src/registry/audit/index.js";
import { fingerprintOf } from "../src/policies/idempotency/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post, registryLoaded } from "./support/fixtures.js";

let local: Awaited<ReturnType<typeof startLocalUpstash>>;
let mesh: Mesh;
type Entry = { type: string; caller: string; method: string; code: number; args?: string; at: number };

beforeAll(async () => {
  local = await startLocalUpstash("audit");
  mesh = await startMesh({
    skills: [fixture("subtract")],
    adminToken: ADMIN_TOKEN,
    upstash: { url: local.url, token: local.token },
    gatewayVars: { SKILLMESH_AUTH: "required", SKILLMESH_STORE_TIMEOUT_MS: "300" },
  });
  await registryLoaded(mesh.gatewayUrl, 1);
}, 120_000);
afterAll(async () => {
  if (local) process.kill(local.redisPid, "SIGCONT");
  await mesh?.dispose();
  await local?.stop();
});

const newKey = async (name: string, grants: object = {}) =>
  (await admin(mesh.gatewayUrl, "POST", "/keys", { name, skills: ["*"], ...grants })).json as { key: string; view: { id: string } };
/** A request (or a batch) on /rpc as the caller holding `key`. */
const rpc = (key: string, body: unknown) => post(`${mesh.gatewayUrl}/rpc`, body, { authorization: `Bearer ${key}` });
const auditOf = async (query: string) => (await admin(mesh.gatewayUrl, "GET", `/audit?${query}`)).json as { entries: Entry[]; nextCursor?: string };

describe("what one entry may hold", () => {
  it("a method of a million characters is stored cut to 128, and the batch it came in loses nothing", async () => {
    const { key, view } = await newKey("long-method");
    const answers = (
      await rpc(key, [
        { jsonrpc: "2.0", method: "x".repeat(1_000_000), id: 1 },
        { jsonrpc: "2.0", method: "subtract", params: [5, 3], id: 2 },
      ])
    ).json;
    expect(answers.map((a: { error?: { code: number }; result?: unknown }) => a.error?.code ?? a.result)).toEqual([-32601, 2]);
    const { entries } = await eventually(
      () => auditOf(`caller=${view.id}`),
      (page) => page.entries.length === 2,
      5_000,
      100,
    );
    const long = entries.find((e) => e.code === -32601)!;
    expect(long.method).toHaveLength(MAX_AUDIT_TEXT);
    expect(long.method.endsWith("…")).toBe(true);
    expect(entries.find((e) => e.method === "subtract")?.code).toBe(0);
    // The whole stored entry is small: a caller cannot grow the store by its choice of names.
    expect(JSON.stringify(long).length).toBeLessThan(512);
  });

  it("a method that names no skill counts against the caller's limit like any call", async () => {
    const { key } = await newKey("scanner", { quota: "3/day" });
    for (let i = 0; i < 3; i++) expect((await rpc(key, { jsonrpc: "2.0", method: `no.such.skill.${i}`, id: i })).json.error.code).toBe(-32601);
    expect((await rpc(key, { jsonrpc: "2.0", method: "no.such.skill.4", id: 4 })).json.error.code).toBe(-32005);
    expect((await rpc(key, { jsonrpc: "2.0", method: "subtract", params: [1, 1], id: 5 })).json.error.code).toBe(-32005);
  });
});

describe("reading the log", () => {
  it("a page at a time: 1,200 entries read in pages of 500 follow on, none twice, none left out", async () => {
    const { key, view } = await newKey("pager");
    for (let i = 0; i < 12; i++) {
      const batch = Array.from({ length: 100 }, (_, j) => ({ jsonrpc: "2.0", method: "subtract", params: [i * 100 + j, 0], id: j }));
      expect((await rpc(key, batch)).json).toHaveLength(100);
    }
    await eventually(
      () => auditOf(`caller=${view.id}&limit=1000`),
      (page) => page.entries.length === 1_000,
      10_000,
      200,
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await auditOf(`caller=${view.id}&limit=500${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.entries.map((e) => e.args!));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toHaveLength(1_200);
    expect(new Set(seen).size).toBe(1_200);
    const expected = await Promise.all(Array.from({ length: 1_200 }, (_, n) => fingerprintOf([1_199 - n, 0])));
    expect([...seen].sort()).toEqual([...expected].sort());
    expect(pages).toBe(3);
  });

  it("a bad cursor is a 400, not a scan", async () => {
    expect((await admin(mesh.gatewayUrl, "GET", "/audit?cursor=abc")).status).toBe(400);
  });
});

describe("a store outage", () => {
  it("30 s with redis-server stopped: every call served meanwhile is in the log once it answers again", async () => {
    const { key, view } = await newKey("through-the-outage");
    const served: string[] = [];
    // The key is in the isolate's key snapshot before the store stops (calls are served from it).
    expect((await rpc(key, { jsonrpc: "2.0", method: "subtract", params: [1, 1], id: 0 })).json.result).toBe(0);
    process.kill(local.redisPid, "SIGSTOP");
    try {
      const until = Date.now() + 30_000;
      for (let i = 0; Date.now() < until; i++) {
        const answer = await rpc(key, { jsonrpc: "2.0", method: "subtract", params: [i, 7], id: i });
        if (answer.json.result === i - 7) served.push(await fingerprintOf([i, 7]));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      process.kill(local.redisPid, "SIGCONT");
    }
    // Calls go on from the isolate's snapshots while the store is away.
    expect(served.length).toBeGreaterThan(50);
    const logged = await eventually(
      async () => {
        const page = await admin(mesh.gatewayUrl, "GET", `/audit?caller=${view.id}&limit=1000`);
        return page.status === 200 ? new Set((page.json.entries as Entry[]).map((e) => e.args)) : new Set();
      },
      (args) => served.every((fingerprint) => args.has(fingerprint)),
      20_000,
      250,
    );
    expect(served.filter((fingerprint) => !logged.has(fingerprint))).toEqual([]);
  }, 90_000);
});
