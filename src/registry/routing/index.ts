/**
 * Choosing the deployment that answers a call: the caller's group picks a row of the skill's
 * routing table (unknown group → `*`), and a sticky bucket (hash of skill and user key, 0–9999)
 * picks the version. Versions take consecutive bucket ranges, newest first, so raising a canary
 * from 10% to 20% only adds users to it: nobody already on the canary moves off.
 */
import { own } from "../../lib/json/index.js";
import { DEFAULT_GROUP, type Deployment, type RoutingTable } from "../deployments/model.js";
import type { ToolEntry } from "../deployments/snapshot.js";

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
 * The route key of a caller: its group, and its user id (`X-User-Id`), else its key id, as the
 * sticky key (an anonymous caller without a user id lands in a random bucket each time).
 * @example routeKeyOf({ userId: "u1", group: "beta", caller: "k_1" }) // { group: "beta", stickyKey: "u1" }
 */
export function routeKeyOf(context: { userId?: string; group?: string; caller: string }): RouteKey {
  return { group: context.group, stickyKey: context.userId ?? (context.caller !== "anonymous" ? context.caller : undefined) };
}

/**
 * The deployment that should answer: by the group's weights and the user's bucket. When the
 * weights cover no bucket (a table being edited, all zeros) the stable version answers.
 * Returns undefined when the skill has no routable version.
 * @example selectDeployment(view.tools.get("text.summarize")!, { group: "beta", stickyKey: "u1" })
 */
export function selectDeployment(entry: ToolEntry, key: RouteKey): Deployment | undefined {
  return selectVersion(entry.name, entry.versions, entry.routes, key);
}

/**
 * The deployment a caller's call goes to first: the routed one, else the degraded fallback (a
 * skill whose every version is gone but its fallback); undefined when there is neither.
 * @example routedDeployment(entry, scope.routeKey)?.id // "text.summarize@2.0.0"
 */
export function routedDeployment(entry: ToolEntry, key: RouteKey): Deployment | undefined {
  return selectDeployment(entry, key) ?? entry.degraded;
}

/**
 * The rule of `selectDeployment` for anything versioned by a routing table (a skill's
 * deployments, an Agent Skills package's versions): `versions` newest first, one of them stable.
 * @example selectVersion("modbus-triage", [{ version: "1.1.0", role: "canary" }, { version: "1.0.0", role: "stable" }], routes, { group: "beta", stickyKey: "u1" })
 */
export function selectVersion<V extends { version: string; role: string }>(
  name: string,
  versions: readonly V[],
  routes: RoutingTable,
  key: RouteKey,
): V | undefined {
  // The group comes from a request header: only a group of the table (an own key) counts.
  const weights = (key.group !== undefined ? own(routes, key.group) : undefined) ?? own(routes, DEFAULT_GROUP) ?? {};
  const bucket = bucketOf(name, key.stickyKey);
  let upper = 0;
  for (const candidate of versions) {
    upper += Math.round((own(weights, candidate.version) ?? 0) * (BUCKETS / 100));
    if (bucket < upper) return candidate;
  }
  return versions.find((v) => v.role === "stable") ?? versions[0];
}
