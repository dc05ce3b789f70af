/**
 * A bad day, measured (issue 13): the built client against the built simulator with 20% transient faults
 * (10% 500/503, 5% dropped connections, 5% bodies cut off), the client's DEFAULT retry settings (real
 * backoff, real deadline):
 * - reads lost out of BENCH_FAULT_READS (2000) GetTradableBrief calls at concurrency 16, for the default
 *   retry limit and for the old default (2), in one run;
 * - BENCH_FAULT_WRITES (300) uploads, one at a time: how many succeeded, and how each failure is labelled
 *   (`outcome` not-applied / unknown; none may say "could not reach" once the request went out);
 * - the disk cache: 64 concurrent identical reads, how many reached the server and how many failed.
 * Bounded in requests; loopback only; everything stops by itself. Writes bench/results/faults.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, envInt, formatTable, isMain, loadPackage, requireBuilt } from "./common.mjs";

const CONCURRENCY = 16;

export async function measureFaults({
  reads = envInt("BENCH_FAULT_READS", 2000),
  writes = envInt("BENCH_FAULT_WRITES", 300),
} = {}) {
  const { startSimulator, RiskPortalClient } = loadPackage();
  // risk-portal-lab/internals: the pipeline's parts are not at the package root.
  const { DEFAULT_RETRY } = requireBuilt("subpath", "internals.js");
  const sim = await startSimulator({
    rateLimit: false,
    faults: { errorRate: 0.1, dropRate: 0.05, truncateRate: 0.05 },
    seed: 11,
  });
  const client = (retry = {}, cache) =>
    new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      retry,
      ...(cache ? { cache } : {}),
    });
  try {
    const readRound = async (limit) => {
      let retries = 0;
      const rp = client({ limit, onRetry: () => retries++ });
      let next = 0;
      let lost = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < reads) {
            next++;
            await rp.tradable.brief({ tradableId: "AAPL.XNAS" }).catch(() => lost++);
          }
        }),
      );
      return { limit, reads, lost, retries, seconds: Math.round(performance.now() - t0) / 1000 };
    };
    const readsDefault = await readRound(DEFAULT_RETRY.limit);
    const readsOld = await readRound(2);

    const rp = client();
    const labels = { succeeded: 0, "not-applied": 0, unknown: 0, other: 0, saysCouldNotReachAfterSending: 0 };
    for (let i = 0; i < writes; i++) {
      try {
        await rp.marketData.uploadBondPrices({
          bond_data: [
            {
              date: "2026-11-20",
              bond_identifier: { code: "US91282CJL54", identifier_type: "ISIN" },
              currency: "USD",
              traded_price: 99 + (i % 100) / 100,
              is_percentage_of_par: true,
              is_currency_per_bond_unit: false,
            },
          ],
        });
        labels.succeeded++;
      } catch (error) {
        labels[error.outcome ?? "other"] = (labels[error.outcome ?? "other"] ?? 0) + 1;
        if (error.outcome === "unknown" && /could not reach/.test(error.message))
          labels.saysCouldNotReachAfterSending++;
      }
    }

    const dir = mkdtempSync(join(tmpdir(), "rpl-bench-cache-"));
    try {
      const cached = client({}, { dir });
      const results = await Promise.allSettled(
        Array.from({ length: 64 }, () => cached.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" })),
      );
      const cache = {
        concurrent: 64,
        failed: results.filter((r) => r.status === "rejected").length,
        toServer: cached.cache.stats.misses,
        ...cached.cache.stats,
      };
      return {
        faults: "10% 500/503, 5% dropped, 5% cut off",
        readsDefault,
        readsOld,
        writes: { count: writes, ...labels },
        cache,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await sim.close();
  }
}

export function formatFaults(r) {
  const row = (x) => [`limit ${x.limit}`, `${x.lost} of ${x.reads}`, String(x.retries), `${x.seconds} s`];
  return [
    `20% transient faults (${r.faults}), default backoff and deadline, concurrency ${CONCURRENCY}:`,
    formatTable(["retries", "reads lost", "retries made", "time"], [row(r.readsDefault), row(r.readsOld)]),
    `uploads: ${r.writes.succeeded} of ${r.writes.count} succeeded; failures: ${r.writes["not-applied"]} not applied, ${r.writes.unknown} outcome unknown, ${r.writes.other} other; "could not reach" after sending: ${r.writes.saysCouldNotReachAfterSending}`,
    `disk cache, ${r.cache.concurrent} concurrent identical reads (faults on): ${r.cache.toServer} asked the server, ${r.cache.failed} failed`,
  ].join("\n");
}

if (isMain(import.meta.url)) {
  const result = await measureFaults();
  console.log(formatFaults(result));
  mkdirSync(join(BENCH_DIR, "results"), { recursive: true });
  writeFileSync(join(BENCH_DIR, "results", "faults.json"), JSON.stringify(result, null, 2));
}
