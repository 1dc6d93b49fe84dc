import { defineSkill } from "../../src/skill/index.js";
import { SUMMARIZE_DESCRIPTION, SUMMARIZE_TAGS, SummarizeInput, SummarizeOutput } from "../../src/text/summarize-contract.js";
import { summarizeByTextRank } from "./textrank.js";

export default defineSkill({
  name: "text.summarize",
  version: "2.0.0",
  description: SUMMARIZE_DESCRIPTION,
  tags: SUMMARIZE_TAGS,
  input: SummarizeInput,
  output: SummarizeOutput,
  idempotent: true,
  timeoutMs: 5_000,
  handler: ({ text, sentences }) => summarizeByTextRank(text, sentences),
});
