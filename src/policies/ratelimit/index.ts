/**
 * Rate limits and quotas per caller, shared by every gateway isolate through the store. A rate
 * (`100/min`) and a quota (`50000/day`) are each counted in fixed windows aligned to the epoch
 * (a minute, a UTC day, 30 days for a month): exact at the limit across isolates, one store
 * round trip per call for both (one script: check both, then count both, so a refused call uses
 * up nothing). Bursts at a window's edge can reach twice the rate; the quota is the durable cap.
 * A dead store lets calls through (availability first); the error is logged.
 */
import { z } from "zod";
import type { StoreScript, Store } from "../../store/index.js";

/** How often: `100/min`, `5/s`, `50000/day`, `1000000/month`. */
export const RateSchema = z
  .string()
  .regex(/^\d{1,9}\s*\/\s*(s|sec|second|m|min|minute|h|hour|d|day|month)$/, 'a rate is <count>/<s|min|h|day|month>, e.g. "100/min"');

/** `limit` calls per `windowMs`. */
export const RateWindowSchema = z.object({ limit: z.number().int().min(0), windowMs: z.number().int().positive() });
export type RateWindow = z.infer<typeof RateWindowSchema>;

/** The limits one caller is held to, under one identifier (a key id, or a client address). */
export const LimitsSchema = z.object({ identifier: z.string().min(1).max(128), rate: RateWindowSchema.optional(), quota: RateWindowSchema.optional() });
export type Limits = z.infer<typeof LimitsSchema>;

const UNIT_MS: Record<string, number> = {
  s: 1_000,
  sec: 1_000,
  second: 1_000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  month: 30 * 86_400_000,
};

/**
 * A rate as written in a key's grants or a setting: `100/min`, `5/s`, `50000/day`.
 * @example windowOf("100/min") // { limit: 100, windowMs: 60000 }
 */
export function windowOf(rate: string): RateWindow {
  const checked = RateSchema.parse(rate);
  const [count, unit] = checked.split("/").map((part) => part.trim());
  return { limit: Number(count), windowMs: UNIT_MS[unit!]! };
}

/** `countCall`'s limit for a window the caller does not have (0 is a limit: no call at all). */
export const NO_LIMIT = -1;

/** What a check decided, and what to tell the caller in headers. */
export interface Decision {
  allowed: boolean;
  /** Which limit refused the call. */
  refusedBy?: "rate" | "quota";
  /** When the refusing (else the nearest) window ends. */
  retryAfterMs: number;
  /** `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers). */
  headers: { "ratelimit-policy": string; ratelimit: string };
}

/**
 * KEYS: rate counter, quota counter. ARGV: rate limit, rate window ms, quota limit, quota window
 * ms (a limit of `NO_LIMIT` = none; 0 allows no call: `0/day` suspends a key). Refuses when a
 * counter is at its limit; otherwise counts the call in both. Returns [allowed 0|1, refused by
 * 0|1 (rate)|2 (quota), rate count, quota count].
 */
export const countCall: StoreScript<[number, number, number, number]> = {
  name: "ratelimit.count",
  lua: `
local rl, rw, ql, qw = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local rc = rl >= 0 and tonumber(redis.call('GET', KEYS[1]) or '0') or 0
local qc = ql >= 0 and tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if rl >= 0 and rc >= rl then return {0, 1, rc, qc} end
if ql >= 0 and qc >= ql then return {0, 2, rc, qc} end
if rl >= 0 then rc = redis.call('INCR', KEYS[1]); if rc == 1 then redis.call('PEXPIRE', KEYS[1], rw) end end
if ql >= 0 then qc = redis.call('INCR', KEYS[2]); if qc == 1 then redis.call('PEXPIRE', KEYS[2], qw) end end
return {1, 0, rc, qc}
`,
  memory: (data, [rateKey, quotaKey], [rl, rw, ql, qw]) => {
    const limited = (limit: number) => limit >= 0;
    const count = (key: string, limit: number) => (limited(limit) ? Number(data.get(key) ?? "0") : 0);
    let rc = count(rateKey!, Number(rl));
    let qc = count(quotaKey!, Number(ql));
    if (limited(Number(rl)) && rc >= Number(rl)) return [0, 1, rc, qc];
    if (limited(Number(ql)) && qc >= Number(ql)) return [0, 2, rc, qc];
    const bump = (key: string, windowMs: number) => {
      const next = data.incr(key);
      if (next === 1) data.set(key, "1", { px: windowMs });
      return next;
    };
    if (limited(Number(rl))) rc = bump(rateKey!, Number(rw));
    if (limited(Number(ql))) qc = bump(quotaKey!, Number(qw));
    return [1, 0, rc, qc];
  },
  fromRedis: (reply) => (reply as unknown[]).map(Number) as [number, number, number, number],
};

/** The counter of one window: the identifier, the window's length and which one it is. */
const counterKey = (identifier: string, window: RateWindow, now: number) => `sm:rl:${identifier}:${window.windowMs}:${Math.floor(now / window.windowMs)}`;
const windowEnd = (window: RateWindow, now: number) => (Math.floor(now / window.windowMs) + 1) * window.windowMs;

/**
 * How many calls are counted in the current window of `window` under `identifier`, without
 * counting one (a throttle looks before it lets a request try).
 * @example if ((await usedOf(store, "admin-fail:a_1", { limit: 10, windowMs: 60_000 })) >= 10) refuse()
 */
export async function usedOf(store: Store, identifier: string, window: RateWindow, now = Date.now()): Promise<number> {
  return Number((await store.get(counterKey(identifier, window, now))) ?? 0) || 0;
}

/**
 * Counts one call against a caller's limits (one store round trip), or says it is over them.
 * Undefined when the caller has no limits, or the store cannot answer (the call goes on).
 * @example const decision = await checkLimits(store, { identifier: "k_1", rate: windowOf("100/min") })
 */
export async function checkLimits(store: Store, limits: Limits, now = Date.now()): Promise<Decision | undefined> {
  const { rate, quota } = limits;
  if (!rate && !quota) return undefined;
  let counts: [number, number, number, number];
  try {
    counts = await store.run(
      countCall,
      [rate ? counterKey(limits.identifier, rate, now) : "sm:rl:none", quota ? counterKey(limits.identifier, quota, now) : "sm:rl:none"],
      [rate?.limit ?? NO_LIMIT, rate?.windowMs ?? 0, quota?.limit ?? NO_LIMIT, quota?.windowMs ?? 0],
    );
  } catch (error) {
    console.error("[gateway] rate limits unavailable, letting the call through:", error instanceof Error ? error.message : error);
    return undefined;
  }
  const [allowed, refused, rateCount, quotaCount] = counts;
  const named = [
    ...(rate ? [{ name: "rate" as const, window: rate, used: rateCount }] : []),
    ...(quota ? [{ name: "quota" as const, window: quota, used: quotaCount }] : []),
  ];
  const refusedBy =
    refused === 1 ? "rate"
    : refused === 2 ? "quota"
    : undefined;
  const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
  const resetMs = (window: RateWindow) => windowEnd(window, now) - now;
  const limiting = named.find((n) => n.name === refusedBy) ?? named.reduce((a, b) => (resetMs(a.window) <= resetMs(b.window) ? a : b));
  return {
    allowed: allowed === 1,
    refusedBy,
    retryAfterMs: resetMs(limiting.window),
    headers: {
      "ratelimit-policy": named.map((n) => `"${n.name}";q=${n.window.limit};w=${seconds(n.window.windowMs)}`).join(", "),
      ratelimit: named.map((n) => `"${n.name}";r=${Math.max(0, n.window.limit - n.used)};t=${seconds(resetMs(n.window))}`).join(", "),
    },
  };
}
