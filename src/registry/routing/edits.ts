/**
 * Routing edits: the operator's (or the breaker's) changes of a skill's routing table, as pure functions over the registry document:
 * set a canary's weight per group, promote a version to stable, roll back to stable, or replace
 * the table whole. Each checks its input against the registry and refuses, with the reason,
 * anything that would leave a group not adding up to 100. Each records an event.
 */
import { DEFAULT_GROUP, type Deployment, MAX_EVENTS, type RoutingEvent, type RoutingTable } from "../deployments/model.js";
import { compareSemver } from "../deployments/semver.js";

/**
 * What a routing edit reads and writes: versions with their roles, a routing table per name, and
 * the events. The registry document is one; an Agent Skills package's versions are another
 * (src/registry/packages/routing.ts), so that both follow the same rules.
 */
export interface RoutableDoc {
  deployments: Record<string, { name: string; version: string; role: Deployment["role"] }>;
  routes: Record<string, RoutingTable>;
  events: RoutingEvent[];
}

const versionsOf = <D extends RoutableDoc>(doc: D, name: string) =>
  Object.values(doc.deployments as Record<string, D["deployments"][string]>).filter((d) => d.name === name);

/** A routing edit that cannot be applied; `status` is the HTTP status the admin API answers. */
export class RoutingEditError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message);
    this.name = "RoutingEditError";
  }
}

export interface EditContext {
  now: number;
  /** "admin", or "breaker" for an automatic rollback. */
  by: string;
  reason?: string;
}

function routableVersions(doc: RoutableDoc, skill: string): { stable: string; all: string[] } {
  const deployments = versionsOf(doc, skill);
  if (deployments.length === 0) throw new RoutingEditError(`No skill ${skill} is registered`, 404);
  const routable = deployments.filter((d) => d.role !== "degraded");
  const stable = routable.find((d) => d.role === "stable");
  if (!stable) throw new RoutingEditError(`${skill} has no stable version to route to`);
  return { stable: stable.version, all: routable.map((d) => d.version) };
}

function requireVersion(doc: RoutableDoc, skill: string, version: string): void {
  const known = versionsOf(doc, skill);
  if (known.length === 0) throw new RoutingEditError(`No skill ${skill} is registered`, 404);
  const found = known.find((d) => d.version === version);
  if (!found) {
    throw new RoutingEditError(`${skill} has no version ${version}; registered: ${known.map((d) => d.version).join(", ")}`, 404);
  }
  if (found.role === "degraded") throw new RoutingEditError(`${skill}@${version} is the degraded fallback; it takes no weight`);
}

function withEvent<D extends RoutableDoc>(doc: D, event: RoutingEvent): D {
  doc.events = [event, ...doc.events].slice(0, MAX_EVENTS);
  return doc;
}

/** Checks that every group names only routable versions and adds up to exactly 100. */
export function checkTable(doc: RoutableDoc, skill: string, table: RoutingTable): void {
  const { all } = routableVersions(doc, skill);
  if (!table[DEFAULT_GROUP]) throw new RoutingEditError(`the routing table needs a default group "${DEFAULT_GROUP}"`);
  for (const [group, weights] of Object.entries(table)) {
    for (const [version, weight] of Object.entries(weights)) {
      if (!all.includes(version)) throw new RoutingEditError(`group ${group}: ${skill} has no routable version ${version} (routable: ${all.join(", ")})`);
      if (!Number.isInteger(weight) || weight < 0 || weight > 100)
        throw new RoutingEditError(`group ${group}: weight of ${version} must be a whole percentage 0-100, not ${weight}`);
    }
    const total = Object.values(weights).reduce((a, b) => a + b, 0);
    if (total !== 100) {
      const parts = Object.entries(weights)
        .map(([v, w]) => `${v}=${w}`)
        .join(" + ");
      throw new RoutingEditError(`group ${group}: weights add up to ${total}, not 100 (${parts || "empty"})`);
    }
  }
}

/**
 * Sets a canary's share per group; the stable version takes what is left of each group. Groups
 * not named keep their weights; a new group starts from the default group's table.
 * @example setCanary(doc, "text.summarize", "2.0.0", { beta: 100, "*": 5 }, { now, by: "admin" })
 */
export function setCanary<D extends RoutableDoc>(current: D, skill: string, version: string, groups: Record<string, number>, ctx: EditContext): D {
  requireVersion(current, skill, version);
  const { stable } = routableVersions(current, skill);
  if (version === stable) throw new RoutingEditError(`${skill}@${version} is already the stable version; give weight to a canary, or promote another version`);
  if (Object.keys(groups).length === 0) throw new RoutingEditError("name at least one group, e.g. --group beta=100");
  const doc = structuredClone(current);
  const table: RoutingTable = (doc.routes[skill] ??= { [DEFAULT_GROUP]: { [stable]: 100 } });
  for (const [group, weight] of Object.entries(groups)) {
    if (!Number.isInteger(weight) || weight < 0 || weight > 100)
      throw new RoutingEditError(`group ${group}: the canary's weight must be a whole percentage 0-100, not ${weight}`);
    const weights = (table[group] ??= { ...(table[DEFAULT_GROUP] ?? { [stable]: 100 }) });
    const others = Object.entries(weights).filter(([v]) => v !== version && v !== stable);
    const othersTotal = others.reduce((sum, [, w]) => sum + w, 0);
    if (weight + othersTotal > 100) {
      throw new RoutingEditError(
        `group ${group}: ${version}=${weight} plus the other canaries (${others.map(([v, w]) => `${v}=${w}`).join(", ")}) is ${weight + othersTotal}, over 100; lower those first`,
      );
    }
    weights[version] = weight;
    weights[stable] = 100 - weight - othersTotal;
  }
  checkTable(doc, skill, table);
  const summary = Object.entries(groups)
    .map(([g, w]) => `${g}=${w}`)
    .join(" ");
  return withEvent(doc, { at: ctx.now, skill, type: "canary", version, by: ctx.by, reason: ctx.reason ?? `canary ${version}: ${summary}` });
}

/**
 * The role to show for a deployment (dashboard, `skillmesh status`): its registered role, but
 * `previous` for a canary older than the stable one (`promote` keeps the old stable as a canary
 * at 0%, to go back to).
 * @example shownRoleOf({ role: "canary", version: "1.0.0" }, "2.0.0") // "previous"
 */
export function shownRoleOf<Role extends string = Deployment["role"]>(
  deployment: { role: Role; version: string },
  stableVersion: string | undefined,
): Role | "previous" {
  return deployment.role === "canary" && stableVersion !== undefined && compareSemver(deployment.version, stableVersion) < 0 ? "previous" : deployment.role;
}

/**
 * Makes `version` the stable one at 100% of every group; the old stable stays registered as a
 * canary at 0% (roll forward again by promoting it).
 */
export function promote<D extends RoutableDoc>(current: D, skill: string, version: string, ctx: EditContext): D {
  requireVersion(current, skill, version);
  const doc = structuredClone(current);
  for (const deployment of versionsOf(doc, skill)) {
    if (deployment.role === "degraded") continue;
    deployment.role = deployment.version === version ? "stable" : "canary";
  }
  doc.routes[skill] = Object.fromEntries(
    Object.keys(doc.routes[skill] ?? { [DEFAULT_GROUP]: {} }).map((group) => [
      group,
      Object.fromEntries(routableVersions(doc, skill).all.map((v) => [v, v === version ? 100 : 0])),
    ]),
  );
  return withEvent(doc, { at: ctx.now, skill, type: "promote", version, by: ctx.by, reason: ctx.reason ?? `promoted ${version} to stable` });
}

/**
 * Sends every group back to the stable version: each canary's weight becomes 0. With `version`,
 * only that canary is rolled back (what the breaker does to a failing canary).
 */
export function rollback<D extends RoutableDoc>(current: D, skill: string, ctx: EditContext & { version?: string }): D {
  if (ctx.version) requireVersion(current, skill, ctx.version);
  const { stable } = routableVersions(current, skill);
  const doc = structuredClone(current);
  for (const weights of Object.values(doc.routes[skill] ?? {})) {
    for (const version of Object.keys(weights)) {
      if (version === stable || (ctx.version && version !== ctx.version)) continue;
      weights[stable] = (weights[stable] ?? 0) + weights[version]!;
      weights[version] = 0;
    }
  }
  const what = ctx.version ? `${ctx.version} rolled back` : "every canary rolled back";
  return withEvent(doc, { at: ctx.now, skill, type: "rollback", version: ctx.version, by: ctx.by, reason: ctx.reason ?? `${what} to ${stable}` });
}

/** Replaces the whole routing table after checking it. */
export function replaceRoutes<D extends RoutableDoc>(current: D, skill: string, table: RoutingTable, ctx: EditContext): D {
  checkTable(current, skill, table);
  const doc = structuredClone(current);
  doc.routes[skill] = structuredClone(table);
  return withEvent(doc, { at: ctx.now, skill, type: "routes", by: ctx.by, reason: ctx.reason ?? "routing table replaced" });
}
