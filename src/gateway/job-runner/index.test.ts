/**
 * `runJob`'s rules for a job's record (the end-to-end path through Workflows is test/jobs.test.ts):
 * a queued job runs and records its result; a job found `running` — a run cut off with its
 * isolate, retried by the engine — runs again only if its skill is idempotent; a job whose lease
 * ran out (its runner is gone) is started again or failed by `recoverStrandedJobs`.
 */
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import subtract from "../../../test/fixtures/skills/subtract/index.js";
import { gatewayRuntime } from "../chain/runtime.js";
import type { Job } from "../../registry/jobs/index.js";
import { recoverStrandedJobs, runJob } from "./index.js";

const env = { SKILLMESH_STORE: "memory", SKILLMESH_STORE_PREFIX: "run-job-test:", SKILLMESH_ALLOW_PRIVATE_ENDPOINTS: "true" };
let server: ReturnType<typeof serve>;

beforeAll(async () => {
  await new Promise<void>((resolve) => (server = serve({ fetch: subtract.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve())));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  await gatewayRuntime(env).registry.register({ manifest: subtract.manifest, endpoint: { url }, registrationId: "r" }, Date.now());
});
afterAll(() => server?.close());

let next = 0;
async function jobIn(status: "queued" | "running", idempotent: boolean): Promise<string> {
  const { jobs } = gatewayRuntime(env);
  const now = Date.now();
  const id = `j_test${++next}`;
  const job: Job = {
    id,
    owner: "k_1",
    method: "subtract",
    params: [42, 23],
    context: { caller: "k_1" },
    status: "queued",
    createdAt: now,
    updatedAt: now,
    expiresAt: now + jobs.ttlMs,
    fingerprint: "f",
    idempotent,
  };
  await jobs.create(job);
  if (status === "running") await jobs.move(id, ["queued"], { status: "running" }, now);
  return id;
}

describe("runJob", () => {
  it("runs a queued job and records its result", async () => {
    const id = await jobIn("queued", false);
    await runJob(env, id, () => {});
    expect(await gatewayRuntime(env).jobs.get(id)).toMatchObject({ status: "completed", result: 19 });
  });

  it("runs a cut-off job again when its skill is idempotent", async () => {
    const id = await jobIn("running", true);
    await runJob(env, id, () => {});
    expect(await gatewayRuntime(env).jobs.get(id)).toMatchObject({ status: "completed", result: 19 });
  });

  it("fails a cut-off job of a non-idempotent skill instead of running it twice", async () => {
    const id = await jobIn("running", false);
    await runJob(env, id, () => {});
    expect(await gatewayRuntime(env).jobs.get(id)).toMatchObject({
      status: "failed",
      error: { code: -32001, message: expect.stringContaining("interrupted") },
    });
  });
});

describe("recoverStrandedJobs", () => {
  /** The job engine's binding, recording the instances it is asked for. */
  const created: Array<{ id: string; params: { jobId: string; attempt?: number } }> = [];
  const withEngine = { ...env, JOBS: { create: async (options: (typeof created)[number]) => void created.push(options) } } as unknown as typeof env;

  it("starts again a stranded queued or idempotent running job, fails a non-idempotent one, and leaves live leases alone", async () => {
    const { jobs } = gatewayRuntime(withEngine);
    const now = Date.now();
    const [queued, idempotent, unsafe, live, done] = [
      await jobIn("queued", false),
      await jobIn("running", true),
      await jobIn("running", false),
      await jobIn("running", false),
      await jobIn("queued", false),
    ];
    for (const id of [queued, idempotent, unsafe, done]) await jobs.lease(id, now - 1);
    await jobs.lease(live, now + 60_000);
    await runJob(env, done, () => {}); // finished: its lease goes with it
    expect(await recoverStrandedJobs(withEngine, now)).toEqual({
      [queued]: "started again (attempt 1)",
      [idempotent]: "started again (attempt 1)",
      [unsafe]: "failed: interrupted, not idempotent",
    });
    expect(created).toEqual([queued, idempotent].map((id) => ({ id: `${id}-1`, params: { jobId: id, attempt: 1 } })));
    expect(await jobs.get(unsafe)).toMatchObject({ status: "failed", error: { code: -32001, message: expect.stringContaining("not idempotent") } });
    expect(await jobs.get(live)).toMatchObject({ status: "running" });
    // The new instance runs it; the old runner, if it comes back, finds it taken and leaves it.
    await runJob(env, idempotent, () => {}, 0);
    expect(await jobs.get(idempotent)).toMatchObject({ status: "running", attempt: 1 });
    await runJob(env, idempotent, () => {}, 1);
    expect(await jobs.get(idempotent)).toMatchObject({ status: "completed", result: 19 });
    // Nothing is stranded any more (the started ones hold a fresh lease until their engine starts them).
    expect(await recoverStrandedJobs(withEngine, Date.now())).toEqual({});
  });

  it("a job whose runner is lost again and again fails after MAX_JOB_RECOVERIES starts", async () => {
    const { jobs } = gatewayRuntime(withEngine);
    const id = await jobIn("running", true);
    for (let attempt = 1; attempt <= 3; attempt++) {
      await jobs.lease(id, Date.now() - 1);
      expect((await recoverStrandedJobs(withEngine, Date.now()))[id]).toBe(`started again (attempt ${attempt})`);
    }
    await jobs.lease(id, Date.now() - 1);
    expect((await recoverStrandedJobs(withEngine, Date.now()))[id]).toBe("failed: runner lost too often");
    expect(await jobs.get(id)).toMatchObject({ status: "failed", error: { message: expect.stringContaining("lost 3 times") } });
  });
});
