/**
 * Runs `fn` over `items` with at most `limit` at once, answering the results in the items' order: a window that
 * slides, a new call starting as soon as one ends (the webhook and mail workers' sends).
 */
export async function mapWindow<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
