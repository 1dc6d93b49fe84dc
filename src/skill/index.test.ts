import { describe, expect, it } from "vitest";
import { defineSkill, z } from "./index.js";

const base = {
  name: "math.add",
  version: "1.0.0",
  description: "a + b",
  tags: ["math"],
  input: z.object({ a: z.number(), b: z.number() }),
  output: z.number(),
  handler: ({ a, b }: { a: number; b: number }) => a + b,
};

describe("defineSkill's manifest", () => {
  it("carries the title and the effect hints a skill declares; idempotentHint is only ever `idempotent`", () => {
    const { manifest } = defineSkill({
      ...base,
      idempotent: true,
      title: "Add two numbers",
      annotations: { readOnlyHint: true, openWorldHint: false, ...({ idempotentHint: false } as object) },
    });
    expect(manifest.title).toBe("Add two numbers");
    expect(manifest.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(manifest.idempotent).toBe(true);
  });

  it("declares no annotations unless the skill does", () => {
    const { manifest } = defineSkill(base);
    expect(manifest).not.toHaveProperty("annotations");
    expect(manifest).not.toHaveProperty("title");
    expect(defineSkill({ ...base, annotations: {} }).manifest).not.toHaveProperty("annotations");
  });

  it("refuses a hint that is not a boolean, at module load", () => {
    expect(() => defineSkill({ ...base, annotations: { destructiveHint: "yes" as unknown as boolean } })).toThrow();
  });
});
