import { describe, expect, it } from "vitest";
import type { SkillManifest } from "../../skill/manifest.js";
import { checkPipeline } from "./check.js";
import { PipelineSpecSchema } from "./index.js";

const manifest = (name: string, inputSchema: object, outputSchema: object, version = "1.0.0") =>
  ({ name, version, description: name, tags: [], inputSchema, outputSchema, idempotent: true }) as unknown as SkillManifest;

const extract = manifest(
  "html.extract",
  { type: "object", properties: { html: { type: "string", minLength: 1 } }, required: ["html"] },
  {
    type: "object",
    properties: { title: { type: ["string", "null"] }, text: { type: "string" }, wordCount: { type: "integer" } },
    required: ["title", "text", "wordCount"],
    additionalProperties: false,
  },
);
const summarize = manifest(
  "text.summarize",
  {
    type: "object",
    properties: { text: { type: "string", minLength: 1 }, sentences: { type: "integer", minimum: 1, maximum: 20 } },
    required: ["text"],
    additionalProperties: false,
  },
  { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
);
const digest = (over: object = {}) =>
  PipelineSpecSchema.parse({
    name: "web.digest",
    input: { type: "object", properties: { html: { type: "string" }, sentences: { type: "integer" } }, required: ["html"] },
    outputSchema: { type: "object", properties: { title: { type: ["string", "null"] }, summary: { type: "string" } }, required: ["summary"] },
    steps: [
      { name: "extract", skill: "html.extract", input: { html: "{{ $.input.html }}" } },
      { name: "summarize", skill: "text.summarize", input: { text: "{{ $.steps.extract.output.text }}", sentences: 3 } },
    ],
    output: { title: "{{ $.steps.extract.output.title }}", summary: "{{ $.steps.summarize.output.summary }}" },
    ...over,
  });

describe("checkPipeline", () => {
  it("a pipeline that fits its skills' contracts has no problem", () => {
    expect(checkPipeline(digest(), [extract, summarize])).toEqual([]);
  });

  it("an unknown skill", () => {
    expect(checkPipeline(digest(), [extract])).toContain(
      "pipeline web.digest, step summarize: no skill text.summarize is known (not in skills/ nor in contracts/)",
    );
  });

  it("a template path through a field the producer does not have", () => {
    const spec = digest({
      steps: [
        { name: "extract", skill: "html.extract", input: { html: "{{ $.input.html }}" } },
        { name: "summarize", skill: "text.summarize", input: { text: "{{ $.steps.extract.output.body }}" } },
      ],
    });
    expect(checkPipeline(spec, [extract, summarize])).toEqual([
      "pipeline web.digest, step summarize, input.text: $.steps.extract.output.body: html.extract's output has no field body",
    ]);
  });

  it("a step that has not run yet, or does not exist", () => {
    const spec = digest({
      steps: [
        { name: "summarize", skill: "text.summarize", input: { text: "{{ $.steps.extract.output.text }}" } },
        { name: "extract", skill: "html.extract", input: { html: "{{ $.input.html }}" } },
      ],
    });
    expect(checkPipeline(spec, [extract, summarize])).toContain(
      "pipeline web.digest, step summarize, input.text: $.steps.extract.output.text: no step extract runs before this one",
    );
  });

  it("a required field of the callee left out, and a field it does not take", () => {
    const spec = digest({
      steps: [
        { name: "extract", skill: "html.extract", input: { html: "{{ $.input.html }}" } },
        { name: "summarize", skill: "text.summarize", input: { sentences: 2, lang: "en" } },
      ],
      output: undefined,
      outputSchema: undefined,
    });
    expect(checkPipeline(spec, [extract, summarize])).toEqual([
      "pipeline web.digest, step summarize, input: misses text, which text.summarize's input requires",
      "pipeline web.digest, step summarize, input.lang: text.summarize's input has no field lang",
    ]);
  });

  it("a literal the callee's schema refuses", () => {
    const spec = digest({
      steps: [
        { name: "extract", skill: "html.extract", input: { html: "{{ $.input.html }}" } },
        { name: "summarize", skill: "text.summarize", input: { text: "{{ $.steps.extract.output.text }}", sentences: 50 } },
      ],
    });
    expect(checkPipeline(spec, [extract, summarize])).toEqual([
      expect.stringMatching(/^pipeline web\.digest, step summarize, input\.sentences: 50 does not fit text\.summarize's input: /),
    ]);
  });

  it("a value of another type than the callee takes", () => {
    const spec = digest({
      steps: [
        { name: "extract", skill: "html.extract", input: { html: "{{ $.input.html }}" } },
        { name: "summarize", skill: "text.summarize", input: { text: "{{ $.steps.extract.output.wordCount }}" } },
      ],
    });
    expect(checkPipeline(spec, [extract, summarize])).toEqual([
      expect.stringMatching(
        /^pipeline web\.digest, step summarize, input\.text: \{\{ \$\.steps\.extract\.output\.wordCount \}\} does not fit text\.summarize's input: /,
      ),
    ]);
  });

  it("an output mapping that does not fit the declared output", () => {
    const spec = digest({ output: { title: "{{ $.steps.extract.output.title }}", summary: "{{ $.steps.extract.output.wordCount }}" } });
    expect(checkPipeline(spec, [extract, summarize])).toEqual([
      expect.stringMatching(/^pipeline web\.digest, output\.summary: \{\{ \$\.steps\.extract\.output\.wordCount \}\} does not fit the declared output: /),
    ]);
  });

  it("an expression that does not parse", () => {
    const spec = digest({ steps: [{ name: "extract", skill: "html.extract", input: { html: "{{ $.input.html }}" }, when: "$.input.html ==" }] });
    expect(checkPipeline(spec, [extract])[0]).toMatch(/^pipeline web\.digest, step extract, when: \{\{ \$\.input\.html == \}\} is not an expression: /);
  });

  it("a breaking change in a called skill's contract fails the pipeline's check", () => {
    const renamed = manifest(
      "html.extract",
      extract.inputSchema,
      { type: "object", properties: { title: { type: ["string", "null"] }, body: { type: "string" } }, required: ["body"] },
      "2.0.0",
    );
    expect(checkPipeline(digest(), [extract, renamed, summarize])).toEqual([
      "pipeline web.digest, step summarize, input.text: $.steps.extract.output.text: html.extract's output has no field text",
    ]);
  });
});
