import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_ANSWER_BYTES } from "../../lib/body/index.js";
import { ErrorCode } from "../../protocols/jsonrpc/index.js";
import type { Progress } from "../../protocols/progress/index.js";
import { askAgentTask, readAgentCard, sendToAgent } from "./a2a-client.js";
import { failureOf, jsonResponse } from "../../../test/support/stand-in.js";

const target = () => ({
  url: "https://agent.example/a2a",
  label: "Upstream text",
  headers: { authorization: "Bearer up" },
  signal: AbortSignal.timeout(5_000),
});
const CARD = {
  name: "text",
  description: "Summarizes",
  version: "1.0.0",
  supportedInterfaces: [{ url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  skills: [{ id: "summarize", name: "Summarize", description: "Summarizes a text", tags: ["text"] }],
};
const completed = (text: string) => ({
  id: "t1",
  contextId: "c1",
  status: { state: "TASK_STATE_COMPLETED" },
  artifacts: [{ artifactId: "a", parts: [{ text }] }],
});

/** The agent as one function of each request (a stand-in for fetch); returns what it was sent. */
function agent(answer: (request: { method?: string; params?: Record<string, unknown>; headers: Headers }) => Response) {
  const seen: Array<{ method?: string; params?: Record<string, unknown>; headers: Headers; redirect?: RequestInit["redirect"] }> = [];
  vi.stubGlobal("fetch", async (_url: string, init: RequestInit = {}) => {
    const message = init.body ? (JSON.parse(String(init.body)) as { method: string; params: Record<string, unknown> }) : {};
    const request = { ...message, headers: new Headers(init.headers), ...(init.redirect ? { redirect: init.redirect } : {}) };
    seen.push(request);
    return answer(request);
  });
  return seen;
}
const json = (body: unknown, status = 200) => jsonResponse(body, status);
const events = (...messages: unknown[]) =>
  new Response(messages.map((m) => `data: ${JSON.stringify(m)}\n\n`).join(""), { headers: { "content-type": "text/event-stream" } });

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the gateway as an A2A client: an agent's card", () => {
  it("is read with the A2A version header, no redirect followed, and parsed", async () => {
    const seen = agent(() => json(CARD));
    expect((await readAgentCard(target())).skills.map((s) => s.id)).toEqual(["summarize"]);
    expect(seen[0]!.headers.get("a2a-version")).toBe("1.0");
    expect(seen[0]!.redirect).toBe("manual");
  });

  it("that is missing, too large or malformed is -32001 naming what is wrong", async () => {
    agent(() => new Response(null, { status: 302, headers: { location: "https://elsewhere.example/card.json" } }));
    expect((await failureOf(readAgentCard(target())))?.message).toBe("Upstream text answered its Agent Card's URL with HTTP 302; retry after 1 s");
    agent(() => json({ ...CARD, description: "x".repeat(1024 * 1024) }));
    expect((await failureOf(readAgentCard(target())))?.message).toContain("has an Agent Card larger than 1024 KiB");
    agent(() => json({ ...CARD, skills: "none" }));
    const malformed = await failureOf(readAgentCard(target()));
    expect(malformed?.code).toBe(ErrorCode.SkillUnavailable);
    expect(malformed?.message).toMatch(/has an Agent Card that does not parse \(skills: /);
  });
});

describe("the gateway as an A2A client: a message for a skill", () => {
  it("is SendMessage with the skill's message, the credential and the version; the task comes back with its text joined", async () => {
    const seen = agent(() => json({ jsonrpc: "2.0", id: 1, result: { task: completed("short") } }));
    const answer = await sendToAgent(target(), "summarize", { message: "a long text" });
    expect(answer).toMatchObject({ task: { id: "t1", status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ parts: [{ text: "short" }] }] } });
    const [sent] = seen as [(typeof seen)[number]];
    expect(sent.method).toBe("SendMessage");
    expect(sent.params).toMatchObject({ message: { role: "ROLE_USER", parts: [{ text: "a long text" }] } });
    expect(sent.headers.get("authorization")).toBe("Bearer up");
    expect(sent.headers.get("a2a-version")).toBe("1.0");
    expect(sent.redirect).toBe("manual");
  });

  it("is streamed when progress is wanted: each status update relayed as progress, the task built from the events", async () => {
    const seen = agent(() =>
      events(
        { jsonrpc: "2.0", id: 1, result: { task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_SUBMITTED" } } } },
        {
          jsonrpc: "2.0",
          id: 1,
          result: {
            statusUpdate: {
              taskId: "t1",
              contextId: "c1",
              status: { state: "TASK_STATE_WORKING", message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "reading" }] } },
            },
          },
        },
        { jsonrpc: "2.0", id: 1, result: { artifactUpdate: { taskId: "t1", contextId: "c1", artifact: { artifactId: "a", parts: [{ text: "done" }] } } } },
        { jsonrpc: "2.0", id: 1, result: { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } } },
      ),
    );
    const progress: Progress[] = [];
    const answer = await sendToAgent(target(), "summarize", { message: "text" }, { onProgress: (p) => progress.push(p) });
    expect(seen[0]!.method).toBe("SendStreamingMessage");
    expect(seen[0]!.headers.get("accept")).toContain("text/event-stream");
    expect(progress.map((p) => p.progress)).toEqual([1, 2]);
    expect(progress[0]!.message).toContain("reading");
    expect(answer).toMatchObject({ task: { status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ parts: [{ text: "done" }] }] } });
  });

  it("answers each way an agent fails with -32001 the caller can act on", async () => {
    agent(() => new Response("no", { status: 401 }));
    expect((await failureOf(sendToAgent(target(), "summarize", { message: "x" })))?.message).toBe(
      "Upstream text: the agent refused the gateway's credential (HTTP 401)",
    );
    agent(() => json({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "no such skill" } }));
    expect((await failureOf(sendToAgent(target(), "summarize", { message: "x" })))?.toJSON()).toMatchObject({
      code: ErrorCode.SkillUnavailable,
      message: "Upstream text failed upstream: no such skill",
      data: { upstreamCode: -32602 },
    });
    agent(() => json({ jsonrpc: "2.0", id: 1, result: { neither: "task nor message" } }));
    expect((await failureOf(sendToAgent(target(), "summarize", { message: "x" })))?.message).toContain(
      "answered SendMessage with something that is not a task or a message",
    );
    agent(() => events({ jsonrpc: "2.0", id: 1, result: { unknown: true } }));
    expect((await failureOf(sendToAgent(target(), "summarize", { message: "x" }, { onProgress: () => {} })))?.message).toContain(
      "sent a stream event that is not a task, a message or an update",
    );
    agent(() => events());
    expect((await failureOf(sendToAgent(target(), "summarize", { message: "x" }, { onProgress: () => {} })))?.message).toContain(
      "ended its stream without a task or a message",
    );
    vi.stubGlobal("fetch", async () => {
      throw new TypeError("fetch failed");
    });
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect((await failureOf(sendToAgent(target(), "summarize", { message: "x" })))?.message).toBe("Upstream text is unreachable; retry after 1 s");
  });

  it("reads no more than an answer may hold, streamed or not", async () => {
    const big = completed("x".repeat(MAX_ANSWER_BYTES + 1));
    agent(() => json({ jsonrpc: "2.0", id: 1, result: { task: big } }));
    expect((await failureOf(sendToAgent(target(), "summarize", { message: "x" })))?.message).toContain(`sent more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
    agent(() => events({ jsonrpc: "2.0", id: 1, result: { task: big } }));
    expect((await failureOf(sendToAgent(target(), "summarize", { message: "x" }, { onProgress: () => {} })))?.message).toContain(
      `sent more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`,
    );
  });
});

describe("the gateway as an A2A client: a task asked about", () => {
  it("is GetTask or CancelTask by id, and the task comes back parsed", async () => {
    const seen = agent(() => json({ jsonrpc: "2.0", id: 1, result: { ...completed("ok"), status: { state: "TASK_STATE_CANCELED" } } }));
    expect((await askAgentTask(target(), "CancelTask", "t1")).status.state).toBe("TASK_STATE_CANCELED");
    expect(seen[0]).toMatchObject({ method: "CancelTask", params: { id: "t1" } });
    agent(() => json({ jsonrpc: "2.0", id: 1, result: { message: "not a task" } }));
    expect((await failureOf(askAgentTask(target(), "GetTask", "t1")))?.message).toContain("answered GetTask with something that is not a task");
  });
});
