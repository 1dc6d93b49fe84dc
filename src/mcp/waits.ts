/**
 * The long requests of MCP — a `subscriptions/listen` stream (up to 15 minutes) and a waiting
 * `tasks/result` — held per caller: each is counted against the caller's limits when it starts
 * (`McpBackend.admit`), and one caller may hold at most `MAX_LONG_REQUESTS` of them at once in an
 * isolate, so a key at its limit cannot open streams that the limit never sees.
 *
 * A held request renews its lease as it runs (every second or two). workerd may stop a request
 * whose client went away without running its `finally` (its timers just never fire again), so a
 * lease not renewed for `STALE_LEASE_MS` counts as gone.
 */
import { ErrorCode, RpcError } from "../protocols/jsonrpc/index.js";

/** Long requests one caller may hold open in one isolate. */
export const MAX_LONG_REQUESTS = 4;
/**
 * 2025 sessions' own streams (`GET /mcp`) one caller may hold open in one isolate, counted apart:
 * every connected client opens one, and they must not take the slots of the requests above.
 */
export const MAX_SESSION_STREAMS = 8;
/** A lease not renewed for this long is a request that is gone. */
export const STALE_LEASE_MS = 5_000;

interface Lease {
  renewedAt: number;
}

/** One held long request: renew it as it runs, release it when it ends. */
export interface LongRequest {
  renew(): void;
  release(): void;
}

const open = new Map<string, Set<Lease>>();

/** Drops the leases of requests that are gone (of one caller, or of all when the table grows). */
function sweep(leases: Set<Lease>, now: number): void {
  for (const lease of leases) if (now - lease.renewedAt > STALE_LEASE_MS) leases.delete(lease);
}

/**
 * Takes one of the caller's long-request slots, or throws -32005 when it holds them all.
 * @example const held = holdLongRequest(caller); try { for (…) { held.renew(); … } } finally { held.release() }
 */
export function holdLongRequest(caller: string, now = Date.now(), kind: "request" | "session stream" = "request"): LongRequest {
  const max = kind === "request" ? MAX_LONG_REQUESTS : MAX_SESSION_STREAMS;
  const slot = kind === "request" ? caller : `${caller}\n${kind}`;
  if (open.size > 1_000) {
    for (const [who, leases] of open) {
      sweep(leases, now);
      if (!leases.size) open.delete(who);
    }
  }
  const leases = open.get(slot) ?? new Set<Lease>();
  sweep(leases, now);
  if (leases.size >= max) {
    const what = kind === "request" ? "long requests open (subscriptions/listen, tasks/result)" : "session streams open (GET /mcp)";
    throw new RpcError(ErrorCode.RateLimited, `Rate limited: this caller already holds ${max} ${what}; close one first`, {
      limit: "long-requests",
      retryAfterMs: 1_000,
    });
  }
  const lease: Lease = { renewedAt: now };
  leases.add(lease);
  open.set(slot, leases);
  return {
    renew: () => void (lease.renewedAt = Date.now()),
    release: () => {
      leases.delete(lease);
      if (!leases.size && open.get(slot) === leases) open.delete(slot);
    },
  };
}
