import { defineSkill } from "../../src/skill/index.js";
import { splitSentences } from "../../src/lib/text/index.js";
import { summarizeContract } from "../../src/lib/text/summarize-contract.js";

/**
 * The fallback of `text.summarize`: the first sentences (the "lead"). No ranking, so it is cheap
 * and cannot fail on odd input; news-style text puts the gist first anyway.
 */
export default defineSkill({
  ...summarizeContract,
  version: "1.0.0-lead",
  degraded: true,
  timeoutMs: 2_000,
  handler: ({ text, sentences: count }) => {
    const sentences = splitSentences(text);
    const chosen = sentences.slice(0, count);
    return { summary: chosen.join(" "), sentences: chosen, method: "lead" as const, totalSentences: sentences.length };
  },
});
