/**
 * A skill's contract as callers pin it: what a definition says (name, version, description,
 * schemas, flags). One deployment's manifest can not change under the same `name@version`
 * (issue: silent changes of tool definitions); listings carry a hash of it so a client can pin
 * what it approved.
 */
import { canonicalJson } from "../../lib/json/index.js";
import { sha256Hex } from "../../lib/hash/index.js";
import type { SkillManifest } from "../../skill/manifest.js";

/**
 * The contract hash of a manifest: `sha256:` and the hex digest of its canonical JSON (keys
 * sorted at every depth), so the same definition hashes the same whatever its key order.
 * @example await contractHashOf(manifest) // "sha256:9f86d081…"
 */
export async function contractHashOf(manifest: SkillManifest): Promise<string> {
  return `sha256:${await sha256Hex(canonicalJson(manifest))}`;
}

/**
 * Where two manifests differ, as paths (`inputSchema.properties.text.maxLength: 20000 → 10000`),
 * at most `limit` of them; empty when they are the same definition.
 * @example manifestChanges(old, next) // ["description changed", "outputSchema.required: [\"a\"] → [\"a\",\"b\"]"]
 */
export function manifestChanges(before: unknown, after: unknown, limit = 10): string[] {
  const changes: string[] = [];
  const show = (value: unknown) => (value === undefined ? "(none)" : truncate(canonicalJson(value)));
  const visit = (a: unknown, b: unknown, path: string) => {
    if (changes.length >= limit || canonicalJson(a) === canonicalJson(b)) return;
    const objects = isObject(a) && isObject(b);
    if (!objects) {
      changes.push(typeof a === "string" && typeof b === "string" && (a.length > 40 || b.length > 40) ? `${path} changed` : `${path}: ${show(a)} → ${show(b)}`);
      return;
    }
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) visit(a[key], b[key], path ? `${path}.${key}` : key);
  };
  visit(before, after, "");
  return changes;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
