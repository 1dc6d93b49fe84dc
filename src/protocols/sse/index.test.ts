import { describe, expect, it } from "vitest";
import { BodyTooLarge } from "../../lib/body/index.js";
import { MAX_QUEUED_NOTICES, sseData, sseStream } from "./index.js";

/** A body that delivers `text` (UTF-8) cut at the given byte offsets. */
function bodyOf(text: string, cuts: number[] = []): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const bounds = [0, ...cuts, bytes.length];
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next + 1 >= bounds.length) return controller.close();
      controller.enqueue(bytes.slice(bounds[next], bounds[next + 1]));
      next++;
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>, maxEventChars?: number): Promise<string[]> {
  const events: string[] = [];
  for await (const data of sseData(body, maxEventChars)) events.push(data);
  return events;
}

// Every line ending the spec allows (LF, CRLF, CR), a comment, a multi-line event, another field,
// non-ASCII text, and a last event without its blank line.
const STREAM = ': heartbeat\n\ndata: {"a":1}\r\n\r\nevent: message\ndata: line one\ndata: line two\n\ndata: é→😀\r\rdata: last';
const EVENTS = ['{"a":1}', "line one\nline two", "é→😀", "last"];

describe("sseData", () => {
  it("reads every event, whatever the line endings", async () => {
    expect(await collect(bodyOf(STREAM))).toEqual(EVENTS);
  });

  it("reads the same events wherever the chunks are cut (inside a CRLF, a blank line, a character)", async () => {
    const length = new TextEncoder().encode(STREAM).length;
    for (let cut = 1; cut < length; cut++) expect(await collect(bodyOf(STREAM, [cut]))).toEqual(EVENTS);
    expect(
      await collect(
        bodyOf(
          STREAM,
          Array.from({ length: length - 1 }, (_, i) => i + 1),
        ),
      ),
    ).toEqual(EVENTS); // a byte at a time
  });

  it("throws BodyTooLarge for one event past the bound, however many events came before", async () => {
    const small = "data: ok\n\n".repeat(100);
    expect(await collect(bodyOf(small, [5, 50, 500]), 20)).toHaveLength(100);
    const long = `${small}data: ${"x".repeat(100)}\n\n`;
    await expect(collect(bodyOf(long, [1_000, 1_050]), 50)).rejects.toBeInstanceOf(BodyTooLarge);
  });
});

describe("sseStream", () => {
  it("drops notices while the client lags more than MAX_QUEUED_NOTICES events behind, never the messages sent", async () => {
    let produced!: Promise<void>;
    const sentOrDropped: boolean[] = [];
    const stream = sseStream(
      (sse) =>
        (produced = (async () => {
          for (let progress = 1; progress <= 10_000; progress++) sentOrDropped.push(sse.notify({ progress }));
          sse.send({ result: "done" });
        })()),
    );
    await produced; // nobody has read yet: the client is as slow as can be
    const events = (await collect(stream)).map((data) => JSON.parse(data));
    expect(sentOrDropped.filter(Boolean).length).toBeLessThanOrEqual(MAX_QUEUED_NOTICES + 1);
    expect(events.at(-1)).toEqual({ result: "done" });
    expect(events.slice(0, -1)).toEqual(sentOrDropped.flatMap((sent, i) => (sent ? [{ progress: i + 1 }] : [])));
  });

  it("drops nothing for a client that keeps up", async () => {
    const stream = sseStream(async (sse) => {
      for (let progress = 1; progress <= 500; progress++) {
        sse.notify({ progress });
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      sse.send({ result: "done" });
    });
    const events = await collect(stream);
    expect(events).toHaveLength(501);
  });
});
