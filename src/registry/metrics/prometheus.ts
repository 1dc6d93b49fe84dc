/**
 * `GET /admin/metrics` in the Prometheus text format (0.0.4): counters that only grow — calls by
 * skill, version, outcome and error code, a latency histogram, replays, rate-limited and
 * refused requests — kept in the store for every isolate together (added up per isolate and
 * written about once a second after the responses, like src/registry/metrics' windows), and gauges read
 * at scrape time: breaker states and rollouts.
 */
import { z } from "zod";
import type { GuardrailReport } from "../../policies/guardrails/schema.js";
import { safeJson } from "../../lib/json/index.js";
import type { Store, StoreScript } from "../../store/index.js";
import { DelayedFlush } from "../../lib/flush/index.js";
import { METRICS_FLUSH_MS } from "./index.js";

/**
 * Upper bounds (seconds, Prometheus' base unit) of the exported duration histogram's buckets;
 * `+Inf` holds the rest. The observed numbers and the rollout judge read a finer sketch
 * (./sketch.ts); these are for dashboards' `histogram_quantile`.
 */
export const DURATION_BOUNDS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

/**
 * The `le` label of the bucket a duration falls in.
 * @example durationBucket(42) // "0.05"
 */
export function durationBucket(ms: number): string {
  const bound = DURATION_BOUNDS_SECONDS.find((seconds) => ms <= seconds * 1000);
  return bound === undefined ? "+Inf" : String(bound);
}

/** The store key of every counter (a Redis hash; a JSON object on the memory store). */
export const COUNTERS_KEY = "sm:counters";

/** KEYS: counters. ARGV: field, amount, field, amount… Adds each amount to its field. */
export const addCounters: StoreScript<number> = {
  name: "counters.add",
  lua: `
for i = 1, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], tonumber(ARGV[i + 1])) end
return #ARGV / 2
`,
  memory: (data, [key], args) => {
    const counters = JSON.parse(data.get(key!) ?? "{}") as Record<string, number>;
    for (let i = 0; i < args.length; i += 2) counters[args[i]!] = (counters[args[i]!] ?? 0) + Number(args[i + 1]);
    data.set(key!, JSON.stringify(counters));
    return args.length / 2;
  },
  fromRedis: (reply) => Number(reply),
};

/** KEYS: counters. Every field and its count, flat: [field, count, field, count…]. */
export const readCounters: StoreScript<string[]> = {
  name: "counters.read",
  lua: `return redis.call('HGETALL', KEYS[1])`,
  memory: (data, [key]) => Object.entries(JSON.parse(data.get(key!) ?? "{}") as Record<string, number>).flatMap(([field, n]) => [field, String(n)]),
  fromRedis: (reply) => (Array.isArray(reply) ? reply.map(String) : []),
};

/** A counter's field: its family and label values, JSON-encoded (label values may hold anything). */
const FieldSchema = z.tuple([z.string()]).rest(z.string());
type Field = z.output<typeof FieldSchema>;

/** How one call ended, as the pipeline saw it. */
export interface CallRecord {
  /** The skill's name; `(unknown)` for a method that names none (so a scan cannot grow the series). */
  skill: string;
  /** The version that answered, or "" when none did. */
  version: string;
  /** 0 for a result, else the JSON-RPC error code. */
  code: number;
  ms: number;
  replayed: boolean;
  /** What kind of operation: a tool call (or a built-in), or a read, a get, a search (src/gateway/chain/operation.ts). */
  kind: string;
  /** What a guardrail did to it (src/policies/guardrails), if anything. */
  guardrail?: GuardrailReport;
}

/** How many calls' series keep their encoded counter fields per isolate. */
const MAX_KEPT_SERIES = 4096;

/** A call series' counter fields as stored (JSON-encoded), by histogram bucket for the durations. */
interface SeriesKeys {
  calls: string;
  durationSum: string;
  buckets: Record<string, string>;
}

/** Per-isolate counts on their way to the store. */
export class Counters {
  readonly #pending = new Map<string, number>();
  readonly #seriesKeys = new Map<string, SeriesKeys>();
  readonly #later = new DelayedFlush(METRICS_FLUSH_MS, () => this.#flush());

  constructor(private readonly store: Store) {}

  /**
   * Counts one call: its outcome, its latency, a replay, a rate limit.
   * @example counters.call({ skill: "sum", version: "1.0.0", code: 0, ms: 3, replayed: false, kind: "tool" }, ctx.waitUntil)
   */
  call(record: CallRecord, waitUntil: (promise: Promise<unknown>) => void): void {
    const keys = this.#keysOf(record);
    this.#addKey(keys.calls, 1);
    const bucket = durationBucket(record.ms);
    this.#addKey((keys.buckets[bucket] ??= JSON.stringify(["duration", record.skill, record.version, bucket])), 1);
    this.#addKey(keys.durationSum, Math.round(record.ms * 1000));
    if (record.replayed) this.#add(["replays", record.skill], 1);
    if (record.guardrail) {
      const { guardrail, action, findings } = record.guardrail;
      for (const where of new Set(findings.map((f) => f.where))) this.#add(["guardrail", record.skill, guardrail, action, where], 1);
    }
    this.#later.schedule(waitUntil);
  }

  /** Counts a request refused for its credential (401) or its grants (403). */
  refused(status: number, waitUntil: (promise: Promise<unknown>) => void): void {
    this.#add(["refused", String(status)], 1);
    this.#later.schedule(waitUntil);
  }

  /** Every counter, every isolate's, as stored. */
  async read(): Promise<Array<{ field: Field; value: number }>> {
    const flat = await this.store.run(readCounters, [COUNTERS_KEY], []);
    const counters: Array<{ field: Field; value: number }> = [];
    for (let i = 0; i < flat.length; i += 2) {
      const field = FieldSchema.safeParse(safeJson(flat[i]!));
      if (field.success) counters.push({ field: field.data, value: Number(flat[i + 1]) }); // else not one of ours: skipped
    }
    return counters;
  }

  /** A call's counter fields, encoded once per series (a hot path: three JSON encodings per call otherwise). */
  #keysOf({ skill, version, code, kind }: CallRecord): SeriesKeys {
    const series = `${skill}\u0000${version}\u0000${code}\u0000${kind}`;
    let keys = this.#seriesKeys.get(series);
    if (!keys) {
      // Bounded: many skills and versions only cost the encodings again.
      if (this.#seriesKeys.size >= MAX_KEPT_SERIES) this.#seriesKeys.clear();
      keys = {
        calls: JSON.stringify(["calls", skill, version, code === 0 ? "ok" : "error", String(code), kind]),
        durationSum: JSON.stringify(["duration_sum_us", skill, version]),
        buckets: {},
      };
      this.#seriesKeys.set(series, keys);
    }
    return keys;
  }

  #add(field: Field, n: number): void {
    this.#addKey(JSON.stringify(field), n);
  }

  #addKey(key: string, n: number): void {
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + n);
  }

  async #flush(): Promise<void> {
    const batch = [...this.#pending].flat();
    this.#pending.clear();
    if (batch.length)
      await this.store.run(addCounters, [COUNTERS_KEY], batch).catch((error: Error) => console.error("[gateway] could not write counters:", error.message));
  }
}

/** A gauge read at scrape time. */
export interface Gauge {
  name: string;
  help: string;
  samples: Array<{ labels: Record<string, string>; value: number }>;
}

const escape = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const labelsOf = (labels: Record<string, string>) => {
  const parts = Object.entries(labels).map(([name, value]) => `${name}="${escape(value)}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
};

/** Samples of the same series added up, one line each. */
function summed(samples: Array<[string, number]>): string[] {
  const totals = new Map<string, number>();
  for (const [series, value] of samples) totals.set(series, (totals.get(series) ?? 0) + value);
  return [...totals].map(([series, value]) => `${series} ${value}`);
}

/**
 * The text format of the counters and the gauges.
 * @example renderMetrics(await counters.read(), [breakerGauge]) // "# HELP skillmesh_calls_total …"
 */
export function renderMetrics(counters: Array<{ field: Field; value: number }>, gauges: Gauge[]): string {
  const lines: string[] = [];
  const family = (name: string, type: string, help: string, samples: string[]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples);
  };
  const of = (kind: string) => counters.filter((c) => c.field[0] === kind);

  family(
    "skillmesh_calls_total",
    "counter",
    "Operations through the gateway by skill (or upstream, or Agent Skills package), the version that answered, outcome, JSON-RPC error code (0 for a result) and kind (tool, resource, prompt, completion, archive, search, index, task, subscribe, session, discovery).",
    // Counted before kinds were labelled: a tool call's (added to the labelled series, never a second one).
    summed(
      of("calls").map(({ field: [, skill = "", version = "", outcome = "", code = "", kind = "tool"], value }) => [
        `skillmesh_calls_total${labelsOf({ skill, version, outcome, code, kind })}`,
        value,
      ]),
    ),
  );

  // The histogram: cumulative buckets per skill and version, then the sum and the count.
  const histogram: string[] = [];
  const series = new Map<string, { skill: string; version: string; buckets: Map<string, number>; sum: number }>();
  for (const {
    field: [kind, skill = "", version = "", le = ""],
    value,
  } of counters) {
    if (kind !== "duration" && kind !== "duration_sum_us") continue;
    const key = JSON.stringify([skill, version]);
    const entry = series.get(key) ?? { skill, version, buckets: new Map(), sum: 0 };
    series.set(key, entry);
    if (kind === "duration") entry.buckets.set(le, (entry.buckets.get(le) ?? 0) + value);
    else entry.sum += value;
  }
  for (const { skill, version, buckets, sum } of series.values()) {
    let cumulative = 0;
    for (const le of [...DURATION_BOUNDS_SECONDS.map(String), "+Inf"]) {
      cumulative += buckets.get(le) ?? 0;
      histogram.push(`skillmesh_call_duration_seconds_bucket${labelsOf({ skill, version, le })} ${cumulative}`);
    }
    histogram.push(
      `skillmesh_call_duration_seconds_sum${labelsOf({ skill, version })} ${sum / 1e6}`,
      `skillmesh_call_duration_seconds_count${labelsOf({ skill, version })} ${cumulative}`,
    );
  }
  family("skillmesh_call_duration_seconds", "histogram", "How long calls took through the gateway, in seconds.", histogram);

  family(
    "skillmesh_replays_total",
    "counter",
    "Answers replayed for a repeated Idempotency-Key, by skill.",
    of("replays").map(({ field: [, skill = ""], value }) => `skillmesh_replays_total${labelsOf({ skill })} ${value}`),
  );
  family(
    "skillmesh_guardrail_actions_total",
    "counter",
    "Calls a guardrail acted on, by skill, guardrail (secrets), action (redacted, refused) and where it found something (arguments, answer, error, log, progress, stream).",
    of("guardrail").map(
      ({ field: [, skill = "", guardrail = "", action = "", where = ""], value }) =>
        `skillmesh_guardrail_actions_total${labelsOf({ skill, guardrail, action, where })} ${value}`,
    ),
  );
  const rateLimited = of("calls")
    .filter(({ field }) => field[4] === "-32005")
    .reduce((sum, c) => sum + c.value, 0);
  family("skillmesh_rate_limited_total", "counter", "Calls refused by a rate limit or quota (-32005).", [`skillmesh_rate_limited_total ${rateLimited}`]);
  family(
    "skillmesh_refused_total",
    "counter",
    "Requests refused for their credential (401) or grants (403).",
    of("refused").map(({ field: [, status = ""], value }) => `skillmesh_refused_total${labelsOf({ status })} ${value}`),
  );
  for (const gauge of gauges)
    family(
      gauge.name,
      "gauge",
      gauge.help,
      gauge.samples.map(({ labels, value }) => `${gauge.name}${labelsOf(labels)} ${value}`),
    );
  return `${lines.join("\n")}\n`;
}
