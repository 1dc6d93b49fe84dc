/**
 * Rules for JSON the gateway accepts from outside and later stores, clones, hashes or forwards:
 * how deep it may nest (deep nesting overflows the recursion of `structuredClone`,
 * `JSON.stringify` and our own walkers), and which strings may be keys of the name-keyed
 * tables (registry, routing) without aliasing an inherited object property.
 */

/** Deepest nesting of params and manifest schemas (objects and arrays), decided once here. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when `value` nests objects or arrays deeper than `maxDepth` (a scalar is depth 0,
 * `[]` is 1). Stops at the first path past the limit, so it never recurses deeper than that.
 * @example exceedsDepth([[1]], 1) // true
 */
export function exceedsDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== "object") return false;
  if (maxDepth <= 0) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    if (exceedsDepth(child, maxDepth - 1)) return true;
  }
  return false;
}

/**
 * True when `key` can name an entry of a plain object without meaning something else: not an
 * inherited property (`__proto__`, `constructor`, `toString`, …) nor `prototype`.
 * @example isPlainKey("beta") // true; isPlainKey("__proto__") // false
 */
export function isPlainKey(key: string): boolean {
  return !(key in Object.prototype) && key !== "prototype";
}

/**
 * The own property `key` of a record, never an inherited one.
 * @example own({ beta: 1 }, "constructor") // undefined
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * The value at `path` inside a parsed JSON value, or undefined where the path leaves it.
 * @example valueAt({ a: [{ b: 1 }] }, ["a", 0, "b"]) // 1
 */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((at, key) => (typeof at === "object" && at !== null ? (at as Record<PropertyKey, unknown>)[key] : undefined), value);
}

/**
 * `JSON.parse`, or undefined for text that is not JSON.
 * @example safeJson("{") // undefined
 */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * JSON with object keys sorted, so `{a,b}` and `{b,a}` serialise alike (request fingerprints,
 * contract hashes, schema comparison).
 * @example canonicalJson({ b: 1, a: [2] }) // '{"a":[2],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as object)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) =>
        a < b ? -1
        : a > b ? 1
        : 0,
      );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}
