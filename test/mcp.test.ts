/**
 * `/mcp` end to end in workerd: the official MCP TypeScript SDK client (the official conformance
 * suite runs in test/conformance.test.ts), and the protocol rules
 * of both eras on the wire: versions, headers, batches, 202/400/403/404/405, pagination, tool
 * errors, and the gateway's own headers (`X-User-Group`, `Idempotency-Key`).
 */
import { join } from "node:path";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../scripts/mesh/bundle.js";
import { type Mesh, registerSkill, startMesh } from "../scripts/mesh/index.js";
import { sseData } from "../src/protocols/sse/index.js";
import { ADMIN_TOKEN, admin, fixture, post } from "./support/fixtures.js";

let mesh: Mesh;
let mcpUrl: string;

beforeAll(async () => {
  mesh = await startMesh({
    skills: [
      join(ROOT, "skills/text-summarize-v1"),
      join(ROOT, "skills/text-summarize-v2"),
      fixture("test_simple_text"),
      fixture("test_error_handling"),
      fixture("json_schema_2020_12_tool"),
      fixture("sum"),
      fixture("counter"),
      fixture("region"),
      fixture("test_tool_with_progress"),
    ],
    adminToken: ADMIN_TOKEN,
    gatewayVars: { SKILLMESH_MCP_PAGE_SIZE: "3" },
  });
  mcpUrl = `${mesh.gatewayUrl}/mcp`;
  await admin(mesh.gatewayUrl, "POST", "/skills/text.summarize/canary", { version: "2.0.0", groups: { beta: 100 } });
});
afterAll(() => mesh?.dispose());

const TEXT = "Edge workers run close to users. Skills are small. A gateway routes calls to skills. Users like fast answers.";

/** An SDK client connected to the mesh, with extra request headers. */
async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "skillmesh-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } }));
  return client;
}

/** Every tool, following `nextCursor` page by page. */
async function allTools(client: Client) {
  const tools = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

describe("the official MCP SDK client", () => {
  it("connects, lists every skill as a tool across pages, and calls one", async () => {
    const client = await connect();
    expect(client.getServerVersion()).toEqual({ name: "skillmesh-gateway", version: "0.1.0" });
    const { tools } = await client.listTools();
    // The SDK client follows no cursors itself: a page holds 3 (SKILLMESH_MCP_PAGE_SIZE).
    expect(tools).toHaveLength(3);
    const names = (await allTools(client)).map((t) => t.name);
    // Every skill, and skills.call (policy routing by capability) among them in name order.
    expect(names).toEqual([
      "json_schema_2020_12_tool",
      "skills.call",
      "sum",
      "test.counter",
      "test.region",
      "test_error_handling",
      "test_simple_text",
      "test_tool_with_progress",
      "text.summarize",
    ]);

    const result = await client.callTool({ name: "text.summarize", arguments: { text: TEXT, sentences: 1 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ method: "word-frequency", totalSentences: 4 });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(result.structuredContent);
    await client.close();
  });

  it("reaches the canary version with X-User-Group: beta", async () => {
    const client = await connect({ "x-user-group": "beta" });
    const result = await client.callTool({ name: "text.summarize", arguments: { text: TEXT, sentences: 1 } });
    expect(result.structuredContent).toMatchObject({ method: "textrank" });
    await client.close();
  });

  it("gets bad argument values back as a tool error a model can act on", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "text.summarize", arguments: { text: "", sentences: 0 } });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).toMatch(/^Invalid arguments\./);
    expect(text).toMatch(/- text: /);
    expect(text).toMatch(/- sentences: /);
    await client.close();
  });

  it("calls a positional-only skill through its `params` argument, and wraps a non-object result", async () => {
    const client = await connect();
    const sum = (await allTools(client)).find((t) => t.name === "sum")!;
    expect(sum.inputSchema).toMatchObject({ type: "object", properties: { params: { type: "array" } }, required: ["params"] });
    // What its definition declares (defineSkill's title and annotations), idempotentHint from `idempotent`.
    expect(sum.title).toBe("Add numbers");
    expect(sum.annotations).toEqual({ readOnlyHint: true, openWorldHint: false, idempotentHint: true });
    const result = await client.callTool({ name: "sum", arguments: { params: [1, 2, 4] } });
    expect(result.structuredContent).toEqual({ result: 7 });
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe("7");
    await client.close();
  });
});

describe("the official MCP v2 client (2026-07-28), pinned and in auto mode", () => {
  it.each([[{ pin: "2026-07-28" }], ["auto"]] as const)(
    "negotiates 2026-07-28 (%j), lists every tool across pages, calls one, and gets isError for bad arguments",
    async (mode) => {
      const client = new ClientV2({ name: "skillmesh-test-v2", version: "1.0.0" }, { versionNegotiation: { mode } });
      await client.connect(new TransportV2(new URL(mcpUrl)));
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
        const tools: Array<{ name: string; title?: string; annotations?: unknown }> = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : {});
          tools.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor);
        const names = tools.map((tool) => tool.name);
        // A skill's title and annotations, as in the 2025 era.
        expect(tools.find((tool) => tool.name === "sum")).toMatchObject({
          title: "Add numbers",
          annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
        });
        expect(names).toEqual([...mesh.skills.map((s) => s.manifest.name), "skills.call"].filter((n, i, all) => all.indexOf(n) === i).sort());
        const result = await client.callTool({ name: "sum", arguments: { params: [1, 2, 4] } });
        expect(result.structuredContent).toEqual({ result: 7 });
        const bad = await client.callTool({ name: "sum", arguments: { params: ["x"] } });
        expect(bad.isError).toBe(true);
        // x-mcp-header: the client mirrors the argument into Mcp-Param-Region itself, and the gateway checks it.
        const region = await client.callTool({ name: "test.region", arguments: { region: "Hello, 世界", query: "q" } });
        expect(region.structuredContent).toEqual({ region: "Hello, 世界", query: "q" });
      } finally {
        await client.close();
      }
    },
  );
});

const INIT = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } };
const mcp = (body: unknown, headers: Record<string, string> = {}) => post(mcpUrl, body, headers);

describe("the handshake era (2025-03-26 … 2025-11-25) on the wire", () => {
  it("negotiates: echoes a version it speaks, offers its newest otherwise", async () => {
    for (const [asked, got] of [
      ["2025-03-26", "2025-03-26"],
      ["2025-06-18", "2025-06-18"],
      ["2024-11-05", "2025-11-25"],
      ["2026-07-28", "2025-11-25"],
    ]) {
      const answer = await mcp({ jsonrpc: "2.0", id: 1, method: "initialize", params: { ...INIT, protocolVersion: asked } });
      expect(answer.status).toBe(200);
      expect(answer.json.result.protocolVersion).toBe(got);
      // A session of its own (it only scopes the client's request ids for notifications/cancelled).
      expect(answer.headers.get("mcp-session-id")).toMatch(/^[0-9a-f]{32}$/);
    }
  });

  it("accepts notifications and responses with 202 and no body", async () => {
    const answer = await mcp({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-protocol-version": "2025-11-25" });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe("");
  });

  it("refuses an unsupported MCP-Protocol-Version header with 400", async () => {
    const answer = await mcp({ jsonrpc: "2.0", id: 7, method: "ping" }, { "mcp-protocol-version": "2099-01-01" });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: -32022, data: { requested: "2099-01-01" } });
    expect(answer.json.id).toBe(7);
  });

  it("takes batches only without a version header or with 2025-03-26", async () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ];
    const old = await mcp(batch);
    expect(old.status).toBe(200);
    expect(old.json).toEqual([
      { jsonrpc: "2.0", result: {}, id: 1 },
      { jsonrpc: "2.0", result: {}, id: 2 },
    ]);
    const refused = await mcp(batch, { "mcp-protocol-version": "2025-06-18" });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe(-32600);
  });

  it("answers an unknown tool with a JSON-RPC error, and a bad cursor with -32602", async () => {
    const h = { "mcp-protocol-version": "2025-11-25" };
    const unknown = await mcp({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "skills.list", arguments: {} } }, h);
    expect(unknown.json.error).toMatchObject({ code: -32602, message: expect.stringContaining("Unknown tool: skills.list") });
    const cursor = await mcp({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { cursor: "garbage" } }, h);
    expect(cursor.json.error.code).toBe(-32602);
  });

  it("answers malformed bodies with 400 and a JSON-RPC error, never a crash", async () => {
    expect((await mcp("{not json")).json.error.code).toBe(-32700);
    expect((await mcp({ jsonrpc: "2.0", id: null, method: "ping" })).status).toBe(400);
    expect((await mcp({ jsonrpc: "2.0", id: 1.5, method: "ping" })).json.error.code).toBe(-32600);
    expect((await mcp({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } })).json.error.code).toBe(-32602);
  });

  it("refuses DELETE with 405, a GET without a session's stream to open with 400 (2026-07-28: 405), and a foreign Origin with 403", async () => {
    const deleted = await fetch(mcpUrl, { method: "DELETE" });
    expect(deleted.status).toBe(405);
    expect(deleted.headers.get("allow")).toBe("GET, POST");
    expect((await fetch(mcpUrl, { headers: { accept: "text/event-stream" } })).status).toBe(400); // no Mcp-Session-Id
    expect((await fetch(mcpUrl, { headers: { "mcp-session-id": "0123456789abcdef0123456789abcdef" } })).status).toBe(400); // no Accept
    expect((await fetch(mcpUrl, { headers: { accept: "text/event-stream", "mcp-protocol-version": "2026-07-28" } })).status).toBe(405);
    const foreign = await mcp({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    const local = await mcp({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "http://localhost:6274" });
    expect(local.status).toBe(200);
  });

  it("replays a tools/call retried with the same Idempotency-Key: the skill runs once", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "test.counter", arguments: { label: "mcp-replay" } } };
    const headers = { "mcp-protocol-version": "2025-11-25", "idempotency-key": "mcp-key-1", authorization: "Bearer mcp-tests" };
    const first = await mcp(call, headers);
    const retry = await mcp({ ...call, id: 2 }, headers);
    expect(first.json.result.structuredContent).toEqual({ label: "mcp-replay", count: 1 });
    expect(retry.json.result).toEqual(first.json.result);
    expect(retry.headers.get("idempotent-replayed")).toBe("1");
    expect(first.headers.get("x-skill-version")).toBe("test.counter@1.0.0");
  });

  it("keys each call of a 2025-03-26 batch by its position, as /rpc does", async () => {
    const tool = (id: number, label: string) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "test.counter", arguments: { label } } });
    const batch = [tool(1, "mcp-batch-a"), tool(2, "mcp-batch-b")];
    const first = await mcp(batch, { "idempotency-key": "mcp-batch-key", authorization: "Bearer mcp-tests" });
    expect(first.json.map((r: { result: { structuredContent: unknown } }) => r.result.structuredContent)).toEqual([
      { label: "mcp-batch-a", count: 1 },
      { label: "mcp-batch-b", count: 1 },
    ]);
    const retry = await mcp(batch, { "idempotency-key": "mcp-batch-key", authorization: "Bearer mcp-tests" });
    expect(retry.json).toEqual(first.json);
    expect(retry.headers.get("idempotent-replayed")).toBe("1");
  });
});

describe("the stateless era (2026-07-28) on the wire", () => {
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const headers = (method: string, extra: Record<string, string> = {}) => ({ "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...extra });

  it("serves server/discover, tools/list and tools/call without initialize", async () => {
    const discover = await mcp({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } }, headers("server/discover"));
    expect(discover.status).toBe(200);
    expect(discover.json.result).toMatchObject({
      supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
      capabilities: { tools: { listChanged: true } }, // subscriptions/listen
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "skillmesh-gateway" } },
      resultType: "complete",
      ttlMs: 30_000,
      cacheScope: "public",
    });
    expect(discover.json.result.serverInfo).toBeUndefined(); // moved to _meta in this revision
    const list = await mcp({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta } }, headers("tools/list"));
    expect(list.json.result.tools.map((t: { name: string }) => t.name)).toEqual(["json_schema_2020_12_tool", "skills.call", "sum"]);
    // Cacheable: fresh for SKILLMESH_MCP_LIST_TTL_MS, shareable (auth is off here: everyone sees the same tools).
    expect(list.json.result).toMatchObject({ ttlMs: 30_000, cacheScope: "public", resultType: "complete", nextCursor: expect.any(String) });
    const call = await mcp(
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "test_simple_text", arguments: {}, _meta: meta } },
      headers("tools/call", { "mcp-name": "test_simple_text" }),
    );
    expect(call.json.result).toMatchObject({ content: [{ type: "text", text: "This is a simple text response for testing." }], resultType: "complete" });
  });

  it("refuses headers that disagree with the body with 400 and -32020", async () => {
    const cases: Array<[unknown, Record<string, string>]> = [
      [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } }, headers("tools/list", { "mcp-protocol-version": "2025-11-25" })],
      [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } }, { "mcp-protocol-version": "2026-07-28" }],
      [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } }, headers("tools/call")],
      [{ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sum", _meta: meta } }, headers("tools/call", { "mcp-name": "other" })],
      // The header and the body disagree: -32020 before the version is judged.
      [
        { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } } },
        headers("tools/list"),
      ],
    ];
    for (const [body, h] of cases) {
      const answer = await mcp(body, h);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: -32020 }, id: 1 });
    }
  });

  it("refuses a 2026-07-28 request without its _meta or the version in it with 400 and -32602", async () => {
    for (const params of [undefined, {}, { _meta: { "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" } } }]) {
      const answer = await mcp({ jsonrpc: "2.0", id: 1, method: "tools/list", ...(params ? { params } : {}) }, headers("tools/list"));
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: -32602 }, id: 1 });
    }
  });

  it("takes an Mcp-Name header with surrounding whitespace (RFC 9110 §5.5), and refuses tasks/* of a client that did not declare the tasks extension (-32021)", async () => {
    const call = await mcp(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sum", arguments: { a: 1, b: 2 }, _meta: meta } },
      headers("tools/call", { "mcp-name": "  sum\t" }),
    );
    expect(call.status).toBe(200);
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const refused = await mcp({ jsonrpc: "2.0", id: 1, method, params: { taskId: "t_1", _meta: meta } }, headers(method, { "mcp-name": "t_1" }));
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } } });
    }
  });

  it("refuses an unsupported version with 400, -32022 and the versions it speaks", async () => {
    const future = { ...meta, "io.modelcontextprotocol/protocolVersion": "2027-01-01" };
    const answer = await mcp(
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: future } },
      { ...headers("server/discover"), "mcp-protocol-version": "2027-01-01" },
    );
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({
      code: -32022,
      data: { supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"], requested: "2027-01-01" },
    });
  });

  it("takes a Base64-encoded Mcp-Name, and checks Mcp-Param-* headers against the arguments they mirror", async () => {
    const call = (args: Record<string, unknown>, extra: Record<string, string>, name = "test.region") =>
      mcp(
        { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name, arguments: args, _meta: meta } },
        headers("tools/call", { "mcp-name": name, ...extra }),
      );
    const encodedName = await call({ region: "eu", query: "q" }, { "mcp-name": `=?base64?${btoa("test.region")}?=`, "mcp-param-region": "eu" });
    expect(encodedName.status).toBe(200);
    expect(encodedName.json.result.structuredContent).toEqual({ region: "eu", query: "q" });
    const wide = await call({ region: "Hello, 世界", query: "q" }, { "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=" });
    expect(wide.json.result.structuredContent).toEqual({ region: "Hello, 世界", query: "q" });
    for (const extra of [{}, { "mcp-param-region": "us" }] as Array<Record<string, string>>) {
      const refused = await call({ region: "eu", query: "q" }, extra);
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatchObject({ code: -32020, message: expect.stringContaining("Mcp-Param-Region") });
    }
    // The tool as listed says which argument is mirrored.
    const list = await mcp(
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta, cursor: btoa(JSON.stringify({ after: "test.counter" })).replace(/=+$/, "") } },
      headers("tools/list"),
    );
    expect(list.json.result.tools[0]).toMatchObject({ name: "test.region", inputSchema: { properties: { region: { "x-mcp-header": "Region" } } } });
  });

  it("subscriptions/listen: acknowledges, then tells the client when the tools change, on an event stream", async () => {
    const controller = new AbortController();
    const response = await fetch(mcpUrl, {
      method: "POST",
      signal: controller.signal,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers("subscriptions/listen") },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "sub-1",
        method: "subscriptions/listen",
        params: { _meta: meta, notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["x://y"] } },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = eventsOf(response.body!);
    const ack = await events.next();
    // What the server will send is acknowledged (no subscription to x://y, which is no resource), tagged with the listen request's id.
    expect(ack.value).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" },
        notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [] },
      },
    });
    const sum = mesh.skills.find((skill) => skill.manifest.name === "sum")!;
    await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { binding: sum.binding }, { manifest: { ...sum.manifest, name: "test.listened" } });
    try {
      const changed = await events.next();
      expect(changed.value).toEqual({
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" } },
      });
    } finally {
      controller.abort();
      await admin(mesh.gatewayUrl, "DELETE", "/deployments/test.listened@1.0.0");
    }
  });

  it("subscriptions/listen through a virtual server with aliases says nothing while nothing changes", async () => {
    expect((await admin(mesh.gatewayUrl, "PUT", "/servers/aliased", { tools: ["sum"], aliases: { add: "sum" } })).status).toBe(200);
    const controller = new AbortController();
    try {
      const response = await fetch(`${mesh.gatewayUrl}/mcp/aliased`, {
        method: "POST",
        signal: controller.signal,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers("subscriptions/listen") },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: "sub-2",
          method: "subscriptions/listen",
          params: { _meta: meta, notifications: { toolsListChanged: true, promptsListChanged: true } },
        }),
      });
      const events = eventsOf(response.body!);
      expect((await events.next()).value).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      // The stream looks every second: over three looks at the same tools (an aliased one listed
      // anew each time), not one notification.
      const next = events.next();
      const quiet = await Promise.race([next.then((event) => event.value), new Promise((resolve) => setTimeout(() => resolve("quiet"), 3_500))]);
      expect(quiet).toBe("quiet");
    } finally {
      controller.abort();
      await admin(mesh.gatewayUrl, "DELETE", "/servers/aliased");
    }
  });

  it("subscriptions/listen needs a client that takes an event stream", async () => {
    const answer = await mcp(
      { jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { _meta: meta, notifications: { toolsListChanged: true } } },
      { ...headers("subscriptions/listen"), accept: "application/json" },
    );
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe(-32600);
  });

  it("has no initialize or ping: 404 with -32601", async () => {
    const answer = await mcp({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: meta } }, headers("ping"));
    expect(answer.status).toBe(404);
    expect(answer.json.error.code).toBe(-32601);
  });

  it("refuses a request without client capabilities with -32602", async () => {
    const partial = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
    const answer = await mcp({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: partial } }, headers("tools/list"));
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe(-32602);
  });
});

describe("configured origins", () => {
  let other: Mesh;
  beforeAll(async () => {
    other = await startMesh({ skills: [], adminToken: ADMIN_TOKEN, gatewayVars: { SKILLMESH_ALLOWED_ORIGINS: "https://app.example.com" } });
  });
  afterAll(() => other?.dispose());

  it("lets exactly the listed origins in", async () => {
    const ping = (origin: string) => post(`${other.gatewayUrl}/mcp`, { jsonrpc: "2.0", id: 1, method: "ping" }, { origin });
    expect((await ping("https://app.example.com")).status).toBe(200);
    expect((await ping("http://localhost:6274")).status).toBe(403);
    expect((await ping("https://app.example.com.evil.example")).status).toBe(403);
  });
});

/** The JSON messages of an SSE body, one `data:` event at a time (comments skipped). */
async function* eventsOf(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  for await (const data of sseData(body)) yield JSON.parse(data);
}
