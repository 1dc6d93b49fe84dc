/**
 * Reading a body someone else wrote (a skill's answer, a manifest) without trusting its size: a
 * Worker has 128 MB for everything, so a body is cut off past a bound instead of read whole.
 */

/**
 * The largest answer the gateway reads from a skill (a JSON body, one event of a stream, or the
 * text of an RPC answer): a skill that sends more is cut off with -32603, instead of the gateway
 * isolate (128 MB for every call it serves) reading, parsing and re-serialising it.
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** What a caller is told of a skill's answer past `MAX_ANSWER_BYTES` (the SDK and the gateway say the same). */
export function answerTooLargeMessage(skill: string): string {
  return `${skill} answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, the largest answer the gateway reads`;
}

/** A body past the bound its reader was given. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`);
    this.name = "BodyTooLarge";
  }
}

/** Decoding without `stream` keeps no state between calls: one decoder serves every call. */
const UTF8 = new TextDecoder();

/**
 * The body as text, refusing (and cancelling) it past `maxBytes`. A declared Content-Length past
 * the bound is refused before reading; otherwise the bytes are counted as they stream, so a body
 * without one (chunked) is cut off too. A body with a Content-Length ends there, as HTTP says:
 * what a stream sends past it is not read (its rest is cancelled), and no read is spent to learn
 * that it ended — the skill SDK declares the length of every answer for that. (Not for a compressed
 * body: fetch decodes it, and its Content-Length is the encoded size.)
 * @example const text = await boundedText(response, 8 * 1024 * 1024)
 */
export async function boundedText(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const length = declaredLength(response.headers);
  if (length !== undefined && length > maxBytes) {
    await response.body.cancel();
    throw new BodyTooLarge(maxBytes);
  }

  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (length === undefined || size < length) {
    const chunk = await reader.read();
    if (chunk.done) break;
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new BodyTooLarge(maxBytes);
    }
    chunks.push(chunk.value);
  }
  if (length !== undefined && size >= length) void reader.cancel().catch(() => {});
  const bytes = chunks.length === 1 ? chunks[0]! : joined(chunks, size);
  return UTF8.decode(length !== undefined && size > length ? bytes.subarray(0, length) : bytes);
}

/**
 * The length of the body as it is read, when the headers say it: a Content-Length, unless the
 * body is compressed (fetch decodes it; its Content-Length counts the bytes on the wire).
 */
function declaredLength(headers: Headers): number | undefined {
  const declared = headers.get("content-length");
  if (declared === null || !/^\d+$/.test(declared)) return undefined;
  const encoding = headers.get("content-encoding")?.trim().toLowerCase();
  return encoding && encoding !== "identity" ? undefined : Number(declared);
}

/** The chunks as one array of `size` bytes. */
function joined(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
