/** Word-frequency summarisation (Luhn style): sentences dense in the text's frequent words win. */
import { contentWords, pickSentences, splitSentences } from "../../src/lib/text/index.js";
import type { SummarizeOutput } from "../../src/lib/text/summarize-contract.js";

/**
 * Scores each sentence by the mean normalised frequency of its content words.
 * @example summarizeByFrequency("Cats purr. Cats sleep a lot. Dogs bark.", 1).sentences // ["Cats sleep a lot."]
 */
export function summarizeByFrequency(text: string, count: number): SummarizeOutput {
  const sentences = splitSentences(text);
  const words = sentences.map(contentWords);
  const frequency = new Map<string, number>();
  for (const word of words.flat()) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const top = Math.max(1, ...frequency.values());
  const scores = words.map((ws) => (ws.length === 0 ? 0 : ws.reduce((sum, w) => sum + frequency.get(w)! / top, 0) / Math.sqrt(ws.length)));
  const chosen = pickSentences(sentences, scores, count);
  return { summary: chosen.join(" "), sentences: chosen, method: "word-frequency", totalSentences: sentences.length };
}
