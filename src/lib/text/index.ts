/**
 * Small text utilities shared by the `text.summarize` deployments: sentence splitting,
 * tokenising and an English stop-word list. Plain functions, no dependencies, Workers-safe.
 */

/** Common English words that carry no topic (articles, pronouns, auxiliaries, prepositions). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other " +
    "our ours ourselves out over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which while who whom why will " +
    "with would you your yours yourself yourselves also may might must shall us via per"
  ).split(" "),
);

const ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "inc", "ltd", "co", "fig", "no"]);

/**
 * Splits text into sentences at `.`, `!`, `?` (and CJK `。！？`) followed by space or end, not
 * after a known abbreviation or a single initial; paragraph breaks always end a sentence.
 * @example splitSentences("Dr. Smith came. He left!") // ["Dr. Smith came.", "He left!"]
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const flat = paragraph.replace(/\s+/g, " ").trim();
    let start = 0;
    // Latin punctuation needs a space (or the end) after it; CJK punctuation does not. A run of
    // punctuation is taken whole and only from its start (the lookbehind, and a lookahead that
    // cannot be backtracked into): otherwise "." x 100,000 + "x" is retried from every dot.
    const boundary = /(?<![.!?])(?=([.!?]+))\1(["'”’)\]]*)(\s+|$)|([。！？]+)(["'”’)\]]*)/g;
    for (let m = boundary.exec(flat); m; m = boundary.exec(flat)) {
      const punctuation = m[1] ?? m[4]!;
      const end = m.index + punctuation.length + (m[2] ?? m[5] ?? "").length;
      // The word before the punctuation, found by looking back to the last space only: slicing
      // from the sentence start instead made "Dr. " x 25,000 quadratic (seconds of CPU).
      const before = flat.slice(Math.max(start, flat.lastIndexOf(" ", m.index - 1) + 1), m.index).toLowerCase();
      if (punctuation === "." && m[3] !== "" && isAbbreviation(before)) continue;
      const sentence = flat.slice(start, end).trim();
      if (sentence) sentences.push(sentence);
      start = end;
    }
    const rest = flat.slice(start).trim();
    if (rest) sentences.push(rest);
  }
  return sentences;
}

/** "Dr", "etc", a single initial ("J") or a dotted abbreviation ("p.m", "e.g"). */
function isAbbreviation(word: string): boolean {
  return ABBREVIATIONS.has(word) || /^[a-z]$/i.test(word) || /^([a-z]\.)+[a-z]$/i.test(word);
}

/**
 * Lower-cased word tokens (letters and digits, any script), without stop words.
 * @example contentWords("The cat sat on the mat") // ["cat", "sat", "mat"]
 */
export function contentWords(sentence: string): string[] {
  return (sentence.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []).filter((w) => w.length > 1 && !STOP_WORDS.has(w));
}

/**
 * Picks the `count` best sentences by score and returns them in their original order.
 * @example pickSentences(["a", "b", "c"], [0.1, 0.9, 0.5], 2) // ["b", "c"]
 */
export function pickSentences(sentences: string[], scores: number[], count: number): string[] {
  return sentences
    .map((sentence, index) => ({ sentence, index, score: scores[index] ?? 0 }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, count)
    .sort((a, b) => a.index - b.index)
    .map((s) => s.sentence);
}
