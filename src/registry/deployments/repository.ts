/**
 * The registry in the store, one key per skill (docs/architecture.md, "Registry"):
 *
 * - `sm:registry:skill:<name>` — the skill's deployments and routing table (a `SkillDoc`);
 * - `sm:registry:changes` — a sorted set: per skill, the revision of its last write (its
 *   compare-and-set version, and how a gateway finds the skills changed since its revision);
 * - `sm:registry:rev` — the revision, bumped by every write of any skill;
 * - `sm:registry:expiry` — a sorted set of heartbeat deadlines, by deployment id;
 * - `sm:registry:events` — the newest rollout events.
 *
 * A write is read-modify-compare-and-set of one skill, so registering one skill costs the same
 * at 10 skills or 10,000, and writers of different skills never conflict. The rules themselves
 * are the pure functions of mutations.ts and src/registry/routing/edits.ts, applied to the skill alone.
 */
import { own } from "../../lib/json/index.js";
import { type Store, StoreUnavailable, afterConflict, mgetInBatches } from "../../store/index.js";
import {
  MAX_EVENTS,
  type RegistryDoc,
  RegistryDocSchema,
  type RoutingEvent,
  RoutingEventSchema,
  type SkillDoc,
  SkillDocSchema,
  emptyRegistry,
  skillOf,
} from "./model.js";
import { type RegistrationInput, type RegistrationOutcome, applyRegistration, removeDeployments } from "./mutations.js";
import { type RegistryPoll, pollRegistry, readEvents, readSkill, skillWriteArgs, writeSkill } from "./scripts.js";
import { compareNames } from "./model.js";

export const REGISTRY_KEYS = {
  /** Where registries before per-skill keys kept everything (one document); moved on first use. */
  legacy: "sm:registry",
  legacyMoved: "sm:registry:legacy",
  rev: "sm:registry:rev",
  changes: "sm:registry:changes",
  expiry: "sm:registry:expiry",
  events: "sm:registry:events",
  skill: (name: string) => `sm:registry:skill:${name}`,
} as const;

export interface RegistryState {
  rev: number;
  doc: RegistryDoc;
}

/** Writers that lose a compare-and-set retry; only writers of the same skill conflict. */
const MAX_WRITE_ATTEMPTS = 30;
/** Expired deployments of other skills a write sweeps on its way: bounded, so a write costs the same however many expired. */
const SWEEP_PER_WRITE = 20;

/** A change of one skill: its new document, and heartbeat deadlines to set or forget. */
interface SkillChange {
  doc: RegistryDoc;
  deadlines?: Array<{ id: string; at: number }>;
  forget?: string[];
}

/** The registry document of one skill alone: what the rules of mutations.ts and rollout.ts take. */
function registryDocOf(name: string, skill: SkillDoc | undefined): RegistryDoc {
  const doc = emptyRegistry();
  if (!skill) return doc;
  doc.deployments = skill.deployments;
  if (skill.routes) doc.routes[name] = skill.routes;
  return doc;
}

/** The stored form of one skill in a registry document ("" when the skill has no deployment left). */
function storedSkillOf(name: string, doc: RegistryDoc): string {
  const deployments = Object.fromEntries(Object.entries(doc.deployments).filter(([, d]) => d.name === name));
  if (Object.keys(deployments).length !== Object.keys(doc.deployments).length) {
    throw new Error(`a change of ${name} touched another skill`);
  }
  if (!Object.keys(deployments).length) return "";
  const routes = own(doc.routes, name);
  return JSON.stringify({ deployments, ...(routes ? { routes } : {}) } satisfies SkillDoc);
}

/** Parses a stored skill; undefined for "". */
export function parseSkill(raw: string | null): SkillDoc | undefined {
  return raw ? SkillDocSchema.parse(JSON.parse(raw)) : undefined;
}

export class RegistryRepository {
  #upgraded = false;

  constructor(private readonly store: Store) {}

  /**
   * Moves a registry stored as one document (before per-skill keys) into per-skill keys, once:
   * every skill whose key does not exist yet, with its routing table, and the rollout events;
   * deadlines and the revision kept their keys. The old document is kept under
   * `sm:registry:legacy`. Costs one GET per isolate when there is nothing to move.
   */
  async #upgrade(): Promise<void> {
    // Not one shared promise: a Worker request must not await another request's I/O, so
    // requests that start together each check (moving twice is harmless: see #moveLegacy).
    if (this.#upgraded) return;
    await this.#moveLegacy();
    this.#upgraded = true;
  }

  async #moveLegacy(): Promise<void> {
    const raw = await this.store.get(REGISTRY_KEYS.legacy);
    if (!raw) return;
    const legacy = RegistryDocSchema.parse(JSON.parse(raw));
    const names = [...new Set(Object.values(legacy.deployments).map((d) => d.name))];
    let events = legacy.events.map((event) => JSON.stringify(event));
    for (const name of names) {
      const doc = emptyRegistry();
      for (const d of Object.values(legacy.deployments)) if (d.name === name) doc.deployments[d.id] = d;
      if (own(legacy.routes, name)) doc.routes[name] = legacy.routes[name]!;
      // Version 0 = the skill has no key yet; another isolate moving it at once makes this a no-op.
      const write = {
        name,
        expectedVersion: 0,
        raw: storedSkillOf(name, doc),
        now: 0,
        mustBeExpired: [],
        forget: [],
        deadlines: [],
        events,
        keepEvents: MAX_EVENTS,
      };
      const written = await this.store.run(writeSkill, this.#writeKeys(name), skillWriteArgs(write));
      if (written.version !== -1) events = [];
    }
    await this.store.set(REGISTRY_KEYS.legacyMoved, raw);
    await this.store.del(REGISTRY_KEYS.legacy);
  }

  #writeKeys(name: string): string[] {
    return [REGISTRY_KEYS.skill(name), REGISTRY_KEYS.rev, REGISTRY_KEYS.changes, REGISTRY_KEYS.expiry, REGISTRY_KEYS.events];
  }

  /**
   * The revision, the expired heartbeats, and the skills written after revision `since` (all of
   * them for 0): one round trip.
   * @example const { rev, changed } = await registry.poll(Date.now(), view.rev)
   */
  async poll(now: number, since = Number.MAX_SAFE_INTEGER): Promise<RegistryPoll> {
    await this.#upgrade();
    return this.store.run(pollRegistry, [REGISTRY_KEYS.rev, REGISTRY_KEYS.expiry, REGISTRY_KEYS.changes], [now, since]);
  }

  /**
   * Skills by name, read in batches of MGETs; a removed skill maps to undefined.
   * @example const skills = await registry.readSkills(["text.summarize"])
   */
  async readSkills(names: string[]): Promise<Map<string, SkillDoc | undefined>> {
    const raws = await mgetInBatches(this.store, names.map(REGISTRY_KEYS.skill));
    return new Map(names.map((name, i) => [name, parseSkill(raws[i] ?? null)]));
  }

  /** The newest rollout events, newest first. */
  async events(): Promise<RoutingEvent[]> {
    await this.#upgrade();
    const raws = await this.store.run(readEvents, [REGISTRY_KEYS.events], [MAX_EVENTS]);
    return raws.map((raw) => RoutingEventSchema.parse(JSON.parse(raw)));
  }

  /**
   * The registry as one document (the admin API's listing), whole or one page of skills in name
   * order (`next`: the cursor of the page after). Gateways never call it: they poll for changes.
   * @example const { doc, next } = await registry.read({ limit: 500 })
   */
  async read(page?: { after?: string; limit: number }): Promise<RegistryState & { next?: string }> {
    const { rev, changed: all } = await this.poll(Date.now(), 0);
    // A page is the skills named after `after`, in name order: bounded work at 10,000 skills.
    const sorted = page ? all.filter((name) => page.after === undefined || compareNames(name, page.after) > 0).sort(compareNames) : all;
    const names = page ? sorted.slice(0, page.limit) : sorted;
    const next = page && sorted.length > names.length ? names.at(-1) : undefined;
    const [skills, events] = await Promise.all([this.readSkills(names), this.events()]);
    const doc = emptyRegistry();
    for (const [name, skill] of skills) {
      if (!skill) continue;
      Object.assign(doc.deployments, skill.deployments);
      if (skill.routes) doc.routes[name] = skill.routes;
    }
    doc.events = events;
    return { rev, doc, ...(next !== undefined ? { next } : {}) };
  }

  /** One skill as a registry document holding only it, its expired deployments swept. */
  async readSkill(name: string, now: number): Promise<RegistryDoc> {
    return (await this.#read(name, now)).live;
  }

  /**
   * One skill as stored and its deployments whose heartbeat deadline passed (one script, nothing
   * swept): what a new isolate reads for a call before its whole view has loaded.
   * @example const { skill, expired } = await registry.readStored("text.summarize", Date.now())
   */
  async readStored(name: string, now: number): Promise<{ skill: SkillDoc | undefined; expired: string[] }> {
    const stored = await this.#readStored(name, now);
    return { skill: parseSkill(stored.raw), expired: stored.expired };
  }

  async #readStored(name: string, now: number) {
    await this.#upgrade();
    return this.store.run(readSkill, [REGISTRY_KEYS.skill(name), REGISTRY_KEYS.changes, REGISTRY_KEYS.expiry], [name, now]);
  }

  /** One skill as stored, as a registry document, and with its expired deployments swept. */
  async #read(name: string, now: number) {
    const stored = await this.#readStored(name, now);
    const before = registryDocOf(name, parseSkill(stored.raw));
    const swept = stored.expired.filter((id) => own(before.deployments, id));
    return { stored, before, swept, live: swept.length ? removeDeployments(before, swept) : before };
  }

  /**
   * Registers a deployment (rules in `applyRegistration`); the skill's expired deployments are
   * swept in the same write. A TTL registration (re)sets its heartbeat deadline — a heartbeat
   * that changes nothing else does not move the revision, so gateways reload nothing.
   */
  async register(input: RegistrationInput, now: number): Promise<RegistrationOutcome> {
    const { name, version } = input.manifest;
    const id = `${name}@${version}`;
    let outcome: RegistrationOutcome | undefined;
    await this.#write(name, now, (doc) => {
      outcome = applyRegistration(doc, input, now);
      return {
        doc: outcome.doc,
        ...(input.ttlSeconds ? { deadlines: [{ id, at: now + input.ttlSeconds * 1000 }] }
        : outcome.changed ? { forget: [id] }
        : {}),
      };
    });
    return outcome!;
  }

  /** Removes deployments by id; returns the ids that were there. */
  async deregister(ids: string[], now: number): Promise<string[]> {
    const bySkill = new Map<string, string[]>();
    for (const id of new Set(ids)) bySkill.set(skillOf(id), [...(bySkill.get(skillOf(id)) ?? []), id]);
    const removed: string[] = [];
    for (const [name, ofSkill] of bySkill) {
      let removedHere: string[] = [];
      await this.#write(name, now, (doc, swept) => {
        const present = ofSkill.filter((id) => own(doc.deployments, id));
        removedHere = ofSkill.filter((id) => present.includes(id) || swept.includes(id));
        return { doc: present.length ? removeDeployments(doc, present) : doc, forget: ofSkill };
      });
      removed.push(...removedHere);
    }
    return removed.sort();
  }

  /**
   * Applies an edit of one skill (e.g. a rollout from src/registry/routing/edits.ts) atomically and
   * returns the resulting document of that skill. An edit that returns undefined changes
   * nothing; one that throws changes nothing either, and the error reaches the caller.
   * @example await registry.update("text.summarize", Date.now(), (doc) => rollback(doc, "text.summarize", { now, by: "admin" }))
   */
  async update(skill: string, now: number, edit: (doc: RegistryDoc) => RegistryDoc | undefined): Promise<RegistryDoc> {
    let result: RegistryDoc | undefined;
    await this.#write(skill, now, (doc) => {
      result = edit(doc) ?? doc;
      return { doc: result };
    });
    return result!;
  }

  /**
   * Read-modify-compare-and-set of one skill: `change` gets the skill (its expired deployments
   * already swept, their ids as `swept`) and returns its new state; it may run again after a
   * conflict, so its only effects are what it returns. Nothing is written when nothing changed.
   * Afterwards a few expired deployments of other skills are swept too (unless `sweeping`).
   */
  async #write(name: string, now: number, change: (doc: RegistryDoc, swept: string[]) => SkillChange, sweeping = false): Promise<void> {
    const attempts = sweeping ? 1 : MAX_WRITE_ATTEMPTS;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const { stored, before, swept, live } = await this.#read(name, now);
      const next = change(live, swept);
      const raw = storedSkillOf(name, next.doc);
      const forget = [...stored.expired, ...(next.forget ?? [])];
      const deadlines = next.deadlines ?? [];
      const events = next.doc.events.map((event) => JSON.stringify(event));
      // Compared in one serialisation: the stored text may order keys differently.
      const skillChanged = raw !== storedSkillOf(name, before);
      if (!skillChanged && !forget.length && !deadlines.length && !events.length) return;
      const written = await this.store.run(
        writeSkill,
        this.#writeKeys(name),
        skillWriteArgs({
          name,
          expectedVersion: stored.version,
          raw: skillChanged ? raw : undefined,
          now,
          mustBeExpired: stored.expired,
          forget,
          deadlines,
          events,
          keepEvents: MAX_EVENTS,
        }),
      );
      if (written.version !== -1) {
        if (!sweeping && written.due > 0) await this.#sweepOthers(name, now);
        return;
      }
      if (!sweeping) await afterConflict(attempt);
    }
    // A sweep that conflicts leaves the skill to whoever wrote it (that write swept it).
    if (!sweeping) throw new StoreUnavailable("compare-and-set", new Error(`the store kept conflicting with other writers of ${name}`));
  }

  /** Sweeps the expired deployments of a few other skills: every write helps clean up. */
  async #sweepOthers(written: string, now: number): Promise<void> {
    const { expired } = await this.poll(now);
    const skills = new Set(expired.slice(0, SWEEP_PER_WRITE).map(skillOf));
    skills.delete(written);
    for (const name of skills) await this.#write(name, now, (doc) => ({ doc }), true);
  }
}
