/** Glob patterns over tags and skill names: `*` any run, `?` one character, the rest literal. */
import { z } from "zod";

/** A skill name or tag glob (`*` any run of characters, `?` one). */
export const GlobSchema = z.string().regex(/^[A-Za-z0-9_.:*?-]{1,128}$/, "a glob is [A-Za-z0-9_.:*?-]{1,128}");

/**
 * A predicate for a glob: a tag pattern (`grid.*`) or a skill-name pattern (`text.*`) of a
 * discovery query or a key's grants. `*` matches any run of characters (dots included), `?` one
 * character; everything else is literal. Patterns are case-sensitive, like tags and names. Matching never
 * backtracks: the pattern is cut at its `*`s, the first piece must start the text, the last must
 * end it, and each piece between takes its leftmost place after the one before (which is
 * enough for `*`), so a text costs at most its length times the pattern's.
 * @example globMatcher("grid.*")("grid.modbus") // true
 */
export function globMatcher(pattern: string): (text: string) => boolean {
  if (!/[*?]/.test(pattern)) return (text) => text === pattern;
  const pieces = pattern.split("*");
  if (pieces.length === 1) return (text) => text.length === pattern.length && piecesAt(text, pattern, 0);
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter(Boolean);
  return (text) => {
    if (text.length < first.length + last.length || !piecesAt(text, first, 0) || !piecesAt(text, last, text.length - last.length)) return false;
    let from = first.length;
    const end = text.length - last.length;
    for (const piece of middle) {
      const at = leftmost(text, piece, from, end);
      if (at < 0) return false;
      from = at + piece.length;
    }
    return true;
  };
}

/** True when `piece` (where `?` is any character) matches `text` at `at`. */
function piecesAt(text: string, piece: string, at: number): boolean {
  for (let i = 0; i < piece.length; i++) if (piece[i] !== "?" && piece[i] !== text[at + i]) return false;
  return true;
}

/** The first index in [from, end - piece.length] where `piece` matches, or -1. */
function leftmost(text: string, piece: string, from: number, end: number): number {
  for (let at = from; at + piece.length <= end; at++) if (piecesAt(text, piece, at)) return at;
  return -1;
}
