/** The local Upstash REST endpoint (scripts/redis-rest) speaks the protocol @upstash/redis sends. */
import { describe, expect, inject, it } from "vitest";

const url = inject("redisRestUrl");
const token = inject("redisRestToken");
const send = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any };
};
const key = (name: string) => `rest-test:${process.pid}:${name}`;

describe("Upstash REST endpoint in front of redis-server", () => {
  it("runs one command at POST /, numbers as arguments included", async () => {
    expect(await send("/", ["SET", key("a"), 42, "EX", 100])).toEqual({ status: 200, json: { result: "OK" } });
    expect((await send("/", ["GET", key("a")])).json).toEqual({ result: "42" });
    expect((await send("/", ["TTL", key("a")])).json.result).toBeGreaterThan(90);
  });

  it("answers a Redis error with 400 and {error}", async () => {
    const answer = await send("/", ["NOSUCHCOMMAND"]);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatch(/unknown command/i);
  });

  it("refuses a missing or wrong bearer token with 401", async () => {
    expect((await send("/", ["PING"], { authorization: "Bearer wrong" })).status).toBe(401);
    const response = await fetch(`${url}/`, { method: "POST", body: '["PING"]' });
    expect(response.status).toBe(401);
  });

  it("encodes every string reply as base64 when asked, except the status OK", async () => {
    await send("/", ["SET", key("b"), "héllo"]);
    const base64 = { "upstash-encoding": "base64" };
    expect((await send("/", ["GET", key("b")], base64)).json).toEqual({ result: Buffer.from("héllo").toString("base64") });
    expect((await send("/", ["SET", key("c"), "x"], base64)).json).toEqual({ result: "OK" });
    expect((await send("/", ["PING"], base64)).json).toEqual({ result: Buffer.from("PONG").toString("base64") });
    expect((await send("/", ["INCR", key("n")], base64)).json).toEqual({ result: 1 });
  });

  it("/pipeline answers each command in order, errors in place", async () => {
    const answer = await send("/pipeline", [
      ["SET", key("p"), "1"],
      ["INCR", key("p")],
      ["HGET", key("p"), "f"],
      ["GET", key("p")],
    ]);
    expect(answer.status).toBe(200);
    expect(answer.json[0]).toEqual({ result: "OK" });
    expect(answer.json[1]).toEqual({ result: 2 });
    expect(answer.json[2].error).toMatch(/WRONGTYPE/);
    expect(answer.json[3]).toEqual({ result: "2" });
  });

  it("/multi-exec runs the commands as one transaction", async () => {
    const answer = await send("/multi-exec", [
      ["SET", key("m"), "5"],
      ["INCRBY", key("m"), 3],
      ["GET", key("m")],
    ]);
    expect(answer.json).toEqual([{ result: "OK" }, { result: 8 }, { result: "8" }]);
  });

  it("returns RESP2 shapes: HGETALL as a flat array, EVAL results as they are", async () => {
    await send("/", ["HSET", key("h"), "f1", "v1", "f2", "v2"]);
    expect((await send("/", ["HGETALL", key("h")])).json.result).toEqual(["f1", "v1", "f2", "v2"]);
    expect((await send("/", ["EVAL", "return {1, 'two', {3}}", 0])).json.result).toEqual([1, "two", [3]]);
  });

  it("rejects a body that is not a command with 400", async () => {
    expect((await send("/", { not: "a command" })).status).toBe(400);
    expect((await send("/pipeline", ["GET", "x"])).status).toBe(400);
  });
});
