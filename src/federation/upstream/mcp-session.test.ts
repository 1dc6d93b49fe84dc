import { afterEach, describe, expect, it, vi } from "vitest";

import type { Progress } from "../../protocols/progress/index.js";
import { discoverEra, exchange, forgetSessions } from "./mcp-session.js";
import type { McpEra } from "./model.js";
import { failureOf, jsonResponse } from "../../../test/support/stand-in.js";

const HANDSHAKE: McpEra = { protocolVersion: "2025-11-25", stateless: false };
let url = 0;
/** A target at a URL of its own: sessions are kept per isolate, by URL and session key. */
const targetAt = (at: string, sessionKey = "alice") => ({ url: at, label: "everything", headers: {}, sessionKey, signal: AbortSignal.timeout(5_000) });

interface Seen {
  method?: string;
  id?: unknown;
  params?: Record<string, unknown>;
  error?: unknown;
  session: string | null;
  version: string | null;
}
const json = (body: unknown, headers: Record<string, string> = {}, status = 200) => jsonResponse(body, status, headers);

/**
 * A 2025-11-25 server (a stand-in for fetch): refuses server/discover, opens a session per
 * `initialize` (ids s1, s2, …), forgets the sessions in `forgotten`, and answers any other request with `answer`.
 */
function server2025(answer: (seen: Seen) => Response = (m) => json({ jsonrpc: "2.0", id: m.id, result: { echoed: m.method } })) {
  const seen: Seen[] = [];
  const forgotten = new Set<string>();
  let opened = 0;
  vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
    const message = JSON.parse(String(init.body)) as { method?: string; id?: unknown; params?: Record<string, unknown>; error?: unknown };
    const headers = new Headers(init.headers);
    const request: Seen = { ...message, session: headers.get("mcp-session-id"), version: headers.get("mcp-protocol-version") };
    seen.push(request);
    if (message.method === "server/discover")
      return json({ jsonrpc: "2.0", id: message.id, error: { code: -32600, message: "Bad Request: Server not initialized" } }, {}, 400);
    if (message.method === "initialize")
      return json(
        { jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "e", version: "1" } } },
        { "mcp-session-id": `s${++opened}` },
      );
    if (message.id === undefined) return new Response(null, { status: 202 });
    if (request.session && forgotten.has(request.session)) return new Response("Session not found", { status: 404 });
    return answer(request);
  });
  return { seen, forgotten, requests: () => seen.filter((m) => m.id !== undefined && m.method !== "initialize" && m.method !== "server/discover") };
}

afterEach(() => vi.unstubAllGlobals());

describe("the gateway's MCP transport, 2025 era", () => {
  it("a server that refuses server/discover is asked to initialize; its session is kept and sent with each request", async () => {
    const at = `https://mcp${++url}.example/mcp`;
    const { seen, requests } = server2025();
    expect(await discoverEra(targetAt(at))).toEqual(HANDSHAKE);
    expect(seen.map((m) => m.method)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
    expect(seen[2]!.session).toBe("s1");

    expect(await exchange(targetAt(at), "tools/list", {}, HANDSHAKE)).toEqual({ echoed: "tools/list" });
    expect(await exchange(targetAt(at), "tools/call", { name: "echo" }, HANDSHAKE)).toEqual({ echoed: "tools/call" });
    expect(requests().map((m) => [m.method, m.session, m.version])).toEqual([
      ["tools/list", "s1", "2025-11-25"],
      ["tools/call", "s1", "2025-11-25"],
    ]);
    expect(seen.filter((m) => m.method === "initialize")).toHaveLength(1);
  });

  it("callers never share a session: another session key opens its own", async () => {
    const at = `https://mcp${++url}.example/mcp`;
    const { requests } = server2025();
    await exchange(targetAt(at, "alice"), "tools/list", {}, HANDSHAKE);
    await exchange(targetAt(at, "bob"), "tools/list", {}, HANDSHAKE);
    await exchange(targetAt(at, "alice"), "tools/list", {}, HANDSHAKE);
    expect(requests().map((m) => m.session)).toEqual(["s1", "s2", "s1"]);
  });

  it("a session the server forgot (404) is opened again and the request sent once more", async () => {
    const at = `https://mcp${++url}.example/mcp`;
    const { requests, forgotten } = server2025();
    await exchange(targetAt(at), "tools/list", {}, HANDSHAKE);
    forgotten.add("s1");
    expect(await exchange(targetAt(at), "tools/call", { name: "echo" }, HANDSHAKE)).toEqual({ echoed: "tools/call" });
    expect(requests().map((m) => [m.method, m.session])).toEqual([
      ["tools/list", "s1"],
      ["tools/call", "s1"],
      ["tools/call", "s2"],
    ]);
  });

  it("a server that forgets every session is -32001 after one new handshake, not a loop", async () => {
    const at = `https://mcp${++url}.example/mcp`;
    const { seen, forgotten } = server2025();
    await exchange(targetAt(at), "tools/list", {}, HANDSHAKE);
    forgotten.add("s1").add("s2").add("s3");
    expect((await failureOf(exchange(targetAt(at), "tools/list", {}, HANDSHAKE)))?.message).toBe("everything forgot its session twice; retry after 1 s");
    expect(seen.filter((m) => m.method === "initialize")).toHaveLength(2);
  });

  it("forgetSessions drops the upstream's sessions: the next request initializes again", async () => {
    const at = `https://mcp${++url}.example/mcp`;
    const { seen } = server2025();
    await exchange(targetAt(at), "tools/list", {}, HANDSHAKE);
    forgetSessions(at);
    await exchange(targetAt(at), "tools/list", {}, HANDSHAKE);
    expect(seen.filter((m) => m.method === "initialize")).toHaveLength(2);
  });

  it("a server speaking a version the gateway does not is refused at the handshake", async () => {
    const at = `https://mcp${++url}.example/mcp`;
    vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
      const message = JSON.parse(String(init.body)) as { id?: number; method: string };
      if (message.method === "server/discover") return new Response("no", { status: 400 });
      return json({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2099-01-01", capabilities: {} } });
    });
    expect((await failureOf(discoverEra(targetAt(at))))?.message).toBe("everything speaks MCP 2099-01-01, which the gateway does not; retry after 1 s");
  });

  it("on an event stream: progress relayed, the server's own requests refused, the answer to this request returned", async () => {
    const at = `https://mcp${++url}.example/mcp`;
    const { seen } = server2025((m) => {
      const lines = [
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1, total: 2 } },
        { jsonrpc: "2.0", id: "ask", method: "elicitation/create", params: { message: "Sure?" } },
        { jsonrpc: "2.0", id: 999, result: { someone: "else" } },
        { jsonrpc: "2.0", id: m.id, result: { done: true } },
      ];
      return new Response(lines.map((line) => `data: ${JSON.stringify(line)}\n\n`).join(""), { headers: { "content-type": "text/event-stream" } });
    });
    const progress: Progress[] = [];
    expect(await exchange(targetAt(at), "tools/call", { name: "slow" }, HANDSHAKE, { onProgress: (p) => progress.push(p) })).toEqual({ done: true });
    expect(progress).toEqual([{ progressToken: 1, progress: 1, total: 2 }]);
    await vi.waitFor(() => expect(seen.find((m) => m.id === "ask" && m.error)).toBeDefined());
    expect(seen.find((m) => m.id === "ask")).toMatchObject({ error: { code: -32601 }, session: "s1" });
  });

  it("a request the caller cancels is followed by notifications/cancelled for its id", async () => {
    const at = `https://mcp${++url}.example/mcp`;
    const controller = new AbortController();
    const { seen } = server2025();
    await exchange(targetAt(at), "tools/list", {}, HANDSHAKE);
    vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
      const message = JSON.parse(String(init.body)) as Seen;
      seen.push({ ...message, session: new Headers(init.headers).get("mcp-session-id"), version: null });
      if (message.id === undefined) return new Response(null, { status: 202 });
      controller.abort();
      throw new DOMException("aborted", "AbortError");
    });
    await expect(exchange({ ...targetAt(at), signal: controller.signal }, "tools/call", { name: "slow" }, HANDSHAKE)).rejects.toThrow();
    const call = seen.find((m) => m.method === "tools/call")!;
    expect(seen.at(-1)).toMatchObject({ method: "notifications/cancelled", params: { requestId: call.id }, session: "s1" });
  });
});
