/**
 * An A2A agent made with the official SDK (@a2a-js/sdk, protocol v1.0, JSON-RPC over express): the
 * federating guide's, the tests' (test/a2a.test.ts) and the bench's (`--a2a`). Two skills; each message runs a task that reports
 * `working` with a status message, adds an artifact `<label>: <text>` and completes — or fails
 * when the text is "fail". It counts the requests it gets and can be stopped and started again.
 *
 * Run on its own (the federating guide's agent): `npx tsx scripts/a2a-agent.ts 3904`.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import { pathToFileURL } from "node:url";
import express from "express";
import { AGENT_CARD_PATH, type AgentCard, Role, TaskState } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { UserBuilder, agentCardHandler, jsonRpcHandler } from "@a2a-js/sdk/server/express";

export interface RunningAgent {
  url: string;
  /** Requests the agent's JSON-RPC endpoint got, and the headers of the last one. */
  seen: { requests: number; headers?: Record<string, string | string[] | undefined> };
  stop(): Promise<void>;
}

/** The agent's card: served at `<url>/.well-known/agent-card.json`, its JSON-RPC endpoint at `<url>/a2a`. */
function cardOf(url: string, version: string): AgentCard {
  return {
    name: "Text agent",
    description: "Summarizes and translates text.",
    version,
    supportedInterfaces: [{ url: `${url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
    provider: undefined,
    documentationUrl: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "summarize",
        name: "Summarize",
        description: "Summarizes a text.",
        tags: ["text"],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
      {
        id: "translate",
        name: "Translate",
        description: "Translates a text.",
        tags: ["text"],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
    iconUrl: undefined,
  } as AgentCard;
}

/** The credential the agent answers to "leak" (GitHub-shaped, made up). */
export const LEAKED_TOKEN = `ghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;

const text = (value: string) => ({ content: { $case: "text" as const, value }, metadata: undefined, filename: "", mediaType: "text/plain" });

/** The agent's work: `<label>: <the text it got>`, in steps. */
function executorOf(label: string): AgentExecutor {
  return {
    async execute(request, bus) {
      const { taskId, contextId } = request;
      const got = request.userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
      const status = (state: TaskState, said?: string) => ({
        state,
        message:
          said ?
            {
              messageId: randomUUID(),
              contextId,
              taskId,
              role: Role.ROLE_AGENT,
              parts: [text(said)],
              metadata: undefined,
              extensions: [],
              referenceTaskIds: [],
            }
          : undefined,
        timestamp: undefined,
      });
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: status(TaskState.TASK_STATE_SUBMITTED),
          artifacts: [],
          history: [request.userMessage],
          metadata: undefined,
        }),
      );
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING, `${label} is working`), metadata: undefined }));
      if (got === "fail") {
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_FAILED, `${label} failed`), metadata: undefined }));
        bus.finished();
        return;
      }
      const skill = String(request.userMessage.metadata?.skillId ?? "");
      // "leak": the agent answers a credential of its own (what the gateway's secrets guardrail is for).
      const answer = got === "leak" ? `the deploy token is ${LEAKED_TOKEN}` : got;
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: "result",
            name: "result",
            description: "",
            parts: [text(`${label}${skill ? ` (${skill})` : ""}: ${answer}`)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
      bus.finished();
    },
    async cancelTask() {},
  };
}

/**
 * Starts the agent on `port` (0: any free one), answering as `label` with its card's `version`.
 * @example const agent = await startA2aAgent("v1", "1.0.0")
 */
export async function startA2aAgent(label: string, version: string, port = 0): Promise<RunningAgent> {
  const app = express();
  const seen: RunningAgent["seen"] = { requests: 0 };
  let server: Server;
  await new Promise<void>((resolve) => (server = app.listen(port, "127.0.0.1", () => resolve())));
  const address = server!.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : port}`;
  const card = cardOf(url, version);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executorOf(label));
  app.use((req, _res, next) => {
    if (req.method === "POST") {
      seen.requests++;
      seen.headers = req.headers;
    }
    next();
  });
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: { getAgentCard: async () => card } }));
  app.use("/a2a", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    seen,
    stop: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

// Run as a program: an agent answering as "agent" on the port given (or $PORT), until killed.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 3904);
  const agent = await startA2aAgent("agent", "1.0.0", port);
  console.log(`A2A agent at ${agent.url} (card: ${agent.url}/${AGENT_CARD_PATH})`);
}
