/**
 * JSON Schema checks on the gateway (@cfworker/json-schema: draft 2020-12, no code generation, so
 * it runs in Workers): one validator per schema object, made once and kept while the schema lives
 * (a registry snapshot's manifests are shared by every request).
 */
import { type OutputUnit, type Schema, Validator } from "@cfworker/json-schema";

const validators = new WeakMap<object, { first: Validator; every: Validator }>();

function validatorsOf(schema: Record<string, unknown>) {
  let known = validators.get(schema);
  if (!known)
    validators.set(schema, (known = { first: new Validator(schema as Schema, "2020-12", true), every: new Validator(schema as Schema, "2020-12", false) }));
  return known;
}

/**
 * Whether `schema` accepts `value` (stopping at the first problem).
 * @example accepts({ type: "object", required: ["text"] }, { text: "hi" }) // true
 */
export function accepts(schema: Record<string, unknown>, value: unknown): boolean {
  return validatorsOf(schema).first.validate(value).valid;
}

/** Keywords whose failure only says that a part of the value failed (its own unit says how). */
const SAYS_ONLY_BELOW = new Set(["properties", "items", "prefixItems", "allOf", "$ref", "$dynamicRef", "dependentSchemas", "false"]);

/** The most issues one refusal names. */
const MAX_ISSUES = 20;

/**
 * Why `schema` refuses `value`: each problem's place (a JSON pointer, `/` for the whole) and what
 * is wrong there; empty when it accepts it.
 * @example schemaIssues({ type: "object", required: ["text"] }, {}) // [{ path: "/", message: "Instance does not have required property \"text\"." }]
 */
export function schemaIssues(schema: Record<string, unknown>, value: unknown): Array<{ path: string; message: string }> {
  const { valid, errors } = validatorsOf(schema).every.validate(value);
  if (valid) return [];
  // The units that say what is wrong, not only that something below them is.
  const said = errors.filter((error: OutputUnit) => !SAYS_ONLY_BELOW.has(error.keyword));
  return (said.length ? said : errors).slice(0, MAX_ISSUES).map((error) => ({ path: error.instanceLocation.replace(/^#/, "") || "/", message: error.error }));
}
