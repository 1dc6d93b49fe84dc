/**
 * The gateway as an A2A client (v1.0, JSON-RPC binding) of an agent registered as an upstream:
 * its card read (at most `MAX_AGENT_CARD_BYTES`, parsed), and a message sent for a call of one of
 * its skills — `SendMessage`, or `SendStreamingMessage` when the caller wants progress (each status
 * update is relayed as progress, the task built from the stream's events). Every answer is read
 * within the call's signal and `MAX_ANSWER_BYTES`, no redirect is followed, and what comes back is
 * parsed before anyone sees it.
 */
import { BodyTooLarge, MAX_ANSWER_BYTES, boundedText } from "../../lib/body/index.js";
import {
  A2A_VERSION,
  type AgentCard,
  type AgentToolArguments,
  AgentCardSchema,
  MAX_AGENT_CARD_BYTES,
  type SendMessageResult,
  SendMessageResultSchema,
  type StreamResponse,
  StreamResponseSchema,
  type Task,
  TaskSchema,
  appliedEvent,
  joinedText,
  messageOf,
  statusTextOf,
} from "../../protocols/a2a/index.js";
import { safeJson } from "../../lib/json/index.js";
import { ErrorCode, RpcError, errorText, resultOfAnswer } from "../../protocols/jsonrpc/index.js";
import type { Progress } from "../../protocols/progress/index.js";
import { acceptsEventStream, sseData } from "../../protocols/sse/index.js";
import { byteLimit, upstreamUnavailable } from "./peer.js";

/** One agent as a call reaches it. */
export interface AgentTarget {
  /** Its JSON-RPC endpoint. */
  url: string;
  /** What the call is for, in messages: the skill, or the upstream while it registers. */
  label: string;
  headers: Record<string, string>;
  signal: AbortSignal;
}

/**
 * An agent's card, read and parsed; throws -32001 naming what is wrong.
 * @example const card = await readAgentCard({ url: "https://agent.example/.well-known/agent-card.json", label: "Upstream text", headers: {}, signal })
 */
export async function readAgentCard(target: AgentTarget): Promise<AgentCard> {
  const response = await fetch(target.url, {
    headers: { ...target.headers, accept: "application/json", "a2a-version": A2A_VERSION },
    redirect: "manual",
    signal: target.signal,
  }).catch((error: unknown) => {
    if (target.signal.aborted) throw error;
    throw upstreamUnavailable(target.label, "is unreachable");
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw upstreamUnavailable(target.label, `answered its Agent Card's URL with HTTP ${response.status}`);
  }
  let text: string;
  try {
    text = await boundedText(response, MAX_AGENT_CARD_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw upstreamUnavailable(target.label, `has an Agent Card larger than ${MAX_AGENT_CARD_BYTES / 1024} KiB`);
    throw error;
  }
  const card = AgentCardSchema.safeParse(safeJson(text));
  if (!card.success)
    throw upstreamUnavailable(
      target.label,
      `has an Agent Card that does not parse (${card.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
        .join("; ")})`,
    );
  return card.data;
}

/** Who wants a call streamed: progress (each status update's text), and an A2A caller's raw events. */
export interface AgentStreaming {
  onProgress?: ((progress: Progress) => void) | undefined;
  onAgentEvent?: ((event: StreamResponse) => void) | undefined;
}

/**
 * Sends a message for a call of `skill` and answers the agent's task or message: blocking until
 * the task ends or asks for input, or streamed (when progress or the events are wanted) with
 * each status update relayed as progress and each event as it came.
 * @example const answer = await sendToAgent(target, "summarize", { message: "…" })
 */
export async function sendToAgent(target: AgentTarget, skill: string, args: AgentToolArguments, streaming: AgentStreaming = {}): Promise<SendMessageResult> {
  const streams = !!(streaming.onProgress || streaming.onAgentEvent);
  const method = streams ? "SendStreamingMessage" : "SendMessage";
  const response = await posted(target, method, { message: messageOf(skill, args, crypto.randomUUID()) }, streams);
  // The text as the agent wrote it: its chunks and adjacent text parts read as one.
  return answered(target, async () => {
    if (acceptsEventStream(response.headers, "content-type") && response.body)
      return joinedText(await streamed(target, response.body as ReadableStream<Uint8Array>, streaming));
    const answer = SendMessageResultSchema.safeParse(resultOf(target, response.status, safeJson(await boundedText(response, MAX_ANSWER_BYTES))));
    if (!answer.success) throw upstreamUnavailable(target.label, `answered ${method} with something that is not a task or a message`);
    return joinedText(answer.data);
  });
}

/**
 * Asks an agent about one of its tasks (`GetTask`) or to cancel it (`CancelTask`): the task as it is.
 * @example const task = await askAgentTask(target, "GetTask", "3f0c…")
 */
export async function askAgentTask(target: AgentTarget, method: "GetTask" | "CancelTask", id: string): Promise<Task> {
  const response = await posted(target, method, { id }, false);
  return answered(target, async () => {
    const task = TaskSchema.safeParse(resultOf(target, response.status, safeJson(await boundedText(response, MAX_ANSWER_BYTES))));
    if (!task.success) throw upstreamUnavailable(target.label, `answered ${method} with something that is not a task`);
    return (joinedText({ task: task.data }) as { task: Task }).task;
  });
}

/** POSTs one JSON-RPC request of A2A `A2A_VERSION`, no redirect followed; an agent unreachable, or refusing the gateway's credential, is -32001. */
async function posted(target: AgentTarget, method: string, params: Record<string, unknown>, streams: boolean): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: "POST",
      headers: {
        ...target.headers,
        "content-type": "application/json",
        accept: streams ? "text/event-stream, application/json" : "application/json",
        "a2a-version": A2A_VERSION,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      redirect: "manual",
      signal: target.signal,
    });
  } catch (error) {
    if (target.signal.aborted) throw error;
    console.error(`[upstream] ${target.label} unreachable:`, errorText(error));
    throw upstreamUnavailable(target.label, "is unreachable");
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    throw new RpcError(ErrorCode.SkillUnavailable, `${target.label}: the agent refused the gateway's credential (HTTP ${response.status})`, {
      retryAfterMs: 1_000,
    });
  }
  return response;
}

/** What `read` makes of an answer; a body past `MAX_ANSWER_BYTES` or broken off is -32001. */
async function answered<T>(target: AgentTarget, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof RpcError || target.signal.aborted) throw error;
    if (error instanceof BodyTooLarge) throw upstreamUnavailable(target.label, `sent more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
    console.error(`[upstream] ${target.label} broke off its answer:`, errorText(error));
    throw upstreamUnavailable(target.label, "broke off its answer");
  }
}

/** The answer a stream's events make (within `MAX_ANSWER_BYTES` in all), each status update relayed as progress. */
async function streamed(target: AgentTarget, body: ReadableStream<Uint8Array>, { onProgress, onAgentEvent }: AgentStreaming): Promise<SendMessageResult> {
  let answer: SendMessageResult | undefined;
  let step = 0;
  for await (const data of sseData(body.pipeThrough(byteLimit(MAX_ANSWER_BYTES).stream), MAX_ANSWER_BYTES)) {
    const event = StreamResponseSchema.safeParse(resultOf(target, 200, safeJson(data)));
    if (!event.success) throw upstreamUnavailable(target.label, "sent a stream event that is not a task, a message or an update");
    answer = appliedEvent(answer, event.data);
    onAgentEvent?.(event.data);
    if ("statusUpdate" in event.data) onProgress?.({ progress: ++step, message: statusTextOf(event.data.statusUpdate.status) });
  }
  if (!answer) throw upstreamUnavailable(target.label, "ended its stream without a task or a message");
  return answer;
}

/** The result of a JSON-RPC response, or -32001 with the agent's own error (its code in `upstreamCode`). */
function resultOf(target: AgentTarget, status: number, message: unknown): unknown {
  return resultOfAnswer(status, message, {
    notAnAnswer: (what) => upstreamUnavailable(target.label, what),
    failed: (error) =>
      new RpcError(ErrorCode.SkillUnavailable, `${target.label} failed upstream: ${String(error.message).slice(0, 500)}`, {
        retryAfterMs: 1_000,
        upstreamCode: error.code,
      }),
  });
}
