/**
 * What the unit tests of the gateway's upstream clients share: an answer as a stand-in `fetch`
 * returns it, and the error a call failed with.
 */
import type { RpcError } from "../../src/protocols/jsonrpc/index.js";

/**
 * A JSON answer with its status and headers.
 * @example vi.stubGlobal("fetch", async () => jsonResponse({ jsonrpc: "2.0", id: 1, result: {} }))
 */
export const jsonResponse = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/**
 * The error `promise` rejected with, or undefined when it resolved.
 * @example expect((await failureOf(callTool(…)))?.code).toBe(-32001)
 */
export const failureOf = (promise: Promise<unknown>): Promise<RpcError | undefined> =>
  promise.then(
    () => undefined,
    (error: unknown) => error as RpcError,
  );
