/**
 * Async jobs end to end in workerd, on the upstash driver against a real redis-server, with auth
 * on: `Prefer: respond-async` answers at once, the job runs on a Workflow (Miniflare's engine)
 * through the same pipeline, `jobs.get`/`jobs.list`/`jobs.cancel` show and control only the
 * caller's own jobs, an `Idempotency-Key` gives the same job, a failing skill falls back as a
 * direct call would, and a job's record outlives the gateway.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { webhookRefusal } from "../src/gateway/webhook/index.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

const SKILLS = [fixture("long"), fixture("long-unsafe"), fixture("flaky-v1"), fixture("flaky-degraded")];
const upstash = () => ({ url: inject("redisRestUrl"), token: inject("redisRestToken") });
// Its own key prefix in the shared redis-server, the same for the restarted gateway.
const CALLBACK_SECRET = "callback-secret-for-tests";
// A short job lease: a runner lost with the mesh is noticed within seconds.
const gatewayVars = {
  SKILLMESH_AUTH: "required",
  SKILLMESH_STORE_PREFIX: `jobs-test-${process.pid}:`,
  SKILLMESH_CALLBACK_SECRET: CALLBACK_SECRET,
  SKILLMESH_JOB_LEASE_MS: "2000",
};

let mesh: Mesh;
let alice: string;
let bob: string;

async function keyFor(name: string): Promise<string> {
  const { json } = await admin(mesh.gatewayUrl, "POST", "/keys", { name, skills: ["*"] });
  return json.key;
}

beforeAll(async () => {
  mesh = await startMesh({ skills: SKILLS, adminToken: ADMIN_TOKEN, upstash: upstash(), gatewayVars });
  alice = await keyFor("alice");
  bob = await keyFor("bob");
});
afterAll(() => mesh?.dispose());

/** A call on /rpc as the caller holding `key`. */
const rpc = (method: string, params: unknown, key: string, headers: Record<string, string> = {}) =>
  wireOf(mesh.gatewayUrl).rpc(method, params, { key, headers });
const submit = (method: string, params: unknown, key: string, headers: Record<string, string> = {}) =>
  rpc(method, params, key, { prefer: "respond-async", ...headers });
const getJob = async (jobId: string, key: string) => (await rpc("jobs.get", { jobId }, key)).json;
const finished = (jobId: string, key: string, timeoutMs = 10_000) =>
  eventually(
    () => getJob(jobId, key),
    (answer) => ["completed", "failed", "cancelled"].includes(answer.result?.status),
    timeoutMs,
    100,
  );
const seen = async (): Promise<{ started: number; finished: number; cancelled: number }> =>
  (await fetch(`${mesh.skills.find((s) => s.manifest.name === "test.long")!.url}/control`)).json();

describe("async jobs", () => {
  it("answers queued at once, runs the call on the job engine, and keeps the result", async () => {
    const t0 = Date.now();
    // 3 s of work: longer than the skill's timeoutMs (2 s), within its maxDurationMs (60 s).
    const accepted = await submit("test.long", { steps: 3, stepMs: 1_000 }, alice);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(accepted.headers.get("preference-applied")).toBe("respond-async");
    expect(accepted.json.result).toEqual({ status: "queued", jobId: expect.stringMatching(/^j_/) });
    const done = await finished(accepted.json.result.jobId, alice);
    expect(done.result).toMatchObject({ status: "completed", method: "test.long", result: { steps: 3 }, deployment: "test.long@1.0.0" });
    // The same call made directly is cut at the skill's timeoutMs.
    expect((await rpc("test.long", { steps: 3, stepMs: 1_000 }, alice)).json.error.code).toBe(-32004);
  });

  it("cancels a running job: its status says so and the skill sees its signal aborted", async () => {
    const before = await seen();
    const { jobId } = (await submit("test.long", { steps: 100, stepMs: 100 }, alice)).json.result;
    await eventually(
      () => getJob(jobId, alice),
      (answer) => answer.result?.status === "running",
      5_000,
      50,
    );
    await eventually(seen, (s) => s.started > before.started, 5_000, 50);
    const cancelled = await rpc("jobs.cancel", { jobId }, alice);
    expect(cancelled.json.result).toMatchObject({ jobId, status: "cancelled", error: { code: -32007 } });
    const after = await eventually(seen, (s) => s.cancelled > before.cancelled, 5_000, 50);
    expect(after.finished).toBe(before.finished);
    expect((await getJob(jobId, alice)).result.status).toBe("cancelled"); // the run's end does not overwrite it
  });

  it("shows a running job's progress, as the skill reports it", async () => {
    const { jobId } = (await submit("test.long", { steps: 8, stepMs: 400 }, alice)).json.result;
    const running = await eventually(
      () => getJob(jobId, alice),
      (answer) => answer.result?.progress !== undefined,
      10_000,
      100,
    );
    expect(running.result).toMatchObject({ status: "running", progress: { total: 8, message: expect.stringMatching(/^step \d of 8$/) } });
    expect((await finished(jobId, alice)).result).toMatchObject({ status: "completed", result: { steps: 8 } });
  });

  it("shows and controls only the caller's own jobs", async () => {
    const { jobId } = (await submit("test.long", { steps: 1, stepMs: 1 }, alice)).json.result;
    await finished(jobId, alice);
    expect((await getJob(jobId, bob)).error).toMatchObject({ code: -32602 });
    expect((await rpc("jobs.cancel", { jobId }, bob)).json.error.code).toBe(-32602);
    const bobs = (await rpc("jobs.list", {}, bob)).json.result;
    expect(bobs.jobs.map((j: { jobId: string }) => j.jobId)).not.toContain(jobId);
    const alices = (await rpc("jobs.list", { status: "completed" }, alice)).json.result;
    expect(alices.jobs.map((j: { jobId: string }) => j.jobId)).toContain(jobId);
    expect(alices.jobs.every((j: { status: string }) => j.status === "completed")).toBe(true);
  });

  it("pages jobs.list newest first", async () => {
    const carol = await keyFor("carol");
    const ids = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await submit("test.long", { steps: 1, stepMs: 1 }, carol)).json.result.jobId);
      await new Promise((resolve) => setTimeout(resolve, 5)); // distinct creation times
    }
    const first = (await rpc("jobs.list", { limit: 2 }, carol)).json.result;
    expect(first.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([ids[2], ids[1]]);
    const second = (await rpc("jobs.list", { limit: 2, cursor: first.nextCursor }, carol)).json.result;
    expect(second.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeUndefined();
  });

  it("gives a submit retried with the same Idempotency-Key the same job; other params are -32003", async () => {
    const key = `submit-${Date.now()}`;
    const first = await submit("test.long", { steps: 1, stepMs: 1 }, alice, { "idempotency-key": key });
    const again = await submit("test.long", { steps: 1, stepMs: 1 }, alice, { "idempotency-key": key });
    expect(again.json.result.jobId).toBe(first.json.result.jobId);
    const other = await submit("test.long", { steps: 2, stepMs: 1 }, alice, { "idempotency-key": key });
    expect(other.json.error.code).toBe(-32003);
    // The same key from another caller is another job.
    expect((await submit("test.long", { steps: 1, stepMs: 1 }, bob, { "idempotency-key": key })).json.result.jobId).not.toBe(first.json.result.jobId);
  });

  it("runs a job by the direct call's rules: retried, then failed while the breaker is closed; the degraded answer once it is open", async () => {
    const stable = mesh.skills.find((s) => s.manifest.name === "test.flaky" && !s.manifest.degraded)!;
    const calls = async () => ((await (await fetch(`${stable.url}/control`)).json()) as { calls: number }).calls;
    await fetch(`${stable.url}/control`, { method: "POST", body: JSON.stringify({ mode: "503" }) });
    try {
      const failing = (await submit("test.flaky", { value: "v" }, alice)).json.result.jobId;
      const failed = await finished(failing, alice);
      expect(failed.result).toMatchObject({ status: "failed", error: { code: -32001 }, deployment: "test.flaky@1.0.0" });
      expect(await calls()).toBe(3); // an idempotent skill: two retries, as for a direct call
      // Failures of several callers open the breaker (one caller alone cannot: security.md).
      const callers = [alice, bob, await keyFor("dave")];
      await eventually(
        async () => {
          const answers = await Promise.all(callers.map((key) => rpc("test.flaky", { value: "v" }, key)));
          return answers.some((answer) => answer.headers.get("x-skill-degraded") === "1");
        },
        (open) => open,
        10_000,
        0,
      );
      const degraded = (await submit("test.flaky", { value: "v" }, alice)).json.result.jobId;
      expect((await finished(degraded, alice)).result).toMatchObject({
        status: "completed",
        result: { value: "v", version: "0.9.0-lead" },
        deployment: "test.flaky@0.9.0-lead",
      });
    } finally {
      await fetch(`${stable.url}/control`, { method: "POST", body: JSON.stringify({ mode: "ok" }) });
    }
  });

  it("refuses what a direct call would refuse, at submit: an unknown method, bad grants", async () => {
    expect((await submit("nope", {}, alice)).json.error.code).toBe(-32601);
    const narrow = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "narrow", skills: ["test.flaky"] })).json.key as string;
    expect((await submit("test.long", { steps: 1, stepMs: 1 }, narrow)).json.error.code).toBe(-32601);
  });

  it("POSTs the result to the callback URL, signed, and again after a receiver's failure", async () => {
    const received: Array<{ path: string; signature: string | undefined; body: string }> = [];
    const receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        received.push({ path: request.url!, signature: request.headers["x-skillmesh-signature"] as string | undefined, body });
        response.writeHead(received.length === 1 ? 503 : 204).end(); // down once
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/jobs`;
      const { jobId } = (await submit("test.long", { steps: 1, stepMs: 1 }, alice, { "x-callback-url": url })).json.result;
      await eventually(
        async () => received.length,
        (n) => n >= 2,
        15_000,
        100,
      );
      const delivery = received[1]!;
      expect(JSON.parse(delivery.body)).toMatchObject({ jobId, status: "completed", result: { steps: 1 } });
      expect(await webhookRefusal(CALLBACK_SECRET, delivery.signature ?? null, { path: "/hooks/jobs", body: delivery.body })).toBeUndefined();
      expect(await webhookRefusal("another-secret-entirely", delivery.signature ?? null, { path: "/hooks/jobs", body: delivery.body })).toMatch(/./);
    } finally {
      receiver.close();
    }
    expect((await submit("test.long", { steps: 1, stepMs: 1 }, alice, { "x-callback-url": "ftp://example.com/x" })).json.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining("X-Callback-Url"),
    });
  });

  it("keeps a job's record across a gateway restart", async () => {
    const { jobId } = (await submit("test.long", { steps: 1, stepMs: 1 }, alice)).json.result;
    await finished(jobId, alice);
    await mesh.dispose();
    mesh = await startMesh({ skills: SKILLS, adminToken: ADMIN_TOKEN, upstash: upstash(), gatewayVars });
    expect((await getJob(jobId, alice)).result).toMatchObject({ jobId, status: "completed", result: { steps: 1 } });
  });

  it("a job running when the mesh stops is recovered after the restart: run again if idempotent, else failed with -32001", async () => {
    const again = (await submit("test.long", { steps: 4, stepMs: 1_000 }, alice)).json.result.jobId;
    const unsafe = (await submit("test.long-unsafe", { steps: 4, stepMs: 1_000 }, alice)).json.result.jobId;
    for (const id of [again, unsafe])
      await eventually(
        () => getJob(id, alice),
        (answer) => answer.result?.status === "running",
        10_000,
        100,
      );
    // Stopped mid-run: the job engine's instances go with the mesh; the records stay in Redis.
    await mesh.dispose();
    mesh = await startMesh({ skills: SKILLS, adminToken: ADMIN_TOKEN, upstash: upstash(), gatewayVars });
    expect((await getJob(again, alice)).result.status).toBe("running"); // what it said before: nobody runs it now
    // The gateway's scheduled handler (its Cron Trigger; npm run dev ticks it every 5 s) finds the leases that ran out.
    const tick = () => mesh.miniflare.getWorker("gateway").then((gateway) => gateway.scheduled({ cron: "* * * * *" }));
    const [rerun, failed] = await eventually(
      async () => (await tick(), [await getJob(again, alice), await getJob(unsafe, alice)]),
      ([a, u]) => a.result?.status === "completed" && u.result?.status === "failed",
      30_000,
      500,
    );
    expect(rerun.result).toMatchObject({ status: "completed", result: { steps: 4 } });
    expect(failed.result).toMatchObject({ status: "failed", error: { code: -32001, message: expect.stringContaining("not idempotent") } });
  }, 60_000);
});
