/**
 * Reading a body someone else wrote (a skill's answer, a manifest) without trusting its size: a
 * Worker has 128 MB for everything, so a body is cut off past a bound instead of read whole.
 */

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
 * without one (chunked), or with one that lies, is cut off too.
 * @example const text = await boundedText(response, 8 * 1024 * 1024)
 */
export async function boundedText(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const declared = response.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) {
    await response.body.cancel();
    throw new BodyTooLarge(maxBytes);
  }

  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new BodyTooLarge(maxBytes);
    }
    chunks.push(chunk.value);
  }
  if (chunks.length === 1) return UTF8.decode(chunks[0]);
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return UTF8.decode(bytes);
}
