/**
 * The audit log: every call through `/rpc` and `/mcp` (who, what, how it went, how long — never
 * a credential or an argument, only a fingerprint of the params) and every admin change. Entries
 * are buffered per isolate and written after responses, in batches at most a second apart, to a
 * list in the store that keeps the newest `MAX_AUDIT_ENTRIES`; `GET /admin/audit` and
 * `skillmesh audit` read it. With an Analytics Engine binding (`AUDIT_ANALYTICS`), every entry
 * is also written there, for production volumes and longer retention.
 */
import { DelayedFlush } from "../flush/index.js";
import type { AuditEntry, AuditQuery } from "../admin-api/index.js";
import { AuditEntrySchema } from "../admin-api/index.js";
import { fingerprintOf } from "../idempotency/index.js";
import { safeJson } from "../json/index.js";
import { errorText } from "../jsonrpc/index.js";
import type { Store, StoreScript } from "../store/index.js";

/** Entries the store keeps (older ones fall off). */
export const MAX_AUDIT_ENTRIES = 10_000;
/** How long an entry may wait in an isolate's buffer. */
export const AUDIT_FLUSH_MS = 1_000;
/** A full buffer is written at once. */
const FLUSH_AT = 100;

const AUDIT_KEY = "sm:audit";

/**
 * A call entry whose params are fingerprinted when it is written (off the response path). Its
 * params are within `MAX_JSON_DEPTH` (src/gateway/pipeline.ts leaves deeper ones out): hashing
 * recurses, and a stack overflow in the flush would lose the whole batch, other callers' entries too.
 */
export type PendingEntry = AuditEntry | (Extract<AuditEntry, { type: "call" }> & { params?: unknown });

/** KEYS: list. ARGV: keep, ...entries (newest last). Pushes them to the head and trims the list. */
export const appendAudit: StoreScript<number> = {
  name: "audit.append",
  lua: `
redis.call('LPUSH', KEYS[1], unpack(ARGV, 2))
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[1]) - 1)
return redis.call('LLEN', KEYS[1])
`,
  memory: (data, [key], [keep, ...entries]) => {
    data.lpush(key!, ...entries);
    data.ltrim(key!, 0, Number(keep) - 1);
    return data.llen(key!);
  },
  fromRedis: (reply) => Number(reply),
};

/** KEYS: list. ARGV: count. The newest `count` entries, newest first. */
export const readAudit: StoreScript<string[]> = {
  name: "audit.read",
  lua: `return redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)`,
  memory: (data, [key], [count]) => data.lrange(key!, 0, Number(count) - 1),
  fromRedis: (reply) => (reply as unknown[]).map(String),
};

/** The slice of Workers Analytics Engine the log writes to. */
export interface AnalyticsDataset {
  writeDataPoint(point: { blobs?: string[]; doubles?: number[]; indexes?: string[] }): void;
}

export class AuditLog {
  #buffer: PendingEntry[] = [];
  readonly #later = new DelayedFlush(AUDIT_FLUSH_MS, () => this.#flush());

  constructor(
    private readonly store: Store,
    private readonly analytics?: AnalyticsDataset,
  ) {}

  /**
   * Adds an entry; it is written within about a second, after the response (`waitUntil`).
   * @example audit.record({ type: "admin", at: Date.now(), by: "admin-token", action: "POST /admin/keys", status: 201 }, waitUntil)
   */
  record(entry: PendingEntry, waitUntil: (promise: Promise<unknown>) => void): void {
    this.#buffer.push(entry);
    if (this.#buffer.length >= FLUSH_AT) waitUntil(this.#flush());
    else this.#later.schedule(waitUntil);
  }

  async #flush(): Promise<void> {
    const batch = this.#buffer;
    this.#buffer = [];
    if (!batch.length) return;
    try {
      const entries = await Promise.all(batch.map(finalized));
      for (const entry of entries) this.analytics?.writeDataPoint(dataPointOf(entry));
      await this.store.run(appendAudit, [AUDIT_KEY], [MAX_AUDIT_ENTRIES, ...entries.map((e) => JSON.stringify(e))]);
    } catch (error) {
      console.error(`[gateway] could not write ${batch.length} audit entries:`, errorText(error));
    }
  }

  /**
   * The newest entries that match the query, newest first (entries that do not parse are skipped).
   * @example await audit.read({ caller: "k_1a2b3c4d5e6f", limit: 20 })
   */
  async read(query: AuditQuery): Promise<AuditEntry[]> {
    const since = sinceOf(query.since);
    const raw = await this.store.run(readAudit, [AUDIT_KEY], [MAX_AUDIT_ENTRIES]);
    const matches: AuditEntry[] = [];
    for (const line of raw) {
      const parsed = AuditEntrySchema.safeParse(safeJson(line));
      if (!parsed.success || !matchesQuery(parsed.data, query, since)) continue;
      matches.push(parsed.data);
      if (matches.length >= query.limit) break;
    }
    return matches;
  }
}

/** A call entry with its params replaced by their fingerprint. */
async function finalized(entry: PendingEntry): Promise<AuditEntry> {
  if (entry.type !== "call" || !("params" in entry)) return entry;
  const { params, ...rest } = entry;
  return params === undefined ? rest : { ...rest, args: await fingerprintOf(params) };
}

function matchesQuery(entry: AuditEntry, query: AuditQuery, since: number): boolean {
  if (entry.at < since || (query.type && entry.type !== query.type)) return false;
  if (entry.type === "admin") {
    return (!query.caller || entry.by === query.caller) && (!query.skill || entry.action.includes(query.skill)) && query.outcome === undefined;
  }
  if (query.caller && entry.caller !== query.caller) return false;
  if (query.skill && entry.method !== query.skill) return false;
  if (query.outcome === "ok") return entry.code === 0;
  if (query.outcome === "error") return entry.code !== 0;
  return query.outcome === undefined || entry.code === query.outcome;
}

/** `since` as ms since the epoch: a number, or an ISO date; absent = everything. */
function sinceOf(since: string | undefined): number {
  if (!since) return 0;
  const asNumber = Number(since);
  return Number.isFinite(asNumber) ? asNumber : Date.parse(since) || 0;
}

function dataPointOf(entry: AuditEntry): { blobs: string[]; doubles: number[]; indexes: string[] } {
  return entry.type === "call"
    ? { indexes: [entry.caller], blobs: ["call", entry.method, entry.deployment ?? "", entry.group ?? "", entry.args ?? ""], doubles: [entry.at, entry.code, entry.ms] }
    : { indexes: [entry.by], blobs: ["admin", entry.action], doubles: [entry.at, entry.status, 0] };
}
