/**
 * MCP's long requests are metered (security review round 2, finding 9), in workerd with auth on:
 * a `subscriptions/listen` stream counts against the caller's limits when it opens, a caller
 * holds at most four long requests at once (streams and waiting `tasks/result`s), and a
 * `tasks/result` waits a bounded time (the caller's `X-Timeout-Ms`, at most 60 s), then -32004.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { sseData } from "../src/protocols/sse/index.js";
import { STALE_LEASE_MS } from "../src/mcp/waits.js";
import { ADMIN_TOKEN, admin, eventually, fixture } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
beforeAll(async () => {
  mesh = await startMesh({
    skills: [fixture("long"), fixture("sum")],
    adminToken: ADMIN_TOKEN,
    gatewayVars: { SKILLMESH_AUTH: "required", SKILLMESH_SSE_HEARTBEAT_MS: "300" },
  });
}, 120_000);
afterAll(() => mesh?.dispose());

const newKey = async (name: string, grants: object = {}) =>
  (await admin(mesh.gatewayUrl, "POST", "/keys", { name, skills: ["*"], ...grants })).json.key as string;
const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

/** Opens a subscriptions/listen stream; resolves with its status and, for a stream, its first event and a way to close it. */
async function listen(key: string) {
  const controller = new AbortController();
  const response = await fetch(`${mesh.gatewayUrl}/mcp`, {
    method: "POST",
    signal: controller.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${key}`,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: "sub", method: "subscriptions/listen", params: { _meta: meta, notifications: { toolsListChanged: true } } }),
  });
  if (response.headers.get("content-type") !== "text/event-stream")
    return { status: response.status, error: ((await response.json()) as { error: { code: number; message: string } }).error, close: () => {} };
  const events = sseData(response.body!)[Symbol.asyncIterator]();
  const first = JSON.parse((await events.next()).value as string) as { method?: string };
  return { status: response.status, first, close: () => controller.abort() };
}

describe("subscriptions/listen", () => {
  it("counts against the caller's limit when it opens: a key at its limit opens none", async () => {
    const key = await newKey("listener-at-limit", { quota: "2/day" });
    const opened = [await listen(key), await listen(key)];
    try {
      expect(opened.map((o) => o.first?.method)).toEqual(["notifications/subscriptions/acknowledged", "notifications/subscriptions/acknowledged"]);
      const refused = await listen(key);
      expect(refused.error).toMatchObject({ code: -32005, message: expect.stringMatching(/quota is used up/) });
    } finally {
      for (const o of opened) o.close();
    }
  });

  it("a caller holds at most four long requests at once; a closed one frees its place", async () => {
    const key = await newKey("many-listeners");
    const opened = [];
    for (let i = 0; i < 4; i++) opened.push(await listen(key));
    try {
      expect(opened.every((o) => o.first?.method === "notifications/subscriptions/acknowledged")).toBe(true);
      const fifth = await listen(key);
      expect(fifth.error).toMatchObject({ code: -32005, message: expect.stringMatching(/4 long requests open/) });
      // Another caller is not held back by this one.
      const other = await listen(await newKey("another-listener"));
      other.close();
      expect(other.first?.method).toBe("notifications/subscriptions/acknowledged");
      // A closed stream frees its place at once: the request's signal ends it when its client goes
      // away (without it, the place came back only when the lease went stale: 5 s unrenewed).
      opened.shift()!.close();
      const again = await eventually(
        () => listen(key),
        (o) => (o.first ? true : (o.close(), false)),
        STALE_LEASE_MS / 2,
        200,
      );
      opened.push(again);
      expect(again.first?.method).toBe("notifications/subscriptions/acknowledged");
    } finally {
      for (const o of opened) o.close();
    }
  });
});

describe("tasks/result", () => {
  it("waits no longer than the caller's budget, then -32004 with the task's status; asked again, it is counted again", async () => {
    const key = await newKey("waiter", { quota: "4/day" });
    const mcp = (method: string, params: unknown, headers: Record<string, string> = {}) => wireOf(mesh.gatewayUrl).mcp2025(method, params, { key, headers });
    const { task } = (await mcp("tools/call", { name: "test.long", arguments: { steps: 100, stepMs: 100 }, task: {} })).json.result;
    const started = Date.now();
    const waited = await mcp("tasks/result", { taskId: task.taskId }, { "x-timeout-ms": "1000" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(waited.json.error).toMatchObject({ code: -32004, data: { taskId: task.taskId, status: "working" } });
    // The submit (1), its tasks/get inside the submit (2) and the wait (3) are counted: one more, then -32005.
    expect((await mcp("tasks/result", { taskId: task.taskId }, { "x-timeout-ms": "200" })).json.error.code).toBe(-32004);
    expect((await mcp("tasks/result", { taskId: task.taskId }, { "x-timeout-ms": "200" })).json.error.code).toBe(-32005);
    await mcp("tasks/cancel", { taskId: task.taskId });
  });
});
