/**
 * An upstream's `requestState`, kept by the gateway while its caller answers the upstream's input
 * requests (2026-07-28 multi round-trips). To its caller the gateway is the server, and a server
 * integrity-protects the state it gives out and refuses state that fails the check (SEP-2322): the
 * caller holds a random handle bound to itself and the tool, the upstream's own state stays in the
 * store, and a retry with a changed, expired or another caller's handle is refused before anything
 * goes upstream.
 */
import { randomHex } from "../lib/hash/index.js";
import { ErrorCode, RpcError } from "../protocols/jsonrpc/index.js";
import type { InputRequiredResult } from "../protocols/mcp/index.js";
import type { Store } from "../store/index.js";

/** How long a caller has to answer and retry. */
export const REQUEST_STATE_TTL_MS = 60 * 60_000;
const PREFIX = "sm:rs:";
const HANDLE = /^rs_[0-9a-f]{32}$/;

/** One caller's kept request states, each bound to what asked (a tool, a prompt, a resource's URI). */
export interface RequestStates {
  /** Keeps `state` for a retry of `tool`; the handle the caller gets instead. */
  keep(tool: string, state: string): Promise<string>;
  /** The state a handle stands for, if this caller was given it for `tool`; else throws -32602. */
  kept(tool: string, handle: string): Promise<string>;
}

/**
 * An upstream's input request as its caller gets it: the upstream's state kept, a handle in its place.
 * @example await withHandle(states, "crm.ask", { resultType: "input_required", requestState: "s1" }) // { …, requestState: "rs_…" }
 */
export async function withHandle(states: RequestStates, asker: string, asked: InputRequiredResult): Promise<InputRequiredResult> {
  return asked.requestState === undefined ? asked : { ...asked, requestState: await states.keep(asker, asked.requestState) };
}

/**
 * The request states of `caller`, in `store`.
 * @example const handle = await requestStatesOf(store, "k_1").keep("crm.ask", "upstream-state") // "rs_…"
 */
export function requestStatesOf(store: Pick<Store, "get" | "set">, caller: string): RequestStates {
  return {
    async keep(tool, state) {
      const handle = `rs_${randomHex(16)}`;
      await store.set(PREFIX + handle, JSON.stringify({ caller, tool, state }), { px: REQUEST_STATE_TTL_MS });
      return handle;
    },
    async kept(tool, handle) {
      const raw = HANDLE.test(handle) ? await store.get(PREFIX + handle) : null;
      const found = raw === null ? undefined : (JSON.parse(raw) as { caller: string; tool: string; state: string });
      if (found?.caller !== caller || found.tool !== tool) {
        throw new RpcError(
          ErrorCode.InvalidParams,
          "Invalid params: requestState is not one this server gave for this tool (changed, expired, or another caller's); call the tool again without it",
        );
      }
      return found.state;
    },
  };
}
