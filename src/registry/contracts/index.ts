/**
 * Contracts in git: each skill's manifest committed as `contracts/<name>/<version>.json`, and the
 * rules that say whether a new version may be released over the last committed one. A change that
 * breaks callers needs a major version; an additive one at least a minor; the same version must
 * keep the same definition. The JSON Schema comparison is conservative (a structural diff, `$ref`
 * to local `$defs` resolved, unions compared option by option), not a full subsumption check.
 */
import { canonicalJson } from "../../lib/json/index.js";
import { compareSemver } from "../deployments/semver.js";
import type { SkillManifest } from "../../skill/manifest.js";

type Schema = Record<string, unknown>;

/** What changed between two schemas, in words, split by what it means for callers. */
export interface SchemaDiff {
  breaking: string[];
  additive: string[];
}

/** Bounds that constrain more as they go down (min…) or up (max…). */
const LOWER_BOUNDS = ["minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"] as const;
const UPPER_BOUNDS = ["maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"] as const;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A local `$ref` (`#/$defs/X`, `#/definitions/X`) resolved against the root; anything else as is. */
function resolve(schema: unknown, root: Schema, seen = new Set<string>()): Schema {
  if (!isSchema(schema)) return {};
  const ref = schema.$ref;
  if (typeof ref !== "string" || seen.has(ref)) return schema;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const target = match ? (root[match[1]!] as Record<string, unknown> | undefined)?.[match[2]!] : undefined;
  return isSchema(target) ? resolve(target, root, new Set([...seen, ref])) : schema;
}

function typesOf(schema: Schema): Set<string> | undefined {
  const type = schema.type;
  if (typeof type === "string") return new Set(type === "number" ? ["number", "integer"] : [type]);
  if (Array.isArray(type)) return new Set(type.flatMap((t) => (t === "number" ? ["number", "integer"] : [String(t)])));
  return undefined; // any type
}

function union(schema: Schema): unknown[] | undefined {
  const options = schema.anyOf ?? schema.oneOf;
  return Array.isArray(options) ? options : undefined;
}

/**
 * How `after` differs from `before` for callers, when the schema describes what callers send
 * (`input`) or what they receive (`output`). `bounds: false` leaves numeric bounds out (a
 * pipeline's check: values are checked when they exist, at run time).
 * @example compareSchemas({ type: "object", properties: { a: { type: "string" } } }, { type: "object", properties: {} }, "input").breaking // ["input.a removed"]
 */
export function compareSchemas(before: Schema, after: Schema, side: "input" | "output", options: { bounds?: boolean } = {}): SchemaDiff {
  const diff: SchemaDiff = { breaking: [], additive: [] };
  const visit = (b: unknown, a: unknown, path: string, depth: number) => {
    if (depth > 64) return;
    const x = resolve(b, before);
    const y = resolve(a, after);
    if (canonicalJson(x) === canonicalJson(y)) return;
    // Types: a caller's value must still be accepted (input); a caller must still understand the value (output).
    const tx = typesOf(x);
    const ty = typesOf(y);
    if (tx || ty) {
      const removed = tx ? [...tx].filter((t) => !ty || !ty.has(t)).filter((t) => !(t === "integer" && ty?.has("number"))) : [];
      const added = ty ? [...ty].filter((t) => !tx || !tx.has(t)) : [];
      if (side === "input") {
        if (ty && (!tx || removed.length)) diff.breaking.push(`${path}: type narrowed from ${tx ? [...tx].join("|") : "any"} to ${[...ty].join("|")}`);
        else if (added.length || (tx && !ty)) diff.additive.push(`${path}: type widened to ${ty ? [...ty].join("|") : "any"}`);
      } else if (removed.length || added.length || !tx !== !ty) {
        diff.breaking.push(`${path}: type changed from ${tx ? [...tx].join("|") : "any"} to ${ty ? [...ty].join("|") : "any"}`);
      }
    }
    // Enums: a value a caller may send must stay; a value a caller may receive must not appear unannounced.
    if (Array.isArray(x.enum) || Array.isArray(y.enum)) {
      const ex = Array.isArray(x.enum) ? x.enum.map(canonicalJson) : undefined;
      const ey = Array.isArray(y.enum) ? y.enum.map(canonicalJson) : undefined;
      const gone = ex ? ex.filter((v) => !ey || !ey.includes(v)) : [];
      const fresh = ey ? ey.filter((v) => !ex || !ex.includes(v)) : [];
      if (side === "input") {
        if (ey && (!ex || gone.length))
          diff.breaking.push(`${path}: enum value${gone.length === 1 ? "" : "s"} ${gone.join(", ") || "(all but the new)"} removed`);
        else if (fresh.length || !ey) diff.additive.push(`${path}: enum value${fresh.length === 1 ? "" : "s"} ${fresh.join(", ")} added`);
      } else if (gone.length) diff.additive.push(`${path}: enum value${gone.length === 1 ? "" : "s"} ${gone.join(", ")} no longer returned`);
      else if (fresh.length) diff.breaking.push(`${path}: enum value${fresh.length === 1 ? "" : "s"} ${fresh.join(", ")} may now be returned`);
    }
    // Bounds, for input: tighter breaks callers, looser is additive (output bounds are the skill's business).
    if (side === "input" && options.bounds !== false) {
      for (const key of [...LOWER_BOUNDS, ...UPPER_BOUNDS]) {
        const vx = typeof x[key] === "number" ? (x[key] as number) : undefined;
        const vy = typeof y[key] === "number" ? (y[key] as number) : undefined;
        if (vx === vy) continue;
        const lower = (LOWER_BOUNDS as readonly string[]).includes(key);
        const tighter = vy !== undefined && (vx === undefined || (lower ? vy > vx : vy < vx));
        (tighter ? diff.breaking : diff.additive).push(`${path}.${key}: ${vx ?? "none"} → ${vy ?? "none"}`);
      }
    }
    // Objects: properties and required.
    const px = isSchema(x.properties) ? x.properties : {};
    const py = isSchema(y.properties) ? y.properties : {};
    const rx = new Set(Array.isArray(x.required) ? x.required.map(String) : []);
    const ry = new Set(Array.isArray(y.required) ? y.required.map(String) : []);
    // A property removed breaks callers either way: one they send would be refused or silently ignored.
    for (const key of Object.keys(px)) if (!(key in py)) diff.breaking.push(`${path}.${key} removed`);
    for (const key of Object.keys(py)) {
      if (!(key in px))
        (side === "input" && ry.has(key) ? diff.breaking : diff.additive).push(`${path}.${key} added${side === "input" && ry.has(key) ? " as required" : ""}`);
      else visit(px[key], py[key], `${path}.${key}`, depth + 1);
    }
    for (const key of ry) if (key in px && !rx.has(key)) (side === "input" ? diff.breaking : diff.additive).push(`${path}.${key} now required`);
    for (const key of rx) if (key in py && !ry.has(key)) (side === "input" ? diff.additive : diff.breaking).push(`${path}.${key} no longer required`);
    // Undeclared fields: refusing them breaks callers who sent some (input); accepting them again is additive.
    if (side === "input" && (x.type === "object" || y.type === "object")) {
      const closed = (schema: Schema) => schema.additionalProperties === false;
      if (!closed(x) && closed(y)) diff.breaking.push(`${path}: undeclared fields now refused (additionalProperties: false)`);
      else if (closed(x) && !closed(y)) diff.additive.push(`${path}: undeclared fields accepted again`);
    }
    // Arrays and tuples.
    if (x.items !== undefined || y.items !== undefined) visit(x.items, y.items, `${path}[]`, depth + 1);
    if (Array.isArray(x.prefixItems) || Array.isArray(y.prefixItems)) {
      const ix = Array.isArray(x.prefixItems) ? x.prefixItems : [];
      const iy = Array.isArray(y.prefixItems) ? y.prefixItems : [];
      if (ix.length !== iy.length) diff.breaking.push(`${path}: ${ix.length} positional items → ${iy.length}`);
      ix.forEach((item, i) => i < iy.length && visit(item, iy[i], `${path}[${i}]`, depth + 1));
    }
    // Unions: an option gone breaks callers of that shape (input), a new one may surprise them (output).
    const ux = union(x);
    const uy = union(y);
    if (ux || uy) {
      const ox = (ux ?? [x]).map((o) => canonicalJson(resolve(o, before)));
      const oy = (uy ?? [y]).map((o) => canonicalJson(resolve(o, after)));
      const gone = ox.filter((o) => !oy.includes(o)).length;
      const fresh = oy.filter((o) => !ox.includes(o)).length;
      if (side === "input") {
        if (gone) diff.breaking.push(`${path}: ${gone} union option${gone === 1 ? "" : "s"} removed or changed`);
        else if (fresh) diff.additive.push(`${path}: ${fresh} union option${fresh === 1 ? "" : "s"} added`);
      } else if (fresh) diff.breaking.push(`${path}: ${fresh} union option${fresh === 1 ? "" : "s"} added or changed`);
      else if (gone) diff.additive.push(`${path}: ${gone} union option${gone === 1 ? "" : "s"} no longer returned`);
    }
  };
  visit(before, after, side, 0);
  return diff;
}

/**
 * What a new definition changes for callers of an older one, input and output together.
 * @example changesBetween(released, next).breaking // ["input.precision added as required"]
 */
export function changesBetween(before: SkillManifest, after: SkillManifest): SchemaDiff {
  const input = compareSchemas(before.inputSchema, after.inputSchema, "input");
  const output = compareSchemas(before.outputSchema, after.outputSchema, "output");
  const hints = compareHints(before, after);
  return { breaking: [...input.breaking, ...output.breaking, ...hints.breaking], additive: [...input.additive, ...output.additive, ...hints.additive] };
}

/**
 * What a tool promises about its effects, each with the words for withdrawing and for making it,
 * as MCP's annotations mean them when undeclared: not read-only; then destructive; open-world; and
 * not idempotent (the skill's `idempotent`).
 */
function promisesOf(manifest: SkillManifest): Array<{ kept: boolean; withdrawn: string; made: string }> {
  const readOnly = manifest.annotations?.readOnlyHint === true;
  return [
    { kept: readOnly, withdrawn: "no longer read-only", made: "now read-only" },
    { kept: readOnly || manifest.annotations?.destructiveHint === false, withdrawn: "now destructive", made: "no longer destructive" },
    { kept: manifest.annotations?.openWorldHint === false, withdrawn: "now open-world", made: "no longer open-world" },
    { kept: manifest.idempotent, withdrawn: "no longer idempotent", made: "now idempotent" },
  ];
}

/**
 * A promise about its effects withdrawn breaks callers (an agent that ran a read-only tool
 * without asking would now change the world); one made is additive.
 * @example compareHints(readOnly, writes).breaking // ["no longer read-only", "now destructive"]
 */
export function compareHints(before: SkillManifest, after: SkillManifest): SchemaDiff {
  const [was, is] = [promisesOf(before), promisesOf(after)];
  const diff: SchemaDiff = { breaking: [], additive: [] };
  was.forEach((promise, i) => {
    if (promise.kept && !is[i]!.kept) diff.breaking.push(promise.withdrawn);
    if (!promise.kept && is[i]!.kept) diff.additive.push(promise.made);
  });
  return diff;
}

/** A version's major, minor and patch numbers (its pre-release and build left out). */
const partsOf = (version: string) => version.split(/[-+]/)[0]!.split(".").map(Number) as [number, number, number];

/**
 * The smallest version after `version` with a bump of that kind.
 * @example nextVersion("1.4.2", "minor") // "1.5.0"
 */
export function nextVersion(version: string, bump: "major" | "minor" | "patch"): string {
  const [major, minor, patch] = partsOf(version);
  return (
    bump === "major" ? `${major + 1}.0.0`
    : bump === "minor" ? `${major}.${minor + 1}.0`
    : `${major}.${minor}.${patch + 1}`
  );
}

/** The kind of version bump from `before` to `after`: major, minor, patch, or none (same or older). */
export function bumpOf(before: string, after: string): "major" | "minor" | "patch" | "none" {
  if (compareSemver(after, before) <= 0) return "none";
  const [a, b] = [partsOf(before), partsOf(after)];
  if (b[0]! > a[0]!) return "major";
  if (b[1]! > a[1]!) return "minor";
  return "patch";
}

/**
 * What is wrong with the current manifests against the committed contracts, one message per
 * problem (empty when they may be released):
 * - a skill with no committed contract (run `npm run contracts` and commit it);
 * - a committed version whose definition changed (a version is one definition);
 * - a new version that breaks callers of the last committed one without a major bump, or adds
 *   to it without at least a minor bump.
 * @example checkContracts(current, committed) // ["text.summarize 2.1.0: breaks callers of 2.0.0 without a major version: input.text removed"]
 */
export function checkContracts(current: SkillManifest[], committed: SkillManifest[]): string[] {
  const problems: string[] = [];
  for (const manifest of current) {
    const label = `${manifest.name} ${manifest.version}`;
    const history = committed.filter((c) => c.name === manifest.name).sort((a, b) => compareSemver(a.version, b.version));
    const same = history.find((c) => c.version === manifest.version);
    if (same) {
      if (canonicalJson(same) !== canonicalJson(manifest))
        problems.push(`${label}: its definition changed under the same version (run npm run contracts only for a new version: bump it)`);
      continue;
    }
    const previous = history.filter((c) => compareSemver(c.version, manifest.version) < 0).at(-1);
    if (!previous) {
      problems.push(`${label}: no contract committed for it (run npm run contracts and commit contracts/${manifest.name}/${manifest.version}.json)`);
      continue;
    }
    const { breaking, additive } = changesBetween(previous, manifest);
    const bump = bumpOf(previous.version, manifest.version);
    if (breaking.length && bump !== "major") problems.push(`${label}: breaks callers of ${previous.version} without a major version: ${breaking.join("; ")}`);
    else if (additive.length && bump === "patch")
      problems.push(`${label}: adds to ${previous.version} in a patch version (needs at least a minor): ${additive.join("; ")}`);
    else
      problems.push(
        `${label}: compatible with ${previous.version} (a ${bump} bump), but its contract is not committed (run npm run contracts and commit contracts/${manifest.name}/${manifest.version}.json)`,
      );
  }
  return problems;
}
