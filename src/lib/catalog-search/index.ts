/**
 * A catalog an agent can search: at 10,000 tools a `tools/list` is megabytes of schemas no model
 * can hold, so the compact mode of /mcp (src/mcp/compact.ts) lists three small tools instead and
 * answers searches from here — full-text search (MiniSearch: BM25+ with prefix and fuzzy
 * matching) over each tool's and Agent Skill's name, tags and description, terms stemmed
 * (Porter), names split at dots, hyphens, underscores and camelCase. Each hit is a short summary:
 * its name, first sentence, tags and a one-line signature of its arguments.
 */
import MiniSearch from "minisearch";
import { stemmer } from "stemmer";

/** What is searched: a tool (a skill's, a federated one), an Agent Skills package, or a skill's resource. */
export interface CatalogEntry {
  kind: "tool" | "skill" | "resource";
  name: string;
  description: string;
  tags: string[];
  /** A tool's arguments in one line (`signatureOf`). */
  signature?: string;
  /** A package's `SKILL.md` URI, or a resource's URI (or template), to read with `resources/read`. */
  uri?: string;
}

/** One search result, as the search tool answers it. */
export interface CatalogHit {
  kind: CatalogEntry["kind"];
  name: string;
  /** The description's first sentence, at most `SUMMARY_CHARS`. */
  summary: string;
  tags?: string[];
  signature?: string;
  uri?: string;
}

/** The longest summary of a hit, and the most tags it shows. */
export const SUMMARY_CHARS = 160;
const MAX_TAGS = 5;

/** Words that say nothing of what a tool does. */
const STOP_WORDS = new Set("a an and are as at be by for from how i in is it me my of on or the this to use when with what which who you your".split(" "));

/**
 * A text's search terms: split at anything not a letter or digit and at camelCase, lowercased,
 * stop words dropped, stemmed.
 * @example termsOf("Decode Modbus RTU frames (modbus.decode)") // ["decod", "modbu", "rtu", "frame", "modbu", "decod"]
 */
export function termsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .map((word) => word.toLowerCase())
    .filter((word) => word && !STOP_WORDS.has(word))
    .map((word) => stemmer(word));
}

/**
 * A tool's arguments in one line: each property with its type (an enum's values), `?` when optional.
 * @example signatureOf({ type: "object", properties: { frame: { type: "string" }, role: { enum: ["auto", "request"] } }, required: ["frame"] }) // "frame: string, role?: auto|request"
 */
export function signatureOf(inputSchema: Record<string, unknown>): string {
  const properties = (inputSchema.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown[] }>;
  const required = new Set(Array.isArray(inputSchema.required) ? (inputSchema.required as string[]) : []);
  return Object.entries(properties)
    .map(([name, schema]) => {
      const type =
        Array.isArray(schema?.enum) ? schema.enum.slice(0, 6).map(String).join("|")
        : Array.isArray(schema?.type) ? schema.type.join("|")
        : String(schema?.type ?? "any");
      return `${name}${required.has(name) ? "" : "?"}: ${type}`;
    })
    .join(", ");
}

/**
 * A description's first sentence (one ends at `.`, `!` or `?` before a capital letter or the end:
 * "e.g. from" goes on), cut at `SUMMARY_CHARS`.
 */
export function summaryOf(description: string): string {
  const first = /^[\s\S]*?[.!?](?=\s+\p{Lu}|\s*$)/u.exec(description.trim())?.[0] ?? description.trim();
  return first.length <= SUMMARY_CHARS ? first : `${first.slice(0, SUMMARY_CHARS - 1).trimEnd()}…`;
}

/** The hit of an entry. */
export function hitOf(entry: CatalogEntry): CatalogHit {
  return {
    kind: entry.kind,
    name: entry.name,
    summary: summaryOf(entry.description),
    ...(entry.tags.length ? { tags: entry.tags.slice(0, MAX_TAGS) } : {}),
    ...(entry.signature !== undefined ? { signature: entry.signature } : {}),
    ...(entry.uri ? { uri: entry.uri } : {}),
  };
}

/** What a search may be narrowed to. */
export interface SearchOptions {
  limit: number;
  kind?: CatalogEntry["kind"];
  /** Whether the caller may see an entry (its grants): others are never returned. */
  allows?: (entry: CatalogEntry) => boolean;
}

/** A full-text index over catalog entries. */
export class CatalogIndex {
  readonly #search = new MiniSearch<CatalogEntry & { id: number }>({
    fields: ["name", "tags", "description"],
    extractField: (entry, field) => (field === "tags" ? entry.tags.join(" ") : String(entry[field as keyof CatalogEntry] ?? "")),
    tokenize: termsOf,
    processTerm: (term) => term, // termsOf did it (the query goes through it too)
  });
  readonly #entries: CatalogEntry[];

  constructor(entries: CatalogEntry[]) {
    this.#entries = entries;
    this.#search.addAll(entries.map((entry, id) => ({ ...entry, id })));
  }

  get size(): number {
    return this.#entries.length;
  }

  /**
   * The best entries for a query, best first: every term may match (more matches rank higher),
   * a name match counts most, then tags, then the description; prefixes and near spellings match
   * too, for less.
   * @example index.search("decode a modbus frame", { limit: 5 })[0].name // "modbus.decode"
   */
  search(query: string, options: SearchOptions): CatalogHit[] {
    return this.scored(query, options).map(({ hit }) => hit);
  }

  /** `search`'s hits with their scores (to merge the hits of two indexes). */
  scored(query: string, options: SearchOptions): Array<{ hit: CatalogHit; score: number }> {
    const results = this.#search.search(query, {
      boost: { name: 3, tags: 2, description: 1 },
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
      combineWith: "OR",
    });
    const hits: Array<{ hit: CatalogHit; score: number }> = [];
    for (const result of results) {
      const entry = this.#entries[result.id as number]!;
      if (options.kind && entry.kind !== options.kind) continue;
      if (options.allows && !options.allows(entry)) continue;
      hits.push({ hit: hitOf(entry), score: result.score });
      if (hits.length >= options.limit) break;
    }
    return hits;
  }
}
