/**
 * MCP tasks in workerd, both forms, backed by the gateway's async jobs (Workflows): the
 * 2025-11-25 experimental core (requestor-driven `params.task`, `tasks/get`, `tasks/result`,
 * `tasks/list`, `tasks/cancel`) and the 2026-07-28 `io.modelcontextprotocol/tasks` extension
 * (server-directed `resultType: "task"` for clients that declare it, `tasks/get` with the
 * outcome inline, `tasks/cancel`, `tasks/update`, `Mcp-Name` = task id).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, eventually, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
beforeAll(async () => {
  mesh = await startMesh({ skills: [fixture("long"), fixture("sum"), fixture("failing_job")], adminToken: ADMIN_TOKEN });
});
afterAll(() => mesh?.dispose());

const seen = async (): Promise<{ started: number; finished: number; cancelled: number }> =>
  (await fetch(`${mesh.skills.find((s) => s.manifest.name === "test.long")!.url}/control`)).json();

describe("MCP 2025-11-25 tasks", () => {
  const mcp = (method: string, params: unknown, id: string | number = 1) => wireOf(mesh.gatewayUrl).mcp2025(method, params, { id });

  it("advertises tasks for tools/call, and every tool may run as one", async () => {
    const init = await mcp("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } });
    expect(init.json.result.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const list = await mcp("tools/list", {});
    const support = Object.fromEntries(
      list.json.result.tools.map((tool: { name: string; execution?: { taskSupport: string } }) => [tool.name, tool.execution?.taskSupport]),
    );
    // Every tool may run as a task; a job-only skill's must.
    expect(support).toMatchObject({ "test.long": "optional", sum: "optional", failing_job: "required" });
    expect(Object.values(support).every((value) => value === "optional" || value === "required")).toBe(true);
    // Older revisions know nothing of tasks.
    const old = await post(`${mesh.gatewayUrl}/mcp`, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": "2025-06-18" });
    expect(old.json.result.tools[0].execution).toBeUndefined();
  });

  it("creates a task on request, findable at once; tasks/result waits for the tool result; tasks/list lists it", async () => {
    const created = await mcp("tools/call", { name: "test.long", arguments: { steps: 3, stepMs: 200 }, task: { ttl: 60_000 } });
    const { task } = created.json.result;
    expect(task).toMatchObject({
      taskId: expect.stringMatching(/^j_/),
      status: "working",
      pollInterval: 1_000,
      ttl: expect.any(Number),
      createdAt: expect.stringMatching(/Z$/),
    });
    expect((await mcp("tasks/get", { taskId: task.taskId })).json.result).toMatchObject({ taskId: task.taskId, status: "working" });
    const result = await mcp("tasks/result", { taskId: task.taskId });
    expect(result.json.result).toMatchObject({ structuredContent: { steps: 3 }, _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } } });
    expect(result.json.result.isError).toBeUndefined();
    expect((await mcp("tasks/get", { taskId: task.taskId })).json.result.status).toBe("completed");
    const listed = await mcp("tasks/list", {});
    expect(listed.json.result.tasks.map((t: { taskId: string }) => t.taskId)).toContain(task.taskId);
    // A finished task cannot be cancelled: -32602.
    expect((await mcp("tasks/cancel", { taskId: task.taskId })).json.error.code).toBe(-32602);
  });

  it("cancels a working task: the skill's call is aborted, tasks/result says so", async () => {
    const before = await seen();
    const { task } = (await mcp("tools/call", { name: "test.long", arguments: { steps: 100, stepMs: 100 }, task: {} })).json.result;
    await eventually(seen, (s) => s.started > before.started, 5_000, 50);
    const cancelled = await mcp("tasks/cancel", { taskId: task.taskId });
    expect(cancelled.json.result).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    await eventually(seen, (s) => s.cancelled > before.cancelled, 5_000, 50);
    const result = await mcp("tasks/result", { taskId: task.taskId });
    expect(result.json.result).toMatchObject({ isError: true, _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } } });
  });

  it("answers an unknown task with -32602", async () => {
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      expect((await mcp(method, { taskId: "j_nope" })).json.error, method).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/^Unknown task: j_nope \(tasks are kept \d+ h/),
      });
    }
    expect((await mcp("tasks/list", { cursor: "not-a-cursor" })).json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid cursor/) });
  });
});

describe("MCP 2026-07-28 tasks extension", () => {
  const withTasks = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  const without = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  /** A 2026-07-28 request with `meta` (its capabilities), and an Mcp-Name of the test's own when `name` is given. */
  const mcp = (method: string, params: Record<string, unknown>, meta: Record<string, unknown>, name?: string) =>
    wireOf(mesh.gatewayUrl).mcp2026(method, params, { meta, headers: name === undefined ? {} : { "mcp-name": name } });

  it("advertises the extension in server/discover", async () => {
    const discover = await mcp("server/discover", {}, without);
    expect(discover.json.result.capabilities.extensions).toEqual({
      "io.modelcontextprotocol/tasks": {},
      "io.modelcontextprotocol/skills": {},
      "io.modelcontextprotocol/ui": {},
    });
  });

  it("answers a long skill with a task only to a client that declared the extension; tasks/get carries the result", async () => {
    const call = { name: "test.long", arguments: { steps: 2, stepMs: 100 } };
    const sync = await mcp("tools/call", call, without, "test.long");
    expect(sync.json.result).toMatchObject({ resultType: "complete", structuredContent: { steps: 2 } });
    // A short skill is answered at once, extension or not.
    expect((await mcp("tools/call", { name: "sum", arguments: { params: [1, 2] } }, withTasks, "sum")).json.result).toMatchObject({
      resultType: "complete",
      structuredContent: { result: 3 },
    });

    const created = await mcp("tools/call", call, withTasks, "test.long");
    expect(created.json.result).toMatchObject({
      resultType: "task",
      taskId: expect.stringMatching(/^j_/),
      status: "working",
      ttlMs: expect.any(Number),
      pollIntervalMs: 1_000,
    });
    const { taskId } = created.json.result;
    const done = await eventually(
      () => mcp("tasks/get", { taskId }, withTasks, taskId),
      (answer) => answer.json.result?.status === "completed",
      10_000,
      100,
    );
    expect(done.json.result).toMatchObject({ resultType: "complete", taskId, status: "completed", result: { structuredContent: { steps: 2 } } });
  });

  it("tasks/get needs Mcp-Name to be the task id; tasks/cancel and tasks/update answer empty acknowledgements", async () => {
    const before = await seen();
    const { taskId } = (await mcp("tools/call", { name: "test.long", arguments: { steps: 100, stepMs: 100 } }, withTasks, "test.long")).json.result;
    const mismatch = await mcp("tasks/get", { taskId }, withTasks, "j_other");
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.code).toBe(-32020);
    expect((await mcp("tasks/update", { taskId, inputResponses: {} }, withTasks, taskId)).json.result).toMatchObject({ resultType: "complete" });
    await eventually(seen, (s) => s.started > before.started, 5_000, 50);
    const ack = await mcp("tasks/cancel", { taskId }, withTasks, taskId);
    expect(ack.json.result).toEqual({ resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": expect.any(Object) } });
    await eventually(seen, (s) => s.cancelled > before.cancelled, 5_000, 50);
    expect((await mcp("tasks/get", { taskId }, withTasks, taskId)).json.result.status).toBe("cancelled");
    expect((await mcp("tasks/get", { taskId: "j_nope" }, withTasks, "j_nope")).json.error.code).toBe(-32602);
  });
});

describe("a job-only skill (jobOnly: its calls run only as async jobs)", () => {
  const call2026 = (capabilities: object) =>
    wireOf(mesh.gatewayUrl).mcp2026(
      "tools/call",
      { name: "failing_job", arguments: {} },
      { meta: { "io.modelcontextprotocol/clientCapabilities": capabilities } },
    );

  it("is a task to a 2026-07-28 client that declared the extension, and -32021 naming it to one that did not", async () => {
    const refused = await call2026({});
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } } });
    const created = await call2026({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    expect(created.json.result).toMatchObject({ resultType: "task", status: "working" });
  });

  it("is a task to a 2025-11-25 client that asks for one, and -32601 without (taskSupport: required)", async () => {
    const mcp = (params: object) => wireOf(mesh.gatewayUrl).mcp2025("tools/call", params);
    expect((await mcp({ name: "failing_job", arguments: {} })).json.error).toMatchObject({
      code: -32601,
      message: expect.stringContaining("runs only as a task"),
    });
    expect((await mcp({ name: "failing_job", arguments: {}, task: {} })).json.result.task).toMatchObject({ status: "working" });
  });

  it("on /rpc is accepted as an async job, and refused (-32600) as a call answered in place", async () => {
    const rpc = (headers: Record<string, string> = {}) => wireOf(mesh.gatewayUrl).rpc("failing_job", {}, { headers });
    expect((await rpc()).json.error).toMatchObject({ code: -32600, message: expect.stringContaining("runs only as an async job") });
    expect((await rpc({ prefer: "respond-async" })).json.result).toMatchObject({ status: "queued", jobId: expect.stringMatching(/^j_/) });
  });
});
