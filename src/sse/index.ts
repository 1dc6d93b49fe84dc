/**
 * Server-Sent Events responses: one JSON message per `data:` event, comment heartbeats so
 * proxies and hosts do not cut a quiet stream, and an abort signal that fires when the client
 * goes away (closing the stream is how an MCP client cancels a request).
 */

/** How often a quiet stream sends a comment line. MCP hosts and common proxies cut idle streams at 30–60 s. */
export const HEARTBEAT_MS = 15_000;

/** The headers of an SSE response: no caching, no proxy buffering (spec: streamable-http). */
export const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" } as const;

export interface SseWriter {
  /** Sends one JSON message as a `data:` event; false once the client has gone. */
  send(message: unknown): boolean;
  /** Aborted when the client closes the stream. */
  signal: AbortSignal;
}

const encoder = new TextEncoder();

/**
 * A stream of SSE events written by `produce`; the stream ends when `produce` settles (a throw
 * ends it too: the caller decides what to send before that). Heartbeats every `heartbeatMs`.
 * @example return new Response(sseStream(async (sse) => { sse.send(progress); sse.send(answer); }), { headers: SSE_HEADERS })
 */
export function sseStream(produce: (sse: SseWriter) => Promise<void>, heartbeatMs = HEARTBEAT_MS): ReadableStream<Uint8Array> {
  const gone = new AbortController();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (gone.signal.aborted) return false;
        try {
          controller.enqueue(encoder.encode(text));
          return true;
        } catch {
          return false;
        }
      };
      heartbeat = setInterval(() => write(":\n\n"), heartbeatMs);
      const writer: SseWriter = { send: (message) => write(`event: message\ndata: ${JSON.stringify(message)}\n\n`), signal: gone.signal };
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
    cancel() {
      clearInterval(heartbeat);
      gone.abort(new DOMException("The client closed the stream", "AbortError"));
    },
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
 * other fields skipped).
 * @example for await (const data of sseData(response.body!)) console.log(JSON.parse(data))
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      buffer = buffer.replace(/\r\n?/g, "\n");
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const data = dataOf(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (data !== undefined) yield data;
      }
      if (done) {
        const data = dataOf(buffer);
        if (data !== undefined) yield data;
        return;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function dataOf(event: string): string | undefined {
  const lines = event.split("\n").filter((line) => line.startsWith("data:"));
  return lines.length ? lines.map((line) => line.slice(line.startsWith("data: ") ? 6 : 5)).join("\n") : undefined;
}
