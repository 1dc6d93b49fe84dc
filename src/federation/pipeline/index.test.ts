import { describe, expect, it } from "vitest";
import { MAX_FOR_EACH_ITEMS, PipelineSpecSchema, PipelineStepError, StepCallError, type StepCaller, resolveTemplate, runPipeline } from "./index.js";

const spec = (raw: unknown) => PipelineSpecSchema.parse(raw);

/** A caller over a table of skills (functions of params), counting calls in flight. */
function caller(skills: Record<string, (params: any) => unknown | Promise<unknown>>) {
  const state = { inFlight: 0, maxInFlight: 0, calls: [] as Array<{ skill: string; params: unknown; key: string }> };
  const call: StepCaller = async (skill, params, { key }) => {
    state.calls.push({ skill, params, key });
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const fn = skills[skill];
      if (!fn) throw new StepCallError(-32601, "Method not found");
      return await fn(params);
    } finally {
      state.inFlight--;
    }
  };
  return { call, state };
}

describe("templates", () => {
  const scope = { input: { n: 3, tags: ["a"], url: "https://x" }, steps: { parse: { output: { text: "hello", count: 2 } } }, step_0: { text: "hello" } };

  it("a whole expression keeps its JSON type; embedded ones become text", async () => {
    expect(await resolveTemplate("{{ $.input.n }}", scope)).toBe(3);
    expect(await resolveTemplate("{{ $.input.tags }}", scope)).toEqual(["a"]);
    expect(await resolveTemplate("  {{ $.steps.parse.output }} ", scope)).toEqual({ text: "hello", count: 2 });
    expect(await resolveTemplate("fetch {{ $.input.url }} ({{ $.steps.parse.output.count }} items)", scope)).toBe("fetch https://x (2 items)");
    expect(await resolveTemplate({ a: ["{{ $.step_0.text }}", 1, true] }, scope)).toEqual({ a: ["hello", 1, true] });
    expect(await resolveTemplate("{{ $.input.missing }}", scope)).toBeNull();
  });
});

describe("runPipeline", () => {
  it("passes outputs along by name and by position, maps the output, and reports step k of n", async () => {
    const { call, state } = caller({ parse: ({ raw }) => ({ parsed: raw.toUpperCase() }), format: ({ parsed }) => ({ formatted: `<${parsed}>` }) });
    const progress: string[] = [];
    const result = await runPipeline(
      spec({
        name: "p",
        steps: [
          { skill: "parse", input: { raw: "{{ $.input.raw_data }}" } },
          { name: "fmt", skill: "format", input: { parsed: "{{ $.step_0.parsed }}" } },
        ],
        output: { text: "{{ $.steps.fmt.output.formatted }}", first: "{{ $.steps.step_0.output.parsed }}" },
      }),
      { raw_data: "ab" },
      { call, progress: (done, total, message) => progress.push(`${done}/${total} ${message}`) },
    );
    expect(result).toEqual({ text: "<AB>", first: "AB" });
    expect(progress).toEqual(["1/2 step 1 of 2: step_0", "2/2 step 2 of 2: fmt"]);
    expect(state.calls.map((c) => c.key)).toEqual(["step_0", "fmt"]);
  });

  it("skips a step whose `when` is false (its output is null) and answers the last step's output by default", async () => {
    const { call, state } = caller({ a: () => 1, b: () => 2 });
    const result = await runPipeline(
      spec({
        name: "p",
        steps: [
          { skill: "a", when: "{{ $.input.go }}" },
          { skill: "b", input: { prev: "{{ $.step_0 }}" } },
        ],
      }),
      { go: false },
      { call },
    );
    expect(result).toBe(2);
    expect(state.calls).toEqual([{ skill: "b", params: { prev: null }, key: "step_1" }]);
  });

  it("runs a parallel group at once, each member seeing only the steps before the group", async () => {
    const { call, state } = caller({ a: () => "A", b: () => "B", join: ({ x, y }) => `${x}${y}` });
    const result = await runPipeline(
      spec({
        name: "p",
        steps: [
          {
            parallel: [
              { name: "x", skill: "a" },
              { name: "y", skill: "b" },
            ],
          },
          { skill: "join", input: { x: "{{ $.steps.x.output }}", y: "{{ $.steps.y.output }}" } },
        ],
      }),
      {},
      { call },
    );
    expect(result).toBe("AB");
    expect(state.maxInFlight).toBe(2);
  });

  it("forEach calls once per element, never more than `concurrency` at once, outputs in order", async () => {
    const { call, state } = caller({ square: ({ n }) => n * n });
    const result = await runPipeline(
      spec({ name: "p", steps: [{ skill: "square", forEach: "$.input.values", concurrency: 3, input: { n: "{{ $.item }}" } }] }),
      { values: [1, 2, 3, 4, 5, 6, 7] },
      { call },
    );
    expect(result).toEqual([1, 4, 9, 16, 25, 36, 49]);
    expect(state.maxInFlight).toBe(3);
    expect(state.calls.map((c) => c.key)).toEqual(["step_0[0]", "step_0[1]", "step_0[2]", "step_0[3]", "step_0[4]", "step_0[5]", "step_0[6]"]);
  });

  it("a forEach over more than MAX_FOR_EACH_ITEMS items fails before any call, whatever its onError says", async () => {
    const { call, state } = caller({ square: ({ n }) => n * n });
    const fanOut = spec({
      name: "p",
      steps: [{ name: "each", skill: "square", forEach: "$.input.values", input: { n: "{{ $.item }}" }, onError: { default: [] } }],
    });
    const values = Array.from({ length: MAX_FOR_EACH_ITEMS + 1 }, (_, i) => i);
    const failing = runPipeline(fanOut, { values }, { call });
    await expect(failing).rejects.toMatchObject({
      step: "each",
      failure: { code: -32602, data: { items: MAX_FOR_EACH_ITEMS + 1, maxItems: MAX_FOR_EACH_ITEMS } },
    });
    expect(state.calls).toHaveLength(0);
    expect(await runPipeline(fanOut, { values: values.slice(1) }, { call })).toHaveLength(MAX_FOR_EACH_ITEMS);
  });

  it("onError: fail stops the pipeline naming the step; default goes on with a value; fallback calls another skill; retries come first", async () => {
    let attempts = 0;
    const { call, state } = caller({
      broken: () => {
        attempts++;
        throw new StepCallError(-32001, "unavailable");
      },
      backup: ({ v }) => `backup ${v}`,
    });
    const failing = runPipeline(spec({ name: "p", steps: [{ name: "first", skill: "broken", retries: 2 }] }), {}, { call });
    await expect(failing).rejects.toBeInstanceOf(PipelineStepError);
    await expect(failing).rejects.toThrow("step first (broken) failed: unavailable");
    expect(attempts).toBe(3);
    expect(await runPipeline(spec({ name: "p", steps: [{ skill: "broken", onError: { default: { ok: false } } }] }), {}, { call })).toEqual({ ok: false });
    expect(await runPipeline(spec({ name: "p", steps: [{ skill: "broken", input: { v: 1 }, onError: { fallback: "backup" } }] }), {}, { call })).toBe(
      "backup 1",
    );
    expect(state.calls.at(-1)).toMatchObject({ skill: "backup", key: "step_0/fallback" });
  });

  it("retries only a transient failure: bad params or the skill's own error answer at once", async () => {
    const attempts = { flaky: 0, badParams: 0, ownError: 0 };
    const { call } = caller({
      flaky: () => {
        if (++attempts.flaky < 3) throw new StepCallError(-32004, "timed out");
        return "third time";
      },
      badParams: () => {
        attempts.badParams++;
        throw new StepCallError(-32602, "Invalid params");
      },
      ownError: () => {
        attempts.ownError++;
        throw new StepCallError(-32010, "no such frame");
      },
    });
    expect(await runPipeline(spec({ name: "p", steps: [{ skill: "flaky", retries: 2 }] }), {}, { call })).toBe("third time");
    await expect(runPipeline(spec({ name: "p", steps: [{ skill: "badParams", retries: 3 }] }), {}, { call })).rejects.toThrow("Invalid params");
    await expect(runPipeline(spec({ name: "p", steps: [{ skill: "ownError", retries: 3 }] }), {}, { call })).rejects.toThrow("no such frame");
    expect(attempts).toEqual({ flaky: 3, badParams: 1, ownError: 1 });
  });

  it("refuses a spec that is not one: unknown fields, bad names, steps that do not rise", () => {
    expect(PipelineSpecSchema.safeParse({ name: "p", steps: [{ skill: "a", inptu: {} }] }).success).toBe(false);
    expect(PipelineSpecSchema.safeParse({ name: "p", steps: [{ name: "1st", skill: "a" }] }).success).toBe(false);
    expect(PipelineSpecSchema.safeParse({ name: "p", steps: [] }).success).toBe(false);
  });
});
