/**
 * Pipelines' delegation tokens in workerd, against a hostile pipeline: a plain HTTP server
 * registered by URL that does whatever it can with the token it is handed (security review round
 * 2, findings 2 and 4). Who is a pipeline is the operator's word at registration; a token reaches
 * only the skills the pipeline declares, as the user of its call, is counted against the caller's
 * limits, never reaches `jobs.*`, async submits or the admin API, ends with its call, and stops
 * working when its key is revoked or narrowed.
 */
import { type IncomingHttpHeaders, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, registerSkill, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
let hostile: Server;
let hostileUrl: string;
const received: Array<{ method: string; headers: IncomingHttpHeaders }> = [];
/** Calls the hostile pipeline holds until the test releases them. */
const held: Array<() => void> = [];
const tokens: string[] = [];

const rpc = (bearer: string, method: string, params: unknown = {}, headers: Record<string, string> = {}) =>
  wireOf(mesh.gatewayUrl).rpc(method, params, { key: bearer, headers });
const errorOf = async (answer: Promise<{ status: number; json: any }>) => {
  const { status, json } = await answer;
  return { status, code: json?.error?.code, message: json?.error?.message };
};

/** What the hostile pipeline does with its token, by the `mode` of its call. */
async function abuse(mode: string, token: string): Promise<unknown> {
  if (mode === "probe") {
    return {
      step: (await rpc(token, "test.whoami", {}, { "x-user-id": "mallory", "x-user-group": "staff" })).json.result,
      undeclared: await errorOf(rpc(token, "subtract", [5, 3])),
      jobsList: await errorOf(rpc(token, "jobs.list")),
      jobsGet: await errorOf(rpc(token, "jobs.get", { jobId: "j_x" })),
      asyncSubmit: await errorOf(rpc(token, "test.whoami", {}, { prefer: "respond-async" })),
      admin: (await fetch(`${mesh.gatewayUrl}/admin/keys`, { headers: { authorization: `Bearer ${token}` } })).status,
    };
  }
  if (mode === "drain") {
    let served = 0;
    for (let i = 0; i < 10; i++) {
      const answer = await rpc(token, "test.whoami");
      if (answer.json.error) return { served, refused: answer.json.error.code };
      served++;
    }
    return { served };
  }
  if (mode === "hold") {
    await new Promise<void>((release) => held.push(release));
    return { step: await errorOf(rpc(token, "test.whoami")) };
  }
  return {};
}

const manifestOf = (name: string, steps?: string[]) => ({
  ...mesh.skills.find((s) => s.manifest.name === "test.whoami")!.manifest,
  name,
  timeoutMs: 10_000,
  inputSchema: { type: "object" },
  outputSchema: {},
  ...(steps ? { pipeline: { steps } } : {}),
});

beforeAll(async () => {
  mesh = await startMesh({
    skills: ["whoami", "subtract", "inflight", "pipeline-foreach"].map(fixture),
    adminToken: ADMIN_TOKEN,
    gatewayVars: { SKILLMESH_AUTH: "required" },
  });
  hostile = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => void answer());
    const answer = async () => {
      const call = JSON.parse(body) as { method: string; params?: { mode?: string } };
      received.push({ method: call.method, headers: request.headers });
      const token = request.headers["x-skillmesh-delegation"];
      if (typeof token === "string") tokens.push(token);
      const result = typeof token === "string" ? await abuse(call.params?.mode ?? "", token) : { token: null };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", result, id: 1 }));
    };
  });
  await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/`;
  // The operator registers it as a pipeline whose steps call test.whoami…
  await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { url: hostileUrl }, { manifest: manifestOf("hostile.pipeline", ["test.whoami"]), pipeline: true });
  // …and, at another name, the same server claiming to be one in its manifest only.
  await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { url: `${hostileUrl}unflagged` }, { manifest: manifestOf("hostile.unflagged", ["test.whoami"]) });
}, 120_000);
afterAll(async () => {
  for (const release of held) release();
  await mesh?.dispose();
  await new Promise((resolve) => hostile?.close(resolve));
});

const newKey = async (name: string, grants: object = {}) =>
  (await admin(mesh.gatewayUrl, "POST", "/keys", { name, skills: ["test.*", "subtract", "hostile.*"], ...grants })).json as {
    key: string;
    view: { id: string };
  };

describe("who is a pipeline", () => {
  it("a manifest that says pipeline gets no token: only the operator's registration makes one", async () => {
    const { key } = await newKey("unflagged-caller");
    const answer = await rpc(key, "hostile.unflagged");
    expect(answer.json.result).toEqual({ token: null });
    expect(received.at(-1)!.headers["x-skillmesh-delegation"]).toBeUndefined();
  });

  it("registering a pipeline whose manifest declares no steps is refused", async () => {
    const refused = await admin(mesh.gatewayUrl, "POST", "/deployments", {
      endpoint: { url: `${hostileUrl}nosteps` },
      manifest: manifestOf("hostile.nosteps"),
      pipeline: true,
    });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/declares no pipeline.steps/);
  });
});

describe("what a pipeline can do with its token", () => {
  it("call the skills it declares, as the user of its call; nothing else: no other skill, no jobs, no async submit, no admin", async () => {
    const { key, view } = await newKey("prober");
    const answer = await rpc(key, "hostile.pipeline", { mode: "probe" }, { "x-user-id": "alice" });
    expect(answer.json.result).toEqual({
      // The step's own X-User-Id and group headers are not believed: it is alice's call.
      step: { userId: "alice", group: null, session: null, caller: view.id, traceparent: expect.any(String) },
      undeclared: { status: 200, code: -32601, message: "Method not found" },
      jobsList: { status: 200, code: -32601, message: "Method not found: jobs.list is not available to a pipeline's steps" },
      jobsGet: { status: 200, code: -32601, message: "Method not found: jobs.get is not available to a pipeline's steps" },
      asyncSubmit: { status: 200, code: -32600, message: "Invalid Request: a pipeline's step cannot be submitted as an async job (Prefer: respond-async)" },
      admin: 401,
    });
    // The call has ended: so has its token.
    expect(await errorOf(rpc(tokens.at(-1)!, "test.whoami"))).toMatchObject({
      status: 401,
      message: expect.stringMatching(/unknown or ended delegation token/),
    });
  });

  it("every step is counted against the caller's quota", async () => {
    const { key } = await newKey("metered", { quota: "4/day" });
    // The pipeline's own call is one of the four: three steps, then -32005.
    expect((await rpc(key, "hostile.pipeline", { mode: "drain" })).json.result).toEqual({ served: 3, refused: -32005 });
    expect((await errorOf(rpc(key, "test.whoami"))).code).toBe(-32005);
  });

  it("a forEach over a caller-chosen list cannot multiply one charged call: its steps hit the caller's limit", async () => {
    const { key, view } = await newKey("fan-out", { quota: "3/day" });
    const answer = await rpc(key, "test.foreach", { items: Array.from({ length: 40 }, (_, i) => i) });
    expect(answer.json.error).toMatchObject({ code: -32005, data: { step: "each", skill: "test.inflight" } });
    // Audit entries are written in batches after the answers (on a loaded 2-core machine, many seconds
    // later): the pipeline's own entry comes after its steps'.
    await eventually(
      async () => ((await admin(mesh.gatewayUrl, "GET", `/audit?caller=${view.id}&skill=test.foreach`)).json.entries as unknown[]).length,
      (n) => n === 1,
      40_000,
      100,
    );
    const served = ((await admin(mesh.gatewayUrl, "GET", `/audit?caller=${view.id}&skill=test.inflight&outcome=ok`)).json.entries as unknown[]).length;
    // The quota's 3 calls: the pipeline's own and two steps, two at a time. A step still running when
    // the third is refused is cancelled with the pipeline, so on a loaded machine one may not finish.
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served).toBeLessThanOrEqual(2);
  }, 60_000);

  it("its token follows its key: narrowed mid-call, the step sees the key's grants as they are now; revoked, the step is refused", async () => {
    const { key, view } = await newKey("narrowed");
    const narrowedCall = rpc(key, "hostile.pipeline", { mode: "hold" });
    await eventually(
      async () => held.length,
      (n) => n === 1,
      5_000,
      20,
    );
    expect((await admin(mesh.gatewayUrl, "PATCH", `/keys/${view.id}`, { skills: ["hostile.*"] })).status).toBe(200);
    await eventually(
      async () => (await rpc(key, "test.whoami")).json.error?.code,
      (code) => code === -32601,
      5_000,
      100,
    );
    held.shift()!();
    expect((await narrowedCall).json.result.step).toMatchObject({ code: -32601 });

    const revoked = await newKey("revoked");
    const revokedCall = rpc(revoked.key, "hostile.pipeline", { mode: "hold" });
    await eventually(
      async () => held.length,
      (n) => n === 1,
      5_000,
      20,
    );
    expect((await admin(mesh.gatewayUrl, "DELETE", `/keys/${revoked.view.id}`)).status).toBe(200);
    await eventually(
      async () => (await rpc(revoked.key, "test.whoami")).status,
      (status) => status === 401,
      5_000,
      100,
    );
    held.shift()!();
    expect((await revokedCall).json.result.step).toMatchObject({
      status: 401,
      message: "Unauthorized: the API key this delegation token stands for is revoked",
    });
  });
});
