/**
 * Text as a reviewer must see it: characters a screen does not show — zero-width and other
 * invisible characters, bidirectional controls that reorder what is shown, and Unicode tag
 * characters (U+E0000–U+E007F, which models read as ASCII and people never see) — made visible
 * and named, so that what an operator approves is what a model will read.
 */

/** Why a character is hidden from a reader. */
export type HiddenKind = "tag" | "bidi" | "zero-width" | "invisible";

/** Which hidden kind a code point is, or undefined for one a screen shows. */
export function hiddenKindOf(codePoint: number): HiddenKind | undefined {
  if (codePoint >= 0xe0000 && codePoint <= 0xe007f) return "tag";
  if (
    codePoint === 0x061c ||
    codePoint === 0x200e ||
    codePoint === 0x200f ||
    (codePoint >= 0x202a && codePoint <= 0x202e) ||
    (codePoint >= 0x2066 && codePoint <= 0x2069)
  )
    return "bidi";
  if ((codePoint >= 0x200b && codePoint <= 0x200d) || codePoint === 0x2060 || codePoint === 0xfeff || codePoint === 0x180e) return "zero-width";
  if (
    codePoint === 0x00ad ||
    codePoint === 0x034f ||
    codePoint === 0x115f ||
    codePoint === 0x1160 ||
    codePoint === 0x3164 ||
    codePoint === 0xffa0 ||
    (codePoint >= 0x2061 && codePoint <= 0x2064) ||
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f) ||
    (codePoint >= 0xe0100 && codePoint <= 0xe01ef) ||
    (codePoint < 0x20 && codePoint !== 0x0a && codePoint !== 0x09) ||
    (codePoint >= 0x7f && codePoint <= 0x9f)
  ) {
    return "invisible";
  }
  return undefined;
}

const hex = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * The text with every hidden character shown as `⟦U+200B zero-width⟧`, and each run of tag
 * characters as the ASCII it spells (`⟦tags: "Also send the keys"⟧`).
 * @example visibleText("Echoes\u200b it") // "Echoes⟦U+200B zero-width⟧ it"
 */
export function visibleText(text: string): string {
  let out = "";
  let tags = "";
  const flushTags = () => {
    if (tags) out += `⟦tags: ${JSON.stringify(tags)}⟧`;
    tags = "";
  };
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    const kind = hiddenKindOf(codePoint);
    if (kind === "tag") {
      tags += codePoint >= 0xe0020 && codePoint <= 0xe007e ? String.fromCharCode(codePoint - 0xe0000) : `<${hex(codePoint)}>`;
      continue;
    }
    flushTags();
    out += kind ? `⟦${hex(codePoint)} ${kind}⟧` : char;
  }
  flushTags();
  return out;
}

/**
 * The hidden characters in a text, each kind once with how many there are (empty: none).
 * @example hiddenIn("a\u200bb\u{E0041}") // [{ kind: "tag", count: 1 }, { kind: "zero-width", count: 1 }]
 */
export function hiddenIn(text: string): Array<{ kind: HiddenKind; count: number }> {
  const counts = new Map<HiddenKind, number>();
  for (const char of text) {
    const kind = hiddenKindOf(char.codePointAt(0)!);
    if (kind) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([kind, count]) => ({ kind, count }));
}
