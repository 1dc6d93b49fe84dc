/**
 * A store that hangs and a store that refuses, on every request path, in workerd: a dedicated
 * redis-server is stopped with SIGSTOP (connections stay open, nothing answers — the REST
 * endpoint and the gateway wait) and then killed (the REST endpoint answers errors at once).
 * Calls go on from what the isolate knows, a keyed call answers -32001, `/healthz` says
 * "degraded" within a second, the admin API answers 503 — all within bounds, where before a
 * hanging store held calls for minutes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { startLocalUpstash } from "../scripts/redis-rest/serve.js";
import { ADMIN_TOKEN, admin, fixture, post, registryLoaded } from "./support/fixtures.js";

const STORE_TIMEOUT_MS = 300;
let local: Awaited<ReturnType<typeof startLocalUpstash>>;
let mesh: Mesh;

beforeAll(async () => {
  local = await startLocalUpstash("faults");
  mesh = await startMesh({
    skills: [fixture("subtract")],
    adminToken: ADMIN_TOKEN,
    upstash: { url: local.url, token: local.token },
    // Every call polls the registry (it meets the broken store each time); a short deadline.
    gatewayVars: { SKILLMESH_SNAPSHOT_MAX_AGE_MS: "0", SKILLMESH_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS) },
  });
  expect((await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "subtract", params: [5, 3], id: 1 })).json.result).toBe(2);
  // The "last snapshot" the tests below rely on.
  await registryLoaded(mesh.gatewayUrl, 1);
});
afterAll(async () => {
  try {
    process.kill(local.redisPid, "SIGCONT");
  } catch {
    // already gone
  }
  await mesh?.dispose();
  await local?.stop();
});

/** Runs `fn` and returns its value and how long it took. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

const call = (headers: Record<string, string> = {}) => post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "subtract", params: [5, 3], id: 1 }, headers);

/** The same expectations for a hanging and a refusing store. */
function everyPathAnswers(what: string) {
  it(`${what}: a plain call is served from the last registry snapshot, within the store's deadline`, async () => {
    for (let i = 0; i < 3; i++) {
      const { value, ms } = await timed(() => call());
      expect(value.json.result).toBe(2);
      expect(ms).toBeLessThan(5 * STORE_TIMEOUT_MS + 1_000);
    }
  });

  it(`${what}: a call with an Idempotency-Key answers -32001 rather than risk running twice`, async () => {
    const { value, ms } = await timed(() => call({ "idempotency-key": `k-${what}`, authorization: "Bearer faults" }));
    expect(value.json.error).toMatchObject({ code: -32001, data: { retryAfterMs: expect.any(Number) } });
    expect(ms).toBeLessThan(5 * STORE_TIMEOUT_MS + 1_000);
  });

  it(`${what}: /healthz says degraded within a second`, async () => {
    const { value, ms } = await timed(async () => (await fetch(`${mesh.gatewayUrl}/healthz`)).json());
    expect(value).toEqual({ status: "degraded" });
    expect(ms).toBeLessThan(1_500);
  });

  it(`${what}: the admin API answers 503 with a readable message`, async () => {
    const { value, ms } = await timed(() => admin(mesh.gatewayUrl, "GET", "/deployments"));
    expect(value.status).toBe(503);
    expect(value.json.error.message).toMatch(/store is unavailable/);
    expect(ms).toBeLessThan(5 * STORE_TIMEOUT_MS + 1_000);
  });

  it(`${what}: a gateway that never saw the registry answers -32001 with retryAfterMs`, async () => {
    const fresh = await startMesh({ skills: [], adminToken: ADMIN_TOKEN, upstash: { url: local.url, token: local.token }, gatewayVars: { SKILLMESH_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS) } });
    try {
      const { value, ms } = await timed(() => post(`${fresh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "subtract", params: [5, 3], id: 1 }));
      expect(value.json.error).toMatchObject({ code: -32001, data: { retryAfterMs: expect.any(Number) } });
      expect(ms).toBeLessThan(5 * STORE_TIMEOUT_MS + 1_000);
    } finally {
      await fresh.dispose();
    }
  });
}

describe("a hanging store (redis-server stopped with SIGSTOP)", () => {
  beforeAll(() => void process.kill(local.redisPid, "SIGSTOP"));
  afterAll(() => void process.kill(local.redisPid, "SIGCONT"));
  everyPathAnswers("hanging");
});

describe("a refusing store (redis-server gone)", () => {
  beforeAll(() => void process.kill(local.redisPid, "SIGKILL"));
  it("the REST endpoint answers an error at once instead of queueing the command", async () => {
    const { value, ms } = await timed(() =>
      fetch(local.url, { method: "POST", headers: { authorization: `Bearer ${local.token}` }, body: JSON.stringify(["GET", "x"]) }),
    );
    expect(value.status).toBeGreaterThanOrEqual(400);
    expect(ms).toBeLessThan(1_000);
  });
  everyPathAnswers("refusing");
});
