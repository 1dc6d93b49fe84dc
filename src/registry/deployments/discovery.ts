/** Discovery by capability tag: exact (`grid.modbus`) or glob (`grid.*`, `*.decode`). */
import { globMatcher } from "../../lib/glob/index.js";
import type { Deployment } from "./model.js";
import type { RegistryView } from "./snapshot.js";

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
  const patterns = [...(query.capability ? [query.capability] : []), ...(query.tags ?? [])].map(globMatcher);
  return deployments.filter((d) => patterns.every((matches) => d.tags.some(matches)));
}

/** Per generation of a view (until a skill changes): tag → the skills that carry it. */
const tagIndexes = new WeakMap<object, Map<string, string[]>>();

function tagIndexOf(view: RegistryView): Map<string, string[]> {
  let index = tagIndexes.get(view.generation);
  if (!index) {
    index = new Map();
    for (const entry of view.tools.values()) {
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
    const matches = globMatcher(first);
    for (const [tag, carriers] of index) if (matches(tag)) for (const name of carriers) names.add(name);
  }
  const candidates = [...names].flatMap((name) => {
    const entry = view.tools.get(name)!;
    return entry.degraded ? [...entry.versions, entry.degraded] : entry.versions;
  });
  return discover(candidates, query);
}
