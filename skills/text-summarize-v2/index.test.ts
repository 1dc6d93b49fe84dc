import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSkill, startSkill } from "../../test/support/skill.js";
import { summarizeByFrequency } from "../text-summarize-v1/summarize.js";
import { pageRank, summarizeByTextRank } from "./textrank.js";
import { ARTICLE } from "../../test/fixtures/texts.js";

describe("pageRank", () => {
  it("gives symmetric nodes equal rank and sums to 1", () => {
    const rank = pageRank([
      [0, 1, 1],
      [1, 0, 1],
      [1, 1, 0],
    ]);
    expect(rank.reduce((a, b) => a + b)).toBeCloseTo(1, 6);
    expect(rank[0]).toBeCloseTo(rank[1]!, 9);
  });
  it("ranks the hub of a star above its leaves", () => {
    const rank = pageRank([
      [0, 1, 1, 1],
      [1, 0, 0, 0],
      [1, 0, 0, 0],
      [1, 0, 0, 0],
    ]);
    expect(rank[0]).toBeGreaterThan(rank[1]!);
  });
});

describe("summarizers", () => {
  it("TextRank keeps on-topic sentences and drops the off-topic ones", () => {
    const out = summarizeByTextRank(ARTICLE, 2);
    expect(out.method).toBe("textrank");
    expect(out.totalSentences).toBe(6);
    expect(out.sentences).toHaveLength(2);
    for (const s of out.sentences) expect(s).toMatch(/solar|batter/i);
  });
  it("word frequency (1.x) also drops off-topic sentences", () => {
    const out = summarizeByFrequency(ARTICLE, 2);
    expect(out.method).toBe("word-frequency");
    for (const s of out.sentences) expect(s).not.toMatch(/football|weather/);
  });
  it("returns every sentence, in order, when fewer than asked", () => {
    expect(summarizeByTextRank("One thing. Two things.", 5).sentences).toEqual(["One thing.", "Two things."]);
  });
});

describe("text.summarize@2.0.0 Worker (workerd)", () => {
  let skill: RunningSkill;
  beforeAll(async () => (skill = await startSkill("skills/text-summarize-v2")));
  afterAll(() => skill?.dispose());

  it("summarizes with the default of 3 sentences", async () => {
    const { result } = await skill.call({ text: ARTICLE });
    expect(result.method).toBe("textrank");
    expect(result.sentences).toHaveLength(3);
    expect(result.summary).toBe(result.sentences.join(" "));
  });

  it("answers -32602 for an empty text or a silly sentence count", async () => {
    expect((await skill.call({ text: "" })).error.code).toBe(-32602);
    expect((await skill.call({ text: "Hi.", sentences: 0 })).error.code).toBe(-32602);
  });
});
