import { describe, expect, it } from "vitest";
import type { ToolSummary } from "../gateway/chain/catalog.js";
import { type McpBackend, answerMcpPost } from "./index.js";

const subtract: ToolSummary = {
  name: "subtract",
  description: "a - b",
  tags: ["math"],
  idempotent: true,
  inputSchema: { type: "object", properties: { minuend: { type: "number" }, subtrahend: { type: "number" } } },
  outputSchema: { type: "object", properties: { result: { type: "number" } } },
};
const options = { serverInfo: { name: "test", version: "1.0.0" }, pageSize: 100, listTtlMs: 30_000, listScope: "public" as const, heartbeatMs: 15_000 };
const headers = new Headers({ "mcp-protocol-version": "2025-11-25", accept: "application/json, text/event-stream" });

/** A backend whose catalog is not there yet (a new isolate still loading its registry). */
function loadingBackend(calls: string[]): McpBackend {
  return {
    tools: () => Promise.reject(new Error("the whole registry is still loading")),
    catalog: () => ({
      offerings: () => Promise.reject(new Error("loading")),
      packages: () => Promise.reject(new Error("loading")),
      servedBy: () => Promise.reject(new Error("loading")),
      revision: () => Promise.reject(new Error("loading")),
    }),
    run: () => Promise.reject(new Error("no operations here")),
    refuse: (_name, refusal) => Promise.reject(refusal),
    skill: async (name) => (name === "subtract" ? subtract : undefined),
    call: async (name, params) => (
      calls.push(name),
      { result: (params as { minuend: number; subtrahend: number }).minuend - (params as { subtrahend: number }).subtrahend }
    ),
    submit: () => Promise.reject(new Error("no jobs here")),
    job: async () => undefined,
    requestStates: { keep: () => Promise.reject(new Error("no input rounds here")), kept: () => Promise.reject(new Error("no input rounds here")) },
    replies: { put: async () => {}, await: () => Promise.reject(new Error("no input rounds here")) },
    logLevels: { set: async () => {}, get: async () => undefined },
    subscriptions: { add: async () => {}, remove: async () => {}, list: async () => [], told: async () => {} },
    caller: "anonymous",
  };
}

describe("tools/call", () => {
  it("needs only its own tool, not the whole catalog", async () => {
    const calls: string[] = [];
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "subtract", arguments: { minuend: 5, subtrahend: 3 } } };
    const answer = await answerMcpPost(headers, JSON.stringify(call), loadingBackend(calls), options);
    expect(answer.body).toMatchObject({ id: 1, result: { structuredContent: { result: 2 } } });
    expect((answer.body as { result: { isError?: boolean } }).result.isError).not.toBe(true);
    expect(calls).toEqual(["subtract"]);
  });

  it("refuses a tool the backend does not know as an unknown tool", async () => {
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "divide", arguments: {} } };
    const answer = await answerMcpPost(headers, JSON.stringify(call), loadingBackend([]), options);
    expect(answer.body).toMatchObject({ id: 2, error: { code: -32602, message: expect.stringContaining("Unknown tool: divide") } });
  });
});
