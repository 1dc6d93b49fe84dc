/**
 * The circuit breaker's state machine, shared by every gateway isolate through the store
 * (docs/security.md "Circuit breakers"). The transitions live in two twins that the conformance
 * suite holds to the same behaviour: Lua (Redis) and `recordInMemory` (memory).
 *
 * Failures are counted per caller, and no single caller decides for everyone: a breaker opens
 * only when its thresholds are met without the failures of the caller who failed most (so one
 * key or one client address sending input that crashes a skill never opens it), and in the
 * half-open state a failed probe doubles the open period only once probes of two callers have
 * failed; a caller whose probe failed alone waits out one period before it may probe again,
 * while the others keep probing.
 */
import { z } from "zod";
import { safeJson } from "../../lib/json/index.js";
import type { StoreScript } from "../../store/index.js";

/** When a breaker opens and for how long; every field is overridable per skill. */
export interface BreakerPolicy {
  /** Open at this failure rate over the window… */
  failureRate: number;
  windowMs: number;
  /** …once the window holds at least this many calls. */
  minimumCalls: number;
  /** Or after this many failures in a row (not counting the caller with most of them). */
  consecutiveFailures: number;
  /** First open period; doubles on each repeated open, up to `maxOpenMs`. */
  openMs: number;
  maxOpenMs: number;
  /** Window granularity. */
  bucketMs: number;
  /** A claimed probe that never reports back frees the slot after this. */
  probeTimeoutMs: number;
}

export const DEFAULT_BREAKER_POLICY: BreakerPolicy = {
  failureRate: 0.5,
  windowMs: 30_000,
  minimumCalls: 20,
  consecutiveFailures: 5,
  openMs: 30_000,
  maxOpenMs: 300_000,
  bucketMs: 5_000,
  probeTimeoutMs: 15_000,
};

const BreakerStateSchema = z.enum(["closed", "open", "half-open"]);

/** What callers need to know about one deployment's breaker (as `breaker.record` answers it). */
export const BreakerStatusSchema = z.object({
  state: BreakerStateSchema,
  /** When an open breaker lets a probe through (ms since epoch). */
  openUntil: z.number(),
  /** Opens in a row (the open period doubles with each). */
  opens: z.number(),
  /** Why it last opened. */
  reason: z.string(),
  /** True when this very record opened it (the caller acts once: rollback, event). */
  tripped: z.boolean(),
});
export type BreakerStatus = z.infer<typeof BreakerStatusSchema>;

/** Failures per caller id. At most `MAX_TRACKED` callers by name; the rest add up under `OTHERS`. */
const FailuresByCallerSchema = z.record(z.string(), z.number());
type FailuresByCaller = z.infer<typeof FailuresByCallerSchema>;

/** The stored document of one breaker (written by the Lua twin too: cjson writes an empty list as `{}`). */
const StoredBreakerSchema = z.object({
  state: BreakerStateSchema,
  openUntil: z.number(),
  opens: z.number(),
  closedAt: z.number().default(0),
  /** The failures since the last success, per caller. */
  streak: FailuresByCallerSchema.default({}),
  buckets: z.preprocess(
    (value): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []),
    z.array(z.object({ t: z.number(), ok: z.number(), fail: z.number(), by: FailuresByCallerSchema.default({}) })),
  ),
  probe: z.string().optional(),
  probeAt: z.number().optional(),
  /** The caller whose half-open probe failed while no other caller's had, and until when it may not probe. */
  probeFailedBy: z.string().optional(),
  probeBarredUntil: z.number().optional(),
  reason: z.string().optional(),
});
type StoredBreaker = z.infer<typeof StoredBreakerSchema>;

/**
 * A breaker as stored, parsed; none, or one that does not parse, is a fresh (closed) one: a
 * damaged record must not stop traffic, and the next record replaces it.
 * @example storedBreakerOf(await store.get(key)).state // "closed"
 */
function storedBreakerOf(raw: string | null): StoredBreaker {
  if (raw === null) return fresh();
  const parsed = StoredBreakerSchema.safeParse(safeJson(raw));
  return parsed.success ? parsed.data : fresh();
}

/** A record: the successes since the last record, then at most one failure (a failure is written at once). */
export interface BreakerRecord {
  successes: number;
  /** The caller whose call failed, if this record holds a failure. */
  failedBy?: string;
  /**
   * Set when the record is the result of a claimed half-open probe. A probe record with neither
   * a success nor a failure (the caller's own deadline cut it short) only frees the probe.
   */
  probe?: string;
}

const STATE_TTL_MS = 86_400_000;
/** Callers tracked by name per bucket and streak; beyond that many callers, no one decides alone anyway. */
const MAX_TRACKED = 16;
const OTHERS = "~";

function fresh(): StoredBreaker {
  return { state: "closed", openUntil: 0, opens: 0, closedAt: 0, streak: {}, buckets: [] };
}

function status(s: StoredBreaker, tripped: boolean): BreakerStatus {
  return { state: s.state, openUntil: s.openUntil, opens: s.opens, reason: s.reason ?? "", tripped };
}

function count(by: FailuresByCaller, caller: string): void {
  const key = Object.hasOwn(by, caller) || Object.keys(by).length < MAX_TRACKED ? caller : OTHERS;
  by[key] = (Object.hasOwn(by, key) ? by[key]! : 0) + 1;
}

/** The failures of the caller who failed most (never `OTHERS`: that is many callers). */
function top(by: FailuresByCaller): number {
  return Math.max(
    0,
    ...Object.entries(by)
      .filter(([caller]) => caller !== OTHERS)
      .map(([, n]) => n),
  );
}

const sum = (by: FailuresByCaller) => Object.values(by).reduce((a, b) => a + b, 0);

/** The open period after `opens` opens in a row: doubling, capped. */
function periodOf(opens: number, policy: BreakerPolicy): number {
  return Math.min(policy.openMs * 2 ** (opens - 1), policy.maxOpenMs);
}

function clearEpisode(s: StoredBreaker): void {
  Object.assign(s, { streak: {}, buckets: [], probe: undefined, probeAt: undefined, probeFailedBy: undefined, probeBarredUntil: undefined });
}

function open(s: StoredBreaker, now: number, policy: BreakerPolicy, reason: string): void {
  // Opening from closed after a long healthy stretch forgets earlier opens; a failed probe doubles.
  if (s.state === "closed" && now - s.closedAt > policy.maxOpenMs) s.opens = 0;
  s.opens += 1;
  s.state = "open";
  s.openUntil = now + periodOf(s.opens, policy);
  s.reason = reason;
  clearEpisode(s);
}

/** The memory twin of `recordOutcome`: the same transitions on a parsed document. */
export function recordInMemory(
  raw: string | null,
  now: number,
  record: BreakerRecord,
  policy: BreakerPolicy,
): { stored: StoredBreaker; status: BreakerStatus } {
  const s = storedBreakerOf(raw);
  let tripped = false;
  if (s.state !== "closed") {
    // Only the claimed probe's result moves an open breaker; stragglers from before are ignored.
    if (record.probe && s.probe === record.probe) {
      const caller = record.failedBy;
      if (caller === undefined && record.successes > 0) {
        Object.assign(s, { state: "closed", closedAt: now });
        clearEpisode(s);
      } else if (caller === undefined) {
        Object.assign(s, { probe: undefined, probeAt: undefined }); // cut short by the caller: says nothing
      } else if (s.probeFailedBy !== undefined && s.probeFailedBy !== caller) {
        open(s, now, policy, "half-open probes of two callers failed");
        tripped = true;
      } else {
        Object.assign(s, { probe: undefined, probeAt: undefined, probeFailedBy: caller, probeBarredUntil: now + periodOf(s.opens, policy) });
      }
    }
  } else {
    const start = now - (now % policy.bucketMs);
    s.buckets = s.buckets.filter((b) => b.t > now - policy.windowMs);
    let bucket = s.buckets.find((b) => b.t === start);
    if (!bucket) s.buckets.push((bucket = { t: start, ok: 0, fail: 0, by: {} }));
    bucket.by ??= {};
    bucket.ok += record.successes;
    if (record.successes > 0) s.streak = {};
    if (record.failedBy !== undefined) {
      bucket.fail += 1;
      count(bucket.by, record.failedBy);
      count(s.streak, record.failedBy);
    }
    const inARow = sum(s.streak);
    const windowBy: FailuresByCaller = {};
    for (const b of s.buckets) for (const [caller, n] of Object.entries(b.by ?? {})) windowBy[caller] = (windowBy[caller] ?? 0) + n;
    const most = top(windowBy);
    const total = s.buckets.reduce((n, b) => n + b.ok + b.fail, 0) - most;
    const failed = s.buckets.reduce((n, b) => n + b.fail, 0) - most;
    if (inARow - top(s.streak) >= policy.consecutiveFailures) {
      open(s, now, policy, `${inARow} consecutive failures from ${Object.keys(s.streak).length} callers`);
      tripped = true;
    } else if (total >= policy.minimumCalls && failed / total >= policy.failureRate) {
      open(s, now, policy, `${failed + most} of ${total + most} calls failed in ${policy.windowMs / 1000} s`);
      tripped = true;
    }
  }
  return { stored: s, status: status(s, tripped) };
}

/**
 * KEYS: breaker. ARGV: now, successes, failedBy ("" = no failure), probe token ("" = none),
 * policy JSON. Applies the record and returns the status (JSON).
 */
export const recordOutcome: StoreScript<BreakerStatus> = {
  name: "breaker.record",
  lua: `
local raw = redis.call('GET', KEYS[1])
local s = raw and cjson.decode(raw) or {state='closed', openUntil=0, opens=0, closedAt=0}
s.streak = s.streak or {}
s.buckets = s.buckets or {}
local now = tonumber(ARGV[1])
local ok, caller, probe = tonumber(ARGV[2]), ARGV[3], ARGV[4]
local p = cjson.decode(ARGV[5])
local tripped = false
local function period() return math.min(p.openMs * 2 ^ (s.opens - 1), p.maxOpenMs) end
local function clear()
  s.streak = {}; s.buckets = {}; s.probe = nil; s.probeAt = nil; s.probeFailedBy = nil; s.probeBarredUntil = nil
end
local function open(reason)
  if s.state == 'closed' and now - s.closedAt > p.maxOpenMs then s.opens = 0 end
  s.opens = s.opens + 1
  s.state = 'open'
  s.openUntil = now + period()
  s.reason = reason
  clear()
  tripped = true
end
local function count(by, who)
  if by[who] == nil then
    local n = 0
    for _ in pairs(by) do n = n + 1 end
    if n >= ${MAX_TRACKED} then who = '${OTHERS}' end
  end
  by[who] = (by[who] or 0) + 1
end
local function top(by)
  local most = 0
  for who, n in pairs(by) do if who ~= '${OTHERS}' and n > most then most = n end end
  return most
end
if s.state ~= 'closed' then
  if probe ~= '' and s.probe == probe then
    if caller == '' then
      if ok > 0 then s.state = 'closed'; s.closedAt = now; clear()
      else s.probe = nil; s.probeAt = nil end
    elseif s.probeFailedBy and s.probeFailedBy ~= caller then
      open('half-open probes of two callers failed')
    else
      s.probe = nil; s.probeAt = nil; s.probeFailedBy = caller; s.probeBarredUntil = now + period()
    end
  end
else
  local start = now - (now % p.bucketMs)
  local kept, bucket = {}, nil
  for _, b in ipairs(s.buckets) do
    if b.t > now - p.windowMs then table.insert(kept, b); if b.t == start then bucket = b end end
  end
  if not bucket then bucket = {t=start, ok=0, fail=0, by={}}; table.insert(kept, bucket) end
  s.buckets = kept
  bucket.by = bucket.by or {}
  bucket.ok = bucket.ok + ok
  if ok > 0 then s.streak = {} end
  if caller ~= '' then
    bucket.fail = bucket.fail + 1
    count(bucket.by, caller)
    count(s.streak, caller)
  end
  local inARow, callers = 0, 0
  for _, n in pairs(s.streak) do inARow = inARow + n; callers = callers + 1 end
  local total, failed, windowBy = 0, 0, {}
  for _, b in ipairs(s.buckets) do
    total = total + b.ok + b.fail; failed = failed + b.fail
    for who, n in pairs(b.by or {}) do windowBy[who] = (windowBy[who] or 0) + n end
  end
  local most = top(windowBy)
  if inARow - top(s.streak) >= p.consecutiveFailures then
    open(inARow .. ' consecutive failures from ' .. callers .. ' callers')
  elseif total - most >= p.minimumCalls and (failed - most) / (total - most) >= p.failureRate then
    open(failed .. ' of ' .. total .. ' calls failed in ' .. (p.windowMs / 1000) .. ' s')
  end
end
redis.call('SET', KEYS[1], cjson.encode(s), 'PX', ${STATE_TTL_MS})
return cjson.encode({state=s.state, openUntil=s.openUntil, opens=s.opens, reason=s.reason or '', tripped=tripped})
`,
  memory: (data, [key], [now, successes, failedBy, probe, policy]) => {
    const { stored, status: result } = recordInMemory(
      data.get(key!),
      Number(now),
      {
        successes: Number(successes),
        failedBy: failedBy || undefined,
        probe: probe || undefined,
      },
      JSON.parse(policy!) as BreakerPolicy,
    );
    data.set(key!, JSON.stringify(stored), { px: STATE_TTL_MS });
    return result;
  },
  fromRedis: (reply) => BreakerStatusSchema.parse(JSON.parse(String(reply))),
};

/**
 * KEYS: breaker. ARGV: now, token, probeTimeoutMs, caller. Claims the one half-open probe of an
 * open breaker whose open period is over (or whose last probe never reported back), unless this
 * caller's own probe just failed (it waits out a period; the others may probe). 1 = claimed.
 */
export const claimProbe: StoreScript<boolean> = {
  name: "breaker.claimProbe",
  lua: `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local s = cjson.decode(raw)
local now = tonumber(ARGV[1])
if s.state == 'closed' or now < s.openUntil then return 0 end
if s.probe and s.probeAt and now < s.probeAt + tonumber(ARGV[3]) then return 0 end
if s.probeFailedBy == ARGV[4] and now < (s.probeBarredUntil or 0) then return 0 end
s.state = 'half-open'; s.probe = ARGV[2]; s.probeAt = now
redis.call('SET', KEYS[1], cjson.encode(s), 'PX', ${STATE_TTL_MS})
return 1
`,
  memory: (data, [key], [now, token, probeTimeoutMs, caller]) => {
    const raw = data.get(key!);
    if (!raw) return false;
    const s = storedBreakerOf(raw);
    if (s.state === "closed" || Number(now) < s.openUntil) return false;
    if (s.probe && s.probeAt !== undefined && Number(now) < s.probeAt + Number(probeTimeoutMs)) return false;
    if (s.probeFailedBy === caller && Number(now) < (s.probeBarredUntil ?? 0)) return false;
    Object.assign(s, { state: "half-open", probe: token, probeAt: Number(now) });
    data.set(key!, JSON.stringify(s), { px: STATE_TTL_MS });
    return true;
  },
  fromRedis: (reply) => Number(reply) === 1,
};

/** Reads a breaker's status without changing it (closed when never recorded). */
export function statusOf(raw: string | null): BreakerStatus {
  return status(storedBreakerOf(raw), false);
}
