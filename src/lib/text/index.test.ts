import { describe, expect, it } from "vitest";
import { contentWords, pickSentences, splitSentences } from "./index.js";

describe("splitSentences", () => {
  it("splits at sentence punctuation and keeps abbreviations and initials inside", () => {
    expect(splitSentences("Dr. Smith met J. Doe at 5 p.m. today. Was it late? Yes!")).toEqual([
      "Dr. Smith met J. Doe at 5 p.m. today.",
      "Was it late?",
      "Yes!",
    ]);
  });
  it("ends a sentence at a paragraph break even without punctuation", () => {
    expect(splitSentences("A heading\n\nThe body text. More.")).toEqual(["A heading", "The body text.", "More."]);
  });
  it("keeps closing quotes with their sentence and splits CJK full stops", () => {
    expect(splitSentences('He said "stop." Then he left.')).toEqual(['He said "stop."', "Then he left."]);
    expect(splitSentences("今天下雨。明天晴！")).toEqual(["今天下雨。", "明天晴！"]);
  });
  it("takes runs of punctuation and abbreviations whole (linear, see test/security.test.ts)", () => {
    expect(splitSentences("Dr. ".repeat(1_000))).toHaveLength(1);
    expect(splitSentences(`${".".repeat(1_000)}x`)).toEqual([`${".".repeat(1_000)}x`]);
    expect(splitSentences("Wait... What?! Yes.")).toEqual(["Wait...", "What?!", "Yes."]);
  });
  it("returns nothing for blank text", () => {
    expect(splitSentences("  \n ")).toEqual([]);
  });
});

describe("contentWords", () => {
  it("lower-cases, drops stop words and one-letter tokens, keeps accents and digits", () => {
    expect(contentWords("The Café served 42 crêpes to a guest")).toEqual(["café", "served", "42", "crêpes", "guest"]);
  });
});

describe("pickSentences", () => {
  it("takes the highest scores and returns them in text order, earlier first on ties", () => {
    expect(pickSentences(["a", "b", "c", "d"], [0.5, 0.9, 0.5, 0.1], 3)).toEqual(["a", "b", "c"]);
  });
});
