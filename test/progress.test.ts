/**
 * Long calls end to end in workerd: log messages a skill sends (`ctx.log`) at the level the caller
 * set; progress a skill reports (`ctx.progress`) relayed in order on
 * `/mcp` (both eras, with the client's progress token) and on `/rpc` (Accept: text/event-stream),
 * heartbeats on quiet streams, and cancellation — a closed stream, a disconnected JSON caller, a
 * 2025 `notifications/cancelled`, a timeout — reaching the skill as `ctx.signal`.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { sseData } from "../src/protocols/sse/index.js";
import { ADMIN_TOKEN, eventually, fixture, post } from "./support/fixtures.js";

let mesh: Mesh;
let longUrl: string;

beforeAll(async () => {
  mesh = await startMesh({
    skills: [fixture("long"), fixture("test_tool_with_progress"), fixture("sum"), fixture("chatty")],
    adminToken: ADMIN_TOKEN,
    gatewayVars: { SKILLMESH_SSE_HEARTBEAT_MS: "150" },
  });
  longUrl = mesh.skills.find((s) => s.manifest.name === "test.long")!.url;
});
afterAll(() => mesh?.dispose());

const META_2026 = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const STREAM = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** What the long fixture has seen: calls started, finished and cancelled (its ctx.signal aborted). */
async function seen(): Promise<{ started: number; finished: number; cancelled: number }> {
  return (await fetch(`${longUrl}/control`)).json();
}

/** Reads an SSE response to its end: the JSON messages in order, and how many heartbeat comments came. */
async function readStream(response: Response): Promise<{ messages: any[]; heartbeats: number; order: string[] }> {
  const text = await response.text();
  const order: string[] = [];
  const messages: any[] = [];
  for (const event of text.split("\n\n")) {
    if (event.startsWith(":")) order.push("heartbeat");
    const data = event.split("\n").find((line) => line.startsWith("data: "));
    if (data) {
      const message = JSON.parse(data.slice(6));
      messages.push(message);
      order.push(message.method ?? "response");
    }
  }
  return { messages, heartbeats: order.filter((o) => o === "heartbeat").length, order };
}

/** The first message of a stream (the stream stays open). */
async function firstMessage(response: Response): Promise<any> {
  for await (const data of sseData(response.body!)) return JSON.parse(data);
  throw new Error("the stream ended before a message");
}

/** What the long fixture has seen once the caller closes a stream as soon as the skill reports progress. */
async function closeAfterFirstProgress(path: string, headers: Record<string, string>, body: unknown) {
  const before = await seen();
  const controller = new AbortController();
  const response = await fetch(`${mesh.gatewayUrl}${path}`, {
    method: "POST",
    signal: controller.signal,
    headers: { ...STREAM, ...headers },
    body: JSON.stringify(body),
  });
  expect((await firstMessage(response)).method).toBe("notifications/progress"); // the skill is at work
  controller.abort();
  return { before, after: await eventually(seen, (s) => s.cancelled > before.cancelled, 5_000, 50) };
}

describe("progress", () => {
  it("MCP 2025-11-25: notifications/progress with the client's token, in order, heartbeats while quiet, then the result", async () => {
    const response = await fetch(`${mesh.gatewayUrl}/mcp`, {
      method: "POST",
      headers: { ...STREAM, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "test.long", arguments: { steps: 4, stepMs: 400 }, _meta: { progressToken: "tok-1" } },
      }),
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const { messages, heartbeats, order } = await readStream(response);
    const progress = messages.filter((m) => m.method === "notifications/progress");
    expect(progress.map((m) => m.params)).toEqual(
      [1, 2, 3, 4].map((step) => ({ progressToken: "tok-1", progress: step, total: 4, message: `step ${step} of 4` })),
    );
    expect(order.at(-1)).toBe("response"); // the result is the last message
    expect(messages.at(-1)).toMatchObject({ id: 7, result: { structuredContent: { steps: 4 } } });
    expect(heartbeats).toBeGreaterThanOrEqual(4); // 1.6 s of work, a heartbeat every 150 ms here
  });

  it("MCP 2026-07-28: the same on the request's own response stream, with resultType", async () => {
    const response = await fetch(`${mesh.gatewayUrl}/mcp`, {
      method: "POST",
      headers: { ...STREAM, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "test.long" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "a",
        method: "tools/call",
        params: { name: "test.long", arguments: { steps: 3, stepMs: 10 }, _meta: { ...META_2026, progressToken: 99 } },
      }),
    });
    const { messages } = await readStream(response);
    expect(messages.filter((m) => m.method).map((m) => m.params.progress)).toEqual([1, 2, 3]);
    expect(messages.at(-1)).toMatchObject({ id: "a", result: { resultType: "complete", structuredContent: { steps: 3 } } });
  });

  it("/rpc with Accept: text/event-stream: progress notifications carrying the call's id, then the response", async () => {
    const response = await fetch(`${mesh.gatewayUrl}/rpc`, {
      method: "POST",
      headers: STREAM,
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "test.long", params: { steps: 2, stepMs: 10 } }),
    });
    const { messages } = await readStream(response);
    expect(messages).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { id: 3, progress: 1, total: 2, message: "step 1 of 2" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { id: 3, progress: 2, total: 2, message: "step 2 of 2" } },
      { jsonrpc: "2.0", id: 3, result: { steps: 2 } },
    ]);
  });

  it("answers plain JSON to callers that do not ask for a stream", async () => {
    const answer = await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", id: 1, method: "test.long", params: { steps: 2, stepMs: 1 } });
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.json).toEqual({ jsonrpc: "2.0", id: 1, result: { steps: 2 } });
  });

  it("reaches the official SDK clients: v2 pinned to 2026-07-28 and v1 (2025-11-25)", async () => {
    const v2 = new ClientV2({ name: "progress-v2", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await v2.connect(new TransportV2(new URL(`${mesh.gatewayUrl}/mcp`)));
    const v2Progress: number[] = [];
    const v2Result = await v2.callTool({ name: "test.long", arguments: { steps: 3, stepMs: 10 } }, { onprogress: (p) => void v2Progress.push(p.progress) });
    expect(v2Result.structuredContent).toEqual({ steps: 3 });
    expect(v2Progress).toEqual([1, 2, 3]);
    await v2.close();

    const v1 = new Client({ name: "progress-v1", version: "1" });
    await v1.connect(new StreamableHTTPClientTransport(new URL(`${mesh.gatewayUrl}/mcp`)));
    const v1Progress: number[] = [];
    const v1Result = await v1.callTool({ name: "test.long", arguments: { steps: 3, stepMs: 10 } }, undefined, {
      onprogress: (p) => void v1Progress.push(p.progress),
    });
    expect(v1Result.structuredContent).toEqual({ steps: 3 });
    expect(v1Progress).toEqual([1, 2, 3]);
    await v1.close();
  });
});

describe("cancellation", () => {
  it("closing an MCP response stream aborts the skill's call (ctx.signal)", async () => {
    const { before, after } = await closeAfterFirstProgress(
      "/mcp",
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "test.long" },
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "test.long", arguments: { steps: 100, stepMs: 100 }, _meta: { ...META_2026, progressToken: "c" } },
      },
    );
    expect(after.cancelled).toBe(before.cancelled + 1);
    expect(after.finished).toBe(before.finished);
  });

  it("an /rpc caller streaming progress that disconnects aborts the skill's call", async () => {
    // (A caller waiting for plain JSON that disconnects is not seen by workerd before the answer:
    // its request.signal fires for streamed responses only. docs/guides/calling.md "Progress and cancellation" says so.)
    const { before, after } = await closeAfterFirstProgress("/rpc", {}, { jsonrpc: "2.0", id: 1, method: "test.long", params: { steps: 100, stepMs: 100 } });
    expect(after.cancelled).toBe(before.cancelled + 1);
    expect(after.finished).toBe(before.finished);
  });

  it("MCP 2025: notifications/cancelled naming a running tools/call stops it", async () => {
    const before = await seen();
    const headers = { "mcp-protocol-version": "2025-11-25" };
    const call = post(
      `${mesh.gatewayUrl}/mcp`,
      { jsonrpc: "2.0", id: "long-1", method: "tools/call", params: { name: "test.long", arguments: { steps: 100, stepMs: 100 } } },
      headers,
    );
    await eventually(seen, (s) => s.started > before.started, 5_000, 20);
    const cancelledAt = Date.now();
    const cancelled = await post(
      `${mesh.gatewayUrl}/mcp`,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "long-1", reason: "user" } },
      headers,
    );
    expect(cancelled.status).toBe(202);
    const answer = await call;
    // Stopped by the cancel, not by the skill's own 2 s timeout.
    expect(Date.now() - cancelledAt).toBeLessThan(1_000);
    expect(answer.json.result).toMatchObject({ isError: true, _meta: { "skillmesh/error": { code: -32007 } } });
    const after = await eventually(seen, (s) => s.cancelled > before.cancelled, 5_000, 50);
    expect(after.cancelled).toBe(before.cancelled + 1);
    expect(after.finished).toBe(before.finished);
  });

  it("MCP 2025: a cancel reaches only its own client's call, though two clients of one caller use the same id", async () => {
    const headers = { "mcp-protocol-version": "2025-11-25" };
    // Each client's handshake gives it a session (auth is off: both are the caller "anonymous").
    const sessionOf = async () => {
      const answer = await post(
        `${mesh.gatewayUrl}/mcp`,
        { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
        headers,
      );
      return answer.headers.get("mcp-session-id")!;
    };
    const [a, b] = [await sessionOf(), await sessionOf()];
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(b).not.toBe(a);
    const before = await seen();
    // B's call well within test.long's 2 s timeout, even on a loaded machine (a timed-out attempt
    // of this idempotent skill is retried, and its runs would count twice); A's is cancelled.
    const call = (session: string, steps: number) =>
      post(
        `${mesh.gatewayUrl}/mcp`,
        { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "test.long", arguments: { steps, stepMs: 100 } } },
        { ...headers, "mcp-session-id": session },
      );
    const [callA, callB] = [call(a, 15), call(b, 8)];
    await eventually(seen, (s) => s.started >= before.started + 2, 5_000, 20);
    expect(
      (
        await post(
          `${mesh.gatewayUrl}/mcp`,
          { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } },
          { ...headers, "mcp-session-id": a },
        )
      ).status,
    ).toBe(202);
    expect((await callA).json.result).toMatchObject({ isError: true, _meta: { "skillmesh/error": { code: -32007 } } });
    expect((await callB).json.result.isError).toBeFalsy(); // B's call ran to its end
    expect(await eventually(seen, (s) => s.finished > before.finished, 5_000, 50)).toMatchObject({
      cancelled: before.cancelled + 1,
      finished: before.finished + 1,
    });

    // Two calls with id 8 and no session: a cancel cannot tell them apart, and stops neither.
    const plain = () =>
      post(
        `${mesh.gatewayUrl}/mcp`,
        { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "test.long", arguments: { steps: 8, stepMs: 100 } } },
        headers,
      );
    const [first, second] = [plain(), plain()];
    await eventually(seen, (s) => s.started >= before.started + 4, 5_000, 20);
    await post(`${mesh.gatewayUrl}/mcp`, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 8 } }, headers);
    for (const answer of [await first, await second]) expect(answer.json.result.isError).toBeFalsy();
  });

  it("the caller's timeout (X-Timeout-Ms) aborts the skill's call too", async () => {
    const before = await seen();
    const answer = await post(
      `${mesh.gatewayUrl}/rpc`,
      { jsonrpc: "2.0", id: 1, method: "test.long", params: { steps: 100, stepMs: 100 } },
      { "x-timeout-ms": "1500" }, // room for the call to reach the skill on a loaded machine before the budget ends
    );
    expect(answer.json.error.code).toBe(-32004);
    const after = await eventually(seen, (s) => s.cancelled > before.cancelled, 15_000, 50);
    expect(after.cancelled).toBe(before.cancelled + 1);
    expect(after.finished).toBe(before.finished);
  });
});

describe("a skill's log messages (ctx.log)", () => {
  it("reach a 2025 session that set a level, at that level and louder, named after the skill; none without a level", async () => {
    const client = new Client({ name: "logs-v1", version: "1.0.0" });
    const logged: Array<{ level: string; logger?: string; data: unknown }> = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void logged.push(params));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mesh.gatewayUrl}/mcp`)));
    try {
      expect((await client.callTool({ name: "test.chatty", arguments: { topic: "a" } })).content).toEqual([{ type: "text", text: "done with a" }]);
      expect(logged).toEqual([]); // no level set: nothing relayed
      await client.setLoggingLevel("info");
      expect((await client.callTool({ name: "test.chatty", arguments: { topic: "b" } })).content).toEqual([{ type: "text", text: "done with b" }]);
      expect(logged).toEqual([
        { level: "info", logger: "test.chatty", data: { topic: "b", step: 1 } },
        { level: "warning", logger: "test.chatty/clock", data: "almost out of time" },
      ]);
    } finally {
      await client.close();
    }
  });

  it("reach a 2026-07-28 request that names its level in _meta, on the call's event stream before the result", async () => {
    const response = await fetch(`${mesh.gatewayUrl}/mcp`, {
      method: "POST",
      headers: { ...STREAM, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "test.chatty" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "test.chatty", arguments: { topic: "c" }, _meta: { ...META_2026, "io.modelcontextprotocol/logLevel": "warning" } },
      }),
    });
    const { messages } = await readStream(response);
    expect(messages.map((m) => m.method ?? "result")).toEqual(["notifications/message", "result"]);
    expect(messages[0].params).toEqual({ level: "warning", logger: "test.chatty/clock", data: "almost out of time" });
    expect(messages[1].result.content).toEqual([{ type: "text", text: "done with c" }]);
  });
});
