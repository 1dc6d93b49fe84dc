/**
 * Caller identity on a gateway that requires it (`SKILLMESH_AUTH` unset), in workerd on real
 * Redis with two gateway instances: API keys issued through the admin API and the CLI, refused
 * credentials (401 with a challenge and -32006), grants that hide skills everywhere and ignore
 * groups, admin keys that read or write, and edits and revocations that reach the other
 * instance within about a second.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Mesh, registerSkill, startMesh } from "../scripts/mesh/index.js";
import { runCli } from "../scripts/cli/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let a: Mesh;
let b: Mesh;
beforeAll(async () => {
  const upstash = { url: inject("redisRestUrl"), token: inject("redisRestToken") };
  const gatewayVars = { SKILLMESH_STORE_PREFIX: `auth-${process.pid}:`, SKILLMESH_AUTH: "required" };
  a = await startMesh({
    skills: ["subtract", "sum", "whoami", "echo-v1", "echo-v2"].map(fixture),
    adminToken: ADMIN_TOKEN,
    upstash,
    gatewayVars,
    register: false,
  });
  b = await startMesh({ skills: [], adminToken: ADMIN_TOKEN, upstash, gatewayVars });
  // By URL, so that the second instance (no service bindings) can call them too.
  for (const skill of a.skills) await registerSkill(a.gatewayUrl, ADMIN_TOKEN, { url: skill.url });
  expect((await admin(a.gatewayUrl, "POST", "/skills/test.echo/canary", { version: "2.0.0", groups: { beta: 100 } })).status).toBe(200);
});
afterAll(async () => {
  await a?.dispose();
  await b?.dispose();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const rpc = (gateway: Mesh, method: string, params?: unknown, headers: Record<string, string> = {}) =>
  wireOf(gateway.gatewayUrl).rpc(method, params, { headers });
const mcp = (gateway: Mesh, body: unknown, headers: Record<string, string> = {}) =>
  post(`${gateway.gatewayUrl}/mcp`, body, { "mcp-protocol-version": "2025-11-25", ...headers });
/** Issues a key through the admin API; returns the secret. */
async function issue(grants: Record<string, unknown>): Promise<string> {
  const created = await admin(a.gatewayUrl, "POST", "/keys", { name: `k-${Math.random().toString(36).slice(2, 10)}`, ...grants });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return created.json.key;
}

describe("credentials", () => {
  it("refuses a call without a credential on /rpc and /mcp: 401, a Bearer challenge, -32006", async () => {
    for (const answer of [await rpc(a, "subtract", [5, 3]), await mcp(a, { jsonrpc: "2.0", id: 1, method: "tools/list" })]) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="skillmesh"');
      expect(answer.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32006 }, id: null });
    }
  });

  it("refuses a key that does not exist, or is no API key at all, as an invalid token", async () => {
    for (const key of ["sm_not-a-real-key-000000000000000000000000000000", "some-other-token", ADMIN_TOKEN]) {
      const answer = await rpc(a, "subtract", [5, 3], bearer(key));
      expect(answer.status, key).toBe(401);
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="skillmesh", error="invalid_token"');
    }
  });

  it("issues a key once: sm_ prefix, stored as a hash, listed by its hint only", async () => {
    const created = await admin(a.gatewayUrl, "POST", "/keys", { name: "agent-once", skills: ["subtract"] });
    expect(created.json.key).toMatch(/^sm_[A-Za-z0-9_-]{43}$/);
    expect(created.json.view).toMatchObject({
      name: "agent-once",
      skills: ["subtract"],
      hint: `${created.json.key.slice(0, 7)}…${created.json.key.slice(-4)}`,
    });
    const listed = await admin(a.gatewayUrl, "GET", "/keys");
    expect(JSON.stringify(listed.json)).not.toContain(created.json.key);
    expect(JSON.stringify(listed.json)).not.toMatch(/"hash"/);
    expect((await rpc(a, "subtract", [5, 3], bearer(created.json.key))).json.result).toBe(2);
    const taken = await admin(a.gatewayUrl, "POST", "/keys", { name: "agent-once", skills: ["sum"] });
    expect(taken.status).toBe(409);
  });

  it("/healthz stays open to load balancers", async () => {
    expect(await (await fetch(`${a.gatewayUrl}/healthz`)).json()).toEqual({ status: "ok" });
  });
});

describe("grants", () => {
  it("skills outside a key's grants are invisible and answer as if they did not exist, on /rpc and /mcp", async () => {
    const key = await issue({ skills: ["subtract"] });
    const names = async (method: string, params?: unknown) => (await rpc(a, method, params, bearer(key))).json.result.map((s: { name: string }) => s.name);
    expect(await names("skills.list")).toEqual(["subtract"]);
    expect(await names("skills.discover", { capability: "*" })).toEqual(["subtract"]);
    expect((await rpc(a, "rpc.discover", undefined, bearer(key))).json.result.methods.map((m: { name: string }) => m.name)).toEqual(["subtract"]);
    expect((await rpc(a, "sum", [1, 2], bearer(key))).json.error).toEqual({ code: -32601, message: "Method not found" });
    expect((await rpc(a, "nope", [1, 2], bearer(key))).json.error).toEqual({ code: -32601, message: "Method not found" });

    const tools = await mcp(a, { jsonrpc: "2.0", id: 1, method: "tools/list" }, bearer(key));
    expect(tools.json.result.tools.map((t: { name: string }) => t.name)).toEqual(["skills.call", "subtract"]); // skills.call routes within the grants
    const hidden = await mcp(a, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "sum", arguments: { params: [1, 2] } } }, bearer(key));
    const unknown = await mcp(a, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "nope", arguments: {} } }, bearer(key));
    expect(hidden.json.error.code).toBe(-32602);
    expect(hidden.json.error.message.replace("sum", "NAME")).toBe(unknown.json.error.message.replace("nope", "NAME"));
  });

  it("grants skills by tag glob as well as by name glob", async () => {
    const key = await issue({ tags: ["mat?"], skills: ["test.who*"] });
    expect((await rpc(a, "skills.list", undefined, bearer(key))).json.result.map((s: { name: string }) => s.name)).toEqual(["subtract", "sum", "test.whoami"]);
  });

  it("ignores a group the key does not name: the call routes as *", async () => {
    const beta = await issue({ skills: ["test.*"], groups: ["beta"] });
    const plain = await issue({ skills: ["test.*"] });
    const version = async (key: string) => (await rpc(a, "test.echo", {}, { ...bearer(key), "x-user-group": "beta" })).json.result.version;
    expect(await version(beta)).toBe("2.0.0");
    expect(await version(plain)).toBe("1.0.0");
    const seen = (await rpc(a, "test.whoami", {}, { ...bearer(plain), "x-user-group": "beta" })).json.result;
    expect(seen).toMatchObject({ group: null, caller: expect.stringMatching(/^k_[0-9a-f]{12}$/) });
  });
});

describe("admin keys", () => {
  it("admin: read may read the admin API but not change it; a caller key may not touch it", async () => {
    const reader = await issue({ admin: "read" });
    const caller = await issue({ skills: ["*"] });
    expect((await admin(a.gatewayUrl, "GET", "/deployments", undefined, reader)).status).toBe(200);
    const write = await admin(a.gatewayUrl, "POST", "/skills/test.echo/rollback", {}, reader);
    expect(write.status).toBe(403);
    expect(write.json.error.code).toBe(-32006);
    expect((await admin(a.gatewayUrl, "GET", "/deployments", undefined, caller)).status).toBe(401);
    expect((await admin(a.gatewayUrl, "POST", "/keys", { name: "escalate", admin: "write" }, reader)).status).toBe(403);
    // A read key sees the health details too.
    expect(await (await fetch(`${a.gatewayUrl}/healthz`, { headers: bearer(reader) })).json()).toMatchObject({ store: { driver: "upstash" } });
  });

  it("admin: write may change the registry and issue keys", async () => {
    const writer = await issue({ admin: "write" });
    const created = await admin(a.gatewayUrl, "POST", "/keys", { name: "issued-by-key", skills: ["sum"] }, writer);
    expect(created.status).toBe(201);
    expect((await rpc(a, "sum", [1, 2], bearer(created.json.key))).json.result).toBe(3);
  });
});

describe("edits and revocation reach every gateway instance within about a second", () => {
  it("a revoked key stops working on the other instance", async () => {
    const created = await admin(a.gatewayUrl, "POST", "/keys", { name: "to-revoke", skills: ["subtract"] });
    const key = created.json.key;
    expect(
      (
        await eventually(
          () => rpc(b, "subtract", [5, 3], bearer(key)),
          (r) => r.status === 200,
        )
      ).json.result,
    ).toBe(2);
    const revoked = await admin(a.gatewayUrl, "DELETE", `/keys/${created.json.view.id}`);
    expect(revoked.json.revokedAt).toEqual(expect.any(Number));
    const started = Date.now();
    const refused = await eventually(
      () => rpc(b, "subtract", [5, 3], bearer(key)),
      (r) => r.status === 401,
      5_000,
      50,
    );
    expect(refused.status).toBe(401);
    expect(Date.now() - started).toBeLessThan(2_500); // the snapshot is polled once a second
    expect((await rpc(a, "subtract", [5, 3], bearer(key))).status).toBe(401); // the writing isolate at once
  });

  it("a changed grant applies on the other instance", async () => {
    const created = await admin(a.gatewayUrl, "POST", "/keys", { name: "to-widen", skills: ["subtract"] });
    const key = created.json.key;
    expect(
      (
        await eventually(
          () => rpc(b, "sum", [1, 2], bearer(key)),
          (r) => r.status === 200,
        )
      ).json.error.code,
    ).toBe(-32601);
    expect((await admin(a.gatewayUrl, "PATCH", "/keys/to-widen", { skills: ["subtract", "sum"] })).status).toBe(200);
    expect(
      (
        await eventually(
          () => rpc(b, "sum", [1, 2], bearer(key)),
          (r) => r.json.result === 3,
          5_000,
          50,
        )
      ).json.result,
    ).toBe(3);
  });
});

describe("rate limits and quotas", () => {
  /** Waits out the end of the current window when less than 5 s of it are left (the counters are per clock window). */
  async function awayFromWindowEdge(windowMs: number) {
    const left = windowMs - (Date.now() % windowMs);
    if (left < 5_000) await new Promise((r) => setTimeout(r, left + 50));
  }

  it("a key's rate is exact across two gateway instances, and says so in headers", async () => {
    const key = await issue({ skills: ["subtract"], rate: "5/h" });
    await eventually(
      () => rpc(b, "skills.list", undefined, bearer(key)),
      (r) => r.status === 200,
    ); // b knows the key (and that is a call)
    await awayFromWindowEdge(3_600_000);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await rpc(i % 2 ? a : b, "subtract", [5, 3], bearer(key)));
    expect(answers.slice(0, 4).map((r) => r.json.result)).toEqual([2, 2, 2, 2]);
    const refused = answers[4]!;
    expect(refused.json.error).toMatchObject({ code: -32005, data: { retryAfterMs: expect.any(Number), limit: "rate" } });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-policy")).toBe('"rate";q=5;w=3600');
    expect(refused.headers.get("ratelimit")).toMatch(/^"rate";r=0;t=\d+$/);
    expect(answers[5]!.json.error.code).toBe(-32005);
    expect(answers[3]!.headers.get("ratelimit")).toMatch(/^"rate";r=0;t=\d+$/);
    expect(answers[2]!.headers.get("ratelimit")).toMatch(/^"rate";r=1;t=\d+$/);
  });

  it("a limit of 0 allows no call at all (a suspended key), not an unlimited one", async () => {
    const key = await issue({ skills: ["subtract"], quota: "0/day" });
    const refused = await eventually(
      () => rpc(a, "subtract", [5, 3], bearer(key)),
      (r) => r.status === 200,
    ); // once a knows the key
    expect(refused.json.error).toMatchObject({ code: -32005, data: { limit: "quota" } });
    expect(refused.headers.get("ratelimit")).toMatch(/^"quota";r=0;t=\d+$/);
    const rateZero = await issue({ skills: ["subtract"], rate: "0/min" });
    expect(
      (
        await eventually(
          () => rpc(a, "subtract", [5, 3], bearer(rateZero)),
          (r) => r.status === 200,
        )
      ).json.error,
    ).toMatchObject({ code: -32005, data: { limit: "rate" } });
  });

  it("a quota stops a key at exactly its limit across two instances, on /rpc and /mcp alike", async () => {
    const key = await issue({ skills: ["subtract"], quota: "3/day" });
    await awayFromWindowEdge(86_400_000);
    // The first call that b lets through (once it knows the key: refused credentials count nothing).
    expect(
      (
        await eventually(
          () => rpc(b, "subtract", [5, 3], bearer(key)),
          (r) => r.status === 200,
        )
      ).json.result,
    ).toBe(2);
    expect((await rpc(a, "subtract", [5, 3], bearer(key))).json.result).toBe(2);
    const third = await mcp(
      a,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "subtract", arguments: { minuend: 5, subtrahend: 3 } } },
      bearer(key),
    );
    expect(third.json.result.structuredContent).toEqual({ result: 2 });
    const fourth = await mcp(
      a,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "subtract", arguments: { minuend: 5, subtrahend: 3 } } },
      bearer(key),
    );
    expect(fourth.json.result).toMatchObject({ isError: true, _meta: { "skillmesh/error": { code: -32005, data: { limit: "quota" } } } });
    expect(fourth.headers.get("ratelimit-policy")).toBe('"quota";q=3;w=86400');
    expect((await rpc(b, "subtract", [5, 3], bearer(key))).json.error.code).toBe(-32005);
  });
});

describe("audit log", () => {
  it("records calls (caller, deployment, outcome, a fingerprint) and admin changes, never a secret or an argument", async () => {
    const created = await admin(a.gatewayUrl, "POST", "/keys", { name: "audited", skills: ["subtract"] });
    const { key, view } = created.json;
    await rpc(a, "subtract", [98765, 4321], bearer(key));
    await rpc(a, "sum", [11111, 2], bearer(key)); // exists, but not for this key
    const calls = await eventually(
      () => admin(a.gatewayUrl, "GET", `/audit?caller=${view.id}`),
      (r) => r.json.entries.length >= 2,
      5_000,
      100,
    );
    const [hidden, ok] = calls.json.entries;
    expect(ok).toMatchObject({
      type: "call",
      caller: view.id,
      method: "subtract",
      deployment: "subtract@1.0.0",
      code: 0,
      args: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(hidden).toMatchObject({ type: "call", caller: view.id, method: "sum", code: -32601, hidden: true });
    const all = JSON.stringify((await admin(a.gatewayUrl, "GET", "/audit?limit=1000")).json);
    for (const secret of [key, ADMIN_TOKEN]) expect(all).not.toContain(secret);
    // The arguments never appear as values (a timestamp or a hex fingerprint may hold the same digits by chance).
    for (const argument of ["98765", "4321", "11111"]) expect(all).not.toMatch(new RegExp(`(?<![0-9a-z])${argument}(?![0-9a-z])`));
    const changes = await admin(a.gatewayUrl, "GET", "/audit?type=admin&skill=/admin/keys");
    expect(changes.json.entries).toContainEqual(expect.objectContaining({ by: "admin-token", action: "POST /admin/keys", status: 201 }));
    const errors = await admin(a.gatewayUrl, "GET", `/audit?caller=${view.id}&outcome=error`);
    expect(errors.json.entries.map((e: { method: string }) => e.method)).toEqual(["sum"]);
  });

  it("a call whose params nest too deep to fingerprint is recorded without one, and takes no other entry with it", async () => {
    const { key, view } = (await admin(a.gatewayUrl, "POST", "/keys", { name: "audited-deep", skills: ["subtract"] })).json;
    const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`; // sent as text: JSON.stringify overflows on it too
    const refused = await post(`${a.gatewayUrl}/rpc`, `{"jsonrpc":"2.0","method":"subtract","params":${deep},"id":1}`, bearer(key));
    expect(refused.json.error).toMatchObject({ code: -32602, message: expect.stringContaining("nested deeper") });
    await rpc(a, "subtract", [7, 2], bearer(key)); // buffered in the same batch as the deep one
    const calls = await eventually(
      () => admin(a.gatewayUrl, "GET", `/audit?caller=${view.id}`),
      (r) => r.json.entries.length >= 2,
      5_000,
      100,
    );
    const [ok, deepEntry] = calls.json.entries;
    expect(ok).toMatchObject({ method: "subtract", code: 0, args: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(deepEntry).toMatchObject({ method: "subtract", code: -32602 });
    expect(deepEntry).not.toHaveProperty("args");
  });

  it("records who made a change with an admin key, and a refused write", async () => {
    const writer = await admin(a.gatewayUrl, "POST", "/keys", { name: "audit-writer", admin: "write" });
    const reader = await admin(a.gatewayUrl, "POST", "/keys", { name: "audit-reader", admin: "read" });
    const rolledBack = await admin(a.gatewayUrl, "POST", "/skills/test.echo/rollback", {}, writer.json.key);
    // The skill's rollout event names the key too (what `skillmesh status` and the dashboard show).
    expect(rolledBack.json.event).toMatchObject({ type: "rollback", by: writer.json.view.id });
    await admin(a.gatewayUrl, "POST", "/skills/test.echo/rollback", {}, reader.json.key);
    const entries = await eventually(
      () => admin(a.gatewayUrl, "GET", "/audit?type=admin&skill=rollback"),
      (r) => r.json.entries.length >= 2,
      5_000,
      100,
    );
    expect(entries.json.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ by: writer.json.view.id, action: "POST /admin/skills/test.echo/rollback", status: 200 }),
        expect.objectContaining({ by: reader.json.view.id, action: "POST /admin/skills/test.echo/rollback", status: 403 }),
      ]),
    );
    const lines: string[] = [];
    await runCli(["audit", "--type", "admin", "--skill", "rollback"], {
      env: { SKILLMESH_URL: b.gatewayUrl, SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN },
      out: (l) => lines.push(l),
      fetch,
    });
    expect(lines.join("\n")).toMatch(new RegExp(`${writer.json.view.id}\\s+POST /admin/skills/test.echo/rollback\\s+HTTP 200`));
  });
});

describe("admin API requests", () => {
  it("refuse a field they do not know (a misspelt quota or ttl is an error, not a setting silently left out)", async () => {
    const created = await admin(a.gatewayUrl, "POST", "/keys", { name: "typo", skills: ["subtract"], quotas: "10/day" });
    expect(created.status).toBe(400);
    expect(JSON.stringify(created.json.error.issues)).toContain("quotas");
    const { id } = (await admin(a.gatewayUrl, "POST", "/keys", { name: "typo-ok", skills: ["subtract"] })).json.view;
    expect((await admin(a.gatewayUrl, "PATCH", `/keys/${id}`, { rate_limit: "5/min" })).status).toBe(400);
    expect((await admin(a.gatewayUrl, "POST", "/deployments", { endpoint: { binding: "SKILL_SUBTRACT" }, ttl: 30 })).status).toBe(400);
    expect((await admin(a.gatewayUrl, "POST", "/skills/subtract/canary", { version: "1.0.0", groups: { beta: 10 }, group: "beta" })).status).toBe(400);
    // A query too: a `since` that is no time would have meant "everything".
    expect((await admin(a.gatewayUrl, "GET", "/audit?since=yesterday")).status).toBe(400);
    expect((await admin(a.gatewayUrl, "GET", "/audit?since=2026-01-01T00:00:00Z&limit=1")).status).toBe(200);
  });

  it("refuse a body that is not JSON and change nothing: a cut-off body is not an empty one", async () => {
    expect((await admin(a.gatewayUrl, "POST", "/skills/test.echo/canary", { version: "2.0.0", groups: { gamma: 40 } })).status).toBe(200);
    const routesNow = async () => (await admin(a.gatewayUrl, "GET", "/skills/test.echo")).json.routes;
    const before = await routesNow();
    expect(before.gamma).toEqual({ "1.0.0": 60, "2.0.0": 40 });
    const raw = (path: string, body?: string) =>
      fetch(`${a.gatewayUrl}/admin${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
        ...(body === undefined ? {} : { body }),
      });
    const keysBefore = (await admin(a.gatewayUrl, "GET", "/keys")).json.keys.length;
    for (const [path, body] of [
      ["/skills/test.echo/rollback", '{"version":'],
      ["/skills/test.echo/promote", "{"],
      ["/keys", '{"name":"cut", "skills":["*"]'],
      ["/deployments", "not json"],
    ] as const) {
      const answer = await raw(path, body);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(/the body is not JSON$/);
    }
    expect(await routesNow()).toEqual(before);
    expect((await admin(a.gatewayUrl, "GET", "/keys")).json.keys.length).toBe(keysBefore);
    // An empty body is {}: a rollback without one rolls every canary back, as the CLI sends it.
    expect((await raw("/skills/test.echo/rollback")).status).toBe(200);
    expect((await routesNow()).gamma).toEqual({ "1.0.0": 100, "2.0.0": 0 });
  });
});

describe("skillmesh keys (CLI)", () => {
  const lines: string[] = [];
  const cli = (...argv: string[]) =>
    runCli(argv, { env: { SKILLMESH_URL: a.gatewayUrl, SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN }, out: (line) => lines.push(line), fetch });

  it("creates, lists, updates and revokes a key", async () => {
    lines.length = 0;
    await cli(
      "keys",
      "create",
      "--name",
      "agent-x",
      "--skills",
      "test.*",
      "--skills",
      "subtract",
      "--groups",
      "beta",
      "--rate",
      "100/min",
      "--quota",
      "50000/day",
    );
    const key = lines.find((line) => /^\s+sm_/.test(line))!.trim();
    expect((await rpc(a, "subtract", [5, 3], bearer(key))).json.result).toBe(2);
    lines.length = 0;
    await cli("keys", "list");
    const row = lines.find((line) => line.includes("agent-x"))!;
    expect(row).toMatch(/k_[0-9a-f]{12}\s+agent-x\s+sm_\S+…\S+\s+test\.\*,subtract\s+-\s+beta\s+-\s+100\/min\s+50000\/day/);
    expect(lines.join("\n")).not.toContain(key);
    await cli("keys", "update", "agent-x", "--skills", "sum", "--rate", "none");
    expect((await rpc(a, "subtract", [5, 3], bearer(key))).json.error.code).toBe(-32601);
    await cli("keys", "revoke", "agent-x");
    expect((await rpc(a, "sum", [1, 2], bearer(key))).status).toBe(401);
  });

  it("refuses what the admin API would refuse, and unknown options, with the usage instead of a stack", async () => {
    await expect(cli("keys", "create", "--name", "bad", "--rate", "lots")).rejects.toThrow(/rate: a rate is <count>/);
    await expect(cli("keys", "create", "--name", "nothing")).rejects.toThrow(/useless/);
    await expect(cli("keys", "list", "--frobnicate")).rejects.toThrow(/Unknown option '--frobnicate'[\s\S]*usage: skillmesh/);
  });
});

describe("with auth off: limits per client address", () => {
  let open: Mesh;
  beforeAll(async () => {
    open = await startMesh({ skills: [fixture("subtract")], adminToken: ADMIN_TOKEN, gatewayVars: { SKILLMESH_RATE_PER_ADDRESS: "3/h" } });
  });
  afterAll(() => open?.dispose());

  it("counts calls per CF-Connecting-IP (IPv6 per /64), whatever bearer key a caller makes up", async () => {
    const from = (ip: string, key: string) => rpc(open, "subtract", [5, 3], { "cf-connecting-ip": ip, ...bearer(key) });
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await from("2001:db8:1:2::1", `made-up-${i}`)).json.error?.code ?? "ok");
    if (Date.now() % 3_600_000 > 3_000) expect(codes).toEqual(["ok", "ok", "ok", -32005]); // unless an hour ended mid-test
    expect((await from("2001:db8:1:2::ffff", "another")).json.error?.code).toBe(-32005); // the same /64
    expect((await from("203.0.113.9", "x")).json.result).toBe(2);
  });
});

describe("virtual MCP servers and keys limited to them", () => {
  it("lists only what a server exposes, under its aliases, and keeps a server-limited key out of every other door", async () => {
    const saved = await admin(a.gatewayUrl, "PUT", "/servers/math", {
      tools: ["subtract", "sum"],
      instructions: "Arithmetic only.",
      aliases: { minus: "subtract" },
    });
    expect(saved.status, JSON.stringify(saved.json)).toBe(200);
    const key = await issue({ skills: ["*"], servers: ["math"] });
    const viaServer = (body: unknown) => post(`${a.gatewayUrl}/mcp/math`, body, { "mcp-protocol-version": "2025-11-25", ...bearer(key) });
    const init = await viaServer({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect(init.json.result.instructions).toBe("Arithmetic only.");
    const listed = await viaServer({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(listed.json.result.tools.map((t: { name: string }) => t.name).sort()).toEqual(["minus", "skills.call", "sum"]); // skills.call reaches only what the server exposes
    const called = await viaServer({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "minus", arguments: { minuend: 5, subtrahend: 3 } } });
    expect(called.json.result?.structuredContent, JSON.stringify(called.json)).toEqual({ result: 2 });
    // By its own name the aliased tool is not there, nor is a tool the server does not expose.
    for (const name of ["subtract", "whoami"])
      expect((await viaServer({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name, arguments: {} } })).json.error.code).toBe(-32602);
    expect((await rpc(a, "subtract", [5, 3], bearer(key))).status).toBe(403);
    expect((await mcp(a, { jsonrpc: "2.0", id: 1, method: "tools/list" }, bearer(key))).status).toBe(403);
    expect(
      (await post(`${a.gatewayUrl}/mcp/other`, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": "2025-11-25", ...bearer(key) }))
        .status,
    ).toBe(403);
  });
});
