/** Discovery by capability tag: exact (`grid.modbus`) or glob (`grid.*`, `*.decode`). */
import type { Deployment } from "./model.js";

/**
 * A predicate for a tag pattern. `*` matches any run of characters (dots included), `?` one
 * character; everything else is literal. Patterns are case-sensitive, like tags.
 * @example tagMatcher("grid.*")("grid.modbus") // true
 */
export function tagMatcher(pattern: string): (tag: string) => boolean {
  if (!/[*?]/.test(pattern)) return (tag) => tag === pattern;
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  const regex = new RegExp(`^${source}$`);
  return (tag) => regex.test(tag);
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
