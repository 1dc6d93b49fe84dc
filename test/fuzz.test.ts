/**
 * Fuzz: 2,400 malformed, random or half-valid bodies to the gateway's `/rpc` (in workerd). Every
 * answer must be a well-formed JSON-RPC response (or batch of them), a 204, or a 413/415 with a
 * JSON-RPC error: never a 5xx, never a stack trace. The generator is seeded, so a failure
 * reproduces: the failing body is in the assertion message.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { JsonRpcResponseSchema } from "../src/jsonrpc/index.js";
import { ADMIN_TOKEN, SPEC_FIXTURES, fixture } from "./support/fixtures.js";

const BODIES = 2_400;
const CONCURRENCY = 12;

let mesh: Mesh;
beforeAll(async () => {
  mesh = await startMesh({ skills: [...SPEC_FIXTURES, fixture("whoami")], adminToken: ADMIN_TOKEN });
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
const METHODS = ["subtract", "sum", "get_data", "update", "notify_hello", "notify_sum", "test.whoami", "skills.list", "skills.discover", "rpc.discover", "nope", "", "__proto__", "constructor", "rpc.", "x".repeat(300)];

function randomString(): string {
  const alphabet = ['"', "\\", "{", "}", "[", "]", ":", ",", "a", "0", " ", "\n", "\u0000", "é", "😀", "\ud800", "null", "true"];
  return Array.from({ length: int(40) }, () => pick(alphabet)).join("");
}

function randomValue(depth = 0): unknown {
  switch (int(depth > 3 ? 6 : 9)) {
    case 0: return null;
    case 1: return random() < 0.5;
    case 2: return pick([0, -1, 1e308, -1e-308, 2 ** 53 + 1, 42, 3.14]);
    case 3: return randomString();
    case 4: return pick(["2.0", "1.0", 2, "", "subtract"]);
    case 5: return pick([[], {}, [1, 2, 4], { minuend: 1, subtrahend: 2 }]);
    case 6: return Array.from({ length: int(4) }, () => randomValue(depth + 1));
    case 7: return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(["jsonrpc", "method", "params", "id", "x", "__proto__"]), randomValue(depth + 1)]));
    default: return randomRequest(depth + 1);
  }
}

function randomRequest(depth = 0): unknown {
  const request: Record<string, unknown> = {};
  if (random() < 0.9) request.jsonrpc = random() < 0.85 ? "2.0" : randomValue(depth + 1);
  if (random() < 0.95) request.method = random() < 0.85 ? pick(METHODS) : randomValue(depth + 1);
  if (random() < 0.7) request.params = random() < 0.5 ? pick([[1, 2], [42, 23], { minuend: 5, subtrahend: 1 }, { capability: "fix*" }, [7], []]) : randomValue(depth + 1);
  if (random() < 0.7) request.id = random() < 0.7 ? pick([1, "a", null, 0, -5, "😀"]) : randomValue(depth + 1);
  return request;
}

function randomBody(): { body: string; contentType: string } {
  const contentType = random() < 0.97 ? pick(["application/json", "application/json; charset=utf-8"]) : pick(["text/plain", "", "application/x-www-form-urlencoded", "application/jsonx"]);
  const kind = int(8);
  let body: string;
  if (kind === 0) body = randomString();
  else if (kind === 1) body = JSON.stringify(randomRequest()).slice(0, int(60)); // truncated JSON
  else if (kind === 2) body = JSON.stringify(Array.from({ length: int(8) }, () => (random() < 0.6 ? randomRequest() : randomValue())));
  else if (kind === 3) body = JSON.stringify(randomValue());
  else if (kind === 4) body = "[".repeat(int(3000)) + "]".repeat(int(3000)); // deep nesting
  else if (kind === 5) body = pick(["", " ", "null", "[]", "{}", "[[]]", "[{}]", '"2.0"', "1e999", "-0", "\ufeff{}"]);
  else body = JSON.stringify(randomRequest());
  return { body, contentType };
}

const isResponse = (value: unknown) => JsonRpcResponseSchema.safeParse(value).success;

it(`answers ${BODIES} random bodies with well-formed JSON-RPC, never a 5xx`, async () => {
  const statuses = new Map<number, number>();
  const bodies = Array.from({ length: BODIES }, randomBody);
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const { body, contentType } = bodies[next++]!;
      const response = await fetch(`${mesh.gatewayUrl}/rpc`, { method: "POST", headers: contentType ? { "content-type": contentType } : {}, body });
      const text = await response.text();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const where = `body ${JSON.stringify(body.slice(0, 200))} (${contentType}) → ${response.status} ${text.slice(0, 200)}`;
      expect(response.status, where).toBeLessThan(500);
      expect([200, 204, 413, 415], where).toContain(response.status);
      expect(text, where).not.toMatch(/\bat \S+:\d+:\d+|Error:/);
      if (response.status === 204) {
        expect(text, where).toBe("");
        continue;
      }
      const parsed = JSON.parse(text);
      const ok = Array.isArray(parsed) ? parsed.length > 0 && parsed.every(isResponse) : isResponse(parsed);
      expect(ok, where).toBe(true);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  // The generator must reach every kind of answer, or the fuzz is not testing what it claims.
  expect(statuses.get(200)).toBeGreaterThan(1_000);
  expect(statuses.get(204)).toBeGreaterThan(10);
  expect(statuses.get(415)).toBeGreaterThan(10);
  expect([...statuses.values()].reduce((a, b) => a + b)).toBe(BODIES);
}, 120_000);

it("the response schema the fuzz relies on rejects malformed responses", () => {
  expect(isResponse({ jsonrpc: "2.0", id: 1 })).toBe(false);
  expect(isResponse({ jsonrpc: "2.0", result: 1 })).toBe(false);
  expect(z.array(JsonRpcResponseSchema).safeParse([{ jsonrpc: "2.0", error: { code: 1, message: "m" }, id: null }]).success).toBe(true);
});
