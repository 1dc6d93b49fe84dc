import { describe, expect, it, vi } from "vitest";
import { ErrorCode, JsonRpcResponseSchema, RpcError, failureFromThrown, processJsonRpc, resultOfAnswer } from "./index.js";

const echo = async (request: { method: string; params?: unknown }) => {
  if (request.method === "boom") throw new Error("db password is hunter2");
  if (request.method === "refuse") throw new RpcError(ErrorCode.RateLimited, "slow down", { retryAfterMs: 10 });
  if (request.method === "nothing") return undefined;
  return request.params ?? null;
};

describe("processJsonRpc", () => {
  it("answers a request with the handler's result and the request's id", async () => {
    expect(await processJsonRpc('{"jsonrpc":"2.0","method":"m","params":[1],"id":"a"}', echo)).toEqual({ jsonrpc: "2.0", result: [1], id: "a" });
  });

  it("turns an RpcError into its error object and anything else into a bare -32603", async () => {
    expect(await processJsonRpc('{"jsonrpc":"2.0","method":"refuse","id":1}', echo)).toEqual({
      jsonrpc: "2.0",
      error: { code: -32005, message: "slow down", data: { retryAfterMs: 10 } },
      id: 1,
    });
    const failed = await processJsonRpc('{"jsonrpc":"2.0","method":"boom","id":2}', echo);
    expect(failed).toEqual({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: 2 });
    expect(JSON.stringify(failed)).not.toContain("hunter2");
  });

  it("never answers undefined as a result (it would vanish from the JSON)", async () => {
    expect(await processJsonRpc('{"jsonrpc":"2.0","method":"nothing","id":3}', echo)).toEqual({ jsonrpc: "2.0", result: null, id: 3 });
  });

  it("sends nothing for notifications, even failing ones, but answers an explicit null id", async () => {
    expect(await processJsonRpc('{"jsonrpc":"2.0","method":"boom"}', echo)).toBeUndefined();
    expect(await processJsonRpc('[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method":"m"}]', echo)).toBeUndefined();
    expect(await processJsonRpc('{"jsonrpc":"2.0","method":"m","id":null}', echo)).toEqual({ jsonrpc: "2.0", result: null, id: null });
  });

  it("keeps batch order and leaves out notifications", async () => {
    const out = await processJsonRpc(
      '[{"jsonrpc":"2.0","method":"m","params":[1],"id":1},{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method":"m","params":[3],"id":3}]',
      echo,
    );
    expect(out).toEqual([
      { jsonrpc: "2.0", result: [1], id: 1 },
      { jsonrpc: "2.0", result: [3], id: 3 },
    ]);
  });

  it("echoes a readable id of an invalid request, null otherwise", async () => {
    expect(await processJsonRpc('{"jsonrpc":"1.0","method":"m","id":9}', echo)).toMatchObject({ error: { code: -32600 }, id: 9 });
    expect(await processJsonRpc('{"jsonrpc":"2.0","method":"m","id":{"x":1}}', echo)).toMatchObject({ error: { code: -32600 }, id: null });
    expect(await processJsonRpc('{"jsonrpc":"2.0","method":"m","params":"str","id":1}', echo)).toMatchObject({ error: { code: -32600 } });
  });

  it("answers a batch of exactly the limit (100), and refuses one more as one Invalid Request", async () => {
    const batchOf = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", method: "m", id: i })));
    const full = await processJsonRpc(batchOf(100), echo);
    expect(Array.isArray(full) && full.length).toBe(100);
    expect((full as Array<{ id: number }>).map((r) => r.id)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(await processJsonRpc(batchOf(101), echo)).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/100/) }, id: null });
  });
});

describe("failureFromThrown", () => {
  it("keeps an RpcError's code, message and data", () => {
    expect(failureFromThrown(1, new RpcError(-32004, "late", { timeoutMs: 5 })).error).toEqual({ code: -32004, message: "late", data: { timeoutMs: 5 } });
  });

  it("answers anything else as a bare -32603, and logs it for the operator", () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const bug = new TypeError("cannot read properties of undefined (reading 'x') at /srv/gateway.ts:12");
      expect(failureFromThrown(7, bug)).toEqual({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: 7 });
      expect(logged).toHaveBeenCalledWith(expect.stringMatching(/unexpected error/), bug);
    } finally {
      logged.mockRestore();
    }
  });
});

describe("JsonRpcResponseSchema", () => {
  it("reads a result as a success and an error as a failure", () => {
    expect(JsonRpcResponseSchema.parse({ jsonrpc: "2.0", result: 14, id: 1 })).toEqual({ jsonrpc: "2.0", result: 14, id: 1 });
    expect(JsonRpcResponseSchema.parse({ jsonrpc: "2.0", error: { code: -32602, message: "m" }, id: 1 })).toEqual({
      jsonrpc: "2.0",
      error: { code: -32602, message: "m" },
      id: 1,
    });
  });

  it("reads an answer with both a result and an error as the failure it reports, and tolerates error: null beside a result", () => {
    expect(JsonRpcResponseSchema.parse({ jsonrpc: "2.0", result: 14, error: { code: -32001, message: "down" }, id: 1 })).toEqual({
      jsonrpc: "2.0",
      error: { code: -32001, message: "down" },
      id: 1,
    });
    expect(JsonRpcResponseSchema.parse({ jsonrpc: "2.0", result: 14, error: null, id: 1 })).toMatchObject({ result: 14 });
  });

  it("refuses an answer with neither", () => {
    expect(JsonRpcResponseSchema.safeParse({ jsonrpc: "2.0", id: 1 }).success).toBe(false);
    expect(JsonRpcResponseSchema.safeParse({ jsonrpc: "2.0", error: null, id: 1 }).success).toBe(false);
  });
});

describe("resultOfAnswer: one reader for every peer's JSON-RPC answer", () => {
  const peer = {
    notAnAnswer: (what: string) => new RpcError(ErrorCode.SkillUnavailable, `the peer ${what}`),
    failed: (error: { code: number; message: string }) => new RpcError(ErrorCode.SkillUnavailable, `failed: ${error.message}`, { upstreamCode: error.code }),
  };

  it("answers a result, and what the peer says its error becomes", () => {
    expect(resultOfAnswer(200, { jsonrpc: "2.0", id: 1, result: { ok: 1 } }, peer)).toEqual({ ok: 1 });
    // A result beside `error: null`, as some servers send it.
    expect(resultOfAnswer(200, { jsonrpc: "2.0", id: 1, result: 2, error: null }, peer)).toBe(2);
    const error = (() => {
      try {
        return resultOfAnswer(500, { jsonrpc: "2.0", id: 1, error: { code: -32000, message: "down" } }, peer);
      } catch (thrown) {
        return thrown;
      }
    })() as RpcError;
    expect(error.toJSON()).toEqual({ code: ErrorCode.SkillUnavailable, message: "failed: down", data: { upstreamCode: -32000 } });
  });

  it("refuses what is not an answer: not JSON-RPC, or an HTTP error status without an error", () => {
    expect(() => resultOfAnswer(200, { hello: "world" }, peer)).toThrow("the peer answered HTTP 200 without a JSON-RPC response");
    expect(() => resultOfAnswer(502, { jsonrpc: "2.0", id: 1, result: {} }, peer)).toThrow("the peer answered HTTP 502 without a JSON-RPC response");
    expect(() => resultOfAnswer(200, undefined, peer)).toThrow("without a JSON-RPC response");
  });
});
