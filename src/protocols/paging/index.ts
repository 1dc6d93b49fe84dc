/**
 * Pages of a list sorted by name (MCP `tools/list`, `skills.list`, `skills.discover`,
 * `rpc.discover`): a cursor names the last item of the page before, so pages stay stable while
 * items come and go, and finding a page's start is a binary search even at 10,000 skills.
 */
import { ErrorCode, RpcError } from "../jsonrpc/index.js";

/** One page of a list, and the cursor of the next one while more remain. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * The opaque cursor of the page after the item named `name`.
 * @example cursorAfter("text.summarize") // "eyJhZnRlciI6InRleHQuc3VtbWFyaXplIn0"
 */
export function cursorAfter(name: string): string {
  return btoa(JSON.stringify({ after: name })).replace(/=+$/, "");
}

/**
 * Where the page after `cursor` starts in `items` (sorted by name in code-unit order); a cursor
 * this server did not give is -32602.
 * @example startAfter(tools, cursorAfter("b")) // the index of the first tool named after "b"
 */
export function startAfter(items: ReadonlyArray<{ name: string }>, cursor: string): number {
  let after: unknown;
  try {
    after = (JSON.parse(atob(cursor)) as { after?: unknown }).after;
  } catch {
    after = undefined;
  }
  if (typeof after !== "string") throw new RpcError(ErrorCode.InvalidParams, "Invalid cursor: pass the nextCursor of the previous page");
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (items[middle]!.name > after) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * The page of at most `limit` items after `cursor` (from the start without one).
 * @example pageOf(catalog, 100, params.cursor) // { items: [...100 skills], nextCursor: "…" }
 */
export function pageOf<T extends { name: string }>(items: readonly T[], limit: number, cursor?: string): Page<T> {
  const start = cursor === undefined ? 0 : startAfter(items, cursor);
  const page = items.slice(start, start + limit);
  return start + page.length < items.length ? { items: page, nextCursor: cursorAfter(page.at(-1)!.name) } : { items: page };
}
