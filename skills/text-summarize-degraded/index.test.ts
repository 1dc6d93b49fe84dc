import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSkill, startSkill } from "../../test/support/skill.js";

describe("text.summarize degraded fallback (workerd)", () => {
  let skill: RunningSkill;
  beforeAll(async () => (skill = await startSkill("skills/text-summarize-degraded")));
  afterAll(() => skill?.dispose());

  it("returns the lead sentences and declares itself degraded", async () => {
    const { result } = await skill.call({ text: "First point. Second point. Third point. Fourth.", sentences: 2 });
    expect(result).toEqual({ summary: "First point. Second point.", sentences: ["First point.", "Second point."], method: "lead", totalSentences: 4 });
    const manifest = (await (await fetch(`${skill.url}/manifest`)).json()) as any;
    expect(manifest).toMatchObject({ name: "text.summarize", degraded: true });
  });
});
