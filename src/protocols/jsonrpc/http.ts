/**
 * JSON-RPC over HTTP, shared by skill Workers and the gateway: the guards every `POST` body
 * passes (JSON content type, 1 MiB limit) and the mapping of a processed body to a Response.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { utf8Length } from "../../lib/utf8/index.js";
import { ErrorCode, type JsonRpcResponse, failure, type ProcessedBody } from "./index.js";

/** Largest request body accepted, in bytes: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

/**
 * Middleware that refuses what is not a JSON body: 415 for another content type or a compressed
 * body, 413 past
 * `maxBytes` (checked while streaming, so a lying Content-Length does not help). Both answer
 * with a JSON-RPC error object, so a client only ever has to read one shape; `drainUnreadBody`
 * reads the rest of a refused body.
 * @example app.post("/rpc", jsonBodyGuard(), handler)
 */
export function jsonBodyGuard(maxBytes = MAX_BODY_BYTES): MiddlewareHandler {
  const size = bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      c.json(
        failure(null, ErrorCode.InvalidRequest, `Request body is larger than ${maxBytes} bytes`, {
          maxBytes,
        }),
        413,
      ),
  });
  // One middleware that hands over to Hono's bodyLimit, not `every(...)` of two: that composes
  // a new chain of closures on every request.
  return async (c, next) => {
    if (!JSON_CONTENT_TYPE.test(c.req.header("content-type") ?? "")) {
      return c.json(failure(null, ErrorCode.InvalidRequest, "Content-Type must be application/json"), 415);
    }
    // A compressed body is not read as JSON ("Parse error" would send the client looking in the
    // wrong place); RFC 9110 §15.5.16: 415, naming the codings accepted.
    const encoding = c.req.header("content-encoding")?.trim().toLowerCase();
    if (encoding && encoding !== "identity") {
      return c.json(failure(null, ErrorCode.InvalidRequest, `Content-Encoding ${encoding} is not accepted: send the body uncompressed`), 415, {
        "accept-encoding": "identity",
      });
    }
    return size(c, next);
  };
}

/** Past this, a refused body is cut off rather than read to the end. */
const MAX_DRAIN_BYTES = 16 * 1024 * 1024;

/**
 * Middleware (outermost) that reads and discards what is left of a request body nobody read — a
 * request refused before its body mattered (401, 403, 404, 413, 415) — before the answer goes
 * out: otherwise workerd answers and resets the connection while the client is still sending,
 * and a keep-alive client's next request on it fails. Bounded: a huge upload is cut off.
 * @example app.use(drainUnreadBody())
 */
export function drainUnreadBody(maxBytes = MAX_DRAIN_BYTES): MiddlewareHandler {
  return async (c, next) => {
    const request = c.req.raw; // a middleware may replace c.req.raw with a copy of what it read
    await next();
    if (!request.body || request.bodyUsed || request.body.locked) return;
    const reader = request.body.getReader();
    let seen = 0;
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        seen += chunk.value.byteLength;
        if (seen > maxBytes) return void (await reader.cancel());
      }
    } catch {
      // The client went away: nobody is left to answer.
    }
  };
}

/**
 * The request body as text. A body that cannot be read (the client went away mid-upload) is
 * thrown as a ready 400 answer (`HTTPException`): nobody is left to read it and nothing went
 * wrong on our side, so the route's `onError` sends it without logging anything.
 * @example const processed = await processJsonRpc(await bodyText(c), handle)
 */
export async function bodyText(c: Context): Promise<string> {
  try {
    return await c.req.text();
  } catch {
    const body = JSON.stringify(failure(null, ErrorCode.InvalidRequest, "The request body could not be read"));
    throw new HTTPException(400, { res: new Response(body, { status: 400, headers: { "content-type": "application/json" } }) });
  }
}

/**
 * The HTTP response for a processed body: 200 with the JSON, or 204 when nothing is returned
 * (a notification, or a batch of notifications only).
 * @example return toHttpResponse(await processJsonRpc(body, handle))
 */
export function toHttpResponse(processed: ProcessedBody, headers: Record<string, string> = {}): Response {
  if (processed === undefined) return new Response(null, { status: 204, headers });
  // Its length declared: a gateway reading it over a service binding knows where it ends (src/lib/body;
  // workerd sends the length of a string body to HTTP clients, but not over a binding).
  const text = answerJson(processed);
  return new Response(text, { status: 200, headers: { ...headers, "content-type": "application/json", "content-length": String(utf8Length(text)) } });
}

/**
 * Most characters of JSON a batch's answers take together. One answer is bounded where it is
 * made (a skill's at 8 MiB, a listing at 1,000 skills); a batch of 100 of them is not.
 */
export const MAX_BATCH_ANSWER_CHARS = 16 * 1024 * 1024;

/**
 * The JSON of an answer. A batch's answers are serialized one at a time, at most
 * `maxBatchChars` in all: an answer that would pass that is replaced by an error asking for its
 * request alone — otherwise 100 large answers in one string would fill the isolate's 128 MB.
 * @example new Response(answerJson(processed))
 */
export function answerJson(processed: JsonRpcResponse | JsonRpcResponse[], maxBatchChars = MAX_BATCH_ANSWER_CHARS): string {
  if (!Array.isArray(processed)) return JSON.stringify(processed);
  let size = 2;
  const parts = processed.map((answer) => {
    let text = JSON.stringify(answer);
    if (size + text.length > maxBatchChars) {
      const message = `Invalid Request: this batch's answers pass ${maxBatchChars} characters of JSON, so this one was left out: send its request alone (a skill call may have run; with an Idempotency-Key, sending it again replays its answer)`;
      text = JSON.stringify(failure(answer.id, ErrorCode.InvalidRequest, message, { maxBatchAnswerChars: maxBatchChars }));
    }
    size += text.length + 1;
    return text;
  });
  return `[${parts.join(",")}]`;
}
