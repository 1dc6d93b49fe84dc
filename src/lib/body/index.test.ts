import { describe, expect, it } from "vitest";
import { BodyTooLarge, boundedText } from "./index.js";

/** A body of `chunks` chunks of `size` bytes ("x"), forever when chunks is Infinity; counts what was pulled and whether it was cancelled. */
function stream(chunks: number, size: number) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled++ >= chunks) return controller.close();
      controller.enqueue(new TextEncoder().encode("x".repeat(size)));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { body, seen };
}

describe("boundedText", () => {
  it("reads a body without a Content-Length whole, across chunks and multi-byte characters", async () => {
    const parts = ['{"a":"é', '€"}'].map((s) => new TextEncoder().encode(s));
    const split = [parts[0]!.subarray(0, 7), parts[0]!.subarray(7), parts[1]!]; // "é" cut between two chunks
    const body = new ReadableStream<Uint8Array>({ start: (c) => (split.forEach((p) => c.enqueue(p)), c.close()) });
    expect(await boundedText(new Response(body), 1024)).toBe('{"a":"é€"}');
  });

  it("refuses a body without a Content-Length once it passes the bound, and cancels it", async () => {
    const { body, seen } = stream(Infinity, 1000);
    await expect(boundedText(new Response(body), 10_000)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(15);
  });

  it("takes exactly the bound, not a byte more", async () => {
    expect(await boundedText(new Response(stream(10, 1000).body), 10_000)).toHaveLength(10_000);
    await expect(boundedText(new Response("x".repeat(10_001)), 10_000)).rejects.toBeInstanceOf(BodyTooLarge);
  });

  it("refuses a declared Content-Length past the bound before reading anything", async () => {
    const { body, seen } = stream(Infinity, 1000);
    const response = new Response(body, { headers: { "content-length": "10001" } });
    await expect(boundedText(response, 10_000)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThanOrEqual(1); // a stream may pull once when it is made; nothing is read
  });

  it("a body ends at its Content-Length: what a stream sends past it is not read, and the rest is cancelled", async () => {
    const { body, seen } = stream(Infinity, 64);
    const text = await boundedText(new Response(body, { headers: { "content-length": "100" } }), 10_000);
    expect(text).toBe("x".repeat(100));
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(5);
  });

  it("a compressed body is read whole: its Content-Length is the size on the wire, not of the decoded text", async () => {
    const headers = { "content-length": "20", "content-encoding": "gzip" };
    expect(await boundedText(new Response(stream(2, 64).body, { headers }), 10_000)).toBe("x".repeat(128));
  });

  it("a body shorter than its Content-Length is what it is", async () => {
    expect(await boundedText(new Response(stream(1, 10).body, { headers: { "content-length": "100" } }), 10_000)).toBe("x".repeat(10));
  });

  it("an empty body is an empty text", async () => {
    expect(await boundedText(new Response(null), 10)).toBe("");
    expect(await boundedText(new Response(""), 10)).toBe("");
  });
});
