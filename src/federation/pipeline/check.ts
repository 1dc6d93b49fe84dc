/**
 * A pipeline checked against the contracts of the skills it calls, before it runs (`skillmesh
 * contracts check`, `npm run deploy`): unknown skills, template paths naming a field that is not
 * there (or a step that has not run yet), step inputs the callee's input schema would refuse,
 * and an output mapping that does not fit the pipeline's declared output. Schemas are compared
 * with the contract rules of src/registry/contracts (a producer's schema must be accepted by the
 * consumer's), literal values validated with @cfworker/json-schema.
 */
import { Validator } from "@cfworker/json-schema";
import jsonata from "jsonata";
import { compareSchemas } from "../../registry/contracts/index.js";
import type { SkillManifest } from "../../skill/manifest.js";
import { compareSemver } from "../../registry/deployments/semver.js";
import { type PipelineSpec, type PlacedStep, bareExpression, expressionsOf, placedSteps, wholeExpression } from "./index.js";

type Schema = Record<string, unknown>;
type AstNode = { type?: string; value?: unknown; steps?: AstNode[]; [key: string]: unknown };

/**
 * Types, fields and enums are checked before a pipeline runs; bounds (a string's minLength, a
 * number's maximum…) are not knowable from the producer's schema, so the callee checks the value
 * when it exists (-32602 naming the step).
 */
const NO_BOUNDS = { bounds: false };

/**
 * Every problem of a pipeline, one message each naming the pipeline, the step and the field.
 * @example checkPipeline(spec, manifests) // ["pipeline web.digest, step summarize, input.text: $.steps.extract.output.body — html.extract's output has no field body"]
 */
export function checkPipeline(spec: PipelineSpec, manifests: SkillManifest[]): string[] {
  const problems: string[] = [];
  const skills = latestByName(manifests);
  const placed = placedSteps(spec);
  const label = `pipeline ${spec.name}`;
  for (const p of placed) {
    const where = `${label}, step ${p.name}`;
    const callees = [p.step.skill, ...(typeof p.step.onError === "object" && "fallback" in p.step.onError ? [p.step.onError.fallback] : [])];
    for (const skill of callees) {
      const callee = skills.get(skill);
      if (!callee) problems.push(`${where}: no skill ${skill} is known (not in skills/ nor in contracts/)`);
      else if (spec.idempotent && !callee.idempotent) problems.push(`${where}: the pipeline says it is idempotent, but ${skill} is not safe to repeat`);
    }
    const visible = (name: string) => placed.find((q) => q.name === name && q.group < p.group);
    const schemaOf = (expression: string, field: string): Schema | undefined =>
      pathSchema(expression, spec, skills, visible, p, (message) => problems.push(`${where}, ${field}: ${message}`));
    for (const [field, source] of [
      ["when", p.step.when],
      ["forEach", p.step.forEach],
    ] as const)
      if (source !== undefined) schemaOf(bareExpression(source), field);
    const callee = skills.get(p.step.skill);
    checkValue(
      p.step.input,
      callee?.inputSchema as Schema | undefined,
      "input",
      (message) => problems.push(`${where}, ${message}`),
      schemaOf,
      callee ? `${callee.name}'s input` : undefined,
    );
  }
  // The output mapping against the declared output.
  if (spec.outputSchema) {
    const where = `${label}, output`;
    if (spec.output === undefined) {
      const last = skills.get(placed.at(-1)!.step.skill);
      if (last)
        for (const breaking of compareSchemas(last.outputSchema as Schema, spec.outputSchema, "input", NO_BOUNDS).breaking)
          problems.push(`${where}: the last step's output (${last.name}) does not fit the declared output: ${breaking}`);
    } else {
      const schemaOf = (expression: string, field: string) =>
        pathSchema(
          expression,
          spec,
          skills,
          (name) => placed.find((q) => q.name === name),
          undefined,
          (message) => problems.push(`${where}, ${field}: ${message}`),
        );
      checkValue(spec.output, spec.outputSchema, "output", (message) => problems.push(`${label}, ${message}`), schemaOf, "the declared output");
    }
  }
  return problems;
}

/** The highest version of each skill name (what a pipeline's step reaches by default). */
function latestByName(manifests: SkillManifest[]): Map<string, SkillManifest> {
  const byName = new Map<string, SkillManifest>();
  for (const m of manifests) {
    const known = byName.get(m.name);
    if (!m.degraded && (!known || compareSemver(m.version, known.version) > 0)) byName.set(m.name, m);
  }
  return byName;
}

/**
 * Checks a template against the schema that will receive it: required fields present, no
 * unknown field where none is allowed, a literal valid, a path's schema accepted.
 */
function checkValue(
  template: unknown,
  schema: Schema | undefined,
  field: string,
  report: (message: string) => void,
  schemaOf: (expression: string, field: string) => Schema | undefined,
  whose: string | undefined,
): void {
  if (!schema || !whose) return;
  const whole = typeof template === "string" ? wholeExpression(template) : undefined;
  if (typeof template === "string" && whole !== undefined) {
    const produced = schemaOf(whole, field);
    if (produced)
      for (const breaking of compareSchemas(produced, schema, "input", NO_BOUNDS).breaking)
        report(`${field}: ${template.trim()} does not fit ${whose}: ${breaking.replace(/^input/, field)}`);
    return;
  }
  if (typeof template === "string" && template.includes("{{")) {
    for (const expression of expressionsOf(template)) schemaOf(expression, field);
    if (!acceptsString(schema)) report(`${field}: text made from a template, but ${whose} does not take a string here`);
    return;
  }
  if (template && typeof template === "object" && !Array.isArray(template) && schema.type === "object") {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const required of (schema.required ?? []) as string[]) if (!(required in template)) report(`${field}: misses ${required}, which ${whose} requires`);
    for (const [key, value] of Object.entries(template)) {
      const property = properties[key];
      if (!property && schema.additionalProperties === false) report(`${field}.${key}: ${whose} has no field ${key}`);
      checkValue(value, property, `${field}.${key}`, report, schemaOf, property ? whose : undefined);
    }
    return;
  }
  if (expressionsOf(template).length) return; // an array or a structure with templates inside: checked at run time
  const result = new Validator(schema as never, "2020-12", false).validate(template);
  if (!result.valid) report(`${field}: ${JSON.stringify(template)} does not fit ${whose}: ${result.errors.at(-1)?.error ?? "invalid"}`);
}

/** True when `schema` accepts some string. */
function acceptsString(schema: Schema): boolean {
  if (schema.type === undefined) return !schema.anyOf || (schema.anyOf as Schema[]).some(acceptsString);
  return schema.type === "string" || (Array.isArray(schema.type) && schema.type.includes("string"));
}

/**
 * The schema of what an expression's paths read, checking each path on the way (unknown step,
 * a step that has not run yet, an unknown field); undefined when it cannot be known.
 */
function pathSchema(
  expression: string,
  spec: PipelineSpec,
  skills: Map<string, SkillManifest>,
  visible: (name: string) => PlacedStep | undefined,
  current: PlacedStep | undefined,
  report: (message: string) => void,
): Schema | undefined {
  let ast: AstNode;
  try {
    ast = jsonata(expression).ast() as AstNode;
  } catch (error) {
    report(`{{ ${expression} }} is not an expression: ${(error as Error).message}`);
    return undefined;
  }
  let result: Schema | undefined;
  for (const path of pathsIn(ast)) {
    const names = path.steps!.slice(1).map((s) => (s.type === "name" ? String(s.value) : undefined));
    if (path.steps![0]?.type !== "variable" || path.steps![0]?.value !== "" || names.includes(undefined)) continue; // not a plain $.a.b path
    const [root, ...rest] = names as string[];
    let schema: Schema | undefined;
    let owner: string;
    if (root === "input") {
      schema = spec.input;
      owner = "the pipeline's input";
    } else if (root === "item" || root === "index") {
      if (current && current.step.forEach === undefined) report(`$.${root} is only set in a forEach step`);
      continue;
    } else {
      const stepName = root === "steps" ? rest.shift() : root;
      if (root === "steps" && rest.shift() !== "output") {
        report(`$.${names.join(".")}: a step's value is $.steps.<name>.output`);
        continue;
      }
      const step = stepName ? visible(stepName) : undefined;
      if (!step) {
        report(`$.${names.join(".")}: no step ${stepName} runs before this one`);
        continue;
      }
      const callee = skills.get(step.step.skill);
      schema = callee?.outputSchema as Schema | undefined;
      owner = `${step.step.skill}'s output`;
      if (step.step.forEach !== undefined && schema) schema = { type: "array", items: schema };
    }
    for (const name of rest) {
      if (!schema) break;
      if (schema.type === "array") schema = (schema.items as Schema | undefined) ?? undefined; // JSONata maps over arrays
      const properties = schema?.properties as Record<string, Schema> | undefined;
      if (!properties) {
        schema = undefined;
        break;
      }
      if (!(name in properties)) {
        report(`$.${names.join(".")}: ${owner} has no field ${name}`);
        schema = undefined;
        break;
      }
      schema = properties[name];
      owner = `${owner}.${name}`;
    }
    if (path === ast) result = schema;
  }
  return result;
}

/** Every path node of an expression's syntax tree. */
function pathsIn(node: unknown): AstNode[] {
  if (!node || typeof node !== "object") return [];
  if (Array.isArray(node)) return node.flatMap(pathsIn);
  const ast = node as AstNode;
  if (ast.type === "path") return [ast];
  return Object.entries(ast).flatMap(([key, value]) => (key === "position" ? [] : pathsIn(value)));
}
