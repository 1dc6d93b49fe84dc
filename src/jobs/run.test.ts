/**
 * `runJob`'s rules for a job's record (the end-to-end path through Workflows is test/jobs.test.ts):
 * a queued job runs and records its result; a job found `running` — a run cut off with its
 * isolate, retried by the engine — runs again only if its skill is idempotent.
 */
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import subtract from "../../test/fixtures/skills/subtract/index.js";
import { gatewayRuntime } from "../gateway/runtime.js";
import type { Job } from "./index.js";
import { runJob } from "./run.js";

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
  const job: Job = { id, owner: "k_1", method: "subtract", params: [42, 23], context: { caller: "k_1" }, status: "queued", createdAt: now, updatedAt: now, expiresAt: now + jobs.ttlMs, fingerprint: "f", idempotent };
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
    expect(await gatewayRuntime(env).jobs.get(id)).toMatchObject({ status: "failed", error: { code: -32001, message: expect.stringContaining("interrupted") } });
  });
});
