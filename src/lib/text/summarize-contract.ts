/**
 * The contract every `text.summarize` deployment keeps (1.x, 2.x and the degraded fallback), so
 * the gateway can move callers between them without the caller noticing anything but quality.
 */
import { z } from "zod";

export const SummarizeInput = z.object({
  text: z.string().min(1).max(200_000).describe("The text to summarize (plain text, up to 200,000 characters)"),
  sentences: z.number().int().min(1).max(20).default(3).describe("How many sentences the summary keeps"),
});

export const SummarizeOutput = z.object({
  summary: z.string().describe("The chosen sentences joined by spaces, in their original order"),
  sentences: z.array(z.string()),
  method: z.enum(["word-frequency", "textrank", "lead"]).describe("How sentences were chosen"),
  totalSentences: z.number().int().describe("Sentences found in the input"),
});
export type SummarizeOutput = z.infer<typeof SummarizeOutput>;

/**
 * Everything but the version and the handler, spread into each deployment's `defineSkill`.
 * @example defineSkill({ ...summarizeContract, version: "2.0.0", handler: ({ text, sentences }) => … })
 */
export const summarizeContract = {
  name: "text.summarize",
  description:
    "Summarize a plain-text document by extracting its most representative sentences (no rewording, so facts are never invented). Input: {text, sentences?=3}.",
  tags: ["text.summarize", "text", "nlp.extractive"],
  input: SummarizeInput,
  output: SummarizeOutput,
  idempotent: true,
  // Released before inputs were strict: 1.0.0, 2.0.0 and 1.0.0-lead keep their open contracts
  // (undeclared fields dropped). Refusing them would break callers: that is for a next major.
  strictInput: false,
};
