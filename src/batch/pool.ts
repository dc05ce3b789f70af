/** Bounded concurrency: run async calls over items with at most `limit` in flight. */

/** Default number of calls a batch helper keeps in flight. */
export const DEFAULT_CONCURRENCY = 4;

/** Checks a concurrency setting: a whole number from 1 to 64. */
export function checkConcurrency(limit: number | undefined): number {
  const value = limit ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(value) || value < 1 || value > 64)
    throw new RangeError(`concurrency must be a whole number from 1 to 64, got ${String(limit)}`);
  return value;
}

/**
 * Calls `fn` for every item, at most `limit` at a time, in item order; never rejects. Results are in
 * item order. Once `signal` aborts, items not yet started are settled as rejected with its reason.
 */
export async function settleBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<PromiseSettledResult<R>[]> {
  const results = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      if (signal?.aborted) {
        results[i] = { status: "rejected", reason: signal.reason };
        continue;
      }
      try {
        results[i] = { status: "fulfilled", value: await fn(items[i]!, i) };
      } catch (reason) {
        results[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
