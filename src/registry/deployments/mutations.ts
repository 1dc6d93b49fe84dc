/**
 * The registry's rules as pure functions over a `RegistryDoc` (docs/architecture.md, "Registry"):
 * idempotent registration, first version at 100%, new versions at 0%, and what happens to the
 * routing table when a deployment goes away. The repository commits their result atomically.
 */
import { own } from "../../lib/json/index.js";
import type { SkillManifest } from "../../skill/manifest.js";
import { DEFAULT_GROUP, type Deployment, type Endpoint, type RegistryDoc, deploymentId } from "./model.js";
import { manifestChanges } from "./contract.js";
import { compareSemver } from "./semver.js";

export interface RegistrationInput {
  manifest: SkillManifest;
  endpoint: Endpoint;
  registrationId: string;
  ttlSeconds?: number;
  /** The manifest's contract hash (src/registry/deployments/contract.ts), shown in listings. */
  contractHash?: string;
  /** Replace a deployment's definition under the same `name@version` (refused otherwise). */
  force?: boolean;
  /** The operator registers it as a pipeline (it gets delegation tokens). */
  pipeline?: boolean;
}

export interface RegistrationOutcome {
  doc: RegistryDoc;
  deployment: Deployment;
  /** False when the same registration id was already there: nothing changed. */
  changed: boolean;
  /** Set when refused: the same `name@version` is registered with another definition; what differs. */
  conflict?: string[];
}

/**
 * Registers (or re-registers) a deployment. The same registration id twice changes nothing. The
 * first routable version of a skill becomes `stable` at 100% of every group; a later version
 * registers as `canary` at 0%; a `degraded: true` manifest is only the skill's fallback. A new
 * registration of an existing `name@version` (a redeploy) keeps its role and weights — with the
 * same definition: another manifest under the same version is refused unless `force`d.
 * @example const { doc, changed } = applyRegistration(doc, { manifest, endpoint: { binding: "SUM" }, registrationId: "r1" }, Date.now())
 */
export function applyRegistration(current: RegistryDoc, input: RegistrationInput, now: number): RegistrationOutcome {
  const { manifest } = input;
  const id = deploymentId(manifest.name, manifest.version);
  const existing = own(current.deployments, id);
  if (existing && existing.registrationId === input.registrationId) {
    return { doc: current, deployment: existing, changed: false };
  }
  // A version is one definition: callers pinned it. A new definition needs a new version.
  const changes = existing && !input.force ? manifestChanges(existing.manifest, manifest) : [];
  if (changes.length) return { doc: current, deployment: existing!, changed: false, conflict: changes };
  const doc = structuredClone(current);
  const others = versionsOf(doc, manifest.name).filter((d) => d.id !== id && d.role !== "degraded");
  const role =
    manifest.degraded ? "degraded"
    : existing && existing.role !== "degraded" ? existing.role
    : others.length === 0 ? "stable"
    : "canary";

  const deployment: Deployment = {
    id,
    name: manifest.name,
    version: manifest.version,
    tags: manifest.tags,
    manifest,
    endpoint: input.endpoint,
    role,
    registrationId: input.registrationId,
    registeredAt: now,
    ...(input.ttlSeconds ? { ttlSeconds: input.ttlSeconds } : {}),
    ...(input.contractHash ? { contractHash: input.contractHash } : {}),
    ...(input.pipeline ? { pipeline: true as const } : {}),
  };
  doc.deployments[id] = deployment;

  if (role === "stable" && !existing) {
    doc.routes[manifest.name] = { [DEFAULT_GROUP]: { [manifest.version]: 100 } };
  } else if (role === "canary" && !existing) {
    const table = (doc.routes[manifest.name] ??= { [DEFAULT_GROUP]: {} });
    for (const weights of Object.values(table)) weights[manifest.version] ??= 0;
  }
  return { doc, deployment, changed: true };
}

/**
 * Removes deployments (deregistered or expired). Their weights go back to the stable version; if
 * the stable one itself went, the highest remaining version becomes stable and takes the share.
 * @example removeDeployments(doc, ["text.summarize@2.0.0"])
 */
export function removeDeployments(current: RegistryDoc, ids: string[]): RegistryDoc {
  const doc = structuredClone(current);
  const touched = new Set<string>();
  for (const id of ids) {
    const gone = own(doc.deployments, id);
    if (!gone) continue;
    delete doc.deployments[id];
    touched.add(gone.name);
    for (const weights of Object.values(doc.routes[gone.name] ?? {})) delete weights[gone.version];
  }
  for (const name of touched) rebalance(doc, name);
  return doc;
}

/** Restores the invariants of one skill: at most one stable, every group adds up to 100. */
function rebalance(doc: RegistryDoc, name: string): void {
  const routable = versionsOf(doc, name).filter((d) => d.role !== "degraded");
  if (routable.length === 0) {
    delete doc.routes[name];
    return;
  }
  let stable = routable.find((d) => d.role === "stable");
  if (!stable) {
    stable = routable.sort((a, b) => compareSemver(b.version, a.version))[0]!;
    stable.role = "stable";
  }
  const table = (doc.routes[name] ??= { [DEFAULT_GROUP]: {} });
  for (const weights of Object.values(table)) {
    const total = Object.values(weights).reduce((sum, w) => sum + w, 0);
    weights[stable.version] = (weights[stable.version] ?? 0) + Math.max(0, 100 - total);
  }
}

/** Every deployment of one skill, any role. */
export function versionsOf(doc: RegistryDoc, name: string): Deployment[] {
  return Object.values(doc.deployments).filter((d) => d.name === name);
}
