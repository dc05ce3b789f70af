/**
 * Waits for real I/O while fake timers hold `setTimeout`: polls with `setImmediate` (never faked here)
 * and a real-time budget measured with `performance.now()`.
 */
export async function until(condition: () => boolean, what = "condition", budgetMs = 5_000): Promise<void> {
  const start = performance.now();
  while (!condition()) {
    if (performance.now() - start > budgetMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Lets real I/O run for a while (a few hundred event-loop turns) without advancing fake time. */
export async function settle(turns = 200): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The timer functions to fake: time only, so sockets and `setImmediate` keep working. */
export const FAKE_TIME = {
  toFake: ["setTimeout", "clearTimeout", "Date"] as ("setTimeout" | "clearTimeout" | "Date")[],
};
