/**
 * An upstream's own tasks (SEP-2663) through a gateway in workerd: a 2026-07-28 server federated
 * behind it answers a tool call with a task, and the caller who declared the tasks extension gets a
 * task of the gateway's — its id the gateway's job, its owner the caller — whose `tasks/get`,
 * `tasks/update` and `tasks/cancel` reach the upstream version that runs it, through the one door:
 * charged, audited, and for that caller only. The upstream is test/fixtures/upstreams/tasks-server.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";
import { type RunningProcess, startConformanceServer } from "./support/processes.js";

const TASKS = "io.modelcontextprotocol/tasks";
let mesh: Mesh;
let upstream: RunningProcess;

beforeAll(async () => {
  [mesh, upstream] = await Promise.all([
    startMesh({ skills: [fixture("subtract")], adminToken: ADMIN_TOKEN, gatewayVars: { SKILLMESH_AUTH: "required" } }),
    startConformanceServer(),
  ]);
  const added = await admin(mesh.gatewayUrl, "POST", "/upstreams", { kind: "mcp", name: "files", url: `${upstream.url}/tasks` });
  expect(added.status, JSON.stringify(added.json)).toBe(201);
}, 120_000);
afterAll(() => Promise.all([mesh?.dispose(), upstream?.stop()]));

const keyWith = async (skills: string[]) =>
  (await admin(mesh.gatewayUrl, "POST", "/keys", { name: `k-${Math.random().toString(36).slice(2, 8)}`, skills })).json.key as string;

/** One 2026-07-28 request; `declared` are the client capabilities it declares (the tasks extension and elicitation by default). */
function mcp(
  key: string,
  method: string,
  params: Record<string, unknown>,
  declared: Record<string, unknown> = { elicitation: {}, extensions: { [TASKS]: {} } },
  path = "/mcp",
) {
  return wireOf(mesh.gatewayUrl).mcp2026(method, params, { key, path, meta: { "io.modelcontextprotocol/clientCapabilities": declared } });
}
const taskOf = (key: string, taskId: string) => mcp(key, "tasks/get", { taskId });
const auditedCalls = async () =>
  (await admin(mesh.gatewayUrl, "GET", "/audit?type=call&limit=200")).json.entries as Array<{
    method: string;
    resource?: string;
    caller?: string;
    code: number;
  }>;

describe("an upstream that runs a tool call as a task of its own", () => {
  it("gives the caller a task of the gateway's: the input it waits for, answered with tasks/update, then its result", async () => {
    const key = await keyWith(["files.*"]);
    const created = await mcp(key, "tools/call", { name: "files.confirm_delete", arguments: { filename: "old.log" } });
    expect(created.json.result).toMatchObject({ resultType: "task", status: "working", ttlMs: expect.any(Number) });
    const taskId = created.json.result.taskId as string;
    expect(taskId).toMatch(/^j_[0-9a-f]{32}$/); // the gateway's id, not the upstream's

    const waiting = await eventually(
      () => taskOf(key, taskId),
      (r) => r.json.result?.status === "input_required",
    );
    expect(waiting.json.result).toMatchObject({ resultType: "complete", taskId });
    // What it waits for, as the upstream asked it, and marked as the upstream's question.
    expect(waiting.json.result.inputRequests).toEqual({
      confirm: {
        method: "elicitation/create",
        params: { message: "[Upstream files] Delete old.log?", requestedSchema: expect.objectContaining({ required: ["confirm"] }) },
      },
    });

    const ack = await mcp(key, "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } });
    expect(ack.json.result).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const done = await eventually(
      () => taskOf(key, taskId),
      (r) => r.json.result?.status === "completed",
    );
    expect(done.json.result.result.content).toEqual([{ type: "text", text: "Deleted old.log" }]);
    expect(done.json.result.inputRequests).toBeUndefined();

    // Through the one door: each request about the task charged and audited as the caller's, naming the task.
    const entries = (await auditedCalls()).filter((e) => e.resource === `task:${taskId}`);
    expect(entries.map((e) => e.method)).toEqual(expect.arrayContaining(["tasks/get", "tasks/update"]));
  });

  it("passes a task's result through the content path: a credential in it is redacted in tasks/get, and in what the job keeps", async () => {
    const key = await keyWith(["files.*"]);
    const { taskId } = (await mcp(key, "tools/call", { name: "files.leak_deploy", arguments: {} })).json.result;
    const done = await eventually(
      () => taskOf(key, taskId),
      (r) => r.json.result?.status === "completed",
    );
    expect(JSON.stringify(done.json)).not.toContain("ghp_");
    expect(done.json.result.result.content).toEqual([{ type: "text", text: "deployed with [REDACTED:GITHUB_TOKEN]" }]);
    // Read again: now from the job the gateway keeps, which holds what the path passed.
    expect(JSON.stringify((await taskOf(key, taskId)).json)).not.toContain("ghp_");
    const audited = await eventually(
      async () => (await auditedCalls()).filter((e) => e.resource === `task:${taskId}` && (e as { guardrail?: unknown }).guardrail),
      (found) => found.length > 0,
    );
    expect((audited[0] as { guardrail?: unknown }).guardrail).toMatchObject({
      action: "redacted",
      findings: [{ kind: "GITHUB_TOKEN", path: "content[0].text", where: "answer" }],
    });
  });

  it("keeps the task the caller's: another caller, or the owner through a door that does not reach the tool, gets -32602 and the upstream hears nothing of it", async () => {
    const key = await keyWith(["files.*"]);
    const { taskId } = (await mcp(key, "tools/call", { name: "files.confirm_delete", arguments: { filename: "keep.txt" } })).json.result;
    const other = await keyWith(["files.*"]);
    const answers = { confirm: { action: "accept", content: { confirm: true } } };
    for (const [method, params] of [
      ["tasks/get", { taskId }],
      ["tasks/update", { taskId, inputResponses: answers }],
      ["tasks/cancel", { taskId }],
    ] as const) {
      const refused = await mcp(other, method, params);
      expect(refused.json.error, method).toMatchObject({ code: -32602, message: expect.stringContaining(`Unknown task: ${taskId}`) });
    }
    // The owner itself, through a door that does not reach the tool (a virtual server of other tools).
    expect((await admin(mesh.gatewayUrl, "PUT", "/servers/math", { tools: ["subtract"] })).status).toBe(200);
    const elsewhere = await mcp(key, "tasks/get", { taskId }, undefined, "/mcp/math");
    expect(elsewhere.json.error).toMatchObject({ code: -32602, message: expect.stringContaining(`Unknown task: ${taskId}`) });
    // The owner's task still waits: nobody else answered or cancelled it.
    expect((await taskOf(key, taskId)).json.result).toMatchObject({ status: "input_required", inputRequests: { confirm: expect.any(Object) } });
  });

  it("keeps a task waiting for every answer: a partial tasks/update leaves only the unanswered request", async () => {
    const key = await keyWith(["files.*"]);
    const { taskId } = (await mcp(key, "tools/call", { name: "files.multi_input", arguments: {} })).json.result;
    const both = await eventually(
      () => taskOf(key, taskId),
      (r) => Object.keys(r.json.result?.inputRequests ?? {}).length === 2,
    );
    expect(Object.keys(both.json.result.inputRequests).sort()).toEqual(["confirm", "name"]);
    await mcp(key, "tasks/update", { taskId, inputResponses: { name: { action: "accept", content: { name: "Ada" } } } });
    const one = await taskOf(key, taskId);
    expect(one.json.result.status).toBe("input_required");
    expect(Object.keys(one.json.result.inputRequests)).toEqual(["confirm"]);
    await mcp(key, "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } });
    const done = await eventually(
      () => taskOf(key, taskId),
      (r) => r.json.result?.status === "completed",
    );
    expect(done.json.result.result.content[0].text).toBe("Received confirm and name");
  });

  it("passes a cancellation on; a task that ended is answered from the gateway's record, no longer asked upstream", async () => {
    const key = await keyWith(["files.*"]);
    const { taskId } = (await mcp(key, "tools/call", { name: "files.confirm_delete", arguments: { filename: "x" } })).json.result;
    expect((await mcp(key, "tasks/cancel", { taskId })).json.result).toMatchObject({ resultType: "complete" });
    const cancelled = await eventually(
      () => taskOf(key, taskId),
      (r) => r.json.result?.status === "cancelled",
    );
    expect(cancelled.json.result.inputRequests).toBeUndefined();
    const before = (await auditedCalls()).filter((e) => e.resource === `task:${taskId}`).length;
    expect((await taskOf(key, taskId)).json.result.status).toBe("cancelled");
    // Answered from the record: the task's own door was not taken again.
    expect((await auditedCalls()).filter((e) => e.resource === `task:${taskId}`)).toHaveLength(before);
  });

  it("does not offer the upstream a task for a caller that did not declare the extension: a tool that needs one is -32021 naming it", async () => {
    const key = await keyWith(["files.*"]);
    const answer = await mcp(key, "tools/call", { name: "files.confirm_delete", arguments: { filename: "y" } }, { elicitation: {} });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: -32021, message: expect.stringContaining(TASKS) });
  });
});
