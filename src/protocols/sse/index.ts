/**
 * Server-Sent Events responses: one JSON message per `data:` event, comment heartbeats so
 * proxies and hosts do not cut a quiet stream, and an abort signal that fires when the client
 * goes away (closing the stream is how an MCP client cancels a request).
 */

import { BodyTooLarge } from "../../lib/body/index.js";
import { UTF8_ENCODER } from "../../lib/utf8/index.js";

/** How often a quiet stream sends a comment line. MCP hosts and common proxies cut idle streams at 30–60 s. */
export const HEARTBEAT_MS = 15_000;

/** The headers of an SSE response: no caching, no proxy buffering (spec: streamable-http). */
export const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" } as const;

export interface SseWriter {
  /** Sends one JSON message as a `data:` event; false once the client has gone. */
  send(message: unknown): boolean;
  /** The same for a message already serialized (a batch's answers, bounded by `answerJson`). */
  sendJson(json: string): boolean;
  /**
   * Sends a message the client may miss (progress): dropped, and false, while the client is
   * more than `MAX_QUEUED_NOTICES` events behind — a skill that reports faster than a slow
   * client reads would otherwise fill the isolate with its reports.
   */
  notify(message: unknown): boolean;
  /** Aborted when the client closes the stream. */
  signal: AbortSignal;
}

/** Events waiting for a slow client past which `notify` drops what it is given. */
export const MAX_QUEUED_NOTICES = 64;

/**
 * A stream of SSE events written by `produce`; the stream ends when `produce` settles (a throw
 * ends it too: the caller decides what to send before that). Heartbeats every `heartbeatMs`.
 * `clientGone` (the request's signal, which workerd fires when the client of a streamed response
 * goes away) aborts `sse.signal` at once, rather than at the next write that fails.
 * @example return new Response(sseStream(async (sse) => { sse.send(progress); sse.send(answer); }, HEARTBEAT_MS, request.signal), { headers: SSE_HEADERS })
 */
export function sseStream(produce: (sse: SseWriter) => Promise<void>, heartbeatMs = HEARTBEAT_MS, clientGone?: AbortSignal): ReadableStream<Uint8Array> {
  const gone = new AbortController();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const leave = () => {
    clearInterval(heartbeat);
    gone.abort(new DOMException("The client closed the stream", "AbortError"));
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      clientGone?.addEventListener("abort", leave, { once: true });
      const write = (text: string) => {
        if (gone.signal.aborted) return false;
        try {
          controller.enqueue(UTF8_ENCODER.encode(text));
          return true;
        } catch {
          return false;
        }
      };
      heartbeat = setInterval(() => write(":\n\n"), heartbeatMs);
      const sendJson = (json: string) => write(`event: message\ndata: ${json}\n\n`);
      const send = (message: unknown) => sendJson(JSON.stringify(message));
      // desiredSize: the queue's room (1, the default high-water mark, less the events waiting).
      const notify = (message: unknown) => (controller.desiredSize ?? 0) > -MAX_QUEUED_NOTICES && send(message);
      const writer: SseWriter = { send, sendJson, notify, signal: gone.signal };
      // Not awaited: the response starts streaming now, events follow as they come.
      void produce(writer)
        .catch((error) => console.error("[sse] stream producer failed:", error instanceof Error ? error.message : error))
        .finally(() => {
          clearInterval(heartbeat);
          if (!gone.signal.aborted) {
            try {
              controller.close();
            } catch {
              // already closed
            }
          }
        });
    },
    cancel: leave,
  });
}

/**
 * True when a request's `Accept` header takes an event stream (or, with `"content-type"`, when a
 * response is one).
 * @example if (acceptsEventStream(request.headers)) return streamed()
 */
export function acceptsEventStream(headers: Headers, header: "accept" | "content-type" = "accept"): boolean {
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(headers.get(header) ?? "");
}

/**
 * The `data` of each event of an SSE body, in order (multi-line data joined; comments and
 * other fields skipped). An event longer than `maxEventChars` throws `BodyTooLarge` (a stream
 * may run long; no one event may fill the isolate).
 * @example for await (const data of sseData(response.body!)) console.log(JSON.parse(data))
 */
export async function* sseData(body: ReadableStream<Uint8Array>, maxEventChars = Infinity): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  // The event read so far, in pieces: joined once when it ends, so a long event costs its length
  // once (one growing string searched on every chunk made an 8 MiB event take seconds).
  let pieces: string[] = [];
  let size = 0;
  // A chunk that ends in CR may be half of a CRLF: it waits for the next chunk.
  let pendingCR = false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      let text: string = (pendingCR ? "\r" : "") + (done ? decoder.decode() : decoder.decode(value, { stream: true }));
      pendingCR = !done && text.endsWith("\r");
      if (pendingCR) text = text.slice(0, -1);
      text = text.replace(/\r\n?/g, "\n");
      let from = 0;
      // An event that ended on a LF in the last chunk and a LF starting this one.
      if (text.startsWith("\n") && pieces.at(-1)?.endsWith("\n")) {
        const data = dataOf(pieces.join("").slice(0, -1), maxEventChars);
        [pieces, size, from] = [[], 0, 1];
        if (data !== undefined) yield data;
      }
      for (let end = text.indexOf("\n\n", from); end >= 0; end = text.indexOf("\n\n", from)) {
        const data = dataOf(pieces.join("") + text.slice(from, end), maxEventChars);
        [pieces, size, from] = [[], 0, end + 2];
        if (data !== undefined) yield data;
      }
      if (from < text.length) {
        pieces.push(text.slice(from));
        size += text.length - from;
      }
      if (size > maxEventChars) throw new BodyTooLarge(maxEventChars);
      if (done) {
        const data = dataOf(pieces.join(""), maxEventChars);
        if (data !== undefined) yield data;
        return;
      }
    }
  } catch (error) {
    if (error instanceof BodyTooLarge) await reader.cancel().catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
}

/** The data of one event (undefined when it has none); an event past `maxChars` is refused. */
function dataOf(event: string, maxChars: number): string | undefined {
  if (event.length > maxChars) throw new BodyTooLarge(maxChars);
  const lines = event.split("\n").filter((line) => line.startsWith("data:"));
  return lines.length ? lines.map((line) => line.slice(line.startsWith("data: ") ? 6 : 5)).join("\n") : undefined;
}
