import { defineSkill } from "../../src/skill/index.js";
import { summarizeContract } from "../../src/lib/text/summarize-contract.js";
import { summarizeByTextRank } from "./textrank.js";

export default defineSkill({
  ...summarizeContract,
  version: "2.0.0",
  timeoutMs: 5_000,
  handler: ({ text, sentences }) => summarizeByTextRank(text, sentences),
});
