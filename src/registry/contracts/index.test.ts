import { describe, expect, it } from "vitest";
import type { SkillManifest } from "../../skill/manifest.js";
import { bumpOf, checkContracts, compareHints, compareSchemas } from "./index.js";

const obj = (properties: Record<string, unknown>, required: string[] = [], extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  required,
  ...extra,
});
const str = { type: "string" };

/** [what, before, after, side, breaking?, additive?] — the compatibility rules as a table. */
const CASES: Array<[string, Record<string, unknown>, Record<string, unknown>, "input" | "output", boolean, boolean]> = [
  ["same schema", obj({ a: str }), obj({ a: str }), "input", false, false],
  [
    "input property removed (closed object)",
    obj({ a: str, b: str }, [], { additionalProperties: false }),
    obj({ a: str }, [], { additionalProperties: false }),
    "input",
    true,
    false,
  ],
  ["input required property removed", obj({ a: str, b: str }, ["b"]), obj({ a: str }), "input", true, false],
  ["input optional property removed (open object: it would be ignored)", obj({ a: str, b: str }), obj({ a: str }), "input", true, false],
  ["input closed (undeclared fields now refused: strict input)", obj({ a: str }), obj({ a: str }, [], { additionalProperties: false }), "input", true, false],
  ["input opened (strictInput: false)", obj({ a: str }, [], { additionalProperties: false }), obj({ a: str }), "input", false, true],
  ["optional input property added", obj({ a: str }), obj({ a: str, b: str }), "input", false, true],
  ["required input property added", obj({ a: str }), obj({ a: str, b: str }, ["b"]), "input", true, false],
  ["input property newly required", obj({ a: str }), obj({ a: str }, ["a"]), "input", true, false],
  ["input no longer required", obj({ a: str }, ["a"]), obj({ a: str }), "input", false, true],
  ["input type narrowed", obj({ a: { type: ["string", "number"] } }), obj({ a: str }), "input", true, false],
  ["input type widened", obj({ a: str }), obj({ a: { type: ["string", "null"] } }), "input", false, true],
  ["input integer widened to number", obj({ a: { type: "integer" } }), obj({ a: { type: "number" } }), "input", false, true],
  ["input enum value removed", obj({ a: { type: "string", enum: ["x", "y"] } }), obj({ a: { type: "string", enum: ["x"] } }), "input", true, false],
  ["input enum value added", obj({ a: { type: "string", enum: ["x"] } }), obj({ a: { type: "string", enum: ["x", "y"] } }), "input", false, true],
  ["input maxLength tightened", obj({ a: { type: "string", maxLength: 100 } }), obj({ a: { type: "string", maxLength: 50 } }), "input", true, false],
  ["input minimum loosened", obj({ a: { type: "number", minimum: 1 } }), obj({ a: { type: "number", minimum: 0 } }), "input", false, true],
  [
    "input array items narrowed",
    obj({ a: { type: "array", items: { type: ["string", "number"] } } }),
    obj({ a: { type: "array", items: str } }),
    "input",
    true,
    false,
  ],
  ["input tuple shortened", { type: "array", prefixItems: [str, str] }, { type: "array", prefixItems: [str] }, "input", true, false],
  ["input union option removed", obj({ a: { anyOf: [str, { type: "number" }] } }), obj({ a: { anyOf: [str] } }), "input", true, false],
  ["input union option added", obj({ a: { anyOf: [str] } }), obj({ a: { anyOf: [str, { type: "number" }] } }), "input", false, true],
  [
    "input $ref target narrowed",
    { ...obj({ a: { $ref: "#/$defs/A" } }), $defs: { A: { type: ["string", "number"] } } },
    { ...obj({ a: { $ref: "#/$defs/A" } }), $defs: { A: str } },
    "input",
    true,
    false,
  ],
  ["input $ref replaced by the same schema inline", { ...obj({ a: { $ref: "#/$defs/A" } }), $defs: { A: str } }, obj({ a: str }), "input", false, false],
  ["output property removed", obj({ a: str, b: str }), obj({ a: str }), "output", true, false],
  ["output property type changed", obj({ a: str }), obj({ a: { type: "number" } }), "output", true, false],
  ["output property added", obj({ a: str }), obj({ a: str, b: str }), "output", false, true],
  [
    "output enum value may now be returned",
    obj({ a: { type: "string", enum: ["x"] } }),
    obj({ a: { type: "string", enum: ["x", "y"] } }),
    "output",
    true,
    false,
  ],
  ["output union option added", obj({ a: { oneOf: [str] } }), obj({ a: { oneOf: [str, { type: "number" }] } }), "output", true, false],
  [
    "output $ref target changed",
    { ...obj({ a: { $ref: "#/$defs/A" } }), $defs: { A: obj({ x: str }) } },
    { ...obj({ a: { $ref: "#/$defs/A" } }), $defs: { A: obj({}) } },
    "output",
    true,
    false,
  ],
];

describe("schema compatibility", () => {
  it.each(CASES)("%s", (_what, before, after, side, breaking, additive) => {
    const diff = compareSchemas(before, after, side);
    expect(diff.breaking.length > 0, `breaking: ${diff.breaking.join("; ")}`).toBe(breaking);
    expect(diff.additive.length > 0, `additive: ${diff.additive.join("; ")}`).toBe(additive);
  });

  it("names what changed", () => {
    expect(compareSchemas(obj({ text: { type: "string", maxLength: 100 } }), obj({ text: { type: "string", maxLength: 50 } }), "input").breaking).toEqual([
      "input.text.maxLength: 100 → 50",
    ]);
  });

  it("reads version bumps", () => {
    expect([bumpOf("1.2.3", "2.0.0"), bumpOf("1.2.3", "1.3.0"), bumpOf("1.2.3", "1.2.4"), bumpOf("1.2.3", "1.2.3"), bumpOf("1.2.3", "1.0.0")]).toEqual([
      "major",
      "minor",
      "patch",
      "none",
      "none",
    ]);
  });
});

const manifest = (version: string, inputSchema: Record<string, unknown>, extra: Partial<SkillManifest> = {}): SkillManifest => ({
  name: "s",
  version,
  description: "d",
  tags: ["t"],
  idempotent: true,
  degraded: false,
  timeoutMs: 1000,
  inputSchema,
  outputSchema: obj({ r: str }),
  ...extra,
});

describe("the drift gate", () => {
  const committed = [manifest("1.0.0", obj({ a: str }))];
  it("passes a committed version unchanged", () => {
    expect(checkContracts([manifest("1.0.0", obj({ a: str }))], committed)).toEqual([]);
  });
  it("fails a changed definition under the same version", () => {
    expect(checkContracts([manifest("1.0.0", obj({ a: str }), { description: "new" })], committed)[0]).toMatch(/definition changed under the same version/);
  });
  it("fails a breaking change without a major version, and an addition in a patch", () => {
    expect(checkContracts([manifest("1.1.0", obj({ a: str, b: str }, ["b"]))], committed)[0]).toMatch(
      /breaks callers of 1.0.0 without a major version: input.b added as required/,
    );
    expect(checkContracts([manifest("1.0.1", obj({ a: str, b: str }))], committed)[0]).toMatch(/adds to 1.0.0 in a patch version/);
  });
  it("asks for the contract of a compatible new version, and of a skill with none", () => {
    expect(checkContracts([manifest("2.0.0", obj({}))], committed)[0]).toMatch(/compatible with 1.0.0 \(a major bump\), but its contract is not committed/);
    expect(checkContracts([{ ...manifest("1.0.0", obj({})), name: "new" }], committed)[0]).toMatch(/no contract committed/);
  });
});

describe("what a tool promises about its effects (MCP's annotations, and idempotent)", () => {
  const readOnly = manifest("1.0.0", obj({}), { annotations: { readOnlyHint: true, openWorldHint: false } });
  it("withdrawn breaks callers, made is additive; undeclared hints mean what MCP says (destructive, open-world)", () => {
    expect(compareHints(readOnly, manifest("1.1.0", obj({})))).toEqual({
      breaking: ["no longer read-only", "now destructive", "now open-world"],
      additive: [],
    });
    expect(compareHints(manifest("1.0.0", obj({}), { idempotent: false }), readOnly)).toEqual({
      breaking: [],
      additive: ["now read-only", "no longer destructive", "no longer open-world", "now idempotent"],
    });
    const writesSafely = manifest("1.0.0", obj({}), { annotations: { destructiveHint: false } });
    expect(compareHints(writesSafely, manifest("1.0.1", obj({}), { annotations: { destructiveHint: false, readOnlyHint: false } }))).toEqual({
      breaking: [],
      additive: [],
    });
  });
  it("a tool that becomes destructive needs a major version", () => {
    const committedReadOnly = [readOnly];
    expect(checkContracts([manifest("1.1.0", obj({}), { annotations: { readOnlyHint: false, openWorldHint: false } })], committedReadOnly)[0]).toBe(
      "s 1.1.0: breaks callers of 1.0.0 without a major version: no longer read-only; now destructive",
    );
    expect(
      checkContracts(
        [manifest("1.0.1", obj({}), { annotations: { readOnlyHint: true, openWorldHint: false }, idempotent: true, title: "t" })],
        committedReadOnly,
      )[0],
    ).toMatch(/compatible with 1.0.0 \(a patch bump\)/);
  });
});
