/**
 * Fuzz: 2,400 malformed, random or half-valid bodies to the gateway's `/rpc`, and 1,200 to `/mcp`
 * with random MCP methods and headers (in workerd). Every answer must be a well-formed JSON-RPC
 * response (or batch of them) or an empty 202/204: never a 5xx, never a stack trace; and what
 * happens after the answers (the audit log's flush) breaks on none of them. Then 600
 * random admin operations (registrations with hostile names, tags, schemas and endpoints,
 * rollouts, removals): each is refused or applied cleanly, and afterwards the registry still
 * takes writes and every route still answers. The generator is seeded, so a failure reproduces:
 * the failing body is in the assertion message.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { JsonRpcResponseSchema } from "../src/protocols/jsonrpc/index.js";
import { ADMIN_TOKEN, SPEC_FIXTURES, admin, eventually, fixture, post } from "./support/fixtures.js";

const BODIES = 2_400;
const CONCURRENCY = 12;

let mesh: Mesh;
/** What the Workers logged: a fuzz case may break nothing after its answer either (an audit flush, a breaker write). */
const logs: string[] = [];
/** The logged lines that say work after an answer failed. */
const failuresAfterAnswers = () => logs.filter((line) => /could not write|Maximum call stack|unhandled/i.test(line));
beforeAll(async () => {
  mesh = await startMesh({
    skills: [...SPEC_FIXTURES, fixture("whoami")],
    adminToken: ADMIN_TOKEN,
    onLog: ({ level, message }) => void logs.push(`${level} ${message}`),
  });
});
afterAll(() => mesh?.dispose());

/** mulberry32: a small seeded PRNG. */
function prng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(20261130);
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
const METHODS = [
  "subtract",
  "sum",
  "get_data",
  "update",
  "notify_hello",
  "notify_sum",
  "test.whoami",
  "skills.list",
  "skills.discover",
  "rpc.discover",
  "nope",
  "",
  "__proto__",
  "constructor",
  "rpc.",
  "x".repeat(300),
];

function randomString(): string {
  const alphabet = ['"', "\\", "{", "}", "[", "]", ":", ",", "a", "0", " ", "\n", "\u0000", "é", "😀", "\ud800", "null", "true"];
  return Array.from({ length: int(40) }, () => pick(alphabet)).join("");
}

function randomValue(depth = 0): unknown {
  switch (int(depth > 3 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return pick([0, -1, 1e308, -1e-308, 2 ** 53 + 1, 42, 3.14]);
    case 3:
      return randomString();
    case 4:
      return pick(["2.0", "1.0", 2, "", "subtract"]);
    case 5:
      return pick([[], {}, [1, 2, 4], { minuend: 1, subtrahend: 2 }]);
    case 6:
      return Array.from({ length: int(4) }, () => randomValue(depth + 1));
    case 7:
      return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(["jsonrpc", "method", "params", "id", "x", "__proto__"]), randomValue(depth + 1)]));
    default:
      return randomRequest(depth + 1);
  }
}

function randomRequest(depth = 0): unknown {
  const request: Record<string, unknown> = {};
  if (random() < 0.9) request.jsonrpc = random() < 0.85 ? "2.0" : randomValue(depth + 1);
  if (random() < 0.95) request.method = random() < 0.85 ? pick(METHODS) : randomValue(depth + 1);
  if (random() < 0.7)
    request.params = random() < 0.5 ? pick([[1, 2], [42, 23], { minuend: 5, subtrahend: 1 }, { capability: "fix*" }, [7], []]) : randomValue(depth + 1);
  if (random() < 0.7) request.id = random() < 0.7 ? pick([1, "a", null, 0, -5, "😀"]) : randomValue(depth + 1);
  return request;
}

function randomBody(): { body: string; contentType: string } {
  const contentType =
    random() < 0.97 ?
      pick(["application/json", "application/json; charset=utf-8"])
    : pick(["text/plain", "", "application/x-www-form-urlencoded", "application/jsonx"]);
  const kind = int(9);
  let body: string;
  if (kind === 0) body = randomString();
  else if (kind === 1)
    body = JSON.stringify(randomRequest()).slice(0, int(60)); // truncated JSON
  else if (kind === 2) body = JSON.stringify(Array.from({ length: int(8) }, () => (random() < 0.6 ? randomRequest() : randomValue())));
  else if (kind === 3) body = JSON.stringify(randomValue());
  else if (kind === 4)
    body = "[".repeat(int(3000)) + "]".repeat(int(3000)); // deep nesting
  else if (kind === 5) body = pick(["", " ", "null", "[]", "{}", "[[]]", "[{}]", '"2.0"', "1e999", "-0", "\ufeff{}"]);
  else if (kind === 6) {
    // A well-formed call whose params nest around and far past the limit (refused -32602, then audited).
    const depth = pick([63, 64, 65, 500, 20_000]);
    body = `{"jsonrpc":"2.0","method":${JSON.stringify(pick(METHODS))},"params":${"[".repeat(depth)}${"]".repeat(depth)},"id":1}`;
  } else body = JSON.stringify(randomRequest());
  return { body, contentType };
}

const isResponse = (value: unknown) => JsonRpcResponseSchema.safeParse(value).success;

interface FuzzCase {
  body: string;
  contentType: string;
  headers?: Record<string, string>;
}

/** Sends every case to `path`; checks each answer; returns how many got each status. */
async function fuzz(path: string, cases: FuzzCase[], statusesAllowed: number[], emptyStatuses: number[]): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const { body, contentType, headers = {} } = cases[next++]!;
      const response = await fetch(`${mesh.gatewayUrl}${path}`, {
        method: "POST",
        headers: { ...(contentType ? { "content-type": contentType } : {}), ...headers },
        body,
      });
      const text = await response.text();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const where = `body ${JSON.stringify(body.slice(0, 200))} (${contentType}, ${JSON.stringify(headers)}) → ${response.status} ${text.slice(0, 200)}`;
      expect(response.status, where).toBeLessThan(500);
      expect(statusesAllowed, where).toContain(response.status);
      expect(text, where).not.toMatch(/\bat \S+:\d+:\d+|Error:/);
      if (emptyStatuses.includes(response.status)) {
        expect(text, where).toBe("");
        continue;
      }
      const parsed = JSON.parse(text);
      const ok = Array.isArray(parsed) ? parsed.length > 0 && parsed.every(isResponse) : isResponse(parsed);
      expect(ok, where).toBe(true);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  expect([...statuses.values()].reduce((a, b) => a + b)).toBe(cases.length);
  return statuses;
}

it(`answers ${BODIES} random bodies to /rpc with well-formed JSON-RPC, never a 5xx`, async () => {
  const statuses = await fuzz("/rpc", Array.from({ length: BODIES }, randomBody), [200, 204, 413, 415], [204]);
  // The generator must reach every kind of answer, or the fuzz is not testing what it claims.
  expect(statuses.get(200)).toBeGreaterThan(1_000);
  expect(statuses.get(204)).toBeGreaterThan(10);
  expect(statuses.get(415)).toBeGreaterThan(10);
  // After the answers: a call made now is in the audit log once its batch is written, and no batch
  // before it failed to be (a deep params once overflowed the flush and lost its whole batch).
  const sentinel = `fuzz.sentinel.${Date.now()}`;
  await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: sentinel, id: 1 });
  const audited = await eventually(
    () => admin(mesh.gatewayUrl, "GET", `/audit?skill=${sentinel}`),
    (r) => r.json.entries?.length === 1,
    10_000,
    100,
  );
  expect(audited.json.entries).toHaveLength(1);
  expect(failuresAfterAnswers()).toEqual([]);
}, 120_000);

const MCP_METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "server/discover",
  "notifications/initialized",
  "notifications/cancelled",
  "resources/list",
  "nope",
];
const VERSIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2024-11-05", "junk", ""];

function randomMcpParams(): unknown {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": pick(VERSIONS),
    ...(random() < 0.7 ? { "io.modelcontextprotocol/clientCapabilities": pick([{}, [], null]) } : {}),
  };
  switch (int(6)) {
    case 0:
      return { protocolVersion: pick(VERSIONS), capabilities: pick([{}, null]), clientInfo: pick([{ name: "f", version: "1" }, {}]) };
    case 1:
      return {
        name: pick(["subtract", "sum", "test.whoami", "nope", "skills.list", ""]),
        arguments: pick([{ minuend: 3, subtrahend: 1 }, { params: [1, 2] }, [], randomValue()]),
      };
    case 2:
      return { cursor: pick(["", "e30", randomString(), "eyJhZnRlciI6InN1YnRyYWN0In0"]) };
    case 3:
      return { _meta: meta, ...(random() < 0.5 ? { name: pick(["sum", "subtract"]), arguments: { params: [1] } } : {}) };
    default:
      return randomValue(1);
  }
}

function randomMcpCase(): FuzzCase {
  const message: Record<string, unknown> = { jsonrpc: random() < 0.9 ? "2.0" : randomValue(1) };
  if (random() < 0.95) message.method = random() < 0.9 ? pick(MCP_METHODS) : randomValue(1);
  if (random() < 0.8) message.params = randomMcpParams();
  if (random() < 0.8) message.id = pick([1, "a", null, 0, 2.5, "😀"]);
  if (random() < 0.05) Object.assign(message, { result: {}, id: 3 });
  const headers: Record<string, string> = {};
  if (random() < 0.6) headers["mcp-protocol-version"] = pick(VERSIONS.filter(Boolean));
  if (random() < 0.4) headers["mcp-method"] = pick(MCP_METHODS);
  if (random() < 0.2) headers["mcp-name"] = pick(["sum", "subtract", "x"]);
  if (random() < 0.1) {
    // A well-formed 2026-07-28 request, so the stateless paths (including 404) are reached too.
    const method = pick(MCP_METHODS);
    const params = {
      name: pick(["sum", "nope"]),
      arguments: { params: [1, 2] },
      _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
    };
    const stateless = { "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": params.name };
    return { body: JSON.stringify({ jsonrpc: "2.0", id: int(100), method, params }), contentType: "application/json", headers: stateless };
  }
  const kind = int(10);
  const body =
    kind === 0 ? randomString()
    : kind === 1 ? JSON.stringify(Array.from({ length: int(4) }, randomMcpCase).map((c) => JSON.parse(c.body === "" ? "null" : safe(c.body))))
    : JSON.stringify(message);
  return { body, contentType: "application/json", headers };
}

const safe = (text: string) => {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return "null";
  }
};

it("answers 1,200 random MCP messages and headers to /mcp with well-formed JSON-RPC, never a 5xx", async () => {
  const statuses = await fuzz("/mcp", Array.from({ length: 1_200 }, randomMcpCase), [200, 202, 400, 404], [202]);
  for (const status of [200, 202, 400, 404]) expect(statuses.get(status), `status ${status}`).toBeGreaterThan(10);
  expect(failuresAfterAnswers()).toEqual([]);
}, 120_000);

const HOSTILE_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "skills.list",
  "rpc.discover",
  "rpc.x",
  "",
  "a".repeat(65),
  "bad name",
  "ok.name",
  "fuzz.skill",
  "sum",
];
const HOSTILE_URLS = ["http://127.0.0.1:9/", "https://user:pw@127.0.0.1:9/", "ftp://x/", "not a url", "https://[::1]:9/", "http://0x7f.1:9/"];

/** A JSON value nested `depth` deep, as text (deeper than JSON.stringify's stack would allow). */
const nested = (depth: number) => `${'{"not":'.repeat(depth)}{"type":"string"}${"}".repeat(depth)}`;

function randomAdminOperation(fixtureManifest: Record<string, unknown>): { method: string; path: string; body?: string } {
  const name = random() < 0.7 ? pick(HOSTILE_NAMES) : `fuzz.${int(20)}`;
  const version = pick(["1.0.0", "2.0.0", "1.0.0-x", "01.0.0", "1", `${int(3)}.${int(3)}.0`]);
  switch (int(5)) {
    case 0:
    case 1: {
      const schema =
        random() < 0.2 ? nested(pick([10, 63, 64, 65, 3_000]))
        : random() < 0.1 ? JSON.stringify({ description: "x".repeat(pick([1_000, 70_000, 500_000])) })
        : '{"type":"object"}';
      const tags = JSON.stringify(Array.from({ length: int(4) }, () => pick(["a".repeat(64), "constructor", "x.y", "__proto__", "bad tag", "*"])));
      const manifest = JSON.stringify({ ...fixtureManifest, name, version, tags: "TAGS", inputSchema: "SCHEMA" })
        .replace('"TAGS"', tags)
        .replace('"SCHEMA"', schema);
      const endpoint =
        random() < 0.6 ?
          JSON.stringify({ binding: pick(["SKILL_SUBTRACT", "SKILL_SUM", "constructor", "__proto__", "NOPE"]) })
        : JSON.stringify({ url: pick(HOSTILE_URLS) });
      return { method: "POST", path: "/deployments", body: random() < 0.8 ? `{"endpoint":${endpoint},"manifest":${manifest}}` : `{"endpoint":${endpoint}}` };
    }
    case 2: {
      const group = pick(["beta", "*", "__proto__", "constructor", "toString", "a".repeat(70)]);
      return {
        method: "POST",
        path: `/skills/${encodeURIComponent(name)}/canary`,
        body: `{"version":"${version}","groups":{"${group}":${pick([0, 10, 100, 101, -1, 1.5])}}}`,
      };
    }
    case 3:
      return { method: "POST", path: `/skills/${encodeURIComponent(name)}/${pick(["promote", "rollback"])}`, body: JSON.stringify({ version }) };
    default:
      return { method: "DELETE", path: `/deployments/${encodeURIComponent(random() < 0.5 ? `${name}@${version}` : name)}` };
  }
}

it("refuses or applies 600 random admin operations cleanly; the registry keeps working after", async () => {
  const subtract = mesh.skills.find((s) => s.manifest.name === "subtract")!;
  const statuses = new Map<number, number>();
  for (let i = 0; i < 600; i++) {
    const { method, path, body } = randomAdminOperation(subtract.manifest);
    const response = await fetch(`${mesh.gatewayUrl}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body,
    });
    const text = await response.text();
    const where = `${method} ${path} ${body?.slice(0, 300)} → ${response.status} ${text.slice(0, 300)}`;
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    expect([200, 201, 400, 404, 409, 502], where).toContain(response.status);
    expect(JSON.parse(text), where).toBeTypeOf("object");
    expect(text, where).not.toMatch(/\bat \S+:\d+:\d+/);
  }
  for (const status of [200, 201, 400, 404]) expect(statuses.get(status), `status ${status}`).toBeGreaterThan(10);
  // Afterwards: every route answers, nothing is polluted, and the registry takes writes.
  expect(((await (await fetch(`${mesh.gatewayUrl}/healthz`)).json()) as any).status).toBe("ok");
  expect(({} as Record<string, unknown>).beta).toBeUndefined();
  const registered = await admin(mesh.gatewayUrl, "POST", "/deployments", {
    endpoint: { binding: subtract.binding },
    manifest: { ...subtract.manifest, name: "after.fuzz" },
  });
  expect(registered.status).toBe(201);
  const names = (await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "skills.list", id: 1 })).json.result.map(
    (skill: { name: string }) => skill.name,
  );
  expect(names).toContain("after.fuzz");
  expect((await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "subtract", params: [5, 3], id: 1 })).json.result).toBe(2);
  expect((await admin(mesh.gatewayUrl, "GET", "/deployments")).status).toBe(200);
}, 120_000);

it("the response schema the fuzz relies on rejects malformed responses", () => {
  expect(isResponse({ jsonrpc: "2.0", id: 1 })).toBe(false);
  expect(isResponse({ jsonrpc: "2.0", result: 1 })).toBe(false);
  expect(z.array(JsonRpcResponseSchema).safeParse([{ jsonrpc: "2.0", error: { code: 1, message: "m" }, id: null }]).success).toBe(true);
});
