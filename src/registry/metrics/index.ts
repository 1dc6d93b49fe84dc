/**
 * Each deployment's observed numbers — calls, errors, latency — measured off the response path:
 * every forwarded attempt is added up in the isolate, and the sums are written about once a
 * second after the responses (`waitUntil`), one store script per deployment and minute. Readers
 * add up the last minutes (`OBSERVED_WINDOWS`) of every isolate's sums: calls, error rate, and
 * p50/p95 from a latency sketch within 2% of the true quantiles (./sketch.ts). A failure is what the breaker counts as one (the
 * skill's fault, not the caller's input); a call its caller cut short is not counted at all.
 */
import { z } from "zod";
import { DelayedFlush } from "../../lib/flush/index.js";
import { safeJson } from "../../lib/json/index.js";
import { errorText } from "../../protocols/jsonrpc/index.js";
import { type Store, type StoreScript, mgetInBatches } from "../../store/index.js";
import { SketchSchema, addLatency, addSketch, quantileOf, sketchMinus } from "./sketch.js";
/** One stored window. */
export const METRICS_WINDOW_MS = 60_000;
/** How many recent windows the observed numbers cover (15 minutes). */
export const OBSERVED_WINDOWS = 15;
/** How many windows are kept: the dashboard's charts show the last hour. */
export const HISTORY_WINDOWS = 60;
/** How long an isolate adds up before it writes. */
export const METRICS_FLUSH_MS = 1_000;
/** How long a read of the observed numbers is reused by an isolate. */
export const OBSERVED_CACHE_MS = 5_000;

/** Callers a window names, each with its own sums; more are added up under `OTHER_CALLERS`, which never counts as one caller. */
export const MAX_NAMED_CALLERS = 16;
export const OTHER_CALLERS = "(others)";

const SumsSchema = z.object({
  calls: z.number(),
  errors: z.number(),
  /** A window written before the sketch (fixed buckets, an array) reads as one without latencies. */
  latency: SketchSchema.catch({}),
});

export const TallySchema = SumsSchema.extend({
  /** The same sums per caller (who the breaker charges: a key id, a bearer's hash, an address id), so that no single caller decides a rollout. */
  callers: z.record(z.string(), SumsSchema).default({}),
});
/** A tally: sums of calls, failures and the latency sketch (one minute's, or added up), in all and per caller. */
export type Tally = z.infer<typeof TallySchema>;
type Sums = z.infer<typeof SumsSchema>;

/** What was observed of a deployment (or a skill's deployments together) over the recent windows. */
export const ObservedSchema = z.object({
  calls: z.number(),
  /** Failed calls / calls (0 when there were none). */
  errorRate: z.number(),
  /** The median and the 95th percentile (ms, within 2% of the true ones), when there were calls. */
  p50Ms: z.number().optional(),
  p95Ms: z.number().optional(),
  /** The span the numbers cover. */
  windowMs: z.number(),
});
export type Observed = z.infer<typeof ObservedSchema>;

const emptySums = (): Sums => ({ calls: 0, errors: 0, latency: {} });
const emptyTally = (): Tally => ({ ...emptySums(), callers: {} });

/** Adds `add` into `into` (calls, errors, the latency sketch). */
function addInto(into: Sums, add: Sums): void {
  into.calls += add.calls;
  into.errors += add.errors;
  addSketch(into.latency, add.latency);
}

/** The caller's sums in a window (created, or the others' when the window names as many callers as it may). */
function callerSums(window: Tally, caller: string, most = MAX_NAMED_CALLERS): Sums {
  const named = Object.hasOwn(window.callers, caller) ? window.callers[caller] : undefined;
  if (named) return named;
  const who = Object.keys(window.callers).filter((c) => c !== OTHER_CALLERS).length >= most ? OTHER_CALLERS : caller;
  return (window.callers[who] ??= emptySums());
}

/** The store key of a deployment's window starting at `start`. */
export const metricsKey = (deploymentId: string, start: number) => `sm:observed:${deploymentId}:${start}`;

/**
 * KEYS: window. ARGV: ttl ms, the JSON sums to add, the most callers a window names. Adds them to
 * the window's sums, and each caller's to its own (or the others', past the named ones).
 */
export const addMetrics: StoreScript<number> = {
  name: "metrics.add",
  lua: `
local raw = redis.call('GET', KEYS[1])
local add = cjson.decode(ARGV[2])
local most = tonumber(ARGV[3])
local sums = raw and cjson.decode(raw) or { calls = 0, errors = 0, latency = {} }
local function into(target, more)
  target.calls = target.calls + more.calls
  target.errors = target.errors + more.errors
  for bucket, n in pairs(more.latency) do target.latency[bucket] = (target.latency[bucket] or 0) + n end
end
into(sums, add)
if type(sums.callers) ~= 'table' then sums.callers = {} end
for caller, more in pairs(add.callers or {}) do
  local target = sums.callers[caller]
  if not target then
    local named = 0
    for who in pairs(sums.callers) do if who ~= '${OTHER_CALLERS}' then named = named + 1 end end
    if named >= most then caller = '${OTHER_CALLERS}' end
    target = sums.callers[caller]
    if not target then target = { calls = 0, errors = 0, latency = {} }; sums.callers[caller] = target end
  end
  into(target, more)
end
if next(sums.callers) == nil then sums.callers = nil end
redis.call('SET', KEYS[1], cjson.encode(sums), 'PX', tonumber(ARGV[1]))
return sums.calls
`,
  memory: (data, [key], [ttl, json, most]) => {
    const add = TallySchema.parse(JSON.parse(json!));
    const current = TallySchema.safeParse(safeJson(data.get(key!) ?? ""));
    const sums = current.success ? current.data : emptyTally();
    addInto(sums, add);
    for (const [caller, more] of Object.entries(add.callers)) addInto(callerSums(sums, caller, Number(most)), more);
    data.set(key!, JSON.stringify(sums), { px: Number(ttl) });
    return sums.calls;
  },
  fromRedis: (reply) => Number(reply),
};

/** Windows added together (their callers too: across windows, a caller named in one is named in the sum). */
export function sumOf(windows: Tally[]): Tally {
  const sum = emptyTally();
  for (const w of windows) {
    addInto(sum, w);
    for (const [caller, sums] of Object.entries(w.callers)) addInto((sum.callers[caller] ??= emptySums()), sums);
  }
  return sum;
}

const less = (later: Sums, earlier: Sums | undefined): Sums =>
  earlier ?
    {
      calls: Math.max(0, later.calls - earlier.calls),
      errors: Math.max(0, later.errors - earlier.errors),
      latency: sketchMinus(later.latency, earlier.latency),
    }
  : later;

/**
 * What `later` added to `earlier` (sums of the same windows read at two moments), per caller too.
 * @example minus(totalsNow, totalsAtStepStart) // the calls of the step alone
 */
export function minus(later: Tally, earlier: Tally | undefined): Tally {
  if (!earlier) return later;
  const callers = Object.fromEntries(
    Object.entries(later.callers).map(([caller, sums]) => [caller, less(sums, Object.hasOwn(earlier.callers, caller) ? earlier.callers[caller] : undefined)]),
  );
  return { ...less(later, earlier), callers };
}

/**
 * A window without the callers who could decide on their own what it says: the caller with the
 * most calls (whose successes could carry a bad version) and the one with the most failures
 * (whose failures could sink a good one). The breaker's rule (src/policies/breaker): no single caller
 * decides. The others' sum is never left out: it is many callers.
 * @example withoutDeciders(step).excluded // ["k_0123456789ab"]
 */
export function withoutDeciders(window: Tally): { window: Tally; excluded: string[] } {
  const named = Object.entries(window.callers).filter(([caller]) => caller !== OTHER_CALLERS);
  /** The named caller with the most of `count` (none when nobody has any). */
  const top = (count: (sums: Sums) => number): string | undefined => {
    let best: [string, number] | undefined;
    for (const [caller, sums] of named) if (count(sums) > (best?.[1] ?? 0)) best = [caller, count(sums)];
    return best?.[0];
  };
  const excluded = [...new Set([top((s) => s.calls), top((s) => s.errors)])].filter((caller): caller is string => caller !== undefined);
  if (!excluded.length) return { window, excluded };
  let left: Sums = window;
  for (const caller of excluded) left = less(left, window.callers[caller]);
  const callers = Object.fromEntries(Object.entries(window.callers).filter(([caller]) => !excluded.includes(caller)));
  return { window: { ...left, callers }, excluded };
}

/** A quantile as shown: four significant digits (0.05% more error at most). */
const shown = (ms: number) => Number(ms.toPrecision(4));

/**
 * The observed numbers of windows added together.
 * @example observedOf([window1, window2]) // { calls: 40, errorRate: 0.05, p50Ms: 24.6, p95Ms: 251.3, windowMs: 900000 }
 */
export function observedOf(windows: Tally[]): Observed {
  const sum = sumOf(windows);
  const observed: Observed = { calls: sum.calls, errorRate: sum.calls ? sum.errors / sum.calls : 0, windowMs: OBSERVED_WINDOWS * METRICS_WINDOW_MS };
  const p50 = quantileOf(sum.latency, 0.5);
  const p95 = quantileOf(sum.latency, 0.95);
  return p50 === undefined || p95 === undefined ? observed : { ...observed, p50Ms: shown(p50), p95Ms: shown(p95) };
}

/** The start of the window `t` falls in. */
const minuteOf = (t: number) => t - (t % METRICS_WINDOW_MS);
/** `count` window starts from `first`, oldest first. */
const minutesFrom = (first: number, count: number) => Array.from({ length: count }, (_, i) => first + i * METRICS_WINDOW_MS);
/** The windows that exist (a missing or unreadable one counts as no calls). */
const present = (windows: Array<Tally | undefined>) => windows.filter((w): w is Tally => w !== undefined);

/** Per-isolate sums on their way to the store, and a short cache of what was read back. */
export class MetricsBoard {
  readonly #pending = new Map<string, Tally>();
  readonly #later = new DelayedFlush(METRICS_FLUSH_MS, () => this.#flush());
  readonly #cache = new Map<string, { at: number; windows: Tally[] }>();

  constructor(private readonly store: Store) {}

  /**
   * Adds one forwarded attempt; the sums are written within about a second, after the response.
   * @example metrics.record("text.summarize@2.0.0", true, 42, "k_0123456789ab", scope.waitUntil)
   */
  record(deploymentId: string, ok: boolean, ms: number, caller: string, waitUntil: (promise: Promise<unknown>) => void, now = Date.now()): void {
    const key = metricsKey(deploymentId, minuteOf(now));
    let window = this.#pending.get(key);
    if (!window) this.#pending.set(key, (window = emptyTally()));
    for (const sums of [window, callerSums(window, caller)]) {
      sums.calls++;
      if (!ok) sums.errors++;
      addLatency(sums.latency, ms);
    }
    this.#later.schedule(waitUntil);
  }

  async #flush(): Promise<void> {
    const batch = [...this.#pending];
    this.#pending.clear();
    const ttl = (HISTORY_WINDOWS + 1) * METRICS_WINDOW_MS;
    await Promise.all(
      batch.map(([key, sums]) =>
        this.store
          .run(addMetrics, [key], [ttl, JSON.stringify(sums), MAX_NAMED_CALLERS])
          .catch((error) => console.error(`[gateway] could not write metrics ${key}:`, errorText(error))),
      ),
    );
  }

  /** Each deployment's stored window at each start (undefined where none, or unreadable), one row per id. */
  async #read(ids: string[], starts: number[]): Promise<Array<Array<Tally | undefined>>> {
    const raws = await mgetInBatches(
      this.store,
      ids.flatMap((id) => starts.map((start) => metricsKey(id, start))),
    );
    return ids.map((_, n) =>
      raws.slice(n * starts.length, (n + 1) * starts.length).map((raw) => {
        const parsed = raw === null ? undefined : TallySchema.safeParse(safeJson(raw));
        return parsed?.success ? parsed.data : undefined;
      }),
    );
  }

  /**
   * Each deployment's sums since `from` (minute windows: the one `from` falls in counts whole;
   * subtract what it held at `from` for an exact start), read fresh from the store; at most the
   * stored hour. What a rollout judges a step by.
   * @example const { "sum@2.0.0": sums } = await metrics.totals(["sum@2.0.0"], stepStartedAt, Date.now())
   */
  async totals(ids: string[], from: number, now = Date.now()): Promise<Record<string, Tally>> {
    const current = minuteOf(now);
    const first = Math.max(minuteOf(from), current - (HISTORY_WINDOWS - 1) * METRICS_WINDOW_MS);
    const rows = await this.#read(ids, minutesFrom(first, (current - first) / METRICS_WINDOW_MS + 1));
    return Object.fromEntries(ids.map((id, n) => [id, sumOf(present(rows[n]!))]));
  }

  /**
   * Each deployment's minutes of the last hour, oldest first (a minute without calls is empty):
   * what the dashboard charts.
   * @example const { "sum@1.0.0": minutes } = await metrics.history(["sum@1.0.0"])
   */
  async history(ids: string[], now = Date.now()): Promise<Record<string, Array<Observed & { start: number }>>> {
    const starts = minutesFrom(minuteOf(now) - (HISTORY_WINDOWS - 1) * METRICS_WINDOW_MS, HISTORY_WINDOWS);
    const rows = await this.#read(ids, starts);
    return Object.fromEntries(
      ids.map((id, n) => [id, starts.map((start, i) => ({ ...observedOf(present([rows[n]![i]])), windowMs: METRICS_WINDOW_MS, start }))]),
    );
  }

  /**
   * The observed numbers of each group of deployments (e.g. one deployment, or every version of
   * a skill), from the recent windows of every isolate; reads are reused for a few seconds.
   * @example const observed = await metrics.observed({ "sum@1.0.0": ["sum@1.0.0"] })
   */
  async observed(groups: Record<string, string[]>, now = Date.now()): Promise<Record<string, Observed>> {
    const ids = [...new Set(Object.values(groups).flat())];
    const stale = ids.filter((id) => (this.#cache.get(id)?.at ?? -Infinity) < now - OBSERVED_CACHE_MS);
    if (stale.length) {
      const rows = await this.#read(stale, minutesFrom(minuteOf(now) - (OBSERVED_WINDOWS - 1) * METRICS_WINDOW_MS, OBSERVED_WINDOWS));
      stale.forEach((id, n) => this.#cache.set(id, { at: now, windows: present(rows[n]!) }));
    }
    return Object.fromEntries(Object.entries(groups).map(([name, members]) => [name, observedOf(members.flatMap((id) => this.#cache.get(id)?.windows ?? []))]));
  }
}
