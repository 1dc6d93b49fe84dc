/**
 * A gateway isolate's view of the registry. A call reads the view in memory; at most once per
 * `maxAgeMs` one call polls the store (revision, expired heartbeats and the skills changed since
 * the view's revision: one round trip), and a change reads only the skills that changed and
 * rebuilds only their entries, in place. When the store is down the last view keeps serving (the rules
 * are src/lib/snapshot's).
 */
import { PolledSnapshot, type SnapshotOptions } from "../../lib/snapshot/index.js";
import { compareSemver } from "./semver.js";
import { type Deployment, type RoutingTable, type SkillDoc, compareNames, skillOf } from "./model.js";
import type { RegistryRepository } from "./repository.js";
import type { RegistryPoll } from "./scripts.js";
import { SkillNameSchema } from "../../skill/manifest.js";

/** Everything the gateway needs to route one tool (a skill Worker's or a federated one): its deployments, fallback and routes. */
export interface ToolEntry {
  name: string;
  /** Routable deployments (stable and canaries), newest version first. */
  versions: Deployment[];
  /** The fallback, if one is registered. */
  degraded?: Deployment;
  routes: RoutingTable;
  /** The capability tags of all its deployments (what tag grants and discovery match). */
  tags: string[];
}

/** The routing entry of one stored skill, without its expired deployments; undefined when none is live. */
function entryOf(name: string, skill: SkillDoc | undefined, expired: ReadonlySet<string>): ToolEntry | undefined {
  if (!skill) return undefined;
  const live = Object.values(skill.deployments)
    .filter((d) => !expired.has(d.id))
    .sort((a, b) => compareSemver(b.version, a.version));
  if (!live.length) return undefined;
  const entry: ToolEntry = { name, versions: [], routes: skill.routes ?? {}, tags: [] };
  for (const deployment of live) {
    if (deployment.role === "degraded") entry.degraded ??= deployment;
    else entry.versions.push(deployment);
    for (const tag of deployment.tags) if (!entry.tags.includes(tag)) entry.tags.push(tag);
  }
  return entry;
}

/**
 * The registry as an isolate sees it, indexed for calls. It is updated in place — at 10,000
 * skills copying its maps took milliseconds per change — so a change costs what changed; caches
 * derived from it (the catalog, the tag index) key on `generation`, which is new whenever an
 * entry changed.
 */
export class RegistryView {
  /** Live tools by name. */
  readonly tools = new Map<string, ToolEntry>();
  /** The names of `tools`, in code-unit order (replaced, never edited, when it changes). */
  names: readonly string[] = [];
  /** Deployments whose heartbeat deadline has passed. */
  expired: ReadonlySet<string> = new Set();
  /** Every skill as stored, expired deployments included. */
  readonly #stored = new Map<string, SkillDoc>();
  #generation: object = {};
  #deployments: Deployment[] | undefined;

  private constructor(public rev: number) {}

  /** A token for caches derived from the entries: a new one whenever an entry changed. */
  get generation(): object {
    return this.#generation;
  }

  /**
   * A view of stored skills.
   * @example RegistryView.of(3, new Map([["s", skillDoc]]), new Set())
   */
  static of(rev: number, stored: ReadonlyMap<string, SkillDoc | undefined>, expired: ReadonlySet<string>): RegistryView {
    return new RegistryView(rev).apply(rev, stored, expired);
  }

  /**
   * Applies changed skills (undefined: removed) and the current set of expired deployments: only
   * those skills' entries are rebuilt.
   * @example view.apply(8, new Map([["s", undefined]]), new Set())
   */
  apply(rev: number, changed: ReadonlyMap<string, SkillDoc | undefined>, expired: ReadonlySet<string>): this {
    const touched = new Set(changed.keys());
    for (const id of expired) if (!this.expired.has(id)) touched.add(skillOf(id));
    for (const id of this.expired) if (!expired.has(id)) touched.add(skillOf(id));
    this.rev = rev;
    this.expired = expired;
    if (!touched.size) return this;

    const added: string[] = [];
    let removed = false;
    for (const name of touched) {
      const skill = changed.has(name) ? changed.get(name) : this.#stored.get(name);
      if (skill) this.#stored.set(name, skill);
      else this.#stored.delete(name);
      const entry = entryOf(name, skill, expired);
      if (entry && !this.tools.has(name)) added.push(name);
      if (!entry && this.tools.has(name)) removed = true;
      if (entry) this.tools.set(name, entry);
      else this.tools.delete(name);
    }
    if (removed) this.names = this.names.filter((name) => this.tools.has(name));
    if (added.length) this.names = mergeSorted(this.names, added.sort(compareNames));
    this.#generation = {};
    this.#deployments = undefined;
    return this;
  }

  /** Live deployments, every role. */
  deployments(): Deployment[] {
    return (this.#deployments ??= [...this.tools.values()].flatMap((s) => (s.degraded ? [...s.versions, s.degraded] : s.versions)));
  }
}

/** Two sorted lists as one (linear: no re-sort of thousands of names for one new skill). */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(compareNames(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** A poll, with the view it was taken against (the changes are relative to its revision). */
type PolledRegistry = RegistryPoll & { base: RegistryView | undefined };

/**
 * The registry as one isolate sees it: a `RegistryView`, revalidated by one poll at most once
 * per `maxAgeMs`; a changed revision reads only the skills written since the view's revision.
 */
export class RegistrySnapshot extends PolledSnapshot<PolledRegistry, RegistryView> {
  readonly #now: () => number;

  constructor(
    private readonly repository: RegistryRepository,
    options: SnapshotOptions = {},
  ) {
    super(
      {
        poll: async (now, base) => ({ ...(await repository.poll(now, base?.rev ?? 0)), base }),
        versionOf: ({ rev, expired }) => `${rev}\n${expired.join("\n")}`,
        load: async ({ rev, expired, changed, base }) => {
          const skills = changed.length ? await repository.readSkills(changed) : new Map<string, SkillDoc | undefined>();
          return base ? base.apply(rev, skills, new Set(expired)) : RegistryView.of(rev, skills, new Set(expired));
        },
      },
      options,
    );
    this.#now = options.now ?? Date.now;
  }

  /**
   * The routing entry of one skill (undefined: none live), from the view. A new isolate has no
   * view until it has read every skill (at 10,000 skills, half a second and more): meanwhile a
   * call reads its own skill (one round trip), and the whole view loads beside it — handed to
   * `keepLoading` (the request's `waitUntil`) for the calls that need every skill.
   * @example const entry = await snapshot.entry("text.summarize", (p) => ctx.waitUntil(p))
   */
  async entry(name: string, keepLoading: (loading: Promise<unknown>) => void): Promise<ToolEntry | undefined> {
    if (this.loaded) return (await this.current()).tools.get(name);
    keepLoading(this.current().catch(() => {})); // a failed load is the next call's to retry
    if (!SkillNameSchema.safeParse(name).success) return undefined; // no such key is ever stored
    const { skill, expired } = await this.repository.readStored(name, this.#now());
    return entryOf(name, skill, new Set(expired));
  }
}
