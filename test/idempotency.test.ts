/**
 * Idempotent replay through the gateway (workerd) on real Redis: exactly-once execution under
 * 50 concurrent duplicates, replay with `Idempotent-Replayed: 1`, -32003 for other params, the
 * TTL, batches, and transient failures that are not stored.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, eventually, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
let counterUrl: string;
beforeAll(async () => {
  mesh = await startMesh({
    skills: [fixture("counter"), fixture("misbehave")],
    adminToken: ADMIN_TOKEN,
    upstash: { url: inject("redisRestUrl"), token: inject("redisRestToken") },
    gatewayVars: { SKILLMESH_STORE_PREFIX: `idem-${process.pid}:` },
  });
  counterUrl = mesh.skills.find((s) => s.manifest.name === "test.counter")!.url;
});
afterAll(() => mesh?.dispose());

/** Keys belong to an identified caller: every call here carries a bearer key unless told otherwise. */
const IDENTIFIED = { authorization: "Bearer idempotency-tests" };
const call = (params: unknown, key?: string, headers: Record<string, string> = {}, id: number | string = 1) =>
  wireOf(mesh.gatewayUrl).rpc("test.counter", params, { id, headers: { ...IDENTIFIED, ...(key ? { "idempotency-key": key } : {}), ...headers } });
/** How often the skill really ran for a label (asked directly, not through the gateway). */
const executions = async (label: string) =>
  (await post(counterUrl, { jsonrpc: "2.0", method: "test.counter", params: { label, peek: true }, id: 1 })).json.result.count;

describe("Idempotency-Key", () => {
  it("runs the skill once for 50 concurrent duplicates; all get the same result, the others marked replayed", async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call({ label: "fifty", delayMs: 300 }, "key-fifty", {}, i)));
    expect(await executions("fifty")).toBe(1);
    for (const [i, answer] of answers.entries()) expect(answer.json).toEqual({ jsonrpc: "2.0", result: { label: "fifty", count: 1 }, id: i });
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "1")).toHaveLength(49);
    expect(answers.every((a) => a.headers.get("x-skill-version") === "test.counter@1.0.0")).toBe(true);
  });

  it("replays a later retry with the same params, even with other key order and another id", async () => {
    const first = await call({ label: "retry", delayMs: 0 }, "key-retry");
    const again = await call({ delayMs: 0, label: "retry" }, "key-retry", {}, "other-id");
    expect(again.json).toEqual({ ...first.json, id: "other-id" });
    expect(again.headers.get("idempotent-replayed")).toBe("1");
    expect(await executions("retry")).toBe(1);
  });

  it("answers -32003 for the same key with other params, and runs nothing", async () => {
    await call({ label: "mismatch" }, "key-mismatch");
    const other = await call({ label: "mismatch-2" }, "key-mismatch");
    expect(other.json.error.code).toBe(-32003);
    expect(await executions("mismatch-2")).toBe(0);
  });

  it("scopes keys to the caller", async () => {
    await call({ label: "scoped" }, "key-scoped", { authorization: "Bearer caller-a" });
    const b = await call({ label: "scoped" }, "key-scoped", { authorization: "Bearer caller-b" });
    expect(b.json.result.count).toBe(2);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
  });

  it("forgets the answer after the skill's TTL (2 s here), then runs again", async () => {
    const first = await call({ label: "ttl" }, "key-ttl");
    expect(first.json.result.count).toBe(1);
    expect((await call({ label: "ttl" }, "key-ttl")).headers.get("idempotent-replayed")).toBe("1"); // not forgotten at once
    // Until the TTL ends the same call is a replay (it runs nothing); then it runs once more.
    const later = await eventually(
      () => call({ label: "ttl" }, "key-ttl"),
      (r) => r.headers.get("idempotent-replayed") === null,
      6_000,
      100,
    );
    expect(later.json.result.count).toBe(2);
  });

  it("scopes keys by skill: the same key on another skill is another request", async () => {
    expect((await call({ label: "per-skill" }, "key-shared-by-skills")).json.result.count).toBe(1);
    const other = await post(
      `${mesh.gatewayUrl}/rpc`,
      { jsonrpc: "2.0", method: "test.misbehave", params: { mode: "ok" }, id: 1 },
      { ...IDENTIFIED, "idempotency-key": "key-shared-by-skills" },
    );
    expect(other.json).toEqual({ jsonrpc: "2.0", result: { ok: true }, id: 1 });
    expect(other.headers.get("idempotent-replayed")).toBeNull();
  });

  it("matches params whatever the key order inside nested objects", async () => {
    const first = await call({ label: "nested", extra: { b: { y: 2, x: 1 }, a: [1, 2] } }, "key-nested");
    const again = await call({ extra: { a: [1, 2], b: { x: 1, y: 2 } }, label: "nested" }, "key-nested");
    expect(again.json).toEqual(first.json);
    expect(again.headers.get("idempotent-replayed")).toBe("1");
  });

  it("covers each element of a batch under one header", async () => {
    const batch = [
      { jsonrpc: "2.0", method: "test.counter", params: { label: "batch-a" }, id: 1 },
      { jsonrpc: "2.0", method: "test.counter", params: { label: "batch-b" }, id: 2 },
    ];
    const first = await post(`${mesh.gatewayUrl}/rpc`, batch, { ...IDENTIFIED, "idempotency-key": "key-batch" });
    const again = await post(`${mesh.gatewayUrl}/rpc`, batch, { ...IDENTIFIED, "idempotency-key": "key-batch" });
    expect(again.json).toEqual(first.json);
    expect(again.headers.get("idempotent-replayed")).toBe("1");
    expect([await executions("batch-a"), await executions("batch-b")]).toEqual([1, 1]);
  });

  it("stores deterministic skill errors and replays them", async () => {
    const bad = await call({ label: 5 }, "key-invalid");
    expect(bad.json.error.code).toBe(-32602);
    const again = await call({ label: 5 }, "key-invalid");
    expect(again.json.error).toEqual(bad.json.error);
    expect(again.headers.get("idempotent-replayed")).toBe("1");
  });

  it("does not store a transient failure: the same key runs again", async () => {
    const hang = { jsonrpc: "2.0", method: "test.misbehave", params: { mode: "hang", ms: 1_000 }, id: 1 };
    const first = await post(`${mesh.gatewayUrl}/rpc`, hang, { ...IDENTIFIED, "idempotency-key": "key-timeout" });
    expect(first.json.error.code).toBe(-32004);
    const second = await post(`${mesh.gatewayUrl}/rpc`, hang, { ...IDENTIFIED, "idempotency-key": "key-timeout" });
    expect(second.json.error.code).toBe(-32004);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
  });

  it("a duplicate that cannot wait for the first answer within its budget gets -32002", async () => {
    const first = call({ label: "slow", delayMs: 1_500 }, "key-slow", { "x-timeout-ms": "5000" });
    await eventually(
      () => executions("slow"),
      (count) => count === 1,
      3_000,
      20,
    ); // the first is running
    const impatient = await call({ label: "slow", delayMs: 1_500 }, "key-slow", { "x-timeout-ms": "100" });
    expect(impatient.json.error).toMatchObject({ code: -32002, data: { retryAfterMs: expect.any(Number) } });
    expect((await first).json.result.count).toBe(1);
    expect((await call({ label: "slow", delayMs: 1_500 }, "key-slow")).headers.get("idempotent-replayed")).toBe("1");
  });

  it("refuses a key with spaces or control characters", async () => {
    expect((await call({ label: "x" }, "bad key")).json.error.code).toBe(-32600);
  });
});
