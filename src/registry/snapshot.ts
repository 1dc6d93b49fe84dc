/**
 * A gateway isolate's view of the registry. A call reads the snapshot in memory; at most once
 * per `maxAgeMs` one call polls the store (revision + heartbeat deadlines, one round trip) and
 * only a changed revision reloads the document. When the store is down the last snapshot keeps
 * serving (the rules are src/snapshot's).
 */
import { PolledSnapshot, type SnapshotOptions } from "../snapshot/index.js";
import { own } from "../json/index.js";
import { compareSemver } from "./semver.js";
import type { Deployment, RegistryDoc, RoutingTable } from "./model.js";
import type { RegistryRepository } from "./repository.js";

/** Everything the gateway needs to route one skill. */
export interface SkillEntry {
  name: string;
  /** Routable deployments (stable and canaries), newest version first. */
  versions: Deployment[];
  /** The fallback, if one is registered. */
  degraded?: Deployment;
  routes: RoutingTable;
  /** The capability tags of all its deployments (what tag grants and discovery match). */
  tags: string[];
}

/** An immutable, indexed registry view. */
export class RegistryView {
  readonly skills: ReadonlyMap<string, SkillEntry>;

  constructor(
    readonly rev: number,
    readonly doc: RegistryDoc,
    expired: ReadonlySet<string> = new Set(),
  ) {
    const skills = new Map<string, SkillEntry>();
    const live = Object.values(doc.deployments)
      .filter((d) => !expired.has(d.id))
      .sort((a, b) => compareSemver(b.version, a.version));
    for (const deployment of live) {
      const entry = skills.get(deployment.name) ?? { name: deployment.name, versions: [], routes: own(doc.routes, deployment.name) ?? {}, tags: [] };
      if (deployment.role === "degraded") entry.degraded ??= deployment;
      else entry.versions.push(deployment);
      for (const tag of deployment.tags) if (!entry.tags.includes(tag)) entry.tags.push(tag);
      skills.set(deployment.name, entry);
    }
    this.skills = skills;
  }

  /** Live deployments, every role. */
  deployments(): Deployment[] {
    return [...this.skills.values()].flatMap((s) => (s.degraded ? [...s.versions, s.degraded] : s.versions));
  }
}

/**
 * The registry as one isolate sees it: a `RegistryView`, revalidated by one poll (the revision
 * and the expired heartbeats) at most once per `maxAgeMs`; the document is read again only when
 * the revision moved, and only the view is rebuilt when just the set of expired deployments did.
 */
export class RegistrySnapshot extends PolledSnapshot<{ rev: number; expired: string[] }, RegistryView> {
  constructor(repository: RegistryRepository, options: SnapshotOptions = {}) {
    super(
      {
        poll: (now) => repository.poll(now),
        versionOf: ({ rev, expired }) => `${rev}\n${expired.join("\n")}`,
        load: async ({ rev, expired }, previous) => {
          if (previous && previous.rev === rev) return new RegistryView(previous.rev, previous.doc, new Set(expired));
          const state = await repository.read();
          return new RegistryView(state.rev, state.doc, new Set(expired));
        },
      },
      options,
    );
  }
}
