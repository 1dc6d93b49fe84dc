/**
 * Work over a list with a cap on how much runs at once: a pipeline's `forEach` (its
 * `concurrency`), batched MGETs (a Worker request may keep only six connections open), bundling
 * with wrangler (CPU-bound, two cores). A pool, not rounds: a slow item holds up no others.
 */

/**
 * `fn` of every item, at most `limit` at once; the results in the items' order.
 * @example const pages = await mapConcurrently(urls, 4, (url) => fetch(url).then((r) => r.text()))
 */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}
