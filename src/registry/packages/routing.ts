/**
 * Version routing of Agent Skills packages, by the rules tools are routed by (src/registry/routing): a
 * package's versions are its "deployments" (the stable one, the others canaries), its routing
 * table splits callers by `X-User-Group` and a sticky bucket of the user, and canary, promote
 * and rollback are the same edits — so teams can A/B two versions of a `SKILL.md`.
 */
import { DEFAULT_GROUP, type RoutingTable } from "../deployments/model.js";
import { compareSemver } from "../deployments/semver.js";
import type { EditContext, RoutableDoc } from "../routing/edits.js";
import { type RouteKey, selectVersion } from "../routing/index.js";

/** What routing reads of a package's record (registry.ts's `PackageRecord`). */
export interface RoutedRecord {
  name: string;
  stable: string;
  versions: Record<string, unknown>;
  routes?: RoutingTable | undefined;
}

/** A routing edit (src/registry/routing/edits.ts) of one name in a routable document. */
export type PackageEdit = (doc: RoutableDoc, name: string, ctx: EditContext) => RoutableDoc;

/** A package's routing table: its own, or every caller on the stable version. */
export const routesOf = (record: RoutedRecord): RoutingTable => record.routes ?? { [DEFAULT_GROUP]: { [record.stable]: 100 } };

type RoutedVersion = { name: string; version: string; role: "stable" | "canary" };
// A record's versions in order, worked out once per record object (the isolate's index keeps them).
const ordered = new WeakMap<RoutedRecord, RoutedVersion[]>();

/** A package's versions, newest first, with their roles (as `selectVersion` and the edits take them). */
function versionsOf(record: RoutedRecord): RoutedVersion[] {
  let versions = ordered.get(record);
  if (!versions) {
    versions = Object.keys(record.versions)
      .sort((a, b) => compareSemver(b, a))
      .map((version) => ({ name: record.name, version, role: version === record.stable ? "stable" : "canary" }));
    ordered.set(record, versions);
  }
  return versions;
}

/**
 * The version of a package that answers a caller: by its group's weights and its sticky bucket.
 * @example servedVersionOf(record, { group: "beta", stickyKey: "u1" }) // "1.1.0"
 */
export function servedVersionOf(record: RoutedRecord, key: RouteKey): string {
  if (!record.routes) return record.stable; // never split: every caller on the stable version
  return selectVersion(record.name, versionsOf(record), routesOf(record), key)?.version ?? record.stable;
}

/**
 * The record after a routing edit: its stable version and table as the edit left them, and the
 * edit's event. Throws `RoutingEditError` as the edit does (an unknown version, weights over 100).
 * @example const { record: next } = routed(record, (doc, name, ctx) => setCanary(doc, name, "1.1.0", { beta: 100 }, ctx), { now, by })
 */
export function routed<R extends RoutedRecord>(
  record: R,
  edit: PackageEdit,
  ctx: EditContext,
): { record: R; event: RoutableDoc["events"][number] | undefined } {
  const deployments = Object.fromEntries(versionsOf(record).map((v) => [`${record.name}@${v.version}`, v]));
  const doc = edit({ deployments, routes: { [record.name]: routesOf(record) }, events: [] }, record.name, ctx);
  const stable = Object.values(doc.deployments).find((d) => d.role === "stable")?.version ?? record.stable;
  return { record: { ...record, stable, routes: doc.routes[record.name] ?? routesOf(record) }, event: doc.events[0] };
}
