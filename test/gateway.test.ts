/**
 * The gateway in workerd with the real skills and the fixtures, on the embedded memory store:
 * routing by registry, admin API and its auth, discovery, timeouts and failure containment,
 * body limits, headers and caller context.
 */
import { once } from "node:events";
import { type AddressInfo } from "node:net";
import { Agent, createServer } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, SHIPPED_SKILLS, SPEC_FIXTURES, admin, eventually, fixture, post, rawRequest } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
let rpc: string;
const call = (method: string, params?: unknown, headers: Record<string, string> = {}) => wireOf(mesh.gatewayUrl).rpc(method, params, { headers });

beforeAll(async () => {
  mesh = await startMesh({
    skills: [...SHIPPED_SKILLS, ...SPEC_FIXTURES, fixture("misbehave"), fixture("whoami"), fixture("oversized")],
    adminToken: ADMIN_TOKEN,
  });
  rpc = `${mesh.gatewayUrl}/rpc`;
});
afterAll(() => mesh?.dispose());

const TEXT = "Solar panels make electricity. Batteries store it. Homes use it at night. Cats sleep.";

describe("routing through the registry", () => {
  it("serves a skill and names the deployment that answered in X-Skill-Version", async () => {
    const answer = await call("modbus.decode", { frame: "11 03 00 6B 00 03 76 87" });
    expect(answer.status).toBe(200);
    expect(answer.json.result.fields).toEqual({ startAddress: 107, quantity: 3 });
    expect(answer.headers.get("x-skill-version")).toBe("modbus.decode@1.0.0");
  });

  it("the first version takes 100%, a later version registers as a canary at 0%", async () => {
    const { json } = await admin(mesh.gatewayUrl, "GET", "/deployments");
    const roles = Object.fromEntries(json.deployments.filter((d: any) => d.name === "text.summarize").map((d: any) => [d.version, d.role]));
    expect(roles).toEqual({ "1.0.0": "stable", "2.0.0": "canary", "1.0.0-lead": "degraded" });
    expect(json.routes["text.summarize"]).toEqual({ "*": { "1.0.0": 100, "2.0.0": 0 } });
    const versions = new Set<string>();
    for (let i = 0; i < 30; i++) versions.add((await call("text.summarize", { text: TEXT }, { "x-user-id": `u${i}` })).headers.get("x-skill-version")!);
    expect([...versions]).toEqual(["text.summarize@1.0.0"]);
  });

  it("lists every deployment an answer came from for a batch", async () => {
    const answer = await post(rpc, [
      { jsonrpc: "2.0", method: "subtract", params: [5, 3], id: 1 },
      { jsonrpc: "2.0", method: "sum", params: [1, 2], id: 2 },
    ]);
    expect(answer.json).toEqual([
      { jsonrpc: "2.0", result: 2, id: 1 },
      { jsonrpc: "2.0", result: 3, id: 2 },
    ]);
    expect(answer.headers.get("x-skill-version")!.split(", ").sort()).toEqual(["subtract@1.0.0", "sum@1.0.0"]);
  });

  it("passes the caller context (hashed caller key, W3C trace) to the skill", async () => {
    const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const { json } = await call(
      "test.whoami",
      {},
      {
        "x-user-id": "alice",
        "x-user-group": "beta",
        "x-session-id": "s-1",
        authorization: "Bearer sk_secret_key",
        traceparent: parent,
      },
    );
    expect(json.result).toMatchObject({ userId: "alice", group: "beta", session: "s-1" });
    expect(json.result.caller).toMatch(/^c_[0-9a-f]{16}$/);
    expect(JSON.stringify(json)).not.toContain("sk_secret_key");
    const [, traceId, spanId] = json.result.traceparent.split("-");
    expect(traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(spanId).not.toBe("b7ad6b7169203331");
  });

  it("gives a skill called directly an empty context, whatever headers it is sent", async () => {
    const whoami = mesh.skills.find((s) => s.manifest.name === "test.whoami")!.url;
    const bare = await post(whoami, { jsonrpc: "2.0", method: "test.whoami", id: 1 });
    expect(bare.json.result).toEqual({ userId: null, group: null, session: null, caller: "anonymous", traceparent: null });
    const forged = await post(whoami, { jsonrpc: "2.0", method: "test.whoami", id: 2 }, { "x-skillmesh-context": "not-base64!!", "x-user-group": "beta" });
    expect(forged.json.result).toEqual({ userId: null, group: null, session: null, caller: "anonymous", traceparent: null });
  });

  it("starts a trace when the caller sends none", async () => {
    const { json } = await call("test.whoami", {});
    expect(json.result.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(json.result.caller).toBe("anonymous");
  });
});

describe("failures are contained", () => {
  it("a skill that hangs past its timeout answers -32004 with timeoutMs", async () => {
    const started = Date.now();
    const { json } = await call("test.misbehave", { mode: "hang", ms: 3_000 });
    expect(json.error).toMatchObject({ code: -32004, data: { timeoutMs: 300 } });
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("a handler that throws gives -32603 without its message or stack", async () => {
    const { json, text } = await call("test.misbehave", { mode: "throw" });
    expect(json.error).toEqual({ code: -32603, message: "Internal error" });
    expect(text).not.toMatch(/secret|srv|at /);
  });

  it("output that breaks the skill's own schema gives -32603, never the bad data", async () => {
    const { json, text } = await call("test.misbehave", { mode: "bad-output" });
    expect(json.error.code).toBe(-32603);
    expect(text).not.toContain("yes");
  });

  it("a skill's answer past 8 MiB is cut off with -32603, with a Content-Length, without one, or endless; 7 MiB gets through", async () => {
    for (const params of [{ mode: "declared", mib: 9 }, { mode: "chunked", mib: 9 }, { mode: "endless" }]) {
      const { json, text } = await call("test.oversized", params);
      expect(json.error).toEqual({ code: -32603, message: "test.oversized answered more than 8 MiB, the largest answer the gateway reads" });
      expect(text.length).toBeLessThan(1_000);
    }
    // A streaming caller: one event that never ends is cut off the same way.
    const streamed = await fetch(rpc, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "test.oversized", params: { mode: "endless-event" }, id: 2 }),
    });
    expect(await streamed.text()).toMatch(/"code":-32603,"message":"test.oversized answered more than 8 MiB/);
    // Below the limit an answer passes whole, and the gateway goes on serving.
    const { json } = await call("test.oversized", { mode: "chunked", mib: 7 });
    expect(json.result.pad).toHaveLength(7 * 1024 * 1024);
    expect((await call("subtract", [5, 3])).json.result).toBe(2);
  });

  it("an answer ends at its Content-Length: an endless stream under a Content-Length of 100 is read to 100 bytes (not JSON-RPC: -32001)", async () => {
    const started = Date.now();
    const { json } = await call("test.oversized", { mode: "lying" });
    expect(json.error).toEqual({
      code: -32001,
      message: "test.oversized answered HTTP 200 without a JSON-RPC response; retry after 1 s",
      data: { retryAfterMs: 1000 },
    });
    expect(Date.now() - started).toBeLessThan(5_000); // not the skill's 10 s timeout: nothing waits for the stream's end
  });

  it("a skill on a URL that answers gzip (Content-Length: the compressed size) is read whole", async () => {
    const answer = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { pad: "x".repeat(5_000) } });
    const gzipped = gzipSync(answer);
    const server = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip", "content-length": gzipped.length }).end(gzipped);
    }).listen(0, "127.0.0.1");
    try {
      await once(server, "listening");
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const sum = mesh.skills.find((s) => s.manifest.name === "sum")!;
      const registered = await admin(mesh.gatewayUrl, "POST", "/deployments", {
        endpoint: { url },
        manifest: { ...sum.manifest, name: "test.gzipped", tags: ["fixture"] },
      });
      expect(registered.status).toBe(201);
      const { json } = await eventually(
        () => call("test.gzipped", [1, 2]),
        (a) => a.json.error?.code !== -32601,
      );
      expect(gzipped.length).toBeLessThan(100);
      expect(json.result.pad).toHaveLength(5_000);
    } finally {
      server.close();
      expect((await admin(mesh.gatewayUrl, "DELETE", "/deployments/test.gzipped@1.0.0")).status).toBe(200);
    }
  });

  it("a skill whose answer breaks off mid-body answers -32001 with retryAfterMs (a transport failure), not -32603", async () => {
    const { json } = await call("test.oversized", { mode: "broken" });
    expect(json.error).toEqual({ code: -32001, message: "test.oversized broke off its answer; retry after 1 s", data: { retryAfterMs: 1000 } });
  });

  it("a skill that sends its headers and then trickles its body is cut at the call's deadline", async () => {
    const started = Date.now();
    const { json } = await call("test.oversized", { mode: "trickle" }, { "x-timeout-ms": "1000" });
    expect(json.error).toMatchObject({
      code: -32004,
      message: expect.stringMatching(/left of this call's budget \(X-Timeout-Ms\)$/),
      data: { cutByCaller: true },
    });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("invalid params reach the caller as -32602 with zod's issues", async () => {
    const { json } = await call("subtract", { minuend: "ten" });
    expect(json.error.code).toBe(-32602);
    expect(json.error.data.issues.map((i: any) => i.path).sort()).toEqual(["minuend", "subtrahend"]);
  });

  it("too many positional params is -32602 too", async () => {
    expect((await call("subtract", [1, 2, 3])).json.error.code).toBe(-32602);
  });

  it("bodies over 1 MiB get 413, other content types 415, both as JSON-RPC errors", async () => {
    const big = await post(rpc, JSON.stringify({ jsonrpc: "2.0", method: "sum", params: [1], id: 1, pad: "x".repeat(1024 * 1024) }));
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
    const plain = await post(rpc, "{}", { "content-type": "text/plain" });
    expect(plain.status).toBe(415);
    expect(plain.json.error.code).toBe(-32600);
    // A compressed body is refused for what it is, not answered "Parse error".
    const gzipped = await fetch(rpc, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: gzipSync(JSON.stringify({ jsonrpc: "2.0", method: "sum", params: [1], id: 1 })),
    });
    expect(gzipped.status).toBe(415);
    expect(gzipped.headers.get("accept-encoding")).toBe("identity");
    expect(await gzipped.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining("Content-Encoding gzip") }, id: null });
  });

  it("a keep-alive connection stays usable after a refusal that did not need the body (404, 403, 415, 413)", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = async (path: string, body: string, headers: Record<string, string> = {}) => {
      const { status, reused } = await rawRequest(`${mesh.gatewayUrl}${path}`, {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      return { status, reused };
    };
    const small = JSON.stringify({ jsonrpc: "2.0", method: "sum", params: [1, 2], id: 1 });
    const padded = "x".repeat(200_000); // more than workerd reads ahead on its own
    try {
      expect((await send("/rpc", small)).status).toBe(200);
      const refusals: Array<[string, Record<string, string>, number]> = [
        ["/no-such-route", {}, 404],
        ["/rpc", { origin: "https://evil.example" }, 403],
        ["/rpc", { "content-type": "text/plain" }, 415],
      ];
      for (const [path, headers, status] of refusals) {
        expect((await send(path, padded, headers)).status).toBe(status);
        expect(await send("/rpc", small)).toEqual({ status: 200, reused: true }); // the same connection, not reset
      }
      expect((await send("/rpc", "x".repeat(1024 * 1024 + 1))).status).toBe(413);
      expect(await send("/rpc", small)).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it("unknown routes get a JSON 404", async () => {
    const response = await fetch(`${mesh.gatewayUrl}/nope`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.code).toBe(-32601);
  });
});

describe("discovery", () => {
  it("skills.list describes every skill once, with its schemas (not its versions)", async () => {
    const { json } = await call("skills.list");
    const summarize = json.result.find((s: any) => s.name === "text.summarize");
    expect(Object.keys(summarize).sort()).toEqual(["contractHash", "description", "idempotent", "inputSchema", "name", "observed", "outputSchema", "tags"]);
    expect(summarize.inputSchema.required).toEqual(["text"]);
    expect(json.result.filter((s: any) => s.name === "text.summarize")).toHaveLength(1);
  });

  it("skills.discover matches an exact tag, a glob, several tags, and by position", async () => {
    const names = async (params: unknown) => (await call("skills.discover", params)).json.result.map((s: any) => s.name);
    expect(await names({ capability: "grid.*" })).toEqual(["modbus.decode"]);
    expect(await names({ capability: "text.summarize" })).toEqual(["text.summarize"]);
    expect(await names({ tags: ["text"] })).toEqual(["html.extract", "text.summarize"]);
    expect(await names({ tags: ["text", "html.*"] })).toEqual(["html.extract"]);
    expect(await names(["*.decode"])).toEqual(["modbus.decode"]);
    expect(await names({ capability: "nothing.*" })).toEqual([]);
  });

  it("skills.discover rejects bad params with -32602", async () => {
    expect((await call("skills.discover", { tags: "text" })).json.error.code).toBe(-32602);
  });

  it("rpc.discover returns an OpenRPC 1.2.6 document", async () => {
    const { json } = await call("rpc.discover");
    expect(json.result.openrpc).toBe("1.2.6");
    const subtract = json.result.methods.find((m: any) => m.name === "subtract");
    expect(subtract.params.map((p: any) => p.name)).toEqual(["minuend", "subtrahend"]);
  });
});

describe("admin API", () => {
  it("refuses calls without the bearer token or with a wrong one", async () => {
    for (const token of ["", "wrong-token"]) {
      const answer = await admin(mesh.gatewayUrl, "GET", "/deployments", undefined, token);
      expect(answer.status).toBe(401);
      expect(answer.json.error.code).toBe(-32006);
    }
  });

  it("lists the registry in pages of skills, in name order, with a cursor", async () => {
    const whole = await admin(mesh.gatewayUrl, "GET", "/deployments");
    expect(whole.json.nextCursor).toBeUndefined();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await admin(mesh.gatewayUrl, "GET", `/deployments?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(page.status).toBe(200);
      expect(new Set(page.json.deployments.map((d: { name: string }) => d.name)).size).toBeLessThanOrEqual(2);
      seen.push(...page.json.deployments.map((d: { id: string }) => d.id));
      cursor = page.json.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(whole.json.deployments.map((d: { id: string }) => d.id));
    expect((await admin(mesh.gatewayUrl, "GET", "/deployments?limit=0")).status).toBe(400);
  });

  it("re-registering the same deployment changes nothing", async () => {
    const before = await admin(mesh.gatewayUrl, "GET", "/deployments");
    const skill = mesh.skills.find((s) => s.manifest.name === "modbus.decode")!;
    const again = await admin(mesh.gatewayUrl, "POST", "/deployments", { endpoint: { binding: skill.binding } });
    expect(again.status).toBe(200);
    expect(again.json.changed).toBe(false);
    expect((await admin(mesh.gatewayUrl, "GET", "/deployments")).json.revision).toBe(before.json.revision);
  });

  it("refuses another definition under a registered name@version with 409 and what changed; listings carry the contract hash", async () => {
    const skill = mesh.skills.find((s) => s.manifest.name === "modbus.decode")!;
    const changed = { ...skill.manifest, description: "A different promise under the same version" };
    const refused = await admin(mesh.gatewayUrl, "POST", "/deployments", { endpoint: { binding: skill.binding }, manifest: changed });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ message: expect.stringContaining("modbus.decode@"), issues: { changes: ["description changed"] } });
    const listed = await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", id: 1, method: "skills.list" });
    const hash = listed.json.result.find((s: { name: string }) => s.name === "modbus.decode").contractHash;
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const tools = await post(`${mesh.gatewayUrl}/mcp`, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": "2025-11-25" });
    expect(tools.json.result.tools.find((t: { name: string }) => t.name === "modbus.decode")._meta["skillmesh/contract"]).toBe(hash);
    // Nothing changed: the same definition is still served.
    const again = await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", id: 1, method: "skills.list" });
    expect(again.json.result.find((s: { name: string }) => s.name === "modbus.decode")).toMatchObject({
      description: skill.manifest.description,
      contractHash: hash,
    });
  });

  it("refuses a bad registration with the reasons, and a binding the gateway lacks with 502", async () => {
    const bad = await admin(mesh.gatewayUrl, "POST", "/deployments", { endpoint: { url: "ftp://x" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.issues.length).toBeGreaterThan(0);
    const missing = await admin(mesh.gatewayUrl, "POST", "/deployments", { endpoint: { binding: "NO_SUCH_SKILL" } });
    expect(missing.status).toBe(502);
  });

  it("a TTL registration lives while its heartbeat comes and disappears after", async () => {
    const sum = mesh.skills.find((s) => s.manifest.name === "sum")!;
    const registration = { endpoint: { url: sum.url }, manifest: { ...sum.manifest, version: "1.1.0" }, ttlSeconds: 5, registrationId: "hb" };
    const versions = async () => (await admin(mesh.gatewayUrl, "GET", "/skills/sum")).json.deployments.map((d: any) => d.version).sort();
    const started = Date.now();
    expect((await admin(mesh.gatewayUrl, "POST", "/deployments", registration)).json.deployment).toMatchObject({ role: "canary" });
    // Heartbeats every half second, for longer than the TTL: it never goes away meanwhile.
    while (Date.now() - started < 6_000) {
      expect(await versions()).toEqual(["1.0.0", "1.1.0"]);
      expect((await admin(mesh.gatewayUrl, "POST", "/deployments", registration)).json.changed).toBe(false); // the heartbeat
      await new Promise((r) => setTimeout(r, 500)); // the heartbeat's period (the behaviour under test, not a wait for it)
    }
    // Without heartbeats it is gone within the TTL (and not at once).
    const lastBeat = Date.now();
    expect(await versions()).toEqual(["1.0.0", "1.1.0"]);
    expect(await eventually(versions, (v) => v.length === 1, 8_000, 200)).toEqual(["1.0.0"]);
    expect(Date.now() - lastBeat).toBeGreaterThan(3_000);
    const listed = (await admin(mesh.gatewayUrl, "GET", "/deployments")).json.deployments.map((d: any) => d.id);
    expect(listed).not.toContain("sum@1.1.0");
  }, 25_000);

  /** text.summarize as the mesh registered it: 1.0.0 stable, 2.0.0 canary at 0%, the degraded lead — whatever a test before did. */
  async function freshSummarize() {
    for (const version of ["1.0.0", "2.0.0", "1.0.0-lead"]) await admin(mesh.gatewayUrl, "DELETE", `/deployments/text.summarize@${version}`);
    for (const dir of ["text-summarize-v1", "text-summarize-v2", "text-summarize-degraded"]) {
      const skill = mesh.skills.find((s) => s.dir.endsWith(dir))!;
      expect(
        (await admin(mesh.gatewayUrl, "POST", "/deployments", { endpoint: { binding: skill.binding }, registrationId: `fresh-${Date.now()}-${dir}` })).status,
      ).toBe(201);
    }
  }

  it("deregistering the stable version promotes the next one to stable at 100%", async () => {
    await freshSummarize();
    const removed = await admin(mesh.gatewayUrl, "DELETE", `/deployments/${encodeURIComponent("text.summarize@1.0.0")}`);
    expect(removed.json).toEqual({ removed: ["text.summarize@1.0.0"] });
    const { json } = await admin(mesh.gatewayUrl, "GET", "/deployments");
    expect(json.routes["text.summarize"]).toEqual({ "*": { "2.0.0": 100 } });
    const answer = await call("text.summarize", { text: TEXT });
    expect(answer.headers.get("x-skill-version")).toBe("text.summarize@2.0.0");
    expect(answer.json.result.method).toBe("textrank");
    expect((await admin(mesh.gatewayUrl, "DELETE", "/deployments/text.summarize@1.0.0")).status).toBe(404);
  });

  it("with no routable version left, the degraded deployment answers; with nothing, the method is gone", async () => {
    await freshSummarize();
    await admin(mesh.gatewayUrl, "DELETE", "/deployments/text.summarize@1.0.0");
    await admin(mesh.gatewayUrl, "DELETE", "/deployments/text.summarize@2.0.0");
    const degraded = await call("text.summarize", { text: TEXT });
    expect(degraded.headers.get("x-skill-version")).toBe("text.summarize@1.0.0-lead");
    expect(degraded.json.result.method).toBe("lead");
    await admin(mesh.gatewayUrl, "DELETE", "/deployments/text.summarize@1.0.0-lead");
    expect((await call("text.summarize", { text: TEXT })).json.error.code).toBe(-32601);
    await freshSummarize();
  });
});

describe("health", () => {
  it("GET /healthz reports the store and the registry to the admin", async () => {
    const response = await fetch(`${mesh.gatewayUrl}/healthz`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = (await response.json()) as any;
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ status: "ok", store: { driver: "memory", ok: true } });
    expect(body.registry.deployments).toBeGreaterThan(5);
  });
});

describe("settings", () => {
  it("a bad setting is named on every route and at /healthz, instead of a crash or a silent default", async () => {
    const broken = await startMesh({
      skills: [],
      adminToken: ADMIN_TOKEN,
      register: false,
      gatewayVars: { SKILLMESH_AUTH: "maybe", SKILLMESH_STORE_TIMEOUT_MS: "soon" },
    });
    try {
      const health = await fetch(`${broken.gatewayUrl}/healthz`);
      expect(health.status).toBe(503);
      const body = (await health.json()) as { status: string; problems: string[] };
      expect(body.status).toBe("misconfigured");
      expect(body.problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^SKILLMESH_AUTH: either "required"/),
          expect.stringMatching(/^SKILLMESH_STORE_TIMEOUT_MS: a whole number/),
        ]),
      );
      const rpcCall = await post(`${broken.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "skills.list", id: 1 });
      expect(rpcCall.status).toBe(503);
      expect(rpcCall.json.error).toMatchObject({ code: -32001, message: expect.stringMatching(/misconfigured: .*SKILLMESH_AUTH/) });
      expect((await admin(broken.gatewayUrl, "GET", "/deployments")).status).toBe(503);
    } finally {
      await broken.dispose();
    }
  });

  it("a gateway with no store configured refuses to run on one isolate's memory unless told to", async () => {
    const unset = await startMesh({ skills: [], adminToken: ADMIN_TOKEN, register: false, gatewayVars: { SKILLMESH_STORE: "" } });
    try {
      const body = (await (await fetch(`${unset.gatewayUrl}/healthz`)).json()) as { problems: string[] };
      expect(body.problems).toEqual([expect.stringMatching(/no store: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or SKILLMESH_STORE=memory/)]);
    } finally {
      await unset.dispose();
    }
  });
});
