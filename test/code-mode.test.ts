/**
 * Code mode: an agent's script run in a fresh Worker Loader isolate of workerd, over the tools its
 * caller may call, each tool call through the one door as the caller. From `/rpc` and from the
 * official MCP clients of both eras (`/mcp?catalog=code`, and a virtual server's), with the typed
 * API from `catalog.describe`; the execution and its calls as one tree in the audit log;
 * idempotent replay of an execution and of its calls; approvals; limits; and hostile scripts, each
 * a clean error while the gateway keeps serving.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, SHIPPED_SKILLS, admin, eventually, fixture } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

const FAULTY = "01 03 02 00 2A 38 5B"; // a CRC that does not match
const GOOD = "01 03 02 00 2A 39 9B";

let mesh: Mesh;
beforeAll(async () => {
  mesh = await startMesh({
    skills: [SHIPPED_SKILLS.find((dir) => dir.endsWith("modbus-decode"))!, fixture("tally"), fixture("subtract"), fixture("wipe")],
    adminToken: ADMIN_TOKEN,
    gatewayVars: { SKILLMESH_AUTH: "required", SKILLMESH_CODE_MODE_RATE: "20/min" },
  });
  const saved = await admin(mesh.gatewayUrl, "PUT", "/servers/grid", { tools: ["modbus.*", "subtract"], aliases: { minus: "subtract" } });
  expect(saved.status, JSON.stringify(saved.json)).toBe(200);
}, 180_000);
afterAll(() => mesh?.dispose());

/** A new key (so each test has its own script rate), and its id. */
async function keyWith(skills: string[], extra: Record<string, unknown> = {}): Promise<{ key: string; id: string }> {
  const created = await admin(mesh.gatewayUrl, "POST", "/keys", { name: `code-${Math.random().toString(36).slice(2, 10)}`, skills, ...extra });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return { key: created.json.key, id: created.json.view.id };
}
const execute = (key: string, code: string, headers: Record<string, string> = {}) =>
  wireOf(mesh.gatewayUrl, { key }).rpc("code.execute", { code }, { headers });

type AuditEntry = {
  method: string;
  code: number;
  execution?: { id: string; calls?: number; bytes?: number; script?: string };
  replayed?: boolean;
  hidden?: boolean;
};
const auditOf = async (caller: string, count: number) =>
  eventually(
    async () => (await admin(mesh.gatewayUrl, "GET", `/audit?caller=${caller}&type=call&limit=100`)).json.entries as AuditEntry[],
    (entries) => entries.length >= count,
  );

describe("code.execute on /rpc", () => {
  it("runs a script over the caller's tools: one call, its result, its console, its tool calls each through the door, one tree in the audit log", async () => {
    const { key, id } = await keyWith(["modbus.*"]);
    const code = `async () => {
      const frames = ${JSON.stringify([FAULTY, GOOD, FAULTY])};
      const decoded = [];
      for (const frame of frames) decoded.push(await modbus.decode({ frame }));
      console.log("decoded", decoded.length);
      return decoded.map((d, i) => ({ i, valid: d.valid })).filter((d) => !d.valid);
    }`;
    const answer = await execute(key, code);
    expect(answer.json.result, JSON.stringify(answer.json)).toEqual({
      result: [
        { i: 0, valid: false },
        { i: 2, valid: false },
      ],
      logs: ["decoded 3"],
      calls: 3,
      execution: expect.stringMatching(/^x_[0-9a-f]{24}$/),
    });
    const { execution } = answer.json.result;
    // The script's entry, and one per tool call naming it: one tree, found by the execution's id.
    const entries = await eventually(
      async () => (await admin(mesh.gatewayUrl, "GET", `/audit?execution=${execution}`)).json.entries as AuditEntry[],
      (found) => found.length >= 4,
    );
    expect(new Set(entries.map((e) => (e as { caller?: string }).caller))).toEqual(new Set([id]));
    const run = entries.find((e) => e.method === "code.execute")!;
    expect(run).toMatchObject({ code: 0, execution: { id: execution, calls: 3, bytes: code.length, script: code } });
    const inner = entries.filter((e) => e.method === "modbus.decode");
    expect(inner).toHaveLength(3);
    for (const entry of inner) expect(entry).toMatchObject({ code: 0, execution: { id: execution } });
  });

  it("calls only what the caller may call: a tool outside its grants is unknown, a built-in is not a tool, a script cannot run a script", async () => {
    const { key, id } = await keyWith(["modbus.*"]);
    const tryCall = (call: string) => `async () => { try { return await ${call}; } catch (e) { return { code: e.code, message: e.message }; } }`;
    expect((await execute(key, tryCall(`tools.test.tally({ label: "hidden" })`))).json.result.result).toEqual({
      code: -32601,
      message: "Unknown tool: test.tally; catalog.search finds the tools you may call",
    });
    expect((await execute(key, tryCall("tools.skills.list({})"))).json.result.result).toMatchObject({ code: -32601 });
    expect((await execute(key, tryCall(`tools.code.execute({ code: "async () => 1" })`))).json.result.result).toEqual({
      code: -32602,
      message: "A script cannot run another script",
    });
    // Nothing reached the hidden tool.
    expect((await auditOf(id, 3)).filter((e) => e.method === "test.tally")).toEqual([]);
  });

  it("replays a retried execution, and a script run again after a failure runs no tool call twice", async () => {
    const { key, id } = await keyWith(["test.*"]);
    const label = `once-${Date.now()}`;
    const code = `async () => (await test.tally({ label: "${label}" })).count`;
    const first = await execute(key, code, { "idempotency-key": `run-${label}` });
    const again = await execute(key, code, { "idempotency-key": `run-${label}` });
    expect(first.json.result.result).toBe(1);
    expect(again.json.result).toEqual(first.json.result);
    expect(again.headers.get("idempotent-replayed")).toBe("1");
    // Another script under the key is refused, as for any call.
    expect((await execute(key, "async () => 2", { "idempotency-key": `run-${label}` })).json.error.code).toBe(-32003);
    // A script that fails for good after its tool call: its failure is replayed, nothing runs again.
    const failing = `async () => { const { count } = await test.tally({ label: "${label}-f" }); throw new Error("then failed at " + count); }`;
    const failed = await execute(key, failing, { "idempotency-key": `fail-${label}` });
    expect(failed.json.error).toMatchObject({ code: -32602, message: "then failed at 1", data: { calls: 1 } });
    const retried = await execute(key, failing, { "idempotency-key": `fail-${label}` });
    expect(retried.json.error.message).toBe("then failed at 1");
    expect(retried.headers.get("idempotent-replayed")).toBe("1");
    // A script cut by the caller's time budget may be retried: run again, its tool call is replayed (its own key: the execution's and its index), not run twice.
    const slow = `async () => { const { count } = await test.tally({ label: "${label}-s" }); await new Promise((resolve) => setTimeout(resolve, 2000)); return count; }`;
    const cut = await execute(key, slow, { "idempotency-key": `slow-${label}`, "x-timeout-ms": "500" });
    expect(cut.json.error).toMatchObject({ code: -32004, message: "The script ran longer than 500 ms" });
    await execute(key, slow, { "idempotency-key": `slow-${label}`, "x-timeout-ms": "500" });
    const slowPeek = await execute(key, `async () => (await test.tally({ label: "${label}-s", peek: true })).count`);
    expect(slowPeek.json.result.result).toBe(1);
    const peek = await execute(key, `async () => (await test.tally({ label: "${label}-f", peek: true })).count`);
    expect(peek.json.result.result).toBe(1);
    expect((await auditOf(id, 10)).filter((e) => e.method === "test.tally" && e.replayed)).toHaveLength(1);
  });

  it("refuses a destructive tool from a script (no approval can be asked there), and counts every script against the caller's rate", async () => {
    const { key } = await keyWith(["records.*", "modbus.*"]);
    const refused = await execute(key, `async () => records.wipe({ table: "orders" })`);
    expect(refused.json.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/records\.wipe is destructive: it runs only with its caller's approval/),
    });
    // 20 scripts a minute (SKILLMESH_CODE_MODE_RATE, a window per clock minute): this key has run one, so the
    // refusal comes after the window's 19 more — or, when the minute turns meanwhile, after up to 20 more of the next.
    const answers = [];
    for (let i = 0; i < 41 && !answers.at(-1)?.error; i++) answers.push((await execute(key, "async () => 1")).json);
    const served = answers.filter((a) => a.result).length;
    expect(served).toBeGreaterThanOrEqual(19);
    expect(served).toBeLessThanOrEqual(39);
    expect(answers.at(-1)!.error).toMatchObject({ code: -32005, data: { limit: "scripts" } });
  });
});

describe("a long script as a job", () => {
  it("runs with Prefer: respond-async: its tool calls' progress on the job, its result when done; jobs.cancel stops it", async () => {
    const { key } = await keyWith(["test.*"]);
    const wire = wireOf(mesh.gatewayUrl, { key });
    const label = `job-${Date.now()}`;
    const steps = (n: number, pauseMs: number) =>
      `async () => { let last; for (let i = 0; i < ${n}; i++) { last = await test.tally({ label: "${label}" }); await new Promise((r) => setTimeout(r, ${pauseMs})); } return last.count; }`;
    const accepted = await execute(key, steps(3, 50), { prefer: "respond-async" });
    expect(accepted.headers.get("preference-applied")).toBe("respond-async");
    expect(accepted.json.result).toEqual({ status: "queued", jobId: expect.stringMatching(/^j_/) });
    const done = await eventually(
      async () => (await wire.rpc("jobs.get", { jobId: accepted.json.result.jobId })).json.result,
      (job) => job.status === "completed",
      20_000,
    );
    expect(done.result, JSON.stringify(done)).toMatchObject({ result: 3, calls: 3 });

    // A longer one, cancelled while it runs: no tool call after the cancel.
    const long = await execute(key, steps(40, 400), { prefer: "respond-async" });
    const jobId = long.json.result.jobId;
    const running = await eventually(
      async () => (await wire.rpc("jobs.get", { jobId })).json.result,
      (job) => (job.progress?.progress ?? 0) >= 2,
      20_000,
    );
    expect(running).toMatchObject({ status: "running", progress: { message: "test.tally answered" } });
    expect((await wire.rpc("jobs.cancel", { jobId })).json.result.status).toBe("cancelled");
    const peek = async () => (await execute(key, `async () => (await test.tally({ label: "${label}", peek: true })).count`)).json.result.result as number;
    // The runner sees the cancel within a second or so; after that the count stops.
    const settled = await eventually(
      async () => {
        const before = await peek();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        return before === (await peek()) ? before : undefined;
      },
      (count) => count !== undefined,
      20_000,
    );
    expect(settled!).toBeLessThan(3 + 40);
  });
});

describe("a script as an MCP task", () => {
  const script = { code: `async () => (await modbus.decode({ frame: "${GOOD}" })).valid` };

  it("2025-11-25: a task on request; tasks/result answers the script's result", async () => {
    const { key } = await keyWith(["modbus.*"]);
    const wire = wireOf(mesh.gatewayUrl, { key });
    const created = await wire.mcp2025("tools/call", { name: "code.execute", arguments: script, task: { ttl: 60_000 } }, { path: "/mcp?catalog=code" });
    const { task } = created.json.result;
    expect(task, JSON.stringify(created.json)).toMatchObject({ taskId: expect.stringMatching(/^j_/), status: "working" });
    const result = await wire.mcp2025("tasks/result", { taskId: task.taskId }, { path: "/mcp?catalog=code" });
    expect(result.json.result, JSON.stringify(result.json)).toMatchObject({ structuredContent: { result: true, calls: 1 } });
  });

  it("a task on a virtual server runs behind that door: its aliases are the script's names, its guardrail holds the result", async () => {
    const { key } = await keyWith(["*"]);
    const wire = wireOf(mesh.gatewayUrl, { key });
    const asTask = async (path: string, code: string) => {
      const created = await wire.mcp2025("tools/call", { name: "code.execute", arguments: { code }, task: {} }, { path });
      expect(created.json.result?.task, JSON.stringify(created.json)).toBeDefined();
      return (await wire.mcp2025("tasks/result", { taskId: created.json.result.task.taskId }, { path })).json.result;
    };
    const viaAlias = await asTask("/mcp/grid?catalog=code", "async () => minus({ minuend: 5, subtrahend: 3 })");
    expect(viaAlias, JSON.stringify(viaAlias)).toMatchObject({
      structuredContent: { result: 2, calls: 1 },
    });
    // The token is made at run time (the script's text has none): the result, kept by the job, meets the server's guardrail.
    const saved = await admin(mesh.gatewayUrl, "PUT", "/servers/guarded", { tools: ["modbus.*"], guardrails: { secrets: "refuse" } });
    expect(saved.status).toBe(200);
    const leaked = await asTask("/mcp/guarded?catalog=code", 'async () => "token: " + ["ghp", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"].join("_")');
    expect(JSON.stringify(leaked)).not.toContain("A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
    expect(leaked.isError, JSON.stringify(leaked)).toBe(true);
  });

  it("2026-07-28: a client that declared the tasks extension gets a task; tasks/get carries the result", async () => {
    const { key } = await keyWith(["modbus.*"]);
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
    };
    const wire = wireOf(mesh.gatewayUrl, { key });
    const created = await wire.mcp2026("tools/call", { name: "code.execute", arguments: script }, { path: "/mcp?catalog=code", meta });
    expect(created.json.result, JSON.stringify(created.json)).toMatchObject({ resultType: "task", taskId: expect.stringMatching(/^j_/) });
    const { taskId } = created.json.result;
    const done = await eventually(
      () => wire.mcp2026("tasks/get", { taskId }, { path: "/mcp?catalog=code", meta }),
      (answer) => answer.json.result?.status === "completed",
      10_000,
      100,
    );
    expect(JSON.stringify(done.json.result)).toMatch(/"result":true/);
  });
});

describe("hostile scripts", () => {
  const HOSTILE: Array<[string, string, RegExp]> = [
    ["fetch", `async () => fetch("${"http://127.0.0.1"}/admin/keys")`, /not permitted to access the internet/],
    ["connect", `async () => { const { connect } = await import("cloudflare:sockets"); const s = connect("127.0.0.1:80"); await s.opened; }`, /not permitted/],
    ["import()", `async () => import("data:text/javascript,export default 1")`, /No such module/],
    ["eval", `async () => eval("1 + 1")`, /Code generation from strings disallowed/],
    ["new Function", `async () => new Function("return 1")()`, /Code generation from strings disallowed/],
    ["an endless loop", `async () => { while (true) {} }`, /ran past its \d+ steps/],
    ["an endless loop that catches", `async () => { for (;;) { try { for (;;) {} } catch {} } }`, /ran past its \d+ steps/],
    ["deep recursion", `async () => { const f = (n) => f(n + 1) + 1; return f(0); }`, /Maximum call stack size exceeded|steps/],
    ["a 100 MB result", `async () => "x".repeat(100 * 1024 * 1024)`, /result is larger than 1048576 characters/],
    ["10,000 tool calls", `async () => { for (let i = 0; i < 10000; i++) await modbus.decode({ frame: "${GOOD}" }); }`, /more than 500 tool calls/],
    [
      "10,000 tool calls, each refusal caught",
      `async () => { for (let i = 0; i < 10000; i++) try { await modbus.decode({ frame: "${GOOD}" }); } catch {} return "done"; }`,
      /more than 500 tool calls/,
    ],
    [
      "the gateway's env",
      `async () => { if (typeof env !== "undefined" || typeof host !== "undefined") return "found"; throw new Error("nothing there"); }`,
      /nothing there/,
    ],
    ["the stub's other members", `async () => modbus.constructor({})`, /Unknown tool: modbus.constructor/],
    ["a script that is not one function", `}); globalThis.owned = 1; (async () => {`, /does not parse/],
  ];

  it.each(HOSTILE)("%s: a clean error, and the gateway serves the next call", async (_what, code, message) => {
    const { key } = await keyWith(["modbus.*"]);
    const answer = await execute(key, code);
    expect(answer.status).toBe(200);
    expect(answer.json.error, JSON.stringify(answer.json).slice(0, 500)).toMatchObject({ message: expect.stringMatching(message) });
    expect(JSON.stringify(answer.json)).not.toMatch(/at .*\.js:\d+/); // no stack trace
    const next = await wireOf(mesh.gatewayUrl, { key }).rpc("modbus.decode", { frame: GOOD });
    expect(next.json.result.valid).toBe(true);
  });

  it("cannot forge its caller or pollute a prototype: identity is the gateway's, JSON is data", async () => {
    const { key, id } = await keyWith(["modbus.*"]);
    const code = `async () => {
      const args = JSON.parse('{"frame": "${GOOD}", "__proto__": {"polluted": true}, "_meta": {"caller": "k_admin"}}');
      const decoded = await modbus.decode(args);
      return { polluted: ({}).polluted ?? null, valid: decoded.valid, proto: JSON.parse('{"__proto__": {"x": 1}}') };
    }`;
    const answer = await execute(key, code);
    expect(answer.json.result.result).toEqual({ polluted: null, valid: true, proto: { ["__proto__"]: { x: 1 } } });
    const entries = await auditOf(id, 2);
    expect(new Set(entries.map((e) => (e as { caller?: string }).caller))).toEqual(new Set([id]));
  });
});

describe("approving a destructive tool call", () => {
  const wipe = (label: string) =>
    `async () => { const before = await test.tally({ label: "${label}" }); const done = await records.wipe({ table: "orders" }); return { count: before.count, ...done }; }`;

  it("2025-11-25 (SDK v1): the caller is asked on the call's stream; approved it runs, declined it does not", async () => {
    const { key } = await keyWith(["records.*", "test.*"]);
    const asked: string[] = [];
    let answer: "accept" | "decline" = "accept";
    const client = new Client({ name: "code-mode-approver", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer === "accept" ? { action: "accept", content: { approve: true } } : { action: "decline" };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${mesh.gatewayUrl}/mcp?catalog=code`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    const label = `v1-${Date.now()}`;
    const approved = await client.callTool({ name: "code.execute", arguments: { code: wipe(label) } });
    expect(approved.structuredContent, JSON.stringify(approved)).toMatchObject({ result: { count: 1, wiped: "orders" }, calls: 2 });
    expect(asked).toEqual(['[code.execute] The script asks to call records.wipe, which is marked destructive, with {"table":"orders"}. Approve this call?']);
    answer = "decline";
    const declined = await client.callTool({ name: "code.execute", arguments: { code: wipe(label) } });
    expect(declined.isError).toBe(true);
    expect((declined.content as Array<{ text: string }>)[0]!.text).toMatch(/^The caller declined records.wipe/);
    await client.close();
  });

  it("2026-07-28: input_required with a handle; the retry with the approval runs it, and the calls before it are not run twice", async () => {
    const { key } = await keyWith(["records.*", "test.*"]);
    const label = `v2-${Date.now()}`;
    const declared = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
    const call = (extra: Record<string, unknown> = {}) =>
      wireOf(mesh.gatewayUrl, { key }).mcp2026(
        "tools/call",
        { name: "code.execute", arguments: { code: wipe(label) }, ...extra },
        { path: "/mcp?catalog=code", meta: declared },
      );
    const first = (await call()).json.result;
    expect(first, JSON.stringify(first)).toMatchObject({
      resultType: "input_required",
      inputRequests: {
        "approve-1": { method: "elicitation/create", params: { message: expect.stringMatching(/records\.wipe, which is marked destructive/) } },
      },
      requestState: expect.stringMatching(/^rs_[0-9a-f]{32}$/),
    });
    const again = await call({ inputResponses: { "approve-1": { action: "accept", content: { approve: true } } }, requestState: first.requestState });
    expect(again.json.result.structuredContent, JSON.stringify(again.json)).toMatchObject({ result: { count: 1, wiped: "orders" }, calls: 2 });
    // A forged handle is refused before anything runs.
    const forged = await call({ inputResponses: { "approve-1": { action: "accept", content: { approve: true } } }, requestState: `rs_${"0".repeat(32)}` });
    expect(forged.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/requestState is not one this server gave/) });
    // Without elicitation declared, the call is refused, not asked.
    const undeclared = await wireOf(mesh.gatewayUrl, { key }).mcp2026(
      "tools/call",
      { name: "code.execute", arguments: { code: wipe(label) } },
      { path: "/mcp?catalog=code" },
    );
    expect(undeclared.json.result.isError).toBe(true);
    expect(undeclared.json.result.content[0].text).toMatch(/records.wipe is destructive/);
  });
});

describe("code mode over MCP, with the official clients", () => {
  it("2025-11-25 (SDK v1): lists search, describe and code.execute; describe gives the typed API; a script's failure is a tool error with its console", async () => {
    const { key } = await keyWith(["modbus.*"]);
    const client = new Client({ name: "code-mode-v1", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${mesh.gatewayUrl}/mcp?catalog=code`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["catalog.search", "catalog.describe", "code.execute"]);
    const described = (await client.callTool({ name: "catalog.describe", arguments: { name: "modbus.decode" } })).structuredContent as { typescript: string };
    expect(described.typescript).toMatch(/declare const modbus: \{ decode\(input: ModbusDecodeInput\): Promise<ModbusDecodeOutput> \};/);
    expect(described.typescript).toMatch(/type ModbusDecodeInput = \{[\s\S]*frame: string/);
    const ran = await client.callTool({ name: "code.execute", arguments: { code: `async () => (await modbus.decode({ frame: "${FAULTY}" })).valid` } });
    expect(ran.structuredContent).toMatchObject({ result: false, calls: 1 });
    const failed = await client.callTool({
      name: "code.execute",
      arguments: { code: `async () => { console.log("about to fail"); throw new Error("no luck"); }` },
    });
    expect(failed.isError).toBe(true);
    expect((failed.content as Array<{ text: string }>)[0]!.text).toBe("no luck\nConsole:\nabout to fail\nTool calls made: 0");
    await client.close();
  });

  it("2026-07-28 (SDK v2) on a virtual server: the script sees the server's tools under its aliases, and nothing else", async () => {
    const { key } = await keyWith(["*"]);
    const client = new ClientV2({ name: "code-mode-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(
      new TransportV2(new URL(`${mesh.gatewayUrl}/mcp/grid?catalog=code`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const code = `async () => {
      const difference = await minus({ minuend: 5, subtrahend: 3 });
      let hidden;
      try { await test.tally({ label: "x" }); } catch (e) { hidden = e.message; }
      return { difference, valid: (await modbus.decode({ frame: "${GOOD}" })).valid, hidden };
    }`;
    const ran = await client.callTool({ name: "code.execute", arguments: { code } });
    expect(ran.structuredContent, JSON.stringify(ran)).toMatchObject({
      result: { difference: 2, valid: true, hidden: expect.stringMatching(/^test is not defined|Unknown tool: test.tally/) },
      calls: 2,
    });
    await client.close();
  });
});
