/**
 * The secrets guardrail: credentials found in a tool call's arguments or in its answer, by
 * secretlint's recommended rule set (@secretlint/secretlint-rule-preset-recommend: AWS, GCP,
 * GitHub, npm, Slack, SendGrid, Shopify, OpenAI, Anthropic, Linear, 1Password, private keys, basic
 * auth in URLs, database connection strings, …), are redacted (`[REDACTED:<RULE>]`) or refuse the
 * call. What a call is held to is the strictest of what its tool says (a skill's manifest, an
 * upstream's registration) and what the door it came through says (a virtual server's definition):
 * a manifest can only make its own calls stricter.
 *
 * | mode | arguments with a secret | an answer with a secret |
 * |---|---|---|
 * | `off` | sent as they are | answered as it is |
 * | `redact` | sent with each secret replaced | answered with each secret replaced |
 * | `refuse` | refused (-32602), nothing sent | withheld (-32603) |
 */
import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretFinding, SecretsMode } from "./schema.js";

export * from "./schema.js";

const STRICTNESS: Record<SecretsMode, number> = { off: 0, redact: 1, refuse: 2 };

/**
 * The strictest of the modes given (unset ones are `off`).
 * @example strictestOf("redact", undefined, "refuse") // "refuse"
 */
export function strictestOf(...modes: Array<SecretsMode | undefined>): SecretsMode {
  return modes.reduce<SecretsMode>((strictest, mode) => (mode && STRICTNESS[mode] > STRICTNESS[strictest] ? mode : strictest), "off");
}

// secretlint times every rule of every scan (performance marks, kept): off, or a scan costs 4x and
// an isolate keeps every mark it ever made.
secretLintProfiler.setEnabled(false);

const CONFIG = { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommended }] };
/** Between two strings of one value: ends any token, so no match spans two strings. */
const SEPARATOR = "\n\n";

/**
 * The secrets in every string of `value` (object keys included), and the value with each one
 * replaced by `[REDACTED:<KIND>]`; `redacted` is `value` itself when nothing was found. A finding's
 * path names keys as redacted, so a secret used as a key is not repeated in it.
 * @example const { findings, redacted } = await scanSecrets({ token: "ghp_…" }) // findings: [{ kind: "GITHUB_TOKEN", path: "token" }]
 */
export async function scanSecrets(value: unknown): Promise<{ findings: SecretFinding[]; redacted: unknown }> {
  const texts: string[] = [];
  const starts: number[] = [];
  let length = 0;
  walk(value, "", (text) => {
    texts.push(text);
    starts.push(length);
    length += text.length + SEPARATOR.length;
    return text;
  });
  if (!texts.length) return { findings: [], redacted: value };
  const content = texts.join(SEPARATOR);
  const { messages } = await lintSource({
    source: { content, filePath: "/call.txt", contentType: "text" },
    options: { config: CONFIG, noPhysicFilePath: true },
  });
  if (!messages.length) return { findings: [], redacted: value };
  // Each finding's range, cut to the string (by its place in the walk) it starts in.
  const cuts = new Map<number, Cut[]>();
  const found: Array<{ kind: string; index: number }> = [];
  for (const message of messages) {
    const [start, end] = message.range;
    const index = indexAt(starts, start);
    const from = start - starts[index]!;
    const to = Math.min(end - starts[index]!, texts[index]!.length);
    const kind = message.messageId.replace(/[^A-Z0-9_]/gi, "_").toUpperCase();
    found.push({ kind, index });
    cuts.set(index, [...(cuts.get(index) ?? []), { from, to, kind }]);
  }
  const paths: string[] = [];
  const redacted = walk(value, "", (text, path) => {
    paths.push(path);
    return redact(text, cuts.get(paths.length - 1));
  });
  return { findings: found.map(({ kind, index }) => ({ kind, path: paths[index]!.slice(0, 256) })), redacted };
}

interface Cut {
  from: number;
  to: number;
  kind: string;
}

/**
 * A copy of a JSON value with each string, and each key before its value, replaced by
 * `change(text, path)`: the same order every time. A key's path is its object's and `#key`; the
 * path of what is under it names the key as changed.
 */
function walk(value: unknown, path: string, change: (text: string, path: string) => string): unknown {
  if (typeof value === "string") return change(value, path);
  if (Array.isArray(value)) return value.map((item, i) => walk(item, `${path}[${i}]`, change));
  if (value && typeof value === "object") {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const named = change(key, `${path || "(top)"}#key`);
      copy[named] = walk(item, path ? `${path}.${named}` : named, change);
    }
    return copy;
  }
  return value;
}

/** `text` with each cut replaced by its marker (cuts that overlap, two rules finding one secret, are one). */
function redact(text: string, cuts: Cut[] | undefined): string {
  if (!cuts) return text;
  const merged: Cut[] = [];
  for (const cut of [...cuts].sort((a, b) => a.from - b.from)) {
    const last = merged.at(-1);
    if (last && cut.from < last.to) last.to = Math.max(last.to, cut.to);
    else merged.push({ ...cut });
  }
  let out = "";
  let at = 0;
  for (const { from, to, kind } of merged) {
    out += `${text.slice(at, from)}[REDACTED:${kind}]`;
    at = to;
  }
  return out + text.slice(at);
}

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
