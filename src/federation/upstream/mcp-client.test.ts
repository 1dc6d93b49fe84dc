import { afterEach, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../../protocols/jsonrpc/index.js";
import { callTool } from "./mcp-client.js";
import { discoverEra } from "./mcp-session.js";
import type { McpEra } from "./model.js";
import { failureOf, jsonResponse } from "../../../test/support/stand-in.js";

const STATELESS: McpEra = { protocolVersion: "2026-07-28", stateless: true };
const target = () => ({
  url: "https://mcp.example/mcp",
  label: "everything.echo",
  headers: { authorization: "Bearer up" },
  sessionKey: "k",
  signal: AbortSignal.timeout(5_000),
});

/** The upstream as one function of each request's JSON-RPC message and headers (a stand-in for fetch). */
function upstream(answer: (message: { method: string; params: Record<string, unknown>; id?: number }, headers: Headers) => Response) {
  const seen: Array<{ message: { method: string; params: Record<string, unknown> }; headers: Headers; redirect?: RequestInit["redirect"] }> = [];
  vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
    const message = JSON.parse(String(init.body)) as { method: string; params: Record<string, unknown>; id?: number };
    const headers = new Headers(init.headers);
    seen.push({ message, headers, ...(init.redirect ? { redirect: init.redirect } : {}) });
    return answer(message, headers);
  });
  return seen;
}
const json = (body: unknown, status = 200) => jsonResponse(body, status);

afterEach(() => vi.unstubAllGlobals());

describe("the gateway as an MCP client of an upstream", () => {
  it("speaks 2026-07-28 to a server that lists it in server/discover", async () => {
    upstream((m) => json({ jsonrpc: "2.0", id: m.id, result: { supportedVersions: ["2026-07-28"] } }));
    expect(await discoverEra(target())).toEqual(STATELESS);
  });

  it("calls a tool in 2026-07-28 with its headers and _meta, the credential sent, no redirect followed", async () => {
    const seen = upstream((m) => json({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "hi" }] } }));
    expect(await callTool(target(), STATELESS, "echo", { text: "hi" })).toEqual({ content: [{ type: "text", text: "hi" }] });
    const [{ message, headers, redirect }] = seen as [(typeof seen)[number]];
    expect(message).toMatchObject({
      method: "tools/call",
      params: { name: "echo", arguments: { text: "hi" }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
    });
    expect(headers.get("mcp-method")).toBe("tools/call");
    expect(headers.get("mcp-name")).toBe("echo");
    expect(headers.get("authorization")).toBe("Bearer up");
    expect(redirect).toBe("manual");
  });

  it("answers each way an upstream fails with an error the caller can act on", async () => {
    upstream((m) => json({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "text is required" } }));
    expect((await failureOf(callTool(target(), STATELESS, "echo", {})))?.toJSON()).toEqual({
      code: ErrorCode.InvalidParams,
      message: "Invalid params: text is required",
    });

    upstream(() => new Response("nope", { status: 401 }));
    const refused = await failureOf(callTool(target(), STATELESS, "echo", {}));
    expect(refused?.code).toBe(ErrorCode.SkillUnavailable);
    expect(refused?.message).toBe("everything.echo: the upstream refused the gateway's credential (HTTP 401)");

    upstream(() => new Response(null, { status: 302, headers: { location: "https://elsewhere.example/" } }));
    expect((await failureOf(callTool(target(), STATELESS, "echo", {})))?.message).toContain(
      "answered with a redirect (HTTP 302), which the gateway does not follow",
    );

    upstream(() => json({ hello: "world" }));
    expect((await failureOf(callTool(target(), STATELESS, "echo", {})))?.message).toContain("answered HTTP 200 without a JSON-RPC response");

    upstream((m) => json({ jsonrpc: "2.0", id: m.id, result: { content: "not blocks" } }));
    expect((await failureOf(callTool(target(), STATELESS, "echo", {})))?.message).toContain("answered tools/call with something that is not a tool result");

    upstream(() => new Response("slow down", { status: 429, headers: { "retry-after": "3" } }));
    expect((await failureOf(callTool(target(), STATELESS, "echo", {})))?.toJSON()).toMatchObject({
      code: ErrorCode.RateLimited,
      data: { retryAfterMs: 3_000 },
    });
  });

  it("reads no more than an answer may hold", async () => {
    upstream((m) => json({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "x".repeat(17 * 1024 * 1024) }] } }));
    expect((await failureOf(callTool(target(), STATELESS, "echo", {})))?.code).toBe(ErrorCode.SkillUnavailable);
  });
});
