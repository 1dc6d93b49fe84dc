/**
 * A latency sketch with bounded relative error (DDSketch's log buckets): a latency `ms` is
 * counted in bucket `ceil(log_γ(ms / MIN))` with γ = (1 + α) / (1 − α), and a quantile read from
 * the sketch is within α of the true one (α = `SKETCH_RELATIVE_ERROR`, 2%). Sketches are plain
 * JSON objects of bucket → count, so they add up across isolates and minutes by adding counts
 * (also in the store's Lua, see `addMetrics`) and subtract per bucket.
 *
 * Why not fixed buckets: with 5, 10, 25, 50, 100, 250 ms … one bucket step is a 2–2.5× "ratio",
 * so two versions with the same latency could read as 100 ms against 250 ms.
 */
import { z } from "zod";

/** The most a quantile read from a sketch is off, relative to the true one. */
export const SKETCH_RELATIVE_ERROR = 0.02;
const GAMMA = (1 + SKETCH_RELATIVE_ERROR) / (1 - SKETCH_RELATIVE_ERROR);
const LOG_GAMMA = Math.log(GAMMA);
/** Latencies at or under this (ms) count as 0: bucket "0". */
export const SKETCH_MIN_MS = 0.01;
/** Latencies over this (ms) count as this: keeps the number of buckets bounded (~500). */
export const SKETCH_MAX_MS = 3_600_000;

/** Bucket → count. Bucket "0" holds latencies ≤ `SKETCH_MIN_MS`, bucket i > 0 those in (MIN·γ^(i−1), MIN·γ^i]. */
export const SketchSchema = z.record(z.string().regex(/^\d{1,4}$/), z.number().int().nonnegative());
export type Sketch = z.infer<typeof SketchSchema>;

/**
 * The bucket a latency falls in.
 * @example sketchBucket(0) // "0"
 * @example sketchBucket(100) // "231"
 */
export function sketchBucket(ms: number): string {
  if (!(ms > SKETCH_MIN_MS)) return "0"; // also NaN
  const bounded = Math.min(ms, SKETCH_MAX_MS);
  return String(Math.max(1, Math.ceil(Math.log(bounded / SKETCH_MIN_MS) / LOG_GAMMA)));
}

/** The value a bucket stands for: the point within α of every latency in it. */
const valueOf = (bucket: number) => (bucket === 0 ? 0 : (SKETCH_MIN_MS * 2 * GAMMA ** bucket) / (GAMMA + 1));

/**
 * Counts one latency into a sketch.
 * @example const sketch: Sketch = {}; addLatency(sketch, 42)
 */
export function addLatency(sketch: Sketch, ms: number, n = 1): void {
  const bucket = sketchBucket(ms);
  sketch[bucket] = (sketch[bucket] ?? 0) + n;
}

/** Adds `add`'s counts into `into`. */
export function addSketch(into: Sketch, add: Sketch): void {
  for (const [bucket, n] of Object.entries(add)) into[bucket] = (into[bucket] ?? 0) + n;
}

/**
 * What `later` holds that `earlier` did not, bucket by bucket (never below 0).
 * @example sketchMinus({ "231": 5 }, { "231": 2 }) // { "231": 3 }
 */
export function sketchMinus(later: Sketch, earlier: Sketch): Sketch {
  const left: Sketch = {};
  for (const [bucket, n] of Object.entries(later)) {
    const rest = n - (Object.hasOwn(earlier, bucket) ? earlier[bucket]! : 0);
    if (rest > 0) left[bucket] = rest;
  }
  return left;
}

/** How many latencies a sketch holds. */
export const sketchCount = (sketch: Sketch) => Object.values(sketch).reduce((a, b) => a + b, 0);

/**
 * The `q`-quantile (0…1) of the latencies in a sketch, in ms, within `SKETCH_RELATIVE_ERROR`
 * of the true one (the latency at rank ⌊q·(n−1)⌋ of the sorted latencies); undefined when empty.
 * @example quantileOf(sketch, 0.95) // 99.7
 */
export function quantileOf(sketch: Sketch, q: number): number | undefined {
  const buckets = Object.entries(sketch)
    .filter(([, n]) => n > 0)
    .map(([bucket, n]) => [Number(bucket), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const count = buckets.reduce((a, [, n]) => a + n, 0);
  if (!count) return undefined;
  const rank = Math.floor(q * (count - 1));
  let seen = 0;
  for (const [bucket, n] of buckets) {
    seen += n;
    if (seen > rank) return valueOf(bucket);
  }
  return valueOf(buckets.at(-1)![0]);
}
