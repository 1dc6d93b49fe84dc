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
 * True when the request's `Accept` header takes an event stream.
 * @example if (acceptsEventStream(request.headers)) return streamed()
 */
export function acceptsEventStream(headers: Headers): boolean {
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(headers.get("accept") ?? "");
}
