/**
 * The secrets guardrail: credentials found in what crosses the gateway — a call's arguments, its
 * answer or error, a log or progress message, a stream's chunks — by secretlint's recommended rule
 * set (@secretlint/secretlint-rule-preset-recommend: AWS keys and access key ids, GCP, GitHub,
 * GitLab, npm, Slack, SendGrid, Shopify, Stripe, OpenAI, Anthropic, Linear, 1Password, private
 * keys, basic auth in URLs, database connection strings, …), are redacted (`[REDACTED:<RULE>]`) or
 * refuse the call. What a call is held to is the strictest of what its tool says (a skill's
 * manifest, an upstream's registration) and what the door it came through says (a virtual
 * server's definition): a manifest can only make its own calls stricter. The content path
 * (src/policies/content) decides where it is applied; this module finds and redacts.
 *
 * | mode | arguments with a secret | an answer, error, log, progress or stream with a secret |
 * |---|---|---|
 * | `off` | sent as they are | relayed as they are |
 * | `redact` | sent with each secret replaced | relayed with each secret replaced |
 * | `refuse` | refused (-32602), nothing sent | withheld (-32603), the piece not relayed |
 */
import { type Cover, redactIn, secretsIn } from "./scan.js";
import type { SecretFinding, SecretsMode } from "./schema.js";

export * from "./schema.js";
export { type Cover, redactIn, secretsIn } from "./scan.js";
export { TextStreamGuard } from "./stream.js";

const STRICTNESS: Record<SecretsMode, number> = { off: 0, redact: 1, refuse: 2 };

/**
 * The strictest of the modes given (unset ones are `off`).
 * @example strictestOf("redact", undefined, "refuse") // "refuse"
 */
export function strictestOf(...modes: Array<SecretsMode | undefined>): SecretsMode {
  return modes.reduce<SecretsMode>((strictest, mode) => (mode && STRICTNESS[mode] > STRICTNESS[strictest] ? mode : strictest), "off");
}

/**
 * The secrets in every string of `value` (object keys included), and the value with each one
 * replaced by `[REDACTED:<KIND>]`; `redacted` is `value` itself when nothing was found. A key and
 * its string value are read together (`key: value`), so `{ "aws_secret_access_key": "…" }` is
 * found as a config file's line would be; two other strings never make one secret. A finding's
 * path names keys as redacted, so a secret used as a key is not repeated in it.
 * @example const { findings, redacted } = await scanSecrets({ token: "ghp_…" }) // findings: [{ kind: "GITHUB_TOKEN", path: "token" }]
 */
export async function scanSecrets(value: unknown): Promise<{ findings: SecretFinding[]; redacted: unknown }> {
  const starts: number[] = [];
  let content = "";
  collect(value, (text, keyOfString) => {
    starts.push(content.length);
    content += text + (keyOfString ? KEY_VALUE : SEPARATOR);
  });
  if (!starts.length) return { findings: [], redacted: value };
  const covers = await secretsIn(content);
  if (!covers.length) return { findings: [], redacted: value };
  // Found something (rare): the strings again, to cut the covers into.
  const texts: string[] = [];
  collect(value, (text) => void texts.push(text));
  // Each cover cut into the strings (by their place in the walk) it overlaps; found in the one it starts in.
  const cuts = new Map<number, Cover[]>();
  const found: Array<{ kind: string; index: number }> = [];
  for (const { from, to, kind } of covers) {
    const first = indexAt(starts, from);
    found.push({ kind, index: first });
    for (let index = first; index < texts.length && starts[index]! < to; index++) {
      const cutFrom = Math.max(0, from - starts[index]!);
      const cutTo = Math.min(to - starts[index]!, texts[index]!.length);
      if (cutTo > cutFrom) cuts.set(index, [...(cuts.get(index) ?? []), { from: cutFrom, to: cutTo, kind }]);
    }
  }
  const { redacted, paths } = rebuilt(value, cuts, new Set(found.map((f) => f.index)));
  return { findings: found.map(({ kind, index }) => ({ kind, path: paths.get(index)!.slice(0, 256) })), redacted };
}

/** Each string of a JSON value, and each key before its value, in order (`keyOfString`: a key whose value is a string). */
function collect(value: unknown, add: (text: string, keyOfString: boolean) => void): void {
  if (typeof value === "string") add(value, false);
  else if (Array.isArray(value)) for (const item of value) collect(item, add);
  else if (value && typeof value === "object")
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item = (value as Record<string, unknown>)[key];
      add(key, typeof item === "string");
      collect(item, add);
    }
}

/**
 * `value` with the strings `cuts` names (by their place in `collect`'s order) redacted — a part
 * nothing was cut from is the same object, not a copy — and the path of each string in `wanted`.
 * A key's path is its object's and `#key`; the path of what is under it names the key as redacted.
 */
function rebuilt(value: unknown, cuts: ReadonlyMap<number, Cover[]>, wanted: ReadonlySet<number>): { redacted: unknown; paths: Map<number, string> } {
  const paths = new Map<number, string>();
  const segments: string[] = [];
  const pathNow = () =>
    segments.reduce(
      (path, segment) =>
        segment.startsWith("[") ? path + segment
        : path ? `${path}.${segment}`
        : segment,
      "",
    );
  let index = 0;
  const visit = (item: unknown): unknown => {
    if (typeof item === "string") {
      const at = index++;
      if (wanted.has(at)) paths.set(at, pathNow());
      return cuts.has(at) ? redactIn(item, cuts.get(at)) : item;
    }
    if (Array.isArray(item)) {
      let changed = false;
      const copy = item.map((element, i) => {
        segments.push(`[${i}]`);
        const next = visit(element);
        segments.pop();
        changed ||= next !== element;
        return next;
      });
      return changed ? copy : item;
    }
    if (item && typeof item === "object") {
      let changed = false;
      const copy: Record<string, unknown> = {};
      for (const [key, element] of Object.entries(item)) {
        const at = index++;
        if (wanted.has(at)) paths.set(at, `${pathNow() || "(top)"}#key`);
        const named = cuts.has(at) ? redactIn(key, cuts.get(at)) : key;
        segments.push(named);
        const next = visit(element);
        segments.pop();
        changed ||= named !== key || next !== element;
        copy[named] = next;
      }
      return changed ? copy : item;
    }
    return item;
  };
  return { redacted: visit(value), paths };
}

/** Between two strings of one value: ends any token, so no match spans two unrelated strings. */
const SEPARATOR = "\n\n";
/** Between an object key and its string value: the shape a rule knows from a config file (`aws_secret_access_key: …`). */
const KEY_VALUE = ": ";

/** The index of the string an offset of the joined content falls in (binary search over their starts). */
function indexAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}
