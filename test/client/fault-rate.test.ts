/**
 * Retries sized for a bad day (issue 13): with 20% of requests hit by transient faults (500/503, dropped
 * connections, bodies cut off half-way), the client's default retry limit loses fewer than 1 read in
 * 1,000. Real HTTP against the simulator with seeded faults; the backoff is shortened for speed only
 * (the limit is the default).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient, startSimulator, type Simulator } from "../../src";
import { DEFAULT_RETRY } from "../../src/internals";

const READS = 2_000;
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({
    rateLimit: false,
    faults: { errorRate: 0.1, dropRate: 0.05, truncateRate: 0.05 },
    seed: 7,
  });
});
afterAll(() => sim?.close());

async function lostReads(limit: number): Promise<{ lost: number; retries: number }> {
  let retries = 0;
  const rp = new RiskPortalClient({
    baseUrl: sim.url,
    auth: { apiKey: sim.credentials.apiKey },
    retry: { limit, baseDelayMs: 1, maxDelayMs: 2, onRetry: () => retries++ },
  });
  let lost = 0;
  for (let i = 0; i < READS; i++) {
    await rp.tradable.brief({ tradableId: "AAPL.XNAS" }).catch(() => lost++);
  }
  return { lost, retries };
}

describe("20% transient faults", () => {
  it(`the default retry limit (${DEFAULT_RETRY.limit}) loses fewer than 1 read in 1,000`, async () => {
    const { lost, retries } = await lostReads(DEFAULT_RETRY.limit);
    expect(retries).toBeGreaterThan(READS * 0.15); // the faults did happen
    expect(lost).toBeLessThan(READS / 1_000);
  }, 60_000);
});
