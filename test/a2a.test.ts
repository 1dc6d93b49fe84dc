/**
 * A2A agents behind the gateway in workerd: an agent made with the official A2A SDK
 * (@a2a-js/sdk, protocol v1.0), twice — versions 1.0.0 and 2.0.0 of the upstream `text` — and the
 * SDK's own client talking to it through the gateway (`/a2a/text`). Each of the agent's skills is
 * a tool of the one call chain: granted, limited, routed between the agent's versions by the
 * canary, broken around when the agent is down, audited; the gateway's card of the agent lists
 * only the skills a caller may call; streaming relays the agent's events, task states included.
 */
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Role, TaskState } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { LEAKED_TOKEN, type RunningAgent, startA2aAgent } from "../scripts/a2a-agent.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post } from "./support/fixtures.js";
import { startPeer } from "./support/hostile.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
let v1: RunningAgent;
let v2: RunningAgent;
let everything: string;
let summarizeOnly: string;
let nothing: string;

beforeAll(async () => {
  [mesh, v1, v2] = await Promise.all([
    startMesh({ skills: [fixture("subtract")], adminToken: ADMIN_TOKEN, gatewayVars: { SKILLMESH_AUTH: "required" } }),
    startA2aAgent("v1", "1.0.0"),
    startA2aAgent("v2", "2.0.0"),
  ]);
  for (const [agent, version] of [
    [v1, "1.0.0"],
    [v2, "2.0.0"],
  ] as const) {
    const added = await admin(mesh.gatewayUrl, "POST", "/upstreams", {
      kind: "a2a",
      name: "text",
      version,
      url: agent.url,
      breaker: { consecutiveFailures: 2, openMs: 60_000 },
    });
    expect(added.status, JSON.stringify(added.json)).toBe(201);
  }
  everything = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "text", skills: ["text.*"], groups: ["beta"] })).json.key;
  summarizeOnly = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "summarize", skills: ["text.summarize"] })).json.key;
  nothing = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "subtract", skills: ["subtract"] })).json.key;
}, 120_000);
afterAll(() => Promise.all([mesh?.dispose(), v1?.stop(), v2?.stop()]));

/** The A2A SDK's client of the gateway's endpoint for `text`, with a key (and more headers). */
async function a2aClient(key: string, headers: Record<string, string> = {}): Promise<Client> {
  const fetchImpl = ((input: RequestInfo | URL, init?: RequestInit) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${key}`, ...headers } })) as typeof fetch;
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
  return factory.createFromUrl(`${mesh.gatewayUrl}/a2a/text/`);
}

/** A user's text message, as the SDK's client takes it. */
const said = (text: string, skillId?: string) => ({
  tenant: "",
  message: {
    messageId: crypto.randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    metadata: skillId ? { skillId } : undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});
const textOf = (parts: Array<{ content?: { $case: string; value?: unknown } }>) =>
  parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
const rpc = (key: string, method: string, params: object, headers: Record<string, string> = {}) =>
  wireOf(mesh.gatewayUrl).rpc(method, params, { key, headers });

describe("an A2A agent behind the gateway", () => {
  it("has each skill of its card served as a tool, with the card's words and the agent's own input", async () => {
    const view = (await admin(mesh.gatewayUrl, "GET", "/upstreams/text")).json;
    expect(view.kind).toBe("a2a");
    expect(view.versions["1.0.0"]).toMatchObject({
      url: `${v1.url}/a2a`,
      documentUrl: `${v1.url}/.well-known/agent-card.json`,
      agent: { name: "Text agent", version: "1.0.0" },
      tools: { summarize: "text.summarize", translate: "text.translate" },
    });
    const skill = (await admin(mesh.gatewayUrl, "GET", "/skills/text.summarize")).json.deployments[0];
    expect(skill.manifest).toMatchObject({ title: "Summarize", description: "Summarizes a text.", tags: ["upstream:text"], idempotent: false });
  });

  it("answers a call of a skill over JSON-RPC with the agent's task: its text, its state", async () => {
    const { json } = await rpc(everything, "text.summarize", { message: "hello" });
    expect(json.result.content).toEqual([{ type: "text", text: "v1 (summarize): hello" }]);
    expect(json.result.structuredContent.task.status.state).toBe("TASK_STATE_COMPLETED");
    // A task the agent failed is an error, its task in the data.
    const failed = (await rpc(everything, "text.summarize", { message: "fail" })).json.error;
    expect(failed.code).toBe(-32603);
    expect(failed.data.toolResult.structuredContent.task.status.state).toBe("TASK_STATE_FAILED");
    // Bad input changes nothing upstream.
    const before = v1.seen.requests;
    expect((await rpc(everything, "text.summarize", { text: "hello" })).json.error.code).toBe(-32602);
    expect(v1.seen.requests).toBe(before);
  });

  it("serves the SDK's client through /a2a/<agent>: a card of the skills the caller may call, a message answered with the task", async () => {
    const client = await a2aClient(summarizeOnly);
    const card = await client.getAgentCard();
    expect(card.name).toBe("Text agent");
    expect(card.supportedInterfaces[0]!.url).toBe(`${mesh.gatewayUrl}/a2a/text`);
    expect(card.skills.map((s) => s.id)).toEqual(["summarize"]);
    const answer = await client.sendMessage(said("hi"));
    expect("artifacts" in answer).toBe(true);
    const task = answer as Extract<typeof answer, { artifacts: unknown }>;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts[0]!.parts)).toBe("v1 (summarize): hi");
    // Its status later: GetTask of the caller's own task, at the version that ran it.
    const got = await client.getTask({ tenant: "", id: task.id, historyLength: undefined } as Parameters<Client["getTask"]>[0]);
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Another caller's task is not found, as one that does not exist; nothing reaches the agent.
    const before = v1.seen.requests;
    const other = await a2aClient(everything);
    await expect(other.getTask({ tenant: "", id: task.id } as Parameters<Client["getTask"]>[0])).rejects.toThrow(/Task not found/);
    await expect(other.getTask({ tenant: "", id: "no-such-task" } as Parameters<Client["getTask"]>[0])).rejects.toThrow(/Task not found/);
    expect(v1.seen.requests).toBe(before);
    // A skill the key may not call is refused, naming none of what it cannot see.
    await expect(client.sendMessage(said("hi", "translate"))).rejects.toThrow(/No skill translate/);
    // A key that may call none of the agent's skills does not find the agent.
    expect((await fetch(`${mesh.gatewayUrl}/a2a/text/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${nothing}` } })).status).toBe(404);
    expect((await fetch(`${mesh.gatewayUrl}/a2a/text/.well-known/agent-card.json`)).status).toBe(401);
  });

  it("streams the agent's events: the task, its status updates and its artifact, as they come", async () => {
    const client = await a2aClient(everything);
    const events: Array<{ kind: string; state?: TaskState; text?: string }> = [];
    for await (const event of client.sendMessageStream(said("stream me", "translate"))) {
      const payload = event.payload!;
      if (payload.$case === "statusUpdate") events.push({ kind: "status", state: payload.value.status!.state });
      else if (payload.$case === "artifactUpdate") events.push({ kind: "artifact", text: textOf(payload.value.artifact!.parts) });
      else events.push({ kind: payload.$case });
    }
    expect(events).toEqual([
      { kind: "task" },
      { kind: "status", state: TaskState.TASK_STATE_WORKING },
      { kind: "artifact", text: "v1 (translate): stream me" },
      { kind: "status", state: TaskState.TASK_STATE_COMPLETED },
    ]);
    // The secrets guardrail (on for upstreams) reads the streamed events too: the agent's credential never reaches the caller.
    const streamed: string[] = [];
    for await (const event of client.sendMessageStream(said("leak", "translate"))) streamed.push(JSON.stringify(event));
    expect(streamed.join("\n")).not.toContain(LEAKED_TOKEN);
    expect(streamed.join("\n")).toContain("[REDACTED:");
    // Each call is audited as a call of the skill's tool, with the version that answered.
    const audit = (await admin(mesh.gatewayUrl, "GET", "/audit?skill=text.translate&type=call")).json.entries as Array<{ deployment?: string; code: number }>;
    expect(audit).toContainEqual(expect.objectContaining({ deployment: "text.translate@1.0.0", code: 0 }));
  });

  it("splits callers between the agent's two versions by its canary", async () => {
    for (const skill of ["text.summarize", "text.translate"]) {
      const canary = await admin(mesh.gatewayUrl, "POST", `/skills/${skill}/canary`, { version: "2.0.0", groups: { beta: 100 } });
      expect(canary.status).toBe(200);
    }
    const beta = await a2aClient(everything, { "x-user-group": "beta" });
    const answered = async () => textOf(((await beta.sendMessage(said("hi"))) as unknown as { artifacts: Array<{ parts: [] }> }).artifacts[0]!.parts);
    expect(await eventually(answered, (text) => text.startsWith("v2"), 15_000)).toBe("v2 (summarize): hi");
    expect((await beta.getAgentCard()).version).toBe("2.0.0");
    expect((await rpc(everything, "text.summarize", { message: "hi" })).json.result.content[0].text).toBe("v1 (summarize): hi");
  });

  it("takes nothing from a hostile agent but what it checked: where messages go, a card's size, an answer's shape", async () => {
    let card: unknown;
    let answer: unknown = { jsonrpc: "2.0", id: 1, result: { task: { id: 7 } } };
    const agent = await startPeer((request, response) => {
      if (request.method === "GET") return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(card));
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
    const cardOf = (url: string) => ({
      name: "Shady",
      description: "d",
      version: "1",
      supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      skills: [{ id: "grab", name: "Grab", description: "g", tags: ["public"] }],
    });
    const register = () => admin(mesh.gatewayUrl, "POST", "/upstreams", { kind: "a2a", name: "shady", url: agent.url });
    try {
      // Its card does not send the gateway's messages elsewhere.
      card = cardOf("http://127.0.0.1:9/a2a");
      const elsewhere = await register();
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.json.error.message).toMatch(/not at its card's origin/);
      // A card past 1 MiB is not read.
      card = { ...cardOf(`${agent.url}/a2a`), description: "x".repeat(1_100_000) };
      expect((await register()).json.error.message).toMatch(/larger than 1024 KiB/);
      // A card's tags are not the grants that reach it.
      card = cardOf(`${agent.url}/a2a`);
      expect((await register()).status).toBe(201);
      expect((await admin(mesh.gatewayUrl, "GET", "/skills/shady.grab")).json.deployments[0].tags).toEqual(["upstream:shady"]);
      // An answer that is not a task or a message is a clean -32001, and nothing of it reaches the caller.
      const key = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "shady", skills: ["shady.*"] })).json.key;
      const called = (await rpc(key, "shady.grab", { message: "x" })).json.error;
      expect(called).toMatchObject({ code: -32001, message: expect.stringMatching(/not a task or a message/) });
      answer = "not json at all";
      expect((await rpc(key, "shady.grab", { message: "x" })).json.error.code).toBe(-32001);
      // The A2A door refuses what is not A2A: malformed JSON, a message without text.
      const door = (body: string, version?: string) =>
        post(`${mesh.gatewayUrl}/a2a/shady`, body, { authorization: `Bearer ${key}`, ...(version ? { "a2a-version": version } : {}) });
      expect((await door("{", "1.0")).json.error.code).toBe(-32700);
      const empty = { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [] } } };
      expect((await door(JSON.stringify(empty), "1.0")).json.error.code).toBe(-32602);
      // A request of another protocol version (none said is 0.3) is VersionNotSupportedError, and nothing is sent.
      const before = agent.seen.length;
      const hello = { jsonrpc: "2.0", id: 2, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] } } };
      expect((await door(JSON.stringify(hello))).json.error).toMatchObject({ code: -32009, message: expect.stringMatching(/'0.3' is not supported/) });
      expect((await door(JSON.stringify(hello), "2.0")).json.error.code).toBe(-32009);
      expect(agent.seen.length).toBe(before);
    } finally {
      await admin(mesh.gatewayUrl, "DELETE", "/upstreams/shady");
      await agent.close();
    }
  });

  it("routes around an agent that is down: a clean -32001, then the breaker answers without calling it", async () => {
    await v1.stop();
    const first = (await rpc(everything, "text.summarize", { message: "hi" })).json.error;
    expect(first.code).toBe(-32001);
    expect(JSON.stringify(first)).not.toMatch(/at .*\.ts|stack/i);
    // Failures of two callers (one caller alone never opens a breaker for everyone), written to the
    // breaker after each call: it opens within a few calls.
    let turn = 0;
    const open = await eventually(
      async () => (await rpc([everything, summarizeOnly][turn++ % 2]!, "text.summarize", { message: "hi" })).json.error,
      (error) => /no healthy deployment is left/.test(error?.message ?? ""),
      10_000,
    );
    expect(open).toMatchObject({ code: -32001, message: expect.stringMatching(/no healthy deployment is left/) });
    // The canary's callers are on version 2.0.0, which still answers.
    expect((await rpc(everything, "text.summarize", { message: "hi" }, { "x-user-group": "beta" })).json.result.content[0].text).toBe("v2 (summarize): hi");
  });
});
