/**
 * The audit log: every call through `/rpc` and `/mcp` (who, what, how it went, how long — never
 * a credential or an argument, only a fingerprint of the params) and every admin change. Entries
 * are buffered per isolate and written after responses, in batches at most a second apart, to a
 * list in the store that keeps the newest `MAX_AUDIT_ENTRIES`; `GET /admin/audit` and
 * `skillmesh audit` read it. With an Analytics Engine binding (`AUDIT_ANALYTICS`), every entry
 * is also written there, for production volumes and longer retention.
 */
import { DelayedFlush } from "../../lib/flush/index.js";
import { type AuditEntry, AuditEntrySchema, type AuditQuery } from "./schema.js";
import { skillUriOf } from "../packages/index.js";
import { fingerprintOf } from "../../policies/idempotency/index.js";
import { safeJson } from "../../lib/json/index.js";
import { errorText } from "../../protocols/jsonrpc/index.js";
import type { Store, StoreScript } from "../../store/index.js";

/** Entries the store keeps (older ones fall off). */
export const MAX_AUDIT_ENTRIES = 10_000;
/** How long an entry may wait in an isolate's buffer. */
export const AUDIT_FLUSH_MS = 1_000;
/** A full buffer is written at once. */
const FLUSH_AT = 100;
/**
 * Entries an isolate keeps while the store does not take them (an outage): written with the next
 * flush that succeeds. Past it the oldest are dropped, and the drop is logged with its count.
 */
export const MAX_AUDIT_BACKLOG = 5_000;
/** Entries written in one store call: at most ~1 KB each once clipped, far below Upstash's 10 MB request limit. */
const WRITE_BATCH = 500;
/** Entries read in one store call when the log is searched: a page, never the whole log. */
export const AUDIT_READ_PAGE = 500;
/** The longest text an entry keeps in a field the caller chose (a method name, an admin path); longer is cut, marked with "…". */
export const MAX_AUDIT_TEXT = 128;

const AUDIT_KEY = "sm:audit";
/** How many entries were ever appended: each entry's position, for cursors that hold while entries arrive. */
const AUDIT_COUNT_KEY = "sm:audit:count";

/**
 * A call entry whose params are fingerprinted when it is written (off the response path). Its
 * params are within `MAX_JSON_DEPTH` (src/gateway/chain/invoke.ts leaves deeper ones out): hashing
 * recurses, and an entry whose fingerprint still fails is written without one.
 */
export type PendingEntry = AuditEntry | PendingCallEntry;

/** A call's entry on its way to be written: its params as the caller sent them. */
export type PendingCallEntry = Extract<AuditEntry, { type: "call" }> & { params?: unknown };

/** KEYS: list, count. ARGV: keep, ...entries (newest last). Pushes them to the head, trims the list, counts them. */
export const appendAudit: StoreScript<number> = {
  name: "audit.append",
  lua: `
redis.call('LPUSH', KEYS[1], unpack(ARGV, 2))
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[1]) - 1)
return redis.call('INCRBY', KEYS[2], #ARGV - 1)
`,
  memory: (data, [key, count], [keep, ...entries]) => {
    data.lpush(key!, ...entries);
    data.ltrim(key!, 0, Number(keep) - 1);
    const total = Number(data.get(count!) ?? 0) + entries.length;
    data.set(count!, String(total));
    return total;
  },
  fromRedis: (reply) => Number(reply),
};

/**
 * KEYS: list, count. ARGV: from (a position, or -1 for the newest), page size. Returns the count
 * of entries ever appended, then up to a page of entries from that position on, newest first
 * (the newest entry's position is the count; the one before it count - 1, …).
 */
export const readAudit: StoreScript<{ count: number; lines: string[] }> = {
  name: "audit.read",
  lua: `
local count = tonumber(redis.call('GET', KEYS[2]) or '0')
local from = tonumber(ARGV[1])
local offset = 0
if from >= 0 then offset = count - from end
if offset < 0 then offset = 0 end
local lines = redis.call('LRANGE', KEYS[1], offset, offset + tonumber(ARGV[2]) - 1)
table.insert(lines, 1, tostring(count))
return lines
`,
  memory: (data, [key, countKey], [from, page]) => {
    const count = Number(data.get(countKey!) ?? 0);
    const offset = Number(from) >= 0 ? Math.max(0, count - Number(from)) : 0;
    return { count, lines: data.lrange(key!, offset, offset + Number(page) - 1) };
  },
  fromRedis: (reply) => {
    const [count, ...lines] = (reply as unknown[]).map(String);
    return { count: Number(count), lines };
  },
};

/** The slice of Workers Analytics Engine the log writes to. */
export interface AnalyticsDataset {
  writeDataPoint(point: { blobs?: string[]; doubles?: number[]; indexes?: string[] }): void;
}

/** A page of the log: the entries that matched, and where to go on from (absent: nothing older). */
export interface AuditPage {
  entries: AuditEntry[];
  nextCursor?: string;
}

/** An entry with its place in the order it was recorded (flushes overlap: a failed one keeps order by it). */
interface Numbered<Entry> {
  seq: number;
  entry: Entry;
}

export class AuditLog {
  #buffer: Array<Numbered<PendingEntry>> = [];
  /** Entries failed writes left behind, in the order they were recorded, written before the buffer's. */
  #backlog: Array<Numbered<AuditEntry>> = [];
  #recorded = 0;
  #dropped = 0;
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
    this.#buffer.push({ seq: this.#recorded++, entry });
    if (this.#buffer.length >= FLUSH_AT) waitUntil(this.#flush());
    else this.#later.schedule(waitUntil);
  }

  /** How many entries wait for the store (a failed write's, and the buffer's). */
  get pending(): number {
    return this.#backlog.length + this.#buffer.length;
  }

  async #flush(): Promise<void> {
    const batch = this.#buffer;
    this.#buffer = [];
    const fresh = await Promise.all(batch.map(async ({ seq, entry }) => ({ seq, entry: await finalized(entry) })));
    for (const { entry } of fresh) this.#analytics(entry);
    // Another flush may have failed meanwhile with newer entries than these: the order recorded decides.
    const entries = inOrder([...this.#backlog, ...fresh]);
    this.#backlog = [];
    // In slices of a bounded size: one failed write keeps its slice and what follows for the next flush.
    for (let i = 0; i < entries.length; i += WRITE_BATCH) {
      const slice = entries.slice(i, i + WRITE_BATCH);
      try {
        await this.store.run(appendAudit, [AUDIT_KEY, AUDIT_COUNT_KEY], [MAX_AUDIT_ENTRIES, ...slice.map((e) => JSON.stringify(e.entry))]);
      } catch (error) {
        this.#keep(entries.slice(i));
        console.error(
          `[gateway] could not write ${entries.length - i} audit entries (kept for the next write, ${this.#backlog.length} waiting):`,
          errorText(error),
        );
        return;
      }
    }
  }

  /** Keeps unwritten entries for the next flush, the newest `MAX_AUDIT_BACKLOG` of them. */
  #keep(entries: Array<Numbered<AuditEntry>>): void {
    const kept = inOrder([...entries, ...this.#backlog]);
    const over = kept.length - MAX_AUDIT_BACKLOG;
    if (over > 0) {
      this.#dropped += over;
      console.error(
        `[gateway] the audit backlog is full (${MAX_AUDIT_BACKLOG} entries): ${over} of the oldest dropped (${this.#dropped} since this isolate started)`,
      );
    }
    this.#backlog = over > 0 ? kept.slice(over) : kept;
  }

  /** One entry to Analytics Engine; a point it refuses is that entry's loss alone. */
  #analytics(entry: AuditEntry): void {
    if (!this.analytics) return;
    try {
      this.analytics.writeDataPoint(dataPointOf(entry));
    } catch (error) {
      console.error("[gateway] Analytics Engine refused an audit entry:", errorText(error));
    }
  }

  /**
   * Writes what this isolate holds now (a reader sees its own isolate's latest entries, and a
   * backlog left by an outage goes out as soon as the store answers).
   * @example await audit.flushNow()
   */
  flushNow(): Promise<void> {
    return this.pending ? this.#flush() : Promise.resolve();
  }

  /**
   * The newest entries that match the query, newest first, read a page at a time: at most
   * `limit` of them, from `cursor` (a page's `nextCursor`) on, scanning at most
   * `MAX_AUDIT_ENTRIES` entries (the whole log) for one answer. Entries that do not parse are skipped.
   * @example await audit.read({ caller: "k_1a2b3c4d5e6f", limit: 20 }) // { entries: […], nextCursor: "9981" }
   */
  async read(query: AuditQuery): Promise<AuditPage> {
    const since = sinceOf(query.since);
    const matches: AuditEntry[] = [];
    let from = query.cursor === undefined ? -1 : Number(query.cursor);
    for (let scanned = 0; scanned < MAX_AUDIT_ENTRIES;) {
      const { count, lines } = await this.store.run(readAudit, [AUDIT_KEY, AUDIT_COUNT_KEY], [from, AUDIT_READ_PAGE]);
      const start = from < 0 ? count : Math.min(from, count);
      let oldest = Infinity;
      for (const [i, line] of lines.entries()) {
        const parsed = AuditEntrySchema.safeParse(safeJson(line));
        if (!parsed.success) continue;
        oldest = parsed.data.at;
        if (!matchesQuery(parsed.data, query, since)) continue;
        matches.push(parsed.data);
        const next = start - i - 1;
        if (matches.length >= query.limit) return { entries: matches, ...(next > 0 ? { nextCursor: String(next) } : {}) };
      }
      scanned += lines.length;
      from = start - lines.length;
      // The end of the log, or entries older than `since` (the log is newest first).
      if (lines.length < AUDIT_READ_PAGE || from <= 0 || oldest < since) return { entries: matches };
    }
    return { entries: matches, ...(from > 0 ? { nextCursor: String(from) } : {}) };
  }
}

/** Text a caller chose, cut to `MAX_AUDIT_TEXT` characters. */
const clipped = (text: string) => clippedTo(text, MAX_AUDIT_TEXT);
const clippedTo = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
/** The most characters of a code-mode script an entry keeps (a write batch stays far below Upstash's request limit). */
export const MAX_AUDIT_SCRIPT = 4_096;

/**
 * An entry as it is stored: every field a caller chose cut to `MAX_AUDIT_TEXT` (a 1 MB method
 * name is 128 characters here), and a call's params replaced by their fingerprint (without one
 * when it cannot be made: the entry is kept either way).
 */
/** Entries in the order they were recorded. */
function inOrder<Entry>(entries: Array<Numbered<Entry>>): Array<Numbered<Entry>> {
  return entries.sort((a, b) => a.seq - b.seq);
}

async function finalized(entry: PendingEntry): Promise<AuditEntry> {
  if (entry.type === "admin") return { ...entry, by: clipped(entry.by), action: clipped(entry.action) };
  if (entry.type === "egress") return { ...entry, deployment: clipped(entry.deployment), method: clipped(entry.method), host: clipped(entry.host) };
  const { params, ...rest } = entry as Extract<PendingEntry, { type: "call" }> & { params?: unknown };
  const call = {
    ...rest,
    caller: clipped(rest.caller),
    method: clipped(rest.method),
    ...(rest.group ? { group: clipped(rest.group) } : {}),
    ...(rest.deployment ? { deployment: clipped(rest.deployment) } : {}),
    ...(rest.resource ? { resource: clipped(rest.resource) } : {}),
    // A script's text is kept up to MAX_AUDIT_SCRIPT characters (its size and fingerprint, whole).
    ...(rest.execution?.script !== undefined ? { execution: { ...rest.execution, script: clippedTo(rest.execution.script, MAX_AUDIT_SCRIPT) } } : {}),
  };
  if (params === undefined) return call;
  try {
    return { ...call, args: await fingerprintOf(params) };
  } catch (error) {
    console.error(`[gateway] the audit entry of a ${call.method} call has no args fingerprint:`, errorText(error));
    return call;
  }
}

function matchesQuery(entry: AuditEntry, query: AuditQuery, since: number): boolean {
  if (entry.at < since || (query.type && entry.type !== query.type)) return false;
  if (entry.type === "admin") {
    return (
      (!query.caller || entry.by === query.caller) && !query.execution && (!query.skill || entry.action.includes(query.skill)) && query.outcome === undefined
    );
  }
  if (entry.type === "egress")
    return !query.caller && !query.execution && (!query.skill || entry.deployment.startsWith(`${query.skill}@`)) && query.outcome === undefined;
  if (query.caller && entry.caller !== query.caller) return false;
  if (query.execution && entry.execution?.id !== query.execution) return false;
  // A package name matches the reads of its files (their skill:// URIs), found or not.
  if (query.skill && entry.method !== query.skill && !entry.resource?.startsWith(skillUriOf(query.skill, ""))) return false;
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
  return (
    entry.type === "call" ?
      {
        indexes: [entry.caller],
        blobs: ["call", entry.method, entry.deployment ?? "", entry.group ?? "", entry.args ?? ""],
        doubles: [entry.at, entry.code, entry.ms],
      }
    : entry.type === "egress" ? { indexes: [entry.deployment], blobs: ["egress", entry.method, entry.host], doubles: [entry.at, 403, 0] }
    : { indexes: [entry.by], blobs: ["admin", entry.action], doubles: [entry.at, entry.status, 0] }
  );
}
