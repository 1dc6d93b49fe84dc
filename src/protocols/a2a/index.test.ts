import { describe, expect, it } from "vitest";
import {
  type AgentCard,
  type Task,
  agentCardUrlOf,
  appliedEvent,
  argumentsOf,
  conversationsOf,
  joinedText,
  jsonRpcInterfaceOf,
  messageOf,
  toolResultOf,
  versionRefusal,
} from "./index.js";

const card = (url: string, protocolVersion?: string): AgentCard => ({
  name: "a",
  description: "b",
  version: "1.0.0",
  supportedInterfaces: [{ url, protocolBinding: "JSONRPC", ...(protocolVersion ? { protocolVersion } : {}) }],
  skills: [],
});
const task = (state: Task["status"]["state"], artifacts: Task["artifacts"] = []): Task => ({ id: "t", contextId: "c", status: { state }, artifacts });

describe("an agent's card", () => {
  it("is read at the well-known path below a base URL, or at the URL of a .json document", () => {
    expect(agentCardUrlOf("https://agent.example")).toBe("https://agent.example/.well-known/agent-card.json");
    expect(agentCardUrlOf("https://agent.example/team/")).toBe("https://agent.example/team/.well-known/agent-card.json");
    expect(agentCardUrlOf("https://agent.example/card.json")).toBe("https://agent.example/card.json");
  });

  it("names the JSON-RPC interface of v1 only at its own origin", () => {
    const at = "https://agent.example/.well-known/agent-card.json";
    expect(jsonRpcInterfaceOf(card("https://agent.example/a2a", "1.0"), at)).toEqual({ url: "https://agent.example/a2a" });
    expect(jsonRpcInterfaceOf(card("https://evil.example/a2a", "1.0"), at)).toMatchObject({ refused: expect.stringMatching(/not at its card's origin/) });
    expect(jsonRpcInterfaceOf(card("https://agent.example/a2a", "0.3"), at)).toMatchObject({ refused: expect.stringMatching(/no JSON-RPC interface/) });
  });
});

describe("an agent's answer", () => {
  it("is a tool result: the artifacts' text, the state when not completed, an error when it failed", () => {
    const done = toolResultOf({ task: task("TASK_STATE_COMPLETED", [{ artifactId: "r", parts: [{ text: "hi" }, { data: { n: 1 } }] }]) });
    expect(done.content).toEqual([
      { type: "text", text: "hi" },
      { type: "text", text: '{"n":1}' },
    ]);
    expect(done.isError).toBeUndefined();
    const asking = toolResultOf({
      task: {
        ...task("TASK_STATE_INPUT_REQUIRED"),
        status: { state: "TASK_STATE_INPUT_REQUIRED", message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "Which language?" }] } },
      },
    });
    expect(asking.content).toEqual([{ type: "text", text: "[TASK_STATE_INPUT_REQUIRED] Which language?" }]);
    expect(toolResultOf({ task: task("TASK_STATE_FAILED") }).isError).toBe(true);
  });

  it("is built from a stream's events: status updates replace the status, artifact updates add or append", () => {
    let answer = appliedEvent(undefined, { task: task("TASK_STATE_SUBMITTED") });
    answer = appliedEvent(answer, { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } });
    answer = appliedEvent(answer, { artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "r", parts: [{ text: "a" }] } } });
    answer = appliedEvent(answer, { artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "r", parts: [{ text: "b" }] }, append: true } });
    answer = appliedEvent(answer, { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } });
    expect(answer).toEqual({ task: task("TASK_STATE_COMPLETED", [{ artifactId: "r", parts: [{ text: "a" }, { text: "b" }] }]) });
  });

  it("speaks 1.x: a request of another version, or of none (0.3, as the specification says), is refused", () => {
    expect(versionRefusal("1.0")).toBeUndefined();
    expect(versionRefusal("1.1")).toBeUndefined();
    expect(versionRefusal(undefined)).toMatch(/'0.3' is not supported/);
    expect(versionRefusal("0.3")).toMatch(/not supported/);
  });

  it("takes a caller's message as the tool's arguments, whole: its text (data as JSON, a file by its URL), its parts, id and metadata, the conversation it continues", () => {
    const parts = [{ text: "a" }, { data: { n: 1 } }, { url: "https://files.example/x.pdf", mediaType: "application/pdf" }, { text: "b" }];
    expect(
      argumentsOf({ messageId: "m", role: "ROLE_USER", parts, contextId: "c", taskId: "t", metadata: { skillId: "s", trace: "x" }, referenceTaskIds: ["r"] }),
    ).toEqual({
      message: 'a\n{"n":1}\nhttps://files.example/x.pdf\nb',
      parts,
      messageId: "m",
      metadata: { trace: "x" },
      contextId: "c",
      taskId: "t",
      referenceTaskIds: ["r"],
    });
    expect(argumentsOf({ messageId: "m", role: "ROLE_USER", parts: [{ data: { only: "data" } }] })).toEqual({
      message: '{"only":"data"}',
      parts: [{ data: { only: "data" } }],
      messageId: "m",
    });
    expect(argumentsOf({ messageId: "m", role: "ROLE_USER", parts: [] })).toBeUndefined();
  });

  it("is sent to the agent as the caller sent it, its skillId the gateway's", () => {
    const parts = [{ data: { n: 1 } }];
    expect(messageOf("chat", { parts, messageId: "m1", metadata: { skillId: "admin", trace: "x" }, taskId: "t" }, "m_gw")).toEqual({
      messageId: "m1",
      role: "ROLE_USER",
      parts,
      taskId: "t",
      metadata: { trace: "x", skillId: "chat" },
    });
    expect(messageOf("chat", { message: "hi" }, "m_gw")).toEqual({
      messageId: "m_gw",
      role: "ROLE_USER",
      parts: [{ text: "hi" }],
      metadata: { skillId: "chat" },
    });
  });

  it("names the tasks and the context a call continues or refers to", () => {
    expect(conversationsOf({ message: "x", taskId: "t", referenceTaskIds: ["r1", "r2"], contextId: "c" })).toEqual({
      taskIds: ["t", "r1", "r2"],
      contextId: "c",
    });
    expect(conversationsOf({ message: "x" })).toEqual({ taskIds: [] });
  });

  it("reads adjacent plain text parts as one text, as the agent streamed them", () => {
    const answer = joinedText({
      message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "ghp_A1" }, { text: "b2" }, { data: 1 }, { text: "x", metadata: { a: 1 } }] },
    });
    expect(answer).toEqual({ message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "ghp_A1b2" }, { data: 1 }, { text: "x", metadata: { a: 1 } }] } });
  });
});
