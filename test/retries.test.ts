/**
 * Retries and timeouts through the gateway (workerd): transient failures of an idempotent skill
 * are retried (at most twice), a non-idempotent call without a key never is, a 429's Retry-After
 * is honoured when the caller's budget allows and passed on otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
beforeAll(async () => {
  mesh = await startMesh({ skills: [fixture("flaky-v1"), fixture("flaky-unsafe")], adminToken: ADMIN_TOKEN });
});
afterAll(() => mesh?.dispose());

const urlOf = (name: string) => mesh.skills.find((s) => s.manifest.name === name)!.url;
const control = (name: string, mode: string, times?: number) => post(`${urlOf(name)}/control`, { mode, ...(times === undefined ? {} : { times }) });
const callsTo = async (name: string) => ((await (await fetch(`${urlOf(name)}/control`)).json()) as { calls: number }).calls;
const call = (method: string, headers: Record<string, string> = {}) => wireOf(mesh.gatewayUrl).rpc(method, { value: "x" }, { headers });

describe("retries", () => {
  it("retries an idempotent skill's transient 503s and succeeds", async () => {
    await control("test.flaky", "503", 2);
    const answer = await call("test.flaky");
    expect(answer.json.result).toEqual({ value: "x", version: "1.0.0" });
    expect(await callsTo("test.flaky")).toBe(3);
  });

  it("retries a timeout within the caller's budget", async () => {
    await control("test.flaky", "hang", 1);
    const answer = await call("test.flaky", { "x-timeout-ms": "3000" });
    expect(answer.json.result.version).toBe("1.0.0");
    expect(await callsTo("test.flaky")).toBe(2);
  });

  it("never retries a non-idempotent call without an Idempotency-Key", async () => {
    await control("test.unsafe", "503", 1);
    const answer = await call("test.unsafe");
    expect(answer.json.error).toMatchObject({ code: -32001, data: { retryAfterMs: expect.any(Number) } });
    expect(await callsTo("test.unsafe")).toBe(1);
  });

  it("retries a non-idempotent call that carries an Idempotency-Key", async () => {
    await control("test.unsafe", "503", 1);
    const answer = await call("test.unsafe", { "idempotency-key": "retry-with-key", authorization: "Bearer retries" });
    expect(answer.json.result.version).toBe("1.0.0");
    expect(await callsTo("test.unsafe")).toBe(2);
  });

  it("honours a 429's Retry-After when the budget allows it", async () => {
    await control("test.flaky", "429", 1);
    const started = Date.now();
    const answer = await call("test.flaky", { "x-timeout-ms": "3000" });
    expect(answer.json.result.version).toBe("1.0.0");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950); // the skill asked for 1 s
  });

  it("passes a 429 on as -32005 with retryAfterMs when the budget does not allow the wait", async () => {
    await control("test.flaky", "429", 1);
    const answer = await call("test.flaky"); // default budget: 2 × 400 ms
    expect(answer.json.error).toMatchObject({ code: -32005, data: { retryAfterMs: 1_000 } });
    expect(await callsTo("test.flaky")).toBe(1);
  });

  it("the skill's own timeouts count against the breaker: a skill that keeps hanging is cut off with -32001", async () => {
    await control("test.unsafe", "hang");
    const codes: number[] = [];
    for (let i = 0; i < 10 && codes.at(-1) !== -32001; i++) {
      codes.push((await call("test.unsafe", { authorization: `Bearer caller-${i}` })).json.error.code); // several callers: one alone never opens it
      await new Promise((r) => setTimeout(r, 30)); // the breaker is written after each response
    }
    expect(codes.filter((c) => c === -32004).length).toBeGreaterThanOrEqual(5);
    const cut = await call("test.unsafe");
    expect(cut.json.error).toMatchObject({ code: -32001, data: { retryAfterMs: expect.any(Number) } });
  });

  it("gives up after 2 retries", async () => {
    await control("test.flaky", "503");
    const answer = await call("test.flaky", { "x-timeout-ms": "5000" });
    expect(answer.json.error.code).toBe(-32001);
    expect(await callsTo("test.flaky")).toBe(3);
  });
});
