/**
 * Declared and observed numbers side by side, after real calls in workerd: a skill's declared
 * cost and reliability, and what the gateway measured of its calls — failures and slow calls
 * included — in `skills.list`, `skills.discover` and the admin API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../scripts/cli/index.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
beforeAll(async () => {
  mesh = await startMesh({ skills: [fixture("flaky-unsafe")], adminToken: ADMIN_TOKEN });
});
afterAll(() => mesh?.dispose());

const call = (value: unknown) => wireOf(mesh.gatewayUrl).rpc("test.unsafe", { value });

describe("observed numbers", () => {
  it("show calls, error rate and latency beside what the skill declares", async () => {
    const skill = mesh.skills[0]!;
    await fetch(`${skill.url}/control`, { method: "POST", body: JSON.stringify({ mode: "503", times: 2 }) });
    // 2 failures (not idempotent: no retries), 4 fast calls, 2 slow ones (300 ms), 1 bad input.
    for (const value of ["v", "v"]) expect((await call(value)).json.error.code).toBe(-32001);
    for (const value of ["v", "v", "v", "v", "slow", "slow"]) expect((await call(value)).json.result.value).toBe(value);
    expect((await call(42)).json.error.code).toBe(-32602); // the caller's mistake: a success for the skill

    const listed = await eventually(
      async () => (await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", id: 1, method: "skills.list" })).json.result[0],
      (summary) => summary.observed?.calls === 9,
      10_000,
      250,
    );
    expect(listed).toMatchObject({
      name: "test.unsafe",
      cost: { currency: "USD", perCall: 0.002 },
      reliability: { successRate: 0.99, p95Ms: 250 },
      observed: { calls: 9, errorRate: 2 / 9, windowMs: 900_000 },
    });
    // p95 is a slow call's 300 ms (within the sketch's 2%, plus the hop), p50 a fast one's.
    expect(listed.observed.p95Ms).toBeGreaterThanOrEqual(300 * 0.98);
    expect(listed.observed.p95Ms).toBeLessThan(450);
    expect(listed.observed.p50Ms).toBeLessThanOrEqual(50);
    const discovered = (await wireOf(mesh.gatewayUrl).rpc("skills.discover", { capability: "fixture" })).json.result[0];
    expect(discovered.observed).toEqual(listed.observed);
    const { json } = await admin(mesh.gatewayUrl, "GET", "/deployments");
    expect(json.observed["test.unsafe@1.0.0"]).toMatchObject({ calls: 9, errorRate: 2 / 9, p95Ms: listed.observed.p95Ms });
    const lines: string[] = [];
    await runCli(["status", "test.unsafe"], {
      env: { SKILLMESH_URL: mesh.gatewayUrl, SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN },
      out: (line) => lines.push(line),
      fetch,
    });
    expect(lines[0]).toBe("test.unsafe  (0.002 USD a call)");
    expect(lines.join("\n")).toContain(`9 calls, 22.2% errors (promised 1.0%), p95 ${listed.observed.p95Ms} ms (promised 250)`);
  });
});
