import { describe, expect, it } from "vitest";
import { z } from "zod";
import { strictInputOf } from "./strict.js";

describe("strictInputOf", () => {
  const input = z
    .object({
      text: z.string().min(1).describe("the text to read"),
      options: z
        .object({ language: z.string().default("en") })
        .optional()
        .describe("how to read it"),
      items: z.array(z.object({ id: z.number() })).max(3),
      either: z.union([z.object({ a: z.number() }), z.string()]).optional(),
      extra: z.object({}).passthrough().optional(),
    })
    .describe("what to summarize");
  const strict = strictInputOf(input);

  it("refuses an undeclared field at any depth, naming it", () => {
    const issues = (value: unknown) =>
      strict.safeParse(value).error?.issues.map((i) => ({ code: i.code, path: i.path, keys: "keys" in i ? i.keys : undefined }));
    expect(issues({ text: "a", items: [], volume: 11 })).toEqual([{ code: "unrecognized_keys", path: [], keys: ["volume"] }]);
    expect(issues({ text: "a", items: [], options: { langauge: "de" } })).toEqual([{ code: "unrecognized_keys", path: ["options"], keys: ["langauge"] }]);
    expect(issues({ text: "a", items: [{ id: 1, name: "x" }] })).toEqual([{ code: "unrecognized_keys", path: ["items", 0], keys: ["name"] }]);
    expect(strict.safeParse({ text: "a", items: [], either: { a: 1, b: 2 } }).success).toBe(false);
  });

  it("keeps everything else: checks, defaults, descriptions, and an object's own passthrough", () => {
    expect(strict.parse({ text: "a", items: [], options: {}, extra: { anything: 1 } })).toEqual({
      text: "a",
      items: [],
      options: { language: "en" },
      extra: { anything: 1 },
    });
    expect(strict.safeParse({ text: "", items: [] }).success).toBe(false);
    expect(strict.safeParse({ text: "a", items: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }] }).success).toBe(false);
    const published = z.toJSONSchema(strict, { io: "input" }) as any;
    expect(published).toMatchObject({ description: "what to summarize", additionalProperties: false });
    expect(published.properties.text.description).toBe("the text to read");
    expect(published.properties.options).toMatchObject({ description: "how to read it", additionalProperties: false });
    expect(published.properties.items.items.additionalProperties).toBe(false);
    expect(published.properties.extra.additionalProperties).toEqual({});
    // The original is untouched (open).
    expect(input.safeParse({ text: "a", items: [], volume: 11 }).success).toBe(true);
  });
});
