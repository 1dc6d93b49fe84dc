/**
 * The circuit breaker's state machine, shared by every gateway isolate through the store
 * (DESIGN "Circuit breaker and degraded fallback"). The transitions live in two twins that the
 * conformance suite holds to the same behaviour: Lua (Redis) and `recordInMemory` (memory).
 */
import type { StoreScript } from "../store/index.js";

/** When a breaker opens and for how long; every field is overridable per skill. */
export interface BreakerPolicy {
  /** Open at this failure rate over the window… */
  failureRate: number;
  windowMs: number;
  /** …once the window holds at least this many calls. */
  minimumCalls: number;
  /** Or after this many failures in a row. */
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

/** What callers need to know about one deployment's breaker. */
export interface BreakerStatus {
  state: "closed" | "open" | "half-open";
  /** When an open breaker lets a probe through (ms since epoch). */
  openUntil: number;
  /** Opens in a row (the open period doubles with each). */
  opens: number;
  /** Why it last opened. */
  reason: string;
  /** True when this very record opened it (the caller acts once: rollback, event). */
  tripped: boolean;
}

/** The stored document of one breaker. */
interface StoredBreaker {
  state: "closed" | "open" | "half-open";
  openUntil: number;
  opens: number;
  closedAt: number;
  consecutive: number;
  buckets: Array<{ t: number; ok: number; fail: number }>;
  probe?: string;
  probeAt?: number;
  reason?: string;
}

/** A record: calls that ended since the last one, and failures since the last success. */
export interface BreakerRecord {
  successes: number;
  failures: number;
  trailingFailures: number;
  /** Set when the record is the result of a claimed half-open probe. */
  probe?: string;
}

const STATE_TTL_MS = 86_400_000;

function fresh(): StoredBreaker {
  return { state: "closed", openUntil: 0, opens: 0, closedAt: 0, consecutive: 0, buckets: [] };
}

function status(s: StoredBreaker, tripped: boolean): BreakerStatus {
  return { state: s.state, openUntil: s.openUntil, opens: s.opens, reason: s.reason ?? "", tripped };
}

function open(s: StoredBreaker, now: number, policy: BreakerPolicy, reason: string): void {
  // Opening from closed after a long healthy stretch forgets earlier opens; a failed probe doubles.
  if (s.state === "closed" && now - s.closedAt > policy.maxOpenMs) s.opens = 0;
  s.opens += 1;
  s.state = "open";
  s.openUntil = now + Math.min(policy.openMs * 2 ** (s.opens - 1), policy.maxOpenMs);
  s.buckets = [];
  s.consecutive = 0;
  s.probe = undefined;
  s.reason = reason;
}

/** The memory twin of `recordOutcome`: the same transitions on a parsed document. */
export function recordInMemory(raw: string | null, now: number, record: BreakerRecord, policy: BreakerPolicy): { stored: StoredBreaker; status: BreakerStatus } {
  const s: StoredBreaker = raw ? (JSON.parse(raw) as StoredBreaker) : fresh();
  if (!Array.isArray(s.buckets)) s.buckets = []; // Lua's cjson writes an empty list as {}
  let tripped = false;
  if (s.state !== "closed") {
    // Only the claimed probe's result moves an open breaker; stragglers from before are ignored.
    if (record.probe && s.probe === record.probe) {
      if (record.failures > 0) {
        open(s, now, policy, "the half-open probe failed");
        tripped = true;
      } else {
        Object.assign(s, { state: "closed", buckets: [], consecutive: 0, probe: undefined, probeAt: undefined, closedAt: now });
      }
    }
  } else {
    const start = now - (now % policy.bucketMs);
    s.buckets = s.buckets.filter((b) => b.t > now - policy.windowMs);
    let bucket = s.buckets.find((b) => b.t === start);
    if (!bucket) s.buckets.push((bucket = { t: start, ok: 0, fail: 0 }));
    bucket.ok += record.successes;
    bucket.fail += record.failures;
    s.consecutive = record.successes > 0 ? record.trailingFailures : s.consecutive + record.failures;
    const total = s.buckets.reduce((n, b) => n + b.ok + b.fail, 0);
    const failed = s.buckets.reduce((n, b) => n + b.fail, 0);
    if (s.consecutive >= policy.consecutiveFailures) {
      open(s, now, policy, `${s.consecutive} consecutive failures`);
      tripped = true;
    } else if (total >= policy.minimumCalls && failed / total >= policy.failureRate) {
      open(s, now, policy, `${failed} of ${total} calls failed in ${policy.windowMs / 1000} s`);
      tripped = true;
    }
  }
  return { stored: s, status: status(s, tripped) };
}

/**
 * KEYS: breaker. ARGV: now, successes, failures, trailingFailures, probe token ("" = none),
 * policy JSON. Applies the record and returns the status (JSON).
 */
export const recordOutcome: StoreScript<BreakerStatus> = {
  name: "breaker.record",
  lua: `
local raw = redis.call('GET', KEYS[1])
local s = raw and cjson.decode(raw) or {state='closed', openUntil=0, opens=0, closedAt=0, consecutive=0, buckets={}}
local now = tonumber(ARGV[1])
local ok, fail, trailing, probe = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local p = cjson.decode(ARGV[6])
local tripped = false
local function open(reason)
  if s.state == 'closed' and now - s.closedAt > p.maxOpenMs then s.opens = 0 end
  s.opens = s.opens + 1
  s.state = 'open'
  s.openUntil = now + math.min(p.openMs * 2 ^ (s.opens - 1), p.maxOpenMs)
  s.buckets = {}
  s.consecutive = 0
  s.probe = nil
  s.reason = reason
  tripped = true
end
if s.state ~= 'closed' then
  if probe ~= '' and s.probe == probe then
    if fail > 0 then open('the half-open probe failed')
    else
      s.state = 'closed'; s.buckets = {}; s.consecutive = 0; s.probe = nil; s.probeAt = nil; s.closedAt = now
    end
  end
else
  local start = now - (now % p.bucketMs)
  local kept, bucket = {}, nil
  for _, b in ipairs(s.buckets) do
    if b.t > now - p.windowMs then table.insert(kept, b); if b.t == start then bucket = b end end
  end
  if not bucket then bucket = {t=start, ok=0, fail=0}; table.insert(kept, bucket) end
  s.buckets = kept
  bucket.ok = bucket.ok + ok
  bucket.fail = bucket.fail + fail
  if ok > 0 then s.consecutive = trailing else s.consecutive = s.consecutive + fail end
  local total, failed = 0, 0
  for _, b in ipairs(s.buckets) do total = total + b.ok + b.fail; failed = failed + b.fail end
  if s.consecutive >= p.consecutiveFailures then open(s.consecutive .. ' consecutive failures')
  elseif total >= p.minimumCalls and failed / total >= p.failureRate then
    open(failed .. ' of ' .. total .. ' calls failed in ' .. (p.windowMs / 1000) .. ' s')
  end
end
redis.call('SET', KEYS[1], cjson.encode(s), 'PX', ${STATE_TTL_MS})
return cjson.encode({state=s.state, openUntil=s.openUntil, opens=s.opens, reason=s.reason or '', tripped=tripped})
`,
  memory: (data, [key], [now, successes, failures, trailingFailures, probe, policy]) => {
    const { stored, status: result } = recordInMemory(data.get(key!), Number(now), {
      successes: Number(successes), failures: Number(failures), trailingFailures: Number(trailingFailures), probe: probe || undefined,
    }, JSON.parse(policy!) as BreakerPolicy);
    data.set(key!, JSON.stringify(stored), { px: STATE_TTL_MS });
    return result;
  },
  fromRedis: (reply) => JSON.parse(String(reply)) as BreakerStatus,
};

/**
 * KEYS: breaker. ARGV: now, token, probeTimeoutMs. Claims the one half-open probe of an open
 * breaker whose open period is over (or whose last probe never reported back). 1 = claimed.
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
s.state = 'half-open'; s.probe = ARGV[2]; s.probeAt = now
redis.call('SET', KEYS[1], cjson.encode(s), 'PX', ${STATE_TTL_MS})
return 1
`,
  memory: (data, [key], [now, token, probeTimeoutMs]) => {
    const raw = data.get(key!);
    if (!raw) return false;
    const s = JSON.parse(raw) as StoredBreaker;
    if (s.state === "closed" || Number(now) < s.openUntil) return false;
    if (s.probe && s.probeAt !== undefined && Number(now) < s.probeAt + Number(probeTimeoutMs)) return false;
    Object.assign(s, { state: "half-open", probe: token, probeAt: Number(now) });
    data.set(key!, JSON.stringify(s), { px: STATE_TTL_MS });
    return true;
  },
  fromRedis: (reply) => Number(reply) === 1,
};

/** Reads a breaker's status without changing it (closed when never recorded). */
export function statusOf(raw: string | null): BreakerStatus {
  return status(raw ? (JSON.parse(raw) as StoredBreaker) : fresh(), false);
}
