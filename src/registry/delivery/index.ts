/**
 * Progressive delivery: a canary's weight raised step by step (e.g. 5 → 25 → 50 → 100%, then
 * promoted) while its observed numbers over the step stay within limits relative to the stable
 * version, and rolled back at once, with the reason, when they do not. The gateway's scheduled
 * handler (a Cron Trigger; `npm run dev` ticks it locally) calls `tickRollouts`; the admin API
 * starts, pauses, resumes and aborts. Rollouts live in one store document beside the registry;
 * the weights themselves are ordinary registry edits (src/registry/routing/edits.ts), so everything the
 * registry guarantees (atomic edits, events, every isolate within a second) holds.
 */
import { z } from "zod";
import { minus, type Observed, observedOf, type Tally, TallySchema, withoutDeciders } from "../metrics/index.js";
import { deploymentId, GroupNameSchema, type RegistryDoc, type SkillDoc } from "../deployments/model.js";
import { promote, rollback, RoutingEditError, setCanary } from "../routing/edits.js";
import { SemverSchema, SkillNameSchema } from "../../skill/manifest.js";
import { VersionedDocument } from "../../store/document.js";
import type { Store } from "../../store/index.js";

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

export const RolloutStateSchema = z.enum(["running", "paused", "completed", "rolled-back", "aborted"]);

/** One decision or command, as the rollout's history records it. */
export const RolloutStepEventSchema = z.object({
  at: z.number(),
  type: z.enum(["start", "advance", "complete", "rollback", "pause", "resume", "abort"]),
  /** The step (index into `steps`) after the event. */
  step: z.number().int(),
  reason: z.string(),
});

/** What a rollout is asked to do: which version, in which steps, how fast, within which limits. */
export const RolloutPlanSchema = z.object({
  version: SemverSchema,
  /** The canary's weight at each step, rising; after the last one passes, the version is promoted. */
  steps: z
    .array(z.number().int().min(1).max(100))
    .min(1)
    .max(20)
    .refine((steps) => steps.every((w, i) => i === 0 || w > steps[i - 1]!), "steps must rise, e.g. [5, 25, 50, 100]"),
  /** How long each step lasts at least (ms); the Cron Trigger checks once a minute. */
  everyMs: z
    .number()
    .int()
    .min(1_000)
    .max(7 * 86_400_000),
  /** Routing groups the canary takes weight in (default: `*`, everyone). */
  groups: z.array(GroupNameSchema).min(1).max(20).default(["*"]),
  /** The canary fails the step above this error rate (0.01 = 1%). */
  maxErrorRate: z.number().min(0).max(1),
  /** The canary fails the step when its p95 latency exceeds this many times the stable's. */
  maxP95Ratio: z.number().min(1).optional(),
  /** Calls the canary needs in a step before it is judged (and before it advances). */
  minCalls: z.number().int().min(1).max(1_000_000).default(20),
});
export type RolloutPlan = z.output<typeof RolloutPlanSchema>;

export const RolloutSchema = RolloutPlanSchema.extend({
  skill: SkillNameSchema,
  /** The stable version when the rollout started: what the canary is compared with. */
  stable: SemverSchema,
  state: RolloutStateSchema,
  /** Index into `steps` of the current step. */
  step: z.number().int().min(0),
  stepStartedAt: z.number(),
  startedAt: z.number(),
  by: z.string(),
  /** Newest first, capped. */
  history: z.array(RolloutStepEventSchema),
  /** The latest verdict on the current step (holding: why it has not moved yet). */
  status: z.string(),
  /** The canary's and the stable's sums of the minute the step started in, as they were then. */
  baseline: z.record(z.string(), TallySchema).default({}),
});
export type Rollout = z.output<typeof RolloutSchema>;

const RolloutsDocSchema = z.object({ rollouts: z.record(SkillNameSchema, RolloutSchema) });
type RolloutsDoc = z.output<typeof RolloutsDocSchema>;

const MAX_HISTORY = 50;

/** What a step's numbers say. */
export type Verdict = { type: "hold" | "advance" | "complete" | "rollback"; reason: string };

// ---------------------------------------------------------------------------------------------
// The rule
// ---------------------------------------------------------------------------------------------

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;
const p95 = (o: Observed) => (o.p95Ms === undefined ? "no latency yet" : `p95 ${o.p95Ms} ms`);

/**
 * Judges a running rollout's current step from the canary's and the stable's numbers over it.
 * Limits are checked as soon as the canary has `minCalls` calls (a failing canary goes back at
 * once, not at the end of the step); it advances once the step has lasted `everyMs` too. The
 * canary's numbers come without the `excluded` callers (`withoutDeciders`: no single caller
 * decides), so a canary only one caller uses is never judged: it waits.
 * @example judge(rollout, { calls: 30, errorRate: 0.2, windowMs }, stable, now) // { type: "rollback", reason: "error rate 20.0% over 30 calls > 1.0%" }
 */
export function judge(rollout: Rollout, canary: Observed, stable: Observed, now: number, excluded: readonly string[] = []): Verdict {
  const judged = canary.calls >= rollout.minCalls;
  const apart = excluded.length ? `, not counting ${excluded.join(" and ")}: no single caller decides` : "";
  if (judged && canary.errorRate > rollout.maxErrorRate) {
    return { type: "rollback", reason: `error rate ${percent(canary.errorRate)} over ${canary.calls} calls > ${percent(rollout.maxErrorRate)}` };
  }
  if (judged && rollout.maxP95Ratio !== undefined && canary.p95Ms !== undefined && stable.p95Ms !== undefined) {
    const ratio = canary.p95Ms / stable.p95Ms;
    if (ratio > rollout.maxP95Ratio) {
      return { type: "rollback", reason: `p95 ${canary.p95Ms} ms is ${ratio.toFixed(2)}x the stable's ${stable.p95Ms} ms > ${rollout.maxP95Ratio}x` };
    }
  }
  const left = rollout.stepStartedAt + rollout.everyMs - now;
  if (!judged) return { type: "hold", reason: `waiting for ${rollout.minCalls} calls on ${rollout.version} (${canary.calls} so far${apart})` };
  if (left > 0)
    return {
      type: "hold",
      reason: `healthy so far (${percent(canary.errorRate)} errors over ${canary.calls} calls); next step in ${Math.ceil(left / 1000)} s`,
    };
  const healthy = `healthy: ${percent(canary.errorRate)} errors over ${canary.calls} calls, ${p95(canary)} (stable ${p95(stable)})`;
  return rollout.step + 1 >= rollout.steps.length ?
      { type: "complete", reason: `${healthy}; promoted` }
    : { type: "advance", reason: `${healthy}; to ${rollout.steps[rollout.step + 1]}%` };
}

// ---------------------------------------------------------------------------------------------
// The rollouts document and its operations
// ---------------------------------------------------------------------------------------------

/** The registry edits a rollout makes, as the admin routes make them, and the reads it checks them by. */
export interface RegistryEditor {
  update(skill: string, now: number, edit: (doc: RegistryDoc) => RegistryDoc | undefined): Promise<RegistryDoc>;
  readSkills(names: string[]): Promise<Map<string, SkillDoc | undefined>>;
}

/** Reads deployments' sums since a moment (the step's start); src/registry/metrics. */
export interface StepMetrics {
  totals(ids: string[], from: number, now: number): Promise<Record<string, Tally>>;
}

const withHistory = (rollout: Rollout, event: z.output<typeof RolloutStepEventSchema>): Rollout => ({
  ...rollout,
  history: [event, ...rollout.history].slice(0, MAX_HISTORY),
});

export class Rollouts {
  readonly #doc: VersionedDocument<RolloutsDoc>;

  constructor(
    store: Store,
    private readonly registry: RegistryEditor,
    private readonly metrics: StepMetrics,
  ) {
    this.#doc = new VersionedDocument(store, { doc: "sm:rollouts", rev: "sm:rollouts:rev" }, RolloutsDocSchema, () => ({ rollouts: {} }));
  }

  /** Every rollout, running or finished (the last one per skill). */
  async list(): Promise<Record<string, Rollout>> {
    return (await this.#doc.read()).doc.rollouts;
  }

  /**
   * Starts a rollout: the canary gets the first step's weight in its groups.
   * @example await rollouts.start("text.summarize", { version: "2.0.0", steps: [5, 25, 50, 100], everyMs: 300_000, maxErrorRate: 0.01, groups: ["*"], minCalls: 20 }, "admin", Date.now())
   */
  async start(skill: string, plan: RolloutPlan, by: string, now: number): Promise<Rollout> {
    const current = (await this.list())[skill];
    if (current && (current.state === "running" || current.state === "paused")) {
      throw new RoutingEditError(`${skill} has a rollout of ${current.version} ${current.state}: abort it first`, 409);
    }
    let stable = "";
    await this.registry.update(skill, now, (doc) => {
      const found = Object.values(doc.deployments).find((d) => d.name === skill && d.role === "stable");
      if (!found) throw new RoutingEditError(`${skill} has no stable version to compare a canary with`, 404);
      stable = found.version;
      return setCanary(doc, skill, plan.version, weightsAt(plan, 0), {
        now,
        by,
        reason: `rollout of ${plan.version}: step 1/${plan.steps.length}, ${plan.steps[0]}% in ${plan.groups.join(",")}`,
      });
    });
    const baseline = await this.#baseline(skill, plan.version, stable, now);
    const rollout: Rollout = withHistory(
      { ...plan, skill, stable, state: "running", step: 0, stepStartedAt: now, startedAt: now, by, history: [], status: "started", baseline },
      { at: now, type: "start", step: 0, reason: `${plan.steps[0]}% in ${plan.groups.join(",")} (by ${by})` },
    );
    await this.#doc.update((doc) => ({ rollouts: { ...doc.rollouts, [skill]: rollout } }));
    return rollout;
  }

  /** Pauses (the weights stay; no step is judged), resumes (the step starts over) or aborts (rolled back). */
  async command(skill: string, command: "pause" | "resume" | "abort", by: string, now: number, reason?: string): Promise<Rollout> {
    const rollout = (await this.list())[skill];
    const allowed = command === "resume" ? ["paused"] : ["running", "paused"];
    if (!rollout || !allowed.includes(rollout.state)) {
      throw new RoutingEditError(
        rollout ? `the rollout of ${skill}@${rollout.version} is ${rollout.state}: it cannot ${command}` : `${skill} has no rollout`,
        rollout ? 409 : 404,
      );
    }
    const why = reason ?? `${command} by ${by}`;
    if (command === "abort") await this.#rollBack(rollout, now, `aborted by ${by}${reason ? `: ${reason}` : ""}`);
    const next: Rollout = withHistory(
      {
        ...rollout,
        state:
          command === "pause" ? "paused"
          : command === "resume" ? "running"
          : "aborted",
        ...(command === "resume" ? { stepStartedAt: now, baseline: await this.#baseline(skill, rollout.version, rollout.stable, now) } : {}),
        status: why,
      },
      { at: now, type: command, step: rollout.step, reason: why },
    );
    await this.#save(next, rollout);
    return next;
  }

  /**
   * Judges every running rollout and acts: holds, advances a step, promotes at the end, or rolls
   * back. Returns what happened to each, for logs and tests.
   * @example export default { fetch: app.fetch, scheduled: (_, env, ctx) => ctx.waitUntil(rollouts.tick(Date.now())) }
   */
  async tick(now: number): Promise<Record<string, Verdict>> {
    const verdicts: Record<string, Verdict> = {};
    for (const rollout of Object.values(await this.list())) {
      if (rollout.state !== "running") continue;
      const canaryId = deploymentId(rollout.skill, rollout.version);
      const stableId = deploymentId(rollout.skill, rollout.stable);
      try {
        // Weights changed outside the rollout (the breaker rolled the canary back, an admin edit):
        // the rollout stops rather than undo them.
        const routes = (await this.registry.readSkills([rollout.skill])).get(rollout.skill)?.routes ?? {};
        const moved = rollout.groups.find((group) => (routes[group]?.[rollout.version] ?? 0) !== rollout.steps[rollout.step]);
        if (moved) {
          const weight = routes[moved]?.[rollout.version] ?? 0;
          throw new RoutingEditError(
            `${rollout.version} has ${weight}% in ${moved}, not the ${rollout.steps[rollout.step]}% of step ${rollout.step + 1}: changed outside the rollout${weight === 0 ? " (rolled back)" : ""}`,
          );
        }
        const totals = await this.metrics.totals([canaryId, stableId], rollout.stepStartedAt, now);
        const step = (window: Tally) => ({ ...observedOf([window]), windowMs: now - rollout.stepStartedAt });
        // The canary is judged without the callers who could decide alone (the most calls, the most failures).
        const canary = withoutDeciders(minus(totals[canaryId]!, rollout.baseline[canaryId]));
        const verdict = judge(rollout, step(canary.window), step(minus(totals[stableId]!, rollout.baseline[stableId])), now, canary.excluded);
        verdicts[rollout.skill] = verdict;
        await this.#act(rollout, verdict, now);
      } catch (error) {
        // The version went away, or the weights were changed elsewhere: the rollout stops there.
        if (!(error instanceof RoutingEditError)) throw error;
        await this.#save(
          withHistory({ ...rollout, state: "aborted", status: error.message }, { at: now, type: "abort", step: rollout.step, reason: error.message }),
          rollout,
        );
        verdicts[rollout.skill] = { type: "rollback", reason: error.message };
      }
    }
    return verdicts;
  }

  async #act(rollout: Rollout, verdict: Verdict, now: number): Promise<void> {
    if (verdict.type === "hold") {
      if (rollout.status !== verdict.reason) await this.#save({ ...rollout, status: verdict.reason }, rollout);
      return;
    }
    if (verdict.type === "rollback") {
      await this.#rollBack(rollout, now, `rollout of ${rollout.version} failed step ${rollout.step + 1}/${rollout.steps.length}: ${verdict.reason}`);
      await this.#save(
        withHistory({ ...rollout, state: "rolled-back", status: verdict.reason }, { at: now, type: "rollback", step: rollout.step, reason: verdict.reason }),
        rollout,
      );
      return;
    }
    if (verdict.type === "complete") {
      await this.registry.update(rollout.skill, now, (doc) =>
        promote(doc, rollout.skill, rollout.version, { now, by: "rollout", reason: `rollout of ${rollout.version} completed: ${verdict.reason}` }),
      );
      await this.#save(
        withHistory({ ...rollout, state: "completed", status: verdict.reason }, { at: now, type: "complete", step: rollout.step, reason: verdict.reason }),
        rollout,
      );
      return;
    }
    const step = rollout.step + 1;
    await this.registry.update(rollout.skill, now, (doc) =>
      setCanary(doc, rollout.skill, rollout.version, weightsAt(rollout, step), {
        now,
        by: "rollout",
        reason: `rollout of ${rollout.version}: step ${step + 1}/${rollout.steps.length}, ${rollout.steps[step]}% (${verdict.reason})`,
      }),
    );
    const baseline = await this.#baseline(rollout.skill, rollout.version, rollout.stable, now);
    await this.#save(
      withHistory({ ...rollout, step, stepStartedAt: now, status: verdict.reason, baseline }, { at: now, type: "advance", step, reason: verdict.reason }),
      rollout,
    );
  }

  /** The sums of the minute a step starts in, so that the step counts only its own calls. */
  #baseline(skill: string, version: string, stable: string, now: number): Promise<Record<string, Tally>> {
    return this.metrics.totals([deploymentId(skill, version), deploymentId(skill, stable)], now, now);
  }

  async #rollBack(rollout: Rollout, now: number, reason: string): Promise<void> {
    await this.registry.update(rollout.skill, now, (doc) => rollback(doc, rollout.skill, { now, by: "rollout", version: rollout.version, reason }));
  }

  /**
   * Stores the rollout's next state, unless it changed since `seen` was read (an admin command
   * and a tick at once): the later writer then leaves it as the other one put it.
   */
  async #save(next: Rollout, seen: Rollout): Promise<void> {
    await this.#doc.update((doc) => {
      const stored = doc.rollouts[next.skill];
      if (stored && (stored.startedAt !== seen.startedAt || stored.state !== seen.state || stored.step !== seen.step)) return undefined;
      return { rollouts: { ...doc.rollouts, [next.skill]: next } };
    });
  }
}

/** The canary's weight per group at a step. */
function weightsAt(plan: Pick<RolloutPlan, "steps" | "groups">, step: number): Record<string, number> {
  return Object.fromEntries(plan.groups.map((group) => [group, plan.steps[step]!]));
}
