/**
 * Progressive delivery end to end in workerd: real calls through the gateway, the gateway's own
 * scheduled handler driven as the Cron Trigger would (Miniflare's `scheduled()`), steps of a
 * second (configuration, not faked metrics). A healthy canary climbs its steps and is promoted;
 * a failing one is rolled back with the reason; pause, resume and abort; the CLI shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { runCli } from "../scripts/cli/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post } from "./support/fixtures.js";

let mesh: Mesh;
beforeAll(async () => {
  // test.flaky 1.0.0 registers as stable, 2.0.0 as a canary at 0%.
  mesh = await startMesh({ skills: ["flaky-v1", "flaky-v2"].map(fixture), adminToken: ADMIN_TOKEN });
});
afterAll(() => mesh?.dispose());

/** The Cron Trigger, as Cloudflare fires it. */
async function tick(): Promise<void> {
  const gateway = await mesh.miniflare.getWorker("gateway");
  await gateway.scheduled({ cron: "* * * * *" });
}

let user = 0;
/** Traffic from many users (each lands on a version by their bucket). */
async function traffic(calls: number): Promise<void> {
  await Promise.all(Array.from({ length: calls }, () => post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "test.flaky", params: { value: "x" }, id: 1 }, { "x-user-id": `u${user++}` })));
}

const rolloutOf = async () => (await admin(mesh.gatewayUrl, "GET", "/skills/test.flaky")).json as { rollout?: { state: string; step: number; steps: number[]; status: string; history: Array<{ type: string; reason: string }> }; routes: Record<string, Record<string, number>> };

/** Traffic and ticks until the rollout is where `done` says (metrics land about a second after the calls). */
const driveUntil = (done: (view: Awaited<ReturnType<typeof rolloutOf>>) => boolean) =>
  eventually(
    async () => {
      await traffic(20);
      await tick();
      return rolloutOf();
    },
    done,
    30_000,
    200,
  );

const control = (version: string, mode: string) => {
  const skill = mesh.skills.find((s) => s.manifest.version === version)!;
  return fetch(`${skill.url}/control`, { method: "POST", body: JSON.stringify({ mode }) });
};

describe("progressive delivery", () => {
  it("a healthy canary climbs its steps, one per period, and is promoted at the end", async () => {
    const started = await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", { version: "2.0.0", steps: [25, 50, 100], every: "1s", maxErrorRate: "10%", minCalls: 5 });
    expect(started.status).toBe(200);
    expect((await rolloutOf()).routes["*"]).toEqual({ "1.0.0": 75, "2.0.0": 25 });
    // A second rollout of the skill while one runs is refused.
    expect((await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", { version: "2.0.0", steps: [50], every: "1s", maxErrorRate: 0.1 })).status).toBe(409);

    const atHalf = await driveUntil((view) => view.rollout!.step === 1);
    expect(atHalf.routes["*"]).toEqual({ "1.0.0": 50, "2.0.0": 50 });
    const done = await driveUntil((view) => view.rollout!.state !== "running");
    expect(done.rollout!.state).toBe("completed");
    expect(done.rollout!.history.map((e) => e.type)).toEqual(["complete", "advance", "advance", "start"]);
    expect(done.rollout!.history[0]!.reason).toMatch(/^healthy: 0\.0% errors over \d+ calls/);
    const { json } = await admin(mesh.gatewayUrl, "GET", "/skills/test.flaky");
    expect(json.deployments.find((d: { version: string }) => d.version === "2.0.0").role).toBe("stable");
    expect(json.routes["*"]).toEqual({ "1.0.0": 0, "2.0.0": 100 });
    expect(json.events[0]).toMatchObject({ type: "promote", version: "2.0.0", by: "rollout" });
  }, 60_000);

  it("a failing canary is rolled back at once, with the reason, and the CLI shows why", async () => {
    // 1.0.0 is the canary now; it answers 503 to everything.
    await control("1.0.0", "503");
    try {
      const started = await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", { version: "1.0.0", steps: [50, 100], every: "1h", maxErrorRate: "5%", minCalls: 5 });
      expect(started.status).toBe(200);
      // `every: 1h`: it does not wait for the end of the step to go back.
      const failed = await driveUntil((view) => view.rollout!.state !== "running");
      expect(failed.rollout!.state).toBe("rolled-back");
      expect(failed.rollout!.status).toMatch(/^error rate 100\.0% over \d+ calls > 5\.0%$/);
      expect(failed.routes["*"]).toEqual({ "1.0.0": 0, "2.0.0": 100 });

      const out: string[] = [];
      await runCli(["status", "test.flaky"], { env: { SKILLMESH_URL: mesh.gatewayUrl, SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN }, out: (line) => out.push(line), fetch });
      const text = out.join("\n");
      expect(text).toContain("Rollout of test.flaky 1.0.0 (vs 2.0.0): rolled-back, step 1/2 (50% in *)");
      expect(text).toMatch(/now: error rate 100\.0% over \d+ calls > 5\.0%/);
      expect(text).toMatch(/ rollback +error rate 100\.0% over \d+ calls > 5\.0%/);
    } finally {
      await control("1.0.0", "ok");
    }
  }, 60_000);

  it("pause holds the step whatever the numbers, resume starts it over, abort rolls back; the CLI drives all three", async () => {
    const io = { env: { SKILLMESH_URL: mesh.gatewayUrl, SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN }, out: (line: string) => out.push(line), fetch };
    const out: string[] = [];
    await runCli(["rollout", "test.flaky", "1.0.0", "--steps", "10,100", "--every", "1s", "--max-error-rate", "1%", "--min-calls", "1"], io);
    expect(out[0]).toMatch(/^Rollout of test\.flaky 1\.0\.0 \(vs 2\.0\.0\): running, step 1\/2 \(10% in \*\)/);
    await runCli(["rollout", "test.flaky", "pause", "--reason", "checking the logs"], io);
    expect((await rolloutOf()).rollout!.state).toBe("paused");
    // Healthy calls and ticks well past the step's second: a paused rollout does not move.
    await traffic(20);
    await eventually(async () => (await admin(mesh.gatewayUrl, "GET", "/skills/test.flaky")).json.observed["test.flaky@1.0.0"]?.calls ?? 0, (calls) => calls > 0, 5_000, 100);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the step's period, on purpose
    await tick();
    expect((await rolloutOf()).rollout).toMatchObject({ state: "paused", step: 0, status: "checking the logs" });
    await runCli(["rollout", "test.flaky", "resume"], io);
    expect((await rolloutOf()).rollout!.state).toBe("running");
    await runCli(["rollout", "test.flaky", "abort", "--reason", "not today"], io);
    const aborted = await rolloutOf();
    expect(aborted.rollout).toMatchObject({ state: "aborted", status: "not today" });
    expect(aborted.routes["*"]).toEqual({ "1.0.0": 0, "2.0.0": 100 });
    // Nothing left to resume or abort.
    expect((await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout/resume", {})).status).toBe(409);
    expect((await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", { version: "1.0.0", steps: [50, 10], every: "1s", maxErrorRate: 0.1 })).json.error.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ message: "steps must rise, e.g. [5, 25, 50, 100]" })]),
    );
  }, 60_000);
});
