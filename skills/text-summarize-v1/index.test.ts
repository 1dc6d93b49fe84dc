import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSkill, startSkill } from "../../test/support/skill.js";
import { ARTICLE } from "../../test/fixtures/texts.js";

describe("text.summarize@1.0.0 Worker (workerd)", () => {
  let skill: RunningSkill;
  beforeAll(async () => (skill = await startSkill("skills/text-summarize-v1")));
  afterAll(() => skill?.dispose());

  it("summarizes by word frequency and serves its manifest", async () => {
    const { result } = await skill.call({ text: ARTICLE, sentences: 2 });
    expect(result.method).toBe("word-frequency");
    expect(result.sentences).toHaveLength(2);
    const manifest = (await (await fetch(`${skill.url}/manifest`)).json()) as any;
    expect(manifest).toMatchObject({ name: "text.summarize", version: "1.0.0", degraded: false, idempotent: true });
    expect(manifest.inputSchema.properties.text.type).toBe("string");
  });
});
