/**
 * TextRank (Mihalcea & Tarau, 2004): sentences are nodes, edges weigh word overlap normalised
 * by length, and PageRank finds the sentences the rest of the text "agrees" with.
 */
import { contentWords, pickSentences, splitSentences } from "../../src/lib/text/index.js";
import type { SummarizeOutput } from "../../src/lib/text/summarize-contract.js";

/** The graph is O(n²): past this many sentences, only the first ones are ranked. */
export const MAX_RANKED_SENTENCES = 600;
const DAMPING = 0.85;
const MAX_ITERATIONS = 50;
const TOLERANCE = 1e-6;

/**
 * PageRank scores over a symmetric weight matrix.
 * @example pageRank([[0, 1], [1, 0]]) // [0.5, 0.5]
 */
export function pageRank(weights: number[][]): number[] {
  const n = weights.length;
  if (n === 0) return [];
  const outSum = weights.map((row) => row.reduce((a, b) => a + b, 0));
  let rank = new Array<number>(n).fill(1 / n);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    const next = new Array<number>(n).fill((1 - DAMPING) / n);
    // Dangling nodes (no overlap with anything) spread their rank evenly.
    const dangling = rank.reduce((sum, r, j) => (outSum[j] === 0 ? sum + r : sum), 0);
    for (let i = 0; i < n; i++) {
      let incoming = dangling / n;
      for (let j = 0; j < n; j++) if (weights[j]![i]! > 0) incoming += (rank[j]! * weights[j]![i]!) / outSum[j]!;
      next[i]! += DAMPING * incoming;
    }
    const delta = next.reduce((sum, r, i) => sum + Math.abs(r - rank[i]!), 0);
    rank = next;
    if (delta < TOLERANCE) break;
  }
  return rank;
}

/**
 * Summarises by TextRank.
 * @example summarizeByTextRank(article, 3).method // "textrank"
 */
export function summarizeByTextRank(text: string, count: number): SummarizeOutput {
  const sentences = splitSentences(text);
  const ranked = sentences.slice(0, MAX_RANKED_SENTENCES);
  const bags = ranked.map((s) => new Set(contentWords(s)));
  const weights = bags.map((a, i) =>
    bags.map((b, j) => {
      if (i === j || a.size < 1 || b.size < 1) return 0;
      let overlap = 0;
      for (const word of a) if (b.has(word)) overlap++;
      const norm = Math.log(a.size + 1) + Math.log(b.size + 1);
      return overlap === 0 ? 0 : overlap / norm;
    }),
  );
  const chosen = pickSentences(ranked, pageRank(weights), count);
  return { summary: chosen.join(" "), sentences: chosen, method: "textrank", totalSentences: sentences.length };
}
