/**
 * Choosing the deployment that answers a call: the caller's group picks a row of the skill's
 * routing table (unknown group → `*`), and a sticky bucket (hash of skill and user key, 0–9999)
 * picks the version. Versions take consecutive bucket ranges, newest first, so raising a canary
 * from 10% to 20% only adds users to it: nobody already on the canary moves off.
 */
import { own } from "../json/index.js";
import { DEFAULT_GROUP, type Deployment } from "../registry/model.js";
import type { SkillEntry } from "../registry/snapshot.js";

export const BUCKETS = 10_000;

/**
 * The sticky bucket of a user for a skill, in [0, 10000). No key: a random bucket.
 * @example bucketOf("text.summarize", "user-42") // always the same number for this pair
 */
export function bucketOf(skill: string, stickyKey: string | undefined): number {
  if (!stickyKey) return Math.floor(Math.random() * BUCKETS);
  return hash32(`${skill}\u0000${stickyKey}`) % BUCKETS;
}

/** FNV-1a over UTF-16 code units, then murmur3's finaliser to spread nearby inputs. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export interface RouteKey {
  /** `X-User-Group`, if any. */
  group?: string;
  /** `X-User-Id`, else the caller key id; undefined = random. */
  stickyKey?: string;
}

/**
 * The deployment that should answer: by the group's weights and the user's bucket. When the
 * weights cover no bucket (a table being edited, all zeros) the stable version answers.
 * Returns undefined when the skill has no routable version.
 * @example selectDeployment(view.skills.get("text.summarize")!, { group: "beta", stickyKey: "u1" })
 */
export function selectDeployment(entry: SkillEntry, key: RouteKey): Deployment | undefined {
  // The group comes from a request header: only a group of the table (an own key) counts.
  const weights = (key.group !== undefined ? own(entry.routes, key.group) : undefined) ?? own(entry.routes, DEFAULT_GROUP) ?? {};
  const bucket = bucketOf(entry.name, key.stickyKey);
  let upper = 0;
  for (const deployment of entry.versions) {
    upper += Math.round((own(weights, deployment.version) ?? 0) * (BUCKETS / 100));
    if (bucket < upper) return deployment;
  }
  return entry.versions.find((d) => d.role === "stable") ?? entry.versions[0];
}
