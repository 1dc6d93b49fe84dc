/**
 * Finding secrets in one text: secretlint's recommended rule set, each secret with the whole range
 * it covers, and a text with the secrets found replaced by their markers.
 */
import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";

// secretlint times every rule of every scan (performance marks, kept): off, or a scan costs 4x and
// an isolate keeps every mark it ever made.
secretLintProfiler.setEnabled(false);

/**
 * The recommended rule set, with AWS access key ids (`AKIA…`) found too: the AWS rule looks for
 * them only when asked (`enableIDScanRule`), and an access key id is half of a credential pair.
 * The account ids that option also finds are not credentials (and `account: <12 digits>` is
 * everywhere): left alone.
 */
const CONFIG = {
  rules: [
    {
      id: "@secretlint/secretlint-rule-preset-recommend",
      rule: recommended,
      rules: [{ id: "@secretlint/secretlint-rule-aws", options: { enableIDScanRule: true }, allowMessageIds: ["AWSAccountID"] }],
    },
  ],
};

/** One secret found in a text: the characters it covers and the rule that found it. */
export interface Cover {
  from: number;
  to: number;
  kind: string;
}

/**
 * The secrets in one text, each with the whole range it covers. A rule's reported range is not
 * always the secret's (the AWS secret access key rule reports the key name's start with the
 * secret's length); the secret itself, which the rule also reports (`data`), is what is covered
 * when it is found in the text near that range.
 * @example await secretsIn("token ghp_…") // [{ from: 6, to: 46, kind: "GITHUB_TOKEN" }]
 */
export async function secretsIn(content: string): Promise<Cover[]> {
  if (!content) return [];
  const { messages } = await lintSource({
    source: { content, filePath: "/call.txt", contentType: "text" },
    options: { config: CONFIG, noPhysicFilePath: true },
  });
  return messages.map((message) => {
    const [start, end] = message.range;
    const kind = message.messageId.replace(/[^A-Z0-9_]/gi, "_").toUpperCase();
    const said = Object.values((message as { data?: Record<string, unknown> }).data ?? {}).filter(
      (value): value is string => typeof value === "string" && value.length >= 8,
    );
    const found = said.flatMap((value) => {
      // Where the rule's own value lies, looked for from a little before the reported range.
      const at = content.indexOf(value, Math.max(0, start - value.length));
      return at >= 0 && at <= end ? [{ from: at, to: at + value.length }] : [];
    });
    if (!found.length) return { from: start, to: end, kind };
    return { from: Math.min(...found.map((f) => f.from)), to: Math.max(...found.map((f) => f.to)), kind };
  });
}

/**
 * `text` with each cover replaced by its marker (covers that overlap, two rules finding one secret, are one).
 * @example redactIn("use ghp_… now", [{ from: 4, to: 44, kind: "GITHUB_TOKEN" }]) // "use [REDACTED:GITHUB_TOKEN] now"
 */
export function redactIn(text: string, covers: readonly Cover[] | undefined): string {
  if (!covers?.length) return text;
  const merged: Cover[] = [];
  for (const cover of [...covers].sort((a, b) => a.from - b.from)) {
    const last = merged.at(-1);
    if (last && cover.from < last.to) last.to = Math.max(last.to, cover.to);
    else merged.push({ ...cover });
  }
  let out = "";
  let at = 0;
  for (const { from, to, kind } of merged) {
    out += `${text.slice(at, from)}[REDACTED:${kind}]`;
    at = to;
  }
  return out + text.slice(at);
}
