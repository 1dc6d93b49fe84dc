/**
 * A store that hangs and a store that refuses, on every request path, in workerd: a dedicated
 * redis-server is stopped with SIGSTOP (connections stay open, nothing answers — the REST
 * endpoint and the gateway wait) and then killed (the REST endpoint answers errors at once).
 * Calls go on from what the isolate knows (keys, limits, MCP, both eras), a call with an
 * Idempotency-Key or an async job answers -32001, `/healthz` says "degraded" within a second,
 * the admin API answers 503 — all within bounds, where before a hanging store held calls for
 * minutes; and once an operation has hung the isolate stops asking for a while (withOutageGate).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { startLocalUpstash } from "../scripts/redis-rest/serve.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post, registryLoaded } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

const STORE_TIMEOUT_MS = 300;
/** How soon every path must answer with the store broken: a few store deadlines, never minutes. */
const ANSWER_WITHIN_MS = 5 * STORE_TIMEOUT_MS + 1_000;
let local: Awaited<ReturnType<typeof startLocalUpstash>>;
let mesh: Mesh;
/** A gateway as deployed: every call needs a key; the key below has a rate limit and a quota. */
let keyed: Mesh;
let key: string;
/** A dashboard session cookie, taken while the store answered. */
let dashboardCookie: string;
/** subtract(5, 3) on the keyed gateway, with these headers. */
const subtractOnKeyed = (headers: Record<string, string>) =>
  post(`${keyed.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "subtract", params: [5, 3], id: 1 }, headers);

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
  const signedIn = await fetch(`${mesh.gatewayUrl}/admin/ui/session`, { method: "POST", body: new URLSearchParams({ key: ADMIN_TOKEN }), redirect: "manual" });
  dashboardCookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;

  keyed = await startMesh({
    skills: [fixture("subtract")],
    adminToken: ADMIN_TOKEN,
    upstash: { url: local.url, token: local.token },
    gatewayVars: {
      SKILLMESH_STORE_PREFIX: "keyed:",
      SKILLMESH_AUTH: "required",
      SKILLMESH_SNAPSHOT_MAX_AGE_MS: "0",
      SKILLMESH_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
    },
  });
  const created = await admin(keyed.gatewayUrl, "POST", "/keys", { name: "faults", skills: ["*"], rate: "1000/min", quota: "100000/day" });
  key = `Bearer ${created.json.key}`;
  // The key and the registry are in the isolate's snapshots before the store breaks.
  expect((await subtractOnKeyed({ authorization: key })).json.result).toBe(2);
  await registryLoaded(keyed.gatewayUrl, 1);
});
afterAll(async () => {
  resume(local);
  await mesh?.dispose();
  await keyed?.dispose();
  await local?.stop();
});

/** Lets a stopped redis-server go on (SIGCONT), if it still runs. */
function resume(server: Awaited<ReturnType<typeof startLocalUpstash>> | undefined): void {
  try {
    if (server) process.kill(server.redisPid, "SIGCONT");
  } catch {
    // already gone
  }
}

/** Runs `fn` and returns its value and how long it took. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

const call = (headers: Record<string, string> = {}) => wireOf(mesh.gatewayUrl).rpc("subtract", [5, 3], { headers });

/** The same expectations for a hanging and a refusing store. */
function everyPathAnswers(what: string) {
  it(`${what}: a plain call is served from the last registry snapshot, within the store's deadline`, async () => {
    for (let i = 0; i < 3; i++) {
      const { value, ms } = await timed(() => call());
      expect(value.json.result).toBe(2);
      expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
    }
  });

  it(`${what}: a call with an Idempotency-Key answers -32001 rather than risk running twice`, async () => {
    const { value, ms } = await timed(() => call({ "idempotency-key": `k-${what}`, authorization: "Bearer faults" }));
    expect(value.json.error).toMatchObject({ code: -32001, data: { retryAfterMs: expect.any(Number) } });
    expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
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
    expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
  });

  it(`${what}: the dashboard answers a 503 page that says the store is unavailable`, async () => {
    const { value, ms } = await timed(() => fetch(`${mesh.gatewayUrl}/admin/ui`, { headers: { cookie: dashboardCookie } }));
    expect(value.status).toBe(503);
    expect(value.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await value.text()).toMatch(/store is unavailable; reload in 2 s/);
    expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
  });

  it(`${what}: keyed calls (auth required, a rate limit and a quota) are served from the key snapshot, the limits let them through, and they do not each wait for the store`, async () => {
    // Each call meets three store operations in series (registry poll, key poll, rate limit):
    // before the isolate took a hanging store for down, every call waited three deadlines.
    const { value: answers, ms } = await timed(async () => {
      const answers = [];
      for (let i = 0; i < 10; i++) answers.push(await subtractOnKeyed({ authorization: key }));
      return answers;
    });
    expect(answers.map((answer) => answer.json.result)).toEqual(Array(10).fill(2));
    expect(ms).toBeLessThan(10 * STORE_TIMEOUT_MS);
    // An unknown key is still refused: a broken store opens nothing.
    const stranger = await subtractOnKeyed({ authorization: "Bearer sk_unknown" });
    expect(stranger.status).toBe(401);
  });

  it(`${what}: MCP tools/call answers in both eras`, async () => {
    const args = { name: "subtract", arguments: { minuend: 5, subtrahend: 3 } };
    const v2025 = await timed(() =>
      post(
        `${keyed.gatewayUrl}/mcp`,
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: args },
        { authorization: key, "mcp-protocol-version": "2025-11-25" },
      ),
    );
    expect(v2025.value.json.result.structuredContent).toEqual({ result: 2 });
    expect(v2025.ms).toBeLessThan(ANSWER_WITHIN_MS);
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const v2026 = await timed(() =>
      post(
        `${keyed.gatewayUrl}/mcp`,
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { ...args, _meta: meta } },
        {
          authorization: key,
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "subtract",
        },
      ),
    );
    expect(v2026.value.json.result).toMatchObject({ structuredContent: { result: 2 }, resultType: "complete" });
    expect(v2026.ms).toBeLessThan(ANSWER_WITHIN_MS);
  });

  it(`${what}: an async job submit answers -32001 (nowhere to keep the job); jobs.list and MCP tasks/list too`, async () => {
    const { value, ms } = await timed(() => subtractOnKeyed({ authorization: key, prefer: "respond-async" }));
    expect(value.json.error).toMatchObject({ code: -32001, data: { retryAfterMs: expect.any(Number) } });
    expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
    const { value: got, ms: getMs } = await timed(() =>
      post(`${keyed.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "jobs.list", params: {}, id: 2 }, { authorization: key }),
    );
    expect(got.json.error).toMatchObject({ code: -32001 });
    expect(getMs).toBeLessThan(ANSWER_WITHIN_MS);
    // The same jobs as MCP tasks (2025-11-25).
    const tasks = await timed(() =>
      post(
        `${keyed.gatewayUrl}/mcp`,
        { jsonrpc: "2.0", id: 3, method: "tasks/list", params: {} },
        { authorization: key, "mcp-protocol-version": "2025-11-25" },
      ),
    );
    expect(tasks.value.json.error).toMatchObject({ code: -32001, data: { retryAfterMs: expect.any(Number) } });
    expect(tasks.ms).toBeLessThan(ANSWER_WITHIN_MS);
  });

  it(`${what}: a gateway that never saw the registry answers -32001 with retryAfterMs`, async () => {
    const fresh = await startMesh({
      skills: [],
      adminToken: ADMIN_TOKEN,
      upstash: { url: local.url, token: local.token },
      gatewayVars: { SKILLMESH_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS) },
    });
    try {
      const { value, ms } = await timed(() => post(`${fresh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "subtract", params: [5, 3], id: 1 }));
      expect(value.json.error).toMatchObject({ code: -32001, data: { retryAfterMs: expect.any(Number) } });
      expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
    } finally {
      await fresh.dispose();
    }
  });
}

describe("a store that hangs while a keyed call runs", () => {
  // Its own redis-server: this one is stopped while the call runs, the shared one stays up.
  let midLocal: Awaited<ReturnType<typeof startLocalUpstash>>;
  let midMesh: Mesh;
  let logs: string[];
  beforeAll(async () => {
    midLocal = await startLocalUpstash("faults-mid");
    logs = [];
    midMesh = await startMesh({
      skills: [fixture("counter")],
      adminToken: ADMIN_TOKEN,
      upstash: { url: midLocal.url, token: midLocal.token },
      gatewayVars: { SKILLMESH_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS) },
      onLog: ({ message }) => logs.push(message),
    });
  });
  afterAll(async () => {
    resume(midLocal);
    await midMesh?.dispose();
    await midLocal?.stop();
  });

  it("answers the call that ran with its result, not -32001, when its answer cannot be stored", async () => {
    const counter = (params: Record<string, unknown>, headers: Record<string, string> = {}) =>
      post(`${midMesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "test.counter", params: { label: "mid", ...params }, id: 1 }, headers);
    const running = counter({ delayMs: 1_500 }, { "idempotency-key": "mid-call", authorization: "Bearer faults" });
    // The key is claimed and the skill runs (its count moved): now the store stops answering.
    await eventually(
      () => counter({ peek: true }),
      (answer) => answer.json.result?.count === 1,
      5_000,
    );
    expect((await counter({ peek: true })).json.result.count).toBe(1);
    process.kill(midLocal.redisPid, "SIGSTOP");
    const { value, ms } = await timed(() => running);
    expect(value.json).toEqual({ jsonrpc: "2.0", result: { label: "mid", count: 1 }, id: 1 });
    expect(ms).toBeLessThan(1_500 + ANSWER_WITHIN_MS);
    await eventually(
      async () => logs.join("\n"),
      (text) => /\[idempotency\] .*the call ran, but its answer could not be stored/.test(text),
      5_000,
    );
    expect(logs.join("\n")).toMatch(/\[idempotency\] .*the call ran, but its answer could not be stored/);
  });
});

describe("a hanging store (redis-server stopped with SIGSTOP)", () => {
  beforeAll(() => void process.kill(local.redisPid, "SIGSTOP"));
  afterAll(() => void process.kill(local.redisPid, "SIGCONT"));
  everyPathAnswers("hanging");
});

describe("a store that answers again (redis-server continued)", () => {
  it("within a few seconds every path works again: a keyed idempotent call runs, /healthz says ok, the admin API answers", async () => {
    // The isolate took the store for down; its next probe finds it back.
    const started = Date.now();
    const idempotent = await eventually(
      () => subtractOnKeyed({ authorization: key, "idempotency-key": "after-the-outage" }),
      (answer) => answer.json.result === 2,
      10_000,
    );
    expect(idempotent.json.result).toBe(2);
    expect(Date.now() - started).toBeLessThan(10_000);
    const health = await eventually(
      async () => (await (await fetch(`${mesh.gatewayUrl}/healthz`)).json()) as { status?: string },
      (body) => body.status === "ok",
      10_000,
    );
    expect(health).toEqual({ status: "ok" });
    expect((await admin(mesh.gatewayUrl, "GET", "/deployments")).status).toBe(200);
  });
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
