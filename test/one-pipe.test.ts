/**
 * One pipe (src/policies/content), tried from outside the way security review 4 tried it: a hostile MCP
 * server and a hostile A2A agent send the same credential through every channel they have — a
 * result, an `isError` result, a JSON-RPC error, a log message, a progress message, a token split
 * across two progress messages or two streamed chunks, a status message, a failed task, `GetTask`,
 * a resource read, a prompt, a completion — each registered twice, under `redact` (the default)
 * and under `refuse`, and the test counts what reached the caller of the gateway: nothing of it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually, post } from "./support/fixtures.js";
import { type Peer, startHostileAgent, startLeakyMcp } from "./support/hostile.js";

// A made-up credential in a shape secretlint's rules know (not live).
const TOKEN = `ghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;
/** Every piece of the credential a split could leave: its halves (as the review's agent split it) and the database password beside it. */
const PIECES = [TOKEN, TOKEN.slice(0, 20), TOKEN.slice(20), TOKEN.slice(0, 12), TOKEN.slice(12), "Sup3rS3cret"];

let mesh: Mesh;
let mcp: Peer;
let agent: Peer & { messages: any[] };

beforeAll(async () => {
  [mesh, mcp, agent] = await Promise.all([startMesh({ skills: [], adminToken: ADMIN_TOKEN }), startLeakyMcp(() => TOKEN), startHostileAgent(() => TOKEN)]);
  for (const [name, body] of [
    ["leaky", { kind: "mcp", url: `${mcp.url}/leaky/mcp` }],
    ["leakyr", { kind: "mcp", url: `${mcp.url}/leakyr/mcp`, guardrails: { secrets: "refuse" } }],
    ["chat", { kind: "a2a", url: agent.url }],
    ["chatr", { kind: "a2a", url: agent.url, guardrails: { secrets: "refuse" } }],
  ] as const) {
    const added = await admin(mesh.gatewayUrl, "POST", "/upstreams", { name, ...body });
    expect(added.status, JSON.stringify(added.json)).toBe(201);
  }
}, 120_000);
afterAll(() => Promise.all([mesh?.dispose(), mcp?.close(), agent?.close()]));

/** Everything a caller got back: the response's text, every event of a stream included. */
type Received = { status: number; text: string };

const rpc = async (method: string, params: unknown, streamed = false): Promise<Received> => {
  const response = await fetch(`${mesh.gatewayUrl}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(streamed ? { accept: "text/event-stream" } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", method, params, id: 1 }),
  });
  return { status: response.status, text: await response.text() };
};

/** One MCP 2026-07-28 request (its `_meta` added), answered as JSON or on an event stream. */
const mcpCall = async (method: string, params: Record<string, unknown>, meta: Record<string, unknown> = {}): Promise<Received> => {
  const response = await fetch(`${mesh.gatewayUrl}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, ...meta } },
    }),
  });
  return { status: response.status, text: await response.text() };
};

const a2a = async (agentName: string, method: string, params: unknown, caller = "alice"): Promise<Received> => {
  const response = await fetch(`${mesh.gatewayUrl}/a2a/${agentName}`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: `Bearer ${caller}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return { status: response.status, text: await response.text() };
};
const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], metadata: { skillId: "chat" } } });

/** Every channel, each a request for the MCP upstream (`m`) and the A2A agent (`a`) registered under one mode. */
function channels(m: string, a: string): Array<[string, () => Promise<Received>]> {
  return [
    ["a tool's result", () => rpc(`${m}.result`, {})],
    ["an isError result (/rpc: error.data.toolResult)", () => rpc(`${m}.fail`, {})],
    ["an isError result (/mcp: the tool result)", () => mcpCall("tools/call", { name: `${m}.fail`, arguments: {} })],
    ["a JSON-RPC error's message and data", () => rpc(`${m}.error`, {})],
    [
      "a log message (and a database URL beside it)",
      () => mcpCall("tools/call", { name: `${m}.log`, arguments: {} }, { "io.modelcontextprotocol/logLevel": "debug" }),
    ],
    ["a progress message", () => mcpCall("tools/call", { name: `${m}.progress`, arguments: {} }, { progressToken: "p1" })],
    ["a progress message on /rpc's stream", () => rpc(`${m}.progress`, {}, true)],
    ["a token split across two progress messages", () => rpc(`${m}.progress-split`, {}, true)],
    ["a resource read", () => mcpCall("resources/read", { uri: `${m}://config` })],
    ["a prompt", () => mcpCall("prompts/get", { name: `${m}.deploy`, arguments: {} })],
    ["a completion", () => mcpCall("completion/complete", { ref: { type: "ref/prompt", name: `${m}.deploy` }, argument: { name: "env", value: "p" } })],
    ["a token an agent streams in two appended chunks", () => a2a(a, "SendStreamingMessage", message("split"))],
    ["an agent's status message, streamed", () => a2a(a, "SendStreamingMessage", message("progress"))],
    ["an agent's status message, as /rpc progress", () => rpc(`${a}.chat`, { message: "progress" }, true)],
    ["a failed task (/rpc)", () => rpc(`${a}.chat`, { message: "failleak" })],
    ["a failed task (the A2A door)", () => a2a(a, "SendMessage", message("failleak"))],
    [
      "GetTask",
      async () => {
        const started = JSON.parse((await a2a(a, "SendMessage", message("hello"))).text) as { result?: { task?: { id: string } } };
        return a2a(a, "GetTask", { id: started.result!.task!.id });
      },
    ],
  ];
}

describe.each([
  ["redact", "leaky", "chat"],
  ["refuse", "leakyr", "chatr"],
])("a hostile upstream and agent, the guardrail set to %s", (mode, m, a) => {
  it.each(channels(m, a))("%s: nothing of the credential reaches the caller", async (channel, send) => {
    const { status, text } = await send();
    expect(status, text).toBe(200);
    // A progress message is relayed whole when it comes (it is no stream to hold back): the first of
    // two that split a token has gone before the second shows it is one. The second's part is
    // redacted (or, under refuse, nothing more is relayed), and the finding recorded.
    const relayedBefore = channel.startsWith("a token split across two progress") ? [TOKEN.slice(0, 12), TOKEN.slice(0, 20)] : [];
    for (const piece of PIECES.filter((p) => !relayedBefore.includes(p))) expect(text).not.toContain(piece);
    // Something came back: the piece redacted, or the call refused by the guardrail.
    expect(text).toMatch(mode === "redact" ? /\[REDACTED:|withheld by the secrets guardrail/ : /secrets guardrail/);
  });
});

describe("what the guardrail did, wherever it found it", () => {
  it("is in the call's audit entry, each finding with the channel it was in, and counted", async () => {
    const since = Date.now();
    await mcpCall("tools/call", { name: "leaky.log", arguments: {} }, { "io.modelcontextprotocol/logLevel": "debug" });
    await rpc("leaky.progress-split", {}, true);
    await a2a("chatr", "SendStreamingMessage", message("split"));
    const entries = await eventually(
      async () => ((await admin(mesh.gatewayUrl, "GET", `/audit?type=call&since=${since}&limit=100`)).json.entries as Array<Record<string, any>>) ?? [],
      (found) => found.filter((e) => e.guardrail).length >= 3,
      10_000,
    );
    const whereOf = (method: string) => entries.find((e) => e.method === method)?.guardrail;
    expect(whereOf("leaky.log")).toMatchObject({
      action: "redacted",
      findings: expect.arrayContaining([expect.objectContaining({ kind: "POSTGRESQLCONNECTION", where: "log" })]),
    });
    expect(whereOf("leaky.progress-split")).toMatchObject({ findings: [expect.objectContaining({ kind: "GITHUB_TOKEN", where: "progress" })] });
    expect(whereOf("chatr.chat")).toMatchObject({ action: "refused", findings: expect.arrayContaining([expect.objectContaining({ where: "stream" })]) });
    for (const entry of entries) for (const piece of PIECES) expect(JSON.stringify(entry)).not.toContain(piece);
    const logged = /skillmesh_guardrail_actions_total\{skill="leaky\.log",guardrail="secrets",action="redacted",where="log"\} [1-9]/;
    const metrics = await eventually(
      () => fetch(`${mesh.gatewayUrl}/admin/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.text()),
      (text) => logged.test(text),
      10_000,
      200,
    );
    expect(metrics).toMatch(logged);
    expect(metrics).toMatch(/skillmesh_guardrail_actions_total\{skill="chatr\.chat",guardrail="secrets",action="refused",where="stream"\} [1-9]/);
  });

  it("under redact, the stream still carries the agent's text, the credential replaced, in the order it came", async () => {
    const { text } = await a2a("chat", "SendStreamingMessage", message("split"));
    const events = text
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => JSON.parse(line.slice(5)) as { result: Record<string, any> });
    const streamedText = events
      .flatMap((e) => (e.result.artifactUpdate ? e.result.artifactUpdate.artifact.parts.map((p: { text: string }) => p.text) : []))
      .join("");
    expect(streamedText).toBe("deploy token: [REDACTED:GITHUB_TOKEN]");
    expect(events.at(-1)!.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });
});

/** For the reproductions' sake: the same requests against the upstreams directly do carry the credential (the test would pass vacuously otherwise). */
describe("the hostile peers themselves", () => {
  it("send the credential, whole or split", async () => {
    const direct = await post(`${mcp.url}/mcp`, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "fail", arguments: {} } });
    expect(direct.text).toContain(TOKEN);
    const split = await fetch(`${agent.url}/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: message("split") }),
    });
    const text = await split.text();
    expect(text).toContain(TOKEN.slice(0, 20));
    expect(text).toContain(TOKEN.slice(20));
  });
});
