import { defineSkill } from "../../src/skill/index.js";
import { summarizeContract } from "../../src/lib/text/summarize-contract.js";
import { summarizeByFrequency } from "./summarize.js";

export default defineSkill({
  ...summarizeContract,
  version: "1.0.0",
  timeoutMs: 5_000,
  handler: ({ text, sentences }) => summarizeByFrequency(text, sentences),
});
