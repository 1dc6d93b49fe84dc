/**
 * An A2A agent's tasks and contexts are their callers' (security review 4, finding 1): the agent
 * behind the gateway sees one client, so only the gateway keeps callers apart. Tried with the
 * review's multi-turn agent (test/support/hostile.ts), which continues any task a message names and
 * answers it whole: a caller naming another's task or context — on the A2A door, or as the tool's
 * arguments on /rpc and /mcp — gets "Task not found" and the agent gets nothing; an agent answering
 * with another caller's task does not move it. And a caller's A2A message reaches the agent whole.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually } from "./support/fixtures.js";
import { type Peer, startHostileAgent } from "./support/hostile.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
let agent: Peer & { messages: any[] };

beforeAll(async () => {
  [mesh, agent] = await Promise.all([startMesh({ skills: [], adminToken: ADMIN_TOKEN }), startHostileAgent(() => "nothing secret")]);
  const added = await admin(mesh.gatewayUrl, "POST", "/upstreams", { kind: "a2a", name: "chat", url: agent.url });
  expect(added.status, JSON.stringify(added.json)).toBe(201);
}, 120_000);
afterAll(() => Promise.all([mesh?.dispose(), agent?.close()]));

/** A JSON-RPC request to the A2A door as `caller` (with auth off, each bearer names its own caller). */
async function a2a(caller: string, method: string, params: unknown) {
  const response = await fetch(`${mesh.gatewayUrl}/a2a/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: `Bearer ${caller}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await response.json()) as { result?: any; error?: { code: number; message: string } };
}
/** A caller's call of the agent's tool on /rpc, and as an MCP tools/call (2025-11-25). */
type Answer = { result?: any; error?: { code: number; message: string } };
const rpc = async (caller: string, params: Record<string, unknown>) => (await wireOf(mesh.gatewayUrl).rpc("chat.chat", params, { key: caller })).json as Answer;
const mcpCall = async (caller: string, args: Record<string, unknown>) =>
  (await wireOf(mesh.gatewayUrl).mcp2025("tools/call", { name: "chat.chat", arguments: args }, { key: caller })).json as Answer;
const say = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], metadata: { skillId: "chat" }, ...extra },
});

describe("a task or context belongs to the caller whose call started it", () => {
  it("another caller naming it gets Task not found on every door, the agent gets nothing, and the owner keeps it", async () => {
    const started = await a2a("alice", "SendMessage", say("my card number is 4111-1111-1111-1111"));
    const task = started.result.task as { id: string; contextId: string };
    const before = agent.messages.length;

    // The A2A door: a message continuing alice's task, or her context.
    expect(await a2a("bob", "SendMessage", say("hi", { taskId: task.id }))).toMatchObject({ error: { code: -32001, message: `Task not found: ${task.id}` } });
    expect(await a2a("bob", "SendMessage", say("hi", { contextId: task.contextId }))).toMatchObject({ error: { code: -32001, message: /Task not found/ } });
    expect(await a2a("bob", "SendMessage", say("hi", { referenceTaskIds: [task.id] }))).toMatchObject({ error: { code: -32001 } });
    // /rpc and /mcp: the tool's taskId and contextId arguments.
    expect(await rpc("bob", { message: "bob here", taskId: task.id })).toMatchObject({ error: { code: -32602, message: `Task not found: ${task.id}` } });
    expect(await rpc("bob", { message: "bob here", contextId: task.contextId })).toMatchObject({ error: { code: -32602, message: /Task not found/ } });
    expect((await mcpCall("bob", { message: "bob here", taskId: task.id })).result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: expect.stringContaining("Task not found") }],
    });
    // A task id the gateway never handed out is the same answer.
    expect(await rpc("bob", { message: "guessing", taskId: "00000000-0000-0000-0000-000000000000" })).toMatchObject({ error: { code: -32602 } });
    expect(agent.messages.length).toBe(before);

    // Alice's task is still hers: she reads it and continues it.
    expect((await a2a("alice", "GetTask", { id: task.id })).result).toMatchObject({ id: task.id });
    expect((await a2a("bob", "GetTask", { id: task.id })).error).toMatchObject({ code: -32001 });
    const continued = await rpc("alice", { message: "and my address", taskId: task.id, contextId: task.contextId });
    expect(continued.result.structuredContent.task).toMatchObject({ id: task.id });
    expect(agent.messages.length).toBe(before + 1);
  });

  it("an agent answering with a task another caller owns does not move that task, and its answer is not relayed", async () => {
    const started = await rpc("alice", { message: "alice's plan is secret-plan-42" });
    const id = started.result.structuredContent.task.id as string;
    const stolen = await rpc("mallory", { message: `steal ${id}` });
    expect(stolen.error).toMatchObject({ code: -32001, message: expect.stringContaining("another caller started") });
    expect((await a2a("alice", "GetTask", { id })).result).toMatchObject({ id });
    expect((await a2a("mallory", "GetTask", { id })).error).toMatchObject({ code: -32001 });
  });
});

describe("an A2A caller's message reaches the agent whole", () => {
  it("file and data parts, its messageId and metadata survive A2A → tool → A2A", async () => {
    const parts = [
      { text: "summarize these" },
      { data: { rows: [1, 2, 3] }, mediaType: "application/json" },
      { url: "https://files.example/report.pdf", mediaType: "application/pdf", filename: "report.pdf" },
      { raw: Buffer.from("hello").toString("base64"), mediaType: "text/plain", filename: "hello.txt" },
    ];
    const sent = { messageId: "m-whole-1", role: "ROLE_USER", parts, metadata: { skillId: "chat", traceTag: "t-42" } };
    const answer = await a2a("carol", "SendMessage", { message: sent });
    expect(answer.result.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(agent.messages.at(-1)).toEqual({ ...sent, metadata: { traceTag: "t-42", skillId: "chat" } });
    // A message of data alone is a message too.
    const dataOnly = await a2a("carol", "SendMessage", { message: { messageId: "m-data", role: "ROLE_USER", parts: [{ data: { q: "status" } }] } });
    expect(dataOnly.result.task).toBeDefined();
    expect(agent.messages.at(-1)).toMatchObject({ messageId: "m-data", parts: [{ data: { q: "status" } }] });
  });
});

describe("the A2A door's last side doors", () => {
  it("an unknown agent or skill, and the agent's card, are operations of the one chain: charged and audited", async () => {
    const since = Date.now();
    const ghost = await fetch(`${mesh.gatewayUrl}/a2a/ghost`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: "Bearer dave" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: say("hello") }),
    });
    expect(((await ghost.json()) as { error: { message: string } }).error.message).toMatch(/No A2A agent ghost you may reach/);
    const noSkill = await a2a("dave", "SendMessage", { message: { ...say("hi").message, metadata: { skillId: "nope" } } });
    expect(noSkill.error?.message).toMatch(/No skill nope of chat/);
    const card = await fetch(`${mesh.gatewayUrl}/a2a/chat/.well-known/agent-card.json`, { headers: { authorization: "Bearer dave" } });
    expect(((await card.json()) as { skills: Array<{ id: string }> }).skills.map((s) => s.id)).toEqual(["chat"]);
    expect((await fetch(`${mesh.gatewayUrl}/a2a/ghost/.well-known/agent-card.json`, { headers: { authorization: "Bearer dave" } })).status).toBe(404);
    const entries = await eventually(
      async () => (await admin(mesh.gatewayUrl, "GET", `/audit?type=call&since=${since}&limit=100`)).json.entries as Array<Record<string, unknown>>,
      (found) => found.filter((e) => e.code !== 0).length >= 3,
      10_000,
    );
    const summary = entries.map((e) => `${String(e.method)} ${String(e.resource ?? "-")} ${String(e.code)}`);
    expect(summary).toEqual(
      expect.arrayContaining([
        "ghost.chat - -32602",
        "chat.nope - -32602",
        "GET /a2a/.well-known/agent-card.json a2a:chat/agent-card 0",
        "GET /a2a/.well-known/agent-card.json a2a:ghost/agent-card -32602",
      ]),
    );
  });
});
