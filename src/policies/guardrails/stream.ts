/**
 * A text that arrives in pieces — a stream's chunks, a channel's messages — scanned across the
 * pieces' boundaries, so a secret split in two is found whole.
 *
 * Two things make that work. Each scan reads the last `CONTEXT_CHARS` of what was already released
 * before the new text (a rule that needs what comes before a secret — a key name before its value —
 * still sees it). And the tail of the text that could be the start of a secret is held back until
 * the next piece or the end: the trailing word (no secret a rule matches holds a space, but a
 * private key), or an open `-----BEGIN` block, at most `MAX_HELD_CHARS`. Held text is scanned
 * again with what follows, so every secret of up to `MAX_HELD_CHARS` characters is seen whole
 * before any character of it is released. Releasing waits for a word to end, never for a whole
 * stream: a caller sees a streamed answer word by word.
 */
import { type Cover, redactIn, secretsIn } from "./scan.js";

/** How much of the released text each scan reads before the new one. */
export const CONTEXT_CHARS = 256;
/** The longest tail held back: a secret longer than this, split across pieces, is not found. */
export const MAX_HELD_CHARS = 8_192;

/**
 * One stream of text, scanned across its pieces.
 * @example const guard = new TextStreamGuard(); await guard.push("token: ghp_A1b2", false) // { released: "token: ", found: [] }
 */
export class TextStreamGuard {
  /** Received, not yet released: the tail that could be the start of a secret. */
  #held = "";
  /** The last `CONTEXT_CHARS` released, as they came. */
  #context = "";
  /** Where the held text starts in the whole stream. */
  #offset = 0;
  /** Where the last secret reported starts in the whole stream (each is reported once). */
  #reported = -1;

  /** True while some text is held back. */
  get holding(): boolean {
    return this.#held.length > 0;
  }

  /**
   * Takes the next piece of the text; answers what may be released now, redacted, and the secrets
   * first seen. With `end` (nothing follows: the stream ended, or each piece is a message of its
   * own) everything received is released; otherwise nothing is until at least `batch` characters may be.
   * @example await guard.push("I9j0…", true) // { released: "[REDACTED:GITHUB_TOKEN]", found: [{ kind: "GITHUB_TOKEN", … }] }
   */
  async push(piece: string, end: boolean, batch = 0): Promise<{ released: string; found: Cover[] }> {
    const pending = this.#held + piece;
    const holdFrom = end ? pending.length : holdStart(pending);
    // Each scan has a fixed cost (the rule set is set up anew): a stream of small chunks is
    // scanned once `batch` characters may go, or when its reader asks (`batch` 0), or at its end.
    if (holdFrom === 0 || (!end && holdFrom < batch)) {
      this.#held = pending;
      return { released: "", found: [] };
    }
    const context = this.#context;
    const covers = await secretsIn(context + pending);
    const segment = { from: context.length, to: context.length + holdFrom };
    const base = this.#offset - context.length;
    const inSegment = covers.filter((c) => c.to > segment.from && c.from < segment.to);
    const found = inSegment.filter((c) => base + c.from > this.#reported);
    for (const c of found) this.#reported = Math.max(this.#reported, base + c.from);
    const raw = pending.slice(0, holdFrom);
    const cuts = inSegment.map((c) => ({ from: Math.max(c.from, segment.from) - segment.from, to: Math.min(c.to, segment.to) - segment.from, kind: c.kind }));
    this.#context = (context + raw).slice(-CONTEXT_CHARS);
    this.#held = pending.slice(holdFrom);
    this.#offset += holdFrom;
    return { released: redactIn(raw, cuts), found };
  }
}

/**
 * Where the part of `text` that could still become a secret starts: its trailing word, or an open
 * private-key block before it; never more than `MAX_HELD_CHARS` from the end.
 * @example holdStart("token: ghp_A1b2") // 7
 */
export function holdStart(text: string): number {
  let from = text.length;
  while (from > 0 && !/\s/.test(text[from - 1]!)) from--;
  const begin = text.lastIndexOf("-----BEGIN");
  if (begin >= 0 && begin < from && !/-----END[^\n]*-----/.test(text.slice(begin))) from = begin;
  return Math.max(from, text.length - MAX_HELD_CHARS);
}
