/**
 * What every upstream kind's client shares (MCP, OpenAPI, A2A): the -32001 of a transport failure
 * and when to retry it, a byte limit on a stream read, and a `query` credential added to a URL.
 */
import { BodyTooLarge } from "../../lib/body/index.js";
import { ErrorCode, RpcError } from "../../protocols/jsonrpc/index.js";

/** How long a caller is told to wait after an upstream's transport failure. */
export const RETRY_AFTER_MS = 1_000;

/**
 * A URL with a `query` credential's parameters added (the registered URL holds no secret).
 * @example urlWithQuery("https://mcp.example/mcp", { api_key: "…" }) // "https://mcp.example/mcp?api_key=…"
 */
export function urlWithQuery(url: string, query: Record<string, string> | undefined): string {
  if (!query) return url;
  const withQuery = new URL(url);
  for (const [name, value] of Object.entries(query)) withQuery.searchParams.set(name, value);
  return withQuery.href;
}

/** A stream that errors with `BodyTooLarge` once more than `maxBytes` went through it, and how many did. */
export function byteLimit(maxBytes: number): { stream: TransformStream<Uint8Array, Uint8Array>; seen: () => number } {
  let seen = 0;
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new BodyTooLarge(maxBytes));
      else controller.enqueue(chunk);
    },
  });
  return { stream, seen: () => seen };
}

/**
 * -32001 for an upstream's transport failure, and when to retry: what both kinds of upstream answer.
 * @example throw upstreamUnavailable("petstore.listPets", "is unreachable")
 */
export function upstreamUnavailable(label: string, what: string): RpcError {
  return new RpcError(ErrorCode.SkillUnavailable, `${label} ${what}; retry after ${RETRY_AFTER_MS / 1000} s`, { retryAfterMs: RETRY_AFTER_MS });
}
