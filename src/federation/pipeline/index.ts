/**
 * Skill pipelines: a scenario declared in YAML as steps that call skills, each step's input a
 * template over the pipeline's input and the earlier steps' outputs. This module is the language
 * and its runner, independent of how a step reaches its skill (`StepCaller`): the pipeline
 * Worker calls through the gateway; the tests call a table of functions.
 *
 * Templates: a string that is exactly `{{ expression }}` takes the expression's value with its
 * JSON type; `{{ … }}` inside other text is interpolated as text. Expressions are JSONata
 * (https://jsonata.org, the `jsonata` package: pure JavaScript, no eval, runs on Workers) over
 * `{ input, steps: { <name>: { output } }, step_<n>: <output>, item, index }`, so
 * `$.input.url`, `$.steps.parse.output.text`, `$.step_0.parsed_data`, `$.item` all read as
 * paths, and `when` may compare (`$.input.sentences > 2`).
 */
import jsonata from "jsonata";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { mapConcurrently } from "../../lib/pool/index.js";
import { retryDelayMs } from "../../policies/retry/index.js";
import { sleep } from "../../lib/signal/index.js";
import { SemverSchema, SkillNameSchema } from "../../skill/manifest.js";

// ---------------------------------------------------------------------------------------------
// The language
// ---------------------------------------------------------------------------------------------

/** What a step does when its call fails: fail the pipeline, go on with a value, or call another skill. */
export const OnErrorSchema = z.union([
  z.literal("fail"),
  z.object({ default: z.unknown() }).strict(),
  z.object({ fallback: SkillNameSchema, input: z.unknown().optional() }).strict(),
]);

export const StepSchema = z
  .object({
    /** How later steps refer to it (`$.steps.<name>.output`); default `step_<n>`, its position. */
    name: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "a step name is a letter or _ then letters, digits or _")
      .optional(),
    skill: SkillNameSchema,
    /** The skill's params: a value with `{{ … }}` templates anywhere in it. */
    input: z.unknown().default({}),
    /** Runs the step only when this expression is true; a skipped step's output is null. */
    when: z.string().optional(),
    /** An expression giving an array: the step runs once per element (`$.item`, `$.index`); its output is the array of outputs. */
    forEach: z.string().optional(),
    /** At most this many calls of a `forEach` at once. */
    concurrency: z.number().int().min(1).max(16).default(4),
    /** This step's budget (the gateway's `X-Timeout-Ms`). */
    timeoutMs: z.number().int().min(100).max(120_000).optional(),
    /** Extra attempts after a transient failure of this step's call (unavailable, timed out, rate limited; on top of the gateway's own retries), with backoff or the skill's `Retry-After`. */
    retries: z.number().int().min(0).max(5).default(0),
    onError: OnErrorSchema.default("fail"),
  })
  .strict();
export type Step = z.output<typeof StepSchema>;

/** Steps that run at once; each sees the outputs of the steps before the group, not of each other. */
export const ParallelGroupSchema = z.object({ parallel: z.array(StepSchema).min(2).max(16) }).strict();

export const PipelineSpecSchema = z
  .object({
    name: SkillNameSchema,
    version: SemverSchema.default("1.0.0"),
    description: z.string().min(1).default("A pipeline of skills."),
    tags: z.array(z.string()).default([]),
    /** Safe to repeat: every step's skill is (checked before release). */
    idempotent: z.boolean().default(false),
    /** The JSON Schema of the pipeline's params. */
    input: z.record(z.string(), z.unknown()).default({ type: "object" }),
    /** The JSON Schema of its result, checked against `output` before release. */
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    /** The result: a template over the input and the steps (default: the last step's output). */
    output: z.unknown().optional(),
    steps: z
      .array(z.union([StepSchema, ParallelGroupSchema]))
      .min(1)
      .max(64),
  })
  .strict();
export type PipelineSpec = z.output<typeof PipelineSpecSchema>;

/**
 * A `pipeline.yaml`'s text, parsed and checked; throws naming each field that is wrong.
 * @example const spec = parsePipelineSpec(readFileSync("skills/web-digest/pipeline.yaml", "utf8"))
 */
export function parsePipelineSpec(yamlText: string): PipelineSpec {
  const parsed = PipelineSpecSchema.safeParse(parseYaml(yamlText));
  if (!parsed.success) throw new Error(`pipeline.yaml: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return parsed.data;
}

/** Each step with its name and position (`step_<n>` counts every step, inside groups too). */
export interface PlacedStep {
  step: Step;
  name: string;
  /** Index in the flat order of steps. */
  index: number;
  /** Index of the group (or lone step) it belongs to: a step sees the outputs of earlier groups. */
  group: number;
}

/**
 * The steps in order with their names.
 * @example placedSteps(spec).map((s) => s.name) // ["parse", "step_1"]
 */
export function placedSteps(spec: PipelineSpec): PlacedStep[] {
  const placed: PlacedStep[] = [];
  spec.steps.forEach((entry, group) => {
    for (const step of "parallel" in entry ? entry.parallel : [entry])
      placed.push({ step, name: step.name ?? `step_${placed.length}`, index: placed.length, group });
  });
  return placed;
}

// ---------------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------------

const WHOLE = /^\s*\{\{([\s\S]+?)\}\}\s*$/;

/**
 * The expression of a template that is exactly one `{{ … }}` (its value keeps its JSON type).
 * @example wholeExpression("{{ $.input.n }}") // "$.input.n"
 */
export const wholeExpression = (template: string): string | undefined => template.match(WHOLE)?.[1];

/** A `when` or `forEach` expression, written with or without `{{ }}`. */
export const bareExpression = (source: string): string => wholeExpression(source) ?? source;

const EMBEDDED = /\{\{([\s\S]+?)\}\}/g;

/** Parsed JSONata expressions, by source (a pipeline's are few and reused on every call). */
const compiled = new Map<string, ReturnType<typeof jsonata>>();
function expression(source: string): ReturnType<typeof jsonata> {
  let parsed = compiled.get(source);
  if (!parsed) {
    parsed = jsonata(source.trim());
    compiled.set(source, parsed);
  }
  return parsed;
}

/** Every expression a template holds (for the static checks). */
export function expressionsOf(template: unknown): string[] {
  if (typeof template === "string") return [...template.matchAll(EMBEDDED)].map((m) => m[1]!.trim());
  if (Array.isArray(template)) return template.flatMap(expressionsOf);
  if (template && typeof template === "object") return Object.values(template).flatMap(expressionsOf);
  return [];
}

/**
 * A template's value over `scope`: whole expressions keep their JSON type, embedded ones become text.
 * @example await resolveTemplate({ text: "{{ $.steps.extract.output.text }}", n: 3 }, scope)
 */
export async function resolveTemplate(template: unknown, scope: object): Promise<unknown> {
  if (typeof template === "string") {
    const whole = wholeExpression(template);
    if (whole !== undefined) return (await expression(whole).evaluate(scope)) ?? null;
    if (!template.includes("{{")) return template;
    const parts = await Promise.all([...template.matchAll(EMBEDDED)].map(async (m) => [m[0], await expression(m[1]!).evaluate(scope)] as const));
    let text = template;
    for (const [source, value] of parts)
      text = text.replace(
        source,
        value === undefined || value === null ? ""
        : typeof value === "string" ? value
        : JSON.stringify(value),
      );
    return text;
  }
  if (Array.isArray(template)) return Promise.all(template.map((t) => resolveTemplate(t, scope)));
  if (template && typeof template === "object") {
    const entries = await Promise.all(Object.entries(template).map(async ([k, v]) => [k, await resolveTemplate(v, scope)] as const));
    return Object.fromEntries(entries);
  }
  return template;
}

// ---------------------------------------------------------------------------------------------
// The runner
// ---------------------------------------------------------------------------------------------

/** The most calls one `forEach` step makes in one run (a longer list fails the step with -32602, before any call). */
export const MAX_FOR_EACH_ITEMS = 100;

/** A failed call of a step's skill: what the gateway answered. */
export class StepCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A step that failed the pipeline (its `onError` is `fail`, or its fallback failed too). */
export class PipelineStepError extends Error {
  constructor(
    readonly step: string,
    readonly skill: string,
    readonly failure: StepCallError,
  ) {
    super(`step ${step} (${skill}) failed: ${failure.message}`);
  }
}

/** How a step's call reaches its skill. `key` names the call (derived idempotency keys use it). */
export type StepCaller = (skill: string, params: unknown, options: { step: string; key: string; timeoutMs?: number }) => Promise<unknown>;

export interface RunOptions {
  call: StepCaller;
  /** Step k of n, as each finishes. */
  progress?: (done: number, total: number, message: string) => void;
  signal?: AbortSignal;
}

/**
 * Runs a pipeline: each group after the one before, the steps of a parallel group at once.
 * @example const result = await runPipeline(spec, { url: "https://…" }, { call })
 */
export async function runPipeline(spec: PipelineSpec, input: unknown, options: RunOptions): Promise<unknown> {
  const placed = placedSteps(spec);
  const scope: Record<string, unknown> = { input, steps: {} as Record<string, { output: unknown; skipped?: boolean }> };
  const steps = scope.steps as Record<string, { output: unknown; skipped?: boolean }>;
  let done = 0;
  for (let group = 0; group < spec.steps.length; group++) {
    const members = placed.filter((p) => p.group === group);
    // Every member reads the scope as it was before the group: outputs are added once all are done.
    const outcomes = await Promise.all(members.map((p) => runStep(p, scope, options)));
    members.forEach((p, i) => {
      steps[p.name] = outcomes[i]!;
      scope[`step_${p.index}`] = outcomes[i]!.output;
      options.progress?.(++done, placed.length, `step ${done} of ${placed.length}: ${p.name}${outcomes[i]!.skipped ? " (skipped)" : ""}`);
    });
  }
  return spec.output === undefined ? (steps[placed.at(-1)!.name]?.output ?? null) : resolveTemplate(spec.output, scope);
}

async function runStep(placed: PlacedStep, scope: Record<string, unknown>, options: RunOptions): Promise<{ output: unknown; skipped?: boolean }> {
  const { step, name } = placed;
  options.signal?.throwIfAborted();
  if (step.when !== undefined && !(await expression(bareExpression(step.when)).evaluate(scope))) return { output: null, skipped: true };
  if (step.forEach === undefined) return { output: await callWithPolicy(placed, scope, name, options) };
  const items: unknown = (await expression(bareExpression(step.forEach)).evaluate(scope)) ?? [];
  const list: unknown[] = Array.isArray(items) ? items : [items];
  // The caller chooses the input, so it would choose N: a step fans out to a bounded number of calls (each is also counted against the caller's rate).
  if (list.length > MAX_FOR_EACH_ITEMS) {
    throw new PipelineStepError(
      name,
      step.skill,
      new StepCallError(-32602, `Invalid params: forEach gave ${list.length} items, more than the ${MAX_FOR_EACH_ITEMS} calls one step may fan out to`, {
        items: list.length,
        maxItems: MAX_FOR_EACH_ITEMS,
      }),
    );
  }
  // Never more calls at once than the step's `concurrency`.
  return {
    output: await mapConcurrently(list, step.concurrency, (item, index) => callWithPolicy(placed, { ...scope, item, index }, `${name}[${index}]`, options)),
  };
}

/** One call of a step with its retries and its `onError`. */
async function callWithPolicy(placed: PlacedStep, scope: object, key: string, options: RunOptions): Promise<unknown> {
  const { step, name } = placed;
  const params = await resolveTemplate(step.input, scope);
  const callOptions = (callKey: string) => ({ step: name, key: callKey, ...(step.timeoutMs ? { timeoutMs: step.timeoutMs } : {}) });
  let failure: StepCallError;
  for (let attempt = 1; ; attempt++) {
    try {
      return await options.call(step.skill, params, callOptions(key));
    } catch (error) {
      if (!(error instanceof StepCallError)) throw error;
      failure = error;
    }
    // Only a transient failure is tried again (src/policies/failures): bad params or the skill's own error would answer the same.
    const delay = attempt <= step.retries ? retryDelayMs(failure, attempt) : undefined;
    if (delay === undefined) break;
    await sleep(delay, options.signal);
    options.signal?.throwIfAborted();
  }
  const onError = step.onError;
  if (onError === "fail") throw new PipelineStepError(name, step.skill, failure);
  if ("default" in onError) return onError.default;
  const fallbackParams = onError.input === undefined ? params : await resolveTemplate(onError.input, scope);
  try {
    return await options.call(onError.fallback, fallbackParams, callOptions(`${key}/fallback`));
  } catch (error) {
    if (error instanceof StepCallError) throw new PipelineStepError(`${name} (fallback)`, onError.fallback, error);
    throw error;
  }
}
