/** Discovery by capability tag: exact (`grid.modbus`) or glob (`grid.*`, `*.decode`). */
import type { Deployment } from "./model.js";
import type { RegistryView } from "./snapshot.js";

/**
 * A predicate for a tag pattern. `*` matches any run of characters (dots included), `?` one
 * character; everything else is literal. Patterns are case-sensitive, like tags. Matching never
 * backtracks: the pattern is cut at its `*`s, the first piece must start the tag, the last must
 * end it, and each piece between takes its leftmost place after the one before (which is
 * enough for `*`), so a tag costs at most its length times the pattern's.
 * @example tagMatcher("grid.*")("grid.modbus") // true
 */
export function tagMatcher(pattern: string): (tag: string) => boolean {
  if (!/[*?]/.test(pattern)) return (tag) => tag === pattern;
  const pieces = pattern.split("*");
  if (pieces.length === 1) return (tag) => tag.length === pattern.length && piecesAt(tag, pattern, 0);
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter(Boolean);
  return (tag) => {
    if (tag.length < first.length + last.length || !piecesAt(tag, first, 0) || !piecesAt(tag, last, tag.length - last.length)) return false;
    let from = first.length;
    const end = tag.length - last.length;
    for (const piece of middle) {
      const at = leftmost(tag, piece, from, end);
      if (at < 0) return false;
      from = at + piece.length;
    }
    return true;
  };
}

/** True when `piece` (where `?` is any character) matches `tag` at `at`. */
function piecesAt(tag: string, piece: string, at: number): boolean {
  for (let i = 0; i < piece.length; i++) if (piece[i] !== "?" && piece[i] !== tag[at + i]) return false;
  return true;
}

/** The first index in [from, end - piece.length] where `piece` matches, or -1. */
function leftmost(tag: string, piece: string, from: number, end: number): number {
  for (let at = from; at + piece.length <= end; at++) if (piecesAt(tag, piece, at)) return at;
  return -1;
}

export interface DiscoveryQuery {
  /** One tag or glob, e.g. "grid.*". */
  capability?: string;
  /** Every one of these tags (or globs) must match. */
  tags?: string[];
}

/**
 * The deployments that match a query: the capability pattern matches one of its tags, and each
 * `tags` pattern matches one of its tags. An empty query matches everything.
 * @example discover(view.deployments(), { capability: "grid.*" })
 */
export function discover(deployments: Deployment[], query: DiscoveryQuery): Deployment[] {
  const patterns = [...(query.capability ? [query.capability] : []), ...(query.tags ?? [])].map(tagMatcher);
  return deployments.filter((d) => patterns.every((matches) => d.tags.some(matches)));
}

/** Per generation of a view (until a skill changes): tag → the skills that carry it. */
const tagIndexes = new WeakMap<object, Map<string, string[]>>();

function tagIndexOf(view: RegistryView): Map<string, string[]> {
  let index = tagIndexes.get(view.generation);
  if (!index) {
    index = new Map();
    for (const entry of view.skills.values()) {
      for (const tag of entry.tags) {
        const names = index.get(tag);
        if (names) names.push(entry.name);
        else index.set(tag, [entry.name]);
      }
    }
    tagIndexes.set(view.generation, index);
  }
  return index;
}

/**
 * `discover` over a registry view through its tag index: an exact tag looks up its skills, a
 * glob scans the distinct tags, and only those skills' deployments are matched — not every
 * deployment of a registry of thousands.
 * @example discoverIn(view, { capability: "grid.*" })
 */
export function discoverIn(view: RegistryView, query: DiscoveryQuery): Deployment[] {
  const first = query.capability ?? query.tags?.[0];
  if (first === undefined) return view.deployments();
  const index = tagIndexOf(view);
  const names = new Set<string>();
  if (!/[*?]/.test(first)) for (const name of index.get(first) ?? []) names.add(name);
  else {
    const matches = tagMatcher(first);
    for (const [tag, carriers] of index) if (matches(tag)) for (const name of carriers) names.add(name);
  }
  const candidates = [...names].flatMap((name) => {
    const entry = view.skills.get(name)!;
    return entry.degraded ? [...entry.versions, entry.degraded] : entry.versions;
  });
  return discover(candidates, query);
}
