/**
 * Progressive delivery end to end in workerd: real calls through the gateway, the gateway's own
 * scheduled handler driven as the Cron Trigger would (Miniflare's `scheduled()`), steps of a
 * second (configuration, not faked metrics). A healthy canary climbs its steps and is promoted;
 * a failing one is rolled back with the reason; pause, resume and abort; the CLI shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { runCli } from "../scripts/cli/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

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
/**
 * Traffic from many users (each lands on a version by their bucket) of several callers (a rollout
 * is judged only on more than one caller's calls: no single caller decides).
 */
async function traffic(calls: number, options: { callers?: string[]; value?: string } = {}): Promise<void> {
  const callers = options.callers ?? ["alice", "bob", "carol", "dave", "erin"];
  await Promise.all(
    Array.from({ length: calls }, (_, i) =>
      wireOf(mesh.gatewayUrl).rpc(
        "test.flaky",
        { value: options.value ?? "x" },
        { key: `caller-${callers[i % callers.length]}`, headers: { "x-user-id": `u${user++}` } },
      ),
    ),
  );
}

const rolloutOf = async () =>
  (await admin(mesh.gatewayUrl, "GET", "/skills/test.flaky")).json as {
    rollout?: { state: string; step: number; steps: number[]; status: string; history: Array<{ type: string; reason: string }> };
    routes: Record<string, Record<string, number>>;
  };

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
    const started = await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", {
      version: "2.0.0",
      steps: [25, 50, 100],
      every: "1s",
      maxErrorRate: "10%",
      minCalls: 5,
    });
    expect(started.status).toBe(200);
    expect((await rolloutOf()).routes["*"]).toEqual({ "1.0.0": 75, "2.0.0": 25 });
    // A second rollout of the skill while one runs is refused.
    expect((await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", { version: "2.0.0", steps: [50], every: "1s", maxErrorRate: 0.1 })).status).toBe(
      409,
    );

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
    // 1.0.0 is the canary now; its next 4 calls answer 503: a step's error rate far past 5%, and
    // fewer failures in a row than open its breaker (which would roll it back first, and stop the rollout).
    await fetch(`${mesh.skills.find((s) => s.manifest.version === "1.0.0")!.url}/control`, { method: "POST", body: JSON.stringify({ mode: "503", times: 4 }) });
    try {
      const started = await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", {
        version: "1.0.0",
        steps: [50, 100],
        every: "1h",
        maxErrorRate: "5%",
        minCalls: 5,
      });
      expect(started.status).toBe(200);
      // `every: 1h`: it does not wait for the end of the step to go back.
      const failed = await driveUntil((view) => view.rollout!.state !== "running");
      expect(failed.rollout!.state).toBe("rolled-back");
      expect(failed.rollout!.status).toMatch(/^error rate \d+\.\d% over \d+ calls > 5\.0%$/);
      expect(failed.routes["*"]).toEqual({ "1.0.0": 0, "2.0.0": 100 });

      const out: string[] = [];
      await runCli(["status", "test.flaky"], {
        env: { SKILLMESH_URL: mesh.gatewayUrl, SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN },
        out: (line) => out.push(line),
        fetch,
      });
      const text = out.join("\n");
      expect(text).toContain("Rollout of test.flaky 1.0.0 (vs 2.0.0): rolled-back, step 1/2 (50% in *)");
      expect(text).toMatch(/now: error rate \d+\.\d% over \d+ calls > 5\.0%/);
      expect(text).toMatch(/ rollback +error rate \d+\.\d% over \d+ calls > 5\.0%/);
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
    await eventually(
      async () => (await admin(mesh.gatewayUrl, "GET", "/skills/test.flaky")).json.observed["test.flaky@1.0.0"]?.calls ?? 0,
      (calls) => calls > 0,
      5_000,
      100,
    );
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
    expect(
      (await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", { version: "1.0.0", steps: [50, 10], every: "1s", maxErrorRate: 0.1 })).json.error
        .issues,
    ).toEqual(expect.arrayContaining([expect.objectContaining({ message: "steps must rise, e.g. [5, 25, 50, 100]" })]));
  }, 60_000);

  describe("no single caller decides a rollout (the breaker's rule)", () => {
    /** Runs `check` during a rollout of 1.0.0 made with `plan`, and aborts the rollout afterwards, whatever happened. */
    const duringRollout = async (plan: object, check: () => Promise<void>) => {
      expect((await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", { version: "1.0.0", steps: [50, 100], minCalls: 5, ...plan })).status).toBe(
        200,
      );
      try {
        await check();
      } finally {
        await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout/abort", {});
      }
    };
    const canaryCalls = async (): Promise<number> => (await admin(mesh.gatewayUrl, "GET", "/skills/test.flaky")).json.observed["test.flaky@1.0.0"]?.calls ?? 0;
    /** Sends the traffic, waits until the canary's share of it is in the observed numbers (about a second after the calls), then fires the Cron Trigger. */
    const afterTraffic = async (send: () => Promise<void>, canaryShare: number, settled = (status: string) => !status.startsWith("waiting for")) => {
      const before = await canaryCalls();
      await send();
      await eventually(canaryCalls, (seen) => seen >= before + canaryShare, 5_000, 100);
      // Each isolate writes its sums about a second after its calls: tick until the step is judged.
      return eventually(
        async () => (await tick(), rolloutOf()),
        (view) => settled(view.rollout?.status ?? ""),
        5_000,
        250,
      );
    };

    it("one caller's failing input does not roll back a healthy canary", async () => {
      await duringRollout({ every: "1h", maxErrorRate: "5%" }, async () => {
        // Mallory sends input that crashes the handler, through users that land on the canary too.
        const view = await afterTraffic(async () => {
          await traffic(40, { callers: ["mallory"], value: "poison" });
          await traffic(40);
        }, 30);
        expect(view.rollout).toMatchObject({ state: "running", step: 0 });
        expect(view.rollout!.status).toMatch(/^healthy so far \(0\.0% errors over \d+ calls\)/);
      });
    }, 60_000);

    it("one caller's many good calls do not carry a canary that fails everyone else", async () => {
      await duringRollout({ every: "1s", maxErrorRate: "10%" }, async () => {
        // Four callers' input crashes it; mallory's 400 good calls, sent between theirs, would have
        // diluted that to under 10% (and keep its breaker closed: never five failures in a row).
        // 40 failing calls: about 20 land on the canary, so the three callers left once the one
        // with the most failures is set aside still make minCalls, whichever users they are.
        const view = await afterTraffic(async () => {
          for (let round = 0; round < 10; round++) {
            await traffic(4, { callers: round % 2 ? ["alice", "bob"] : ["carol", "dave"], value: "poison" });
            await traffic(40, { callers: ["mallory"] });
          }
        }, 180);
        expect(view.rollout!.state, view.rollout!.status).toBe("rolled-back");
        expect(view.rollout!.status).toMatch(/^error rate 100\.0% over \d+ calls > 10\.0%$/);
      });
    }, 60_000);

    it("a canary only one caller uses waits, and says why", async () => {
      await duringRollout({ every: "1s", maxErrorRate: "10%" }, async () => {
        const view = await afterTraffic(
          () => traffic(40, { callers: ["mallory"] }),
          10,
          (status) => status.includes("no single caller decides"),
        );
        expect(view.rollout).toMatchObject({ state: "running", step: 0 });
        expect(view.rollout!.status).toMatch(/^waiting for 5 calls on 1\.0\.0 \(0 so far, not counting c_[0-9a-f]{16}: no single caller decides\)$/);
      });
    }, 60_000);
  });
});
