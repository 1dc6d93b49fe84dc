/**
 * The circuit breaker and the fallback chain, in workerd on real Redis, with two gateway
 * instances sharing one store: failures of several callers open a deployment's breaker under the
 * default thresholds, the fallback answers every later call, 429s never open it, one probe closes
 * it after recovery, and a failing canary is rolled back with an event. (What one caller alone
 * cannot do is in security-store.test.ts.) Every test starts from closed breakers and healthy
 * skills, whatever the one before did.
 */
import { createClient } from "redis";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { type Mesh, type MeshSkill, registerSkill, startMesh } from "../scripts/mesh/index.js";
import { runCli } from "../scripts/cli/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

const PREFIX = `breaker-${process.pid}:`;
const upstash = () => ({ url: inject("redisRestUrl"), token: inject("redisRestToken") });
const gatewayVars = { SKILLMESH_STORE_PREFIX: PREFIX };
let a: Mesh;
let b: Mesh;
let redis: ReturnType<typeof createClient>;
const skill = (version: string): MeshSkill => a.skills.find((s) => s.manifest.version === version)!;
const control = async (version: string, mode: string, times?: number) =>
  (await post(`${skill(version).url}/control`, { mode, ...(times === undefined ? {} : { times }) })).json;
const callsTo = async (version: string) => ((await (await fetch(`${skill(version).url}/control`)).json()) as { calls: number }).calls;
const call = (gateway: Mesh, headers: Record<string, string> = {}, value = "v") => wireOf(gateway.gatewayUrl).rpc("test.flaky", { value }, { headers });
const answeredBy = (answer: Awaited<ReturnType<typeof call>>) => answer.headers.get("x-skill-version");

/**
 * Calls one at a time, each as another caller (a breaker opens only on failures of several),
 * until `done` holds (the breaker is written after each response).
 */
async function callUntil(
  gateway: Mesh,
  done: (answer: Awaited<ReturnType<typeof call>>) => boolean,
  headers: Record<string, string> = {},
  max = 20,
  withinMs = Infinity,
) {
  const answers = [];
  const until = Date.now() + withinMs;
  for (let i = 0; i < max && Date.now() < until; i++) {
    const answer = await call(gateway, { ...headers, authorization: `Bearer caller-${i}` });
    answers.push(answer);
    if (done(answer)) break;
  }
  return answers;
}

/** Makes the stable version fail until its breaker opens and the degraded deployment answers. */
async function openStable() {
  await control("1.0.0", "throw");
  return callUntil(a, (r) => r.headers.get("x-skill-degraded") === "1");
}

beforeAll(async () => {
  a = await startMesh({
    skills: ["flaky-v1", "flaky-v2", "flaky-degraded"].map(fixture),
    adminToken: ADMIN_TOKEN,
    upstash: upstash(),
    register: false,
    gatewayVars,
  });
  b = await startMesh({ skills: [], adminToken: ADMIN_TOKEN, upstash: upstash(), gatewayVars });
  for (const version of ["1.0.0", "2.0.0", "0.9.0-lead"]) await registerSkill(a.gatewayUrl, ADMIN_TOKEN, { url: skill(version).url });
  redis = createClient({ url: inject("redisUrl") });
  await redis.connect();
});
afterAll(async () => {
  await redis?.quit();
  await a?.dispose();
  await b?.dispose();
});

// Healthy skills, closed breakers, 1.0.0 at 100%: and both gateways have seen it (their status
// caches are a second old at most), checked by polling rather than waiting a fixed time.
beforeEach(async () => {
  for (const version of ["1.0.0", "2.0.0", "0.9.0-lead"]) await control(version, "ok");
  const keys = await redis.keys(`${PREFIX}sm:breaker:*`);
  if (keys.length) await redis.del(keys);
  await admin(a.gatewayUrl, "POST", "/skills/test.flaky/promote", { version: "1.0.0" });
  for (const gateway of [a, b]) {
    const healthy = await eventually(
      () => call(gateway),
      (r) => answeredBy(r) === "test.flaky@1.0.0",
      5_000,
      100,
    );
    expect(answeredBy(healthy)).toBe("test.flaky@1.0.0");
  }
});

describe("circuit breaker", () => {
  it("429s are passed on as -32005 with retryAfterMs and never open the breaker", async () => {
    await control("1.0.0", "429");
    for (let i = 0; i < 25; i++) {
      const answer = await call(a, { authorization: `Bearer caller-${i}` });
      expect(answer.json.error).toMatchObject({ code: -32005, data: { retryAfterMs: 1_000 } });
    }
    await control("1.0.0", "ok");
    const after = await call(a);
    expect(answeredBy(after)).toBe("test.flaky@1.0.0");
    expect(after.json.result).toEqual({ value: "v", version: "1.0.0" });
  });

  it("failures of several callers in a row open the stable's breaker; the degraded deployment answers every later call", async () => {
    const answers = await openStable();
    const failures = answers.filter((r) => r.json.error?.code === -32603);
    // 5 failures in a row not counting the caller with most of them: 6 callers, one failure each.
    expect(failures.length).toBeGreaterThanOrEqual(6);
    // Failures are recorded after the answer (waitUntil): on a loaded machine the record that
    // opens the breaker can land a few calls late (9 seen in CI), but not many.
    expect(failures.length).toBeLessThanOrEqual(11);
    const last = answers.at(-1)!;
    expect(answeredBy(last)).toBe("test.flaky@0.9.0-lead");
    expect(last.json.result.version).toBe("0.9.0-lead");
    const reached = await callsTo("1.0.0");
    for (let i = 0; i < 10; i++) expect((await call(a)).headers.get("x-skill-degraded")).toBe("1");
    expect(await callsTo("1.0.0")).toBe(reached);
  });

  it("another gateway instance sees the same open breaker at its first call", async () => {
    // Started first (it takes longer than the fixture's 1 s open period), called only after.
    const fresh = await startMesh({ skills: [], adminToken: ADMIN_TOKEN, upstash: upstash(), gatewayVars });
    try {
      await openStable();
      const answer = await call(fresh);
      expect(answer.headers.get("x-skill-degraded")).toBe("1");
      expect(answer.json.result.version).toBe("0.9.0-lead");
    } finally {
      await fresh.dispose();
    }
  });

  it("an MCP tools/call takes the same fallback (one pipeline): the degraded answer, marked", async () => {
    await openStable();
    const answer = await post(
      `${a.gatewayUrl}/mcp`,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "test.flaky", arguments: { value: "v" } } },
      { "mcp-protocol-version": "2025-11-25" },
    );
    expect(answer.headers.get("x-skill-degraded")).toBe("1");
    expect(answeredBy(answer)).toBe("test.flaky@0.9.0-lead");
    expect(answer.json.result).toMatchObject({ structuredContent: { value: "v", version: "0.9.0-lead" } });
    expect(answer.json.result.isError).toBeUndefined();
  });

  it("after the open period one probe goes through, and its success closes the breaker", async () => {
    await openStable();
    await control("1.0.0", "ok");
    const { json } = await admin(a.gatewayUrl, "GET", "/deployments");
    const openUntil = json.breakers["test.flaky@1.0.0"].openUntil as number;
    expect(openUntil).toBeGreaterThan(Date.now() - 1_000); // the fixture's open period is 1 s
    await eventually(
      async () => Date.now(),
      (now) => now >= openUntil + 20,
      3_000,
      20,
    );
    // A slow call (300 ms) holds the probe open while the rest of the burst arrives. Calls decided
    // after the probe's success closed the breaker rightly go to 1.0.0 too (on a loaded machine a
    // burst spreads out), so the rule is checked where it bites: no call ran beside the probe.
    const burst = await Promise.all(Array.from({ length: 10 }, () => call(a, {}, "slow")));
    const { spans } = (await (await fetch(`${skill("1.0.0").url}/control`)).json()) as { spans: Array<[number, number]> };
    const [probe, ...after] = [...spans].sort(([x], [y]) => x - y);
    expect(probe).toBeDefined();
    for (const [start] of after) expect(start).toBeGreaterThanOrEqual(probe![1]); // one probe at a time
    const recovered = burst.filter((r) => r.json.result?.version === "1.0.0");
    expect(recovered).toHaveLength(spans.length);
    expect(burst.filter((r) => r.headers.get("x-skill-degraded") === "1")).toHaveLength(10 - spans.length);
    // Closed once the probe's record lands and the cached statuses refresh: polled, not slept.
    const closed = await eventually(
      () => call(a),
      (r) => answeredBy(r) === "test.flaky@1.0.0",
      3_000,
      100,
    );
    expect(closed.json.result.version).toBe("1.0.0");
    expect(closed.headers.get("x-skill-degraded")).toBeNull();
  });

  it("a failing canary is rolled back automatically, with an event; its users go to stable", async () => {
    expect((await admin(a.gatewayUrl, "POST", "/skills/test.flaky/canary", { version: "2.0.0", groups: { beta: 100 } })).status).toBe(200);
    await control("2.0.0", "503");
    const beta = { "x-user-group": "beta", "x-user-id": "u1" };
    const answers = await callUntil(a, (r) => r.json.result?.version === "1.0.0", beta);
    expect(answers.at(-1)!.json.result.version).toBe("1.0.0");
    // test.flaky is idempotent: each call's 503 is retried, so fewer calls than failures are needed.
    expect(await callsTo("2.0.0")).toBeGreaterThanOrEqual(5);
    const skillNow = () => admin(a.gatewayUrl, "GET", "/skills/test.flaky");
    const { json } = await eventually(skillNow, (r) => r.json.routes.beta["2.0.0"] === 0);
    expect(json.routes.beta).toEqual({ "1.0.0": 100, "2.0.0": 0 });
    expect(json.events[0]).toMatchObject({
      type: "rollback",
      version: "2.0.0",
      by: "breaker",
      reason: expect.stringMatching(/breaker opened \(\d+ consecutive failures from \d+ callers\)/),
    });
    expect(Number.isFinite(json.events[0].at)).toBe(true);

    const lines: string[] = [];
    await runCli(["status", "test.flaky"], { env: { SKILLMESH_URL: b.gatewayUrl, SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN }, out: (l) => lines.push(l), fetch });
    const status = lines.join("\n");
    expect(status).toMatch(/2\.0\.0\s+canary\s+0%\s+0%\s+(open|half-open).*\(\d+ consecutive failures from \d+ callers\)/);
    expect(status).toMatch(/1\.0\.0\s+stable\s+100%\s+100%\s+closed/);
    expect(status).toMatch(/rollback\s+2\.0\.0\s+breaker\s+breaker opened/);
  });

  it("with every deployment's breaker open, -32001 says when to retry", async () => {
    await control("1.0.0", "throw");
    await control("0.9.0-lead", "throw");
    // Two breakers open one after the other, each seen by the gateway within its status cache's
    // second: bounded by that time, not by a count of calls (a fast run makes 30 calls in less).
    const answers = await callUntil(a, (r) => r.json.error?.code === -32001, {}, 500, 20_000);
    const last = answers.at(-1)!;
    expect(last.json.error.message).toMatch(/no healthy deployment/);
    expect(last.json.error.data.retryAfterMs).toBeGreaterThan(0);
  });
});
