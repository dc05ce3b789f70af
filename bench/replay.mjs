/**
 * Reproducibility layer: what a response costs live, from the response cache, and replayed from a
 * cassette, through the client (RateAsset, one curve; GetTransactionTable, 5,000 rows), at concurrency
 * 16 against the simulator in a child process. Then recording: the time to record a notebook-sized
 * cassette (distinct requests, the file rewritten after each) and its size. Bounded in requests and
 * time; writes bench/results/replay.json.
 *
 * Knobs: BENCH_REPLAY_REQUESTS (2000), BENCH_REPLAY_ROUNDS (3), BENCH_REPLAY_RECORD (200).
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, envInt, formatTable, isMain, loadPackage, median, round } from "./common.mjs";
import { drive, startSim } from "./sim.mjs";

export async function measureReplay() {
  const requests = envInt("BENCH_REPLAY_REQUESTS", 2000);
  const rounds = envInt("BENCH_REPLAY_ROUNDS", 3);
  const recordCount = envInt("BENCH_REPLAY_RECORD", 200);
  const { RiskPortalClient } = loadPackage();
  const dir = mkdtempSync(join(tmpdir(), "rpl-bench-replay-"));
  const sim = await startSim(5000);
  try {
    const auth = { apiKey: sim.key };
    const calls = {
      "RateAsset (1 curve)": (rp) => () => rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }),
      "GetTransactionTable (5,000 rows)": (rp) => () =>
        rp.position.transactionTable({ portfolio_name: "GLOBAL-MACRO" }),
    };
    const results = {};
    for (const [name, call] of Object.entries(calls)) {
      const cassette = join(dir, `${name.replace(/\W+/g, "-")}.json`);
      const recorder = new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: cassette, mode: "record" } });
      await call(recorder)();
      const clients = {
        live: new RiskPortalClient({ baseUrl: sim.url, auth }),
        cache: new RiskPortalClient({ baseUrl: sim.url, auth, cache: true }),
        cassette: new RiskPortalClient({ baseUrl: sim.url, cassette: { path: cassette, mode: "replay" } }),
      };
      const perSource = {};
      for (const [source, rp] of Object.entries(clients)) {
        const run = call(rp);
        await drive(run, Math.min(200, requests)); // warm-up (and fills the cache)
        perSource[source] = [];
        for (let r = 0; r < rounds; r++) perSource[source].push(await drive(run, requests));
      }
      // Concurrent first calls all miss (the cache does not merge identical requests in flight): at most one per worker.
      if (clients.cache.cache.stats.misses > 16)
        throw new Error(`the cache missed ${clients.cache.cache.stats.misses} times (expected at most 16)`);
      results[name] = Object.fromEntries(
        Object.entries(perSource).map(([k, v]) => [
          k,
          { median: round(median(v), 0), rounds: v.map((x) => round(x, 0)) },
        ]),
      );
    }

    // Recording a notebook-sized cassette: distinct requests (one curve per currency and business day).
    const cassette = join(dir, "record.json");
    const recorder = new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: cassette, mode: "record" } });
    const t0 = performance.now();
    const currencies = ["USD", "EUR", "GBP", "JPY", "CHF"];
    for (let i = 0; i < recordCount; i++) {
      const day = new Date(Date.UTC(2026, 10, 20) - Math.floor(i / currencies.length) * 7 * 86_400_000)
        .toISOString()
        .slice(0, 10);
      await recorder.rateAsset.getCurve({ currency: currencies[i % currencies.length], market_date: day });
    }
    const recordMs = performance.now() - t0;
    const record = {
      exchanges: recordCount,
      totalMs: round(recordMs, 0),
      perExchangeMs: round(recordMs / recordCount, 2),
      megabytes: round(statSync(cassette).size / 1e6, 2),
    };
    return { concurrency: 16, requests, rounds, rps: results, record };
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatReplay(r) {
  const lines = [
    `client calls by source: concurrency ${r.concurrency}, ${r.requests} requests x ${r.rounds} rounds (req/s, median and per round)`,
  ];
  const rows = [];
  for (const [op, bySource] of Object.entries(r.rps))
    for (const [source, v] of Object.entries(bySource)) rows.push([op, source, String(v.median), v.rounds.join(" / ")]);
  lines.push(formatTable(["operation", "source", "req/s", "per round"], rows));
  const rec = r.record;
  lines.push(
    `recording ${rec.exchanges} RateAsset exchanges: ${rec.totalMs} ms (${rec.perExchangeMs} ms each, live call + file rewrite), cassette ${rec.megabytes} MB`,
  );
  return lines.join("\n");
}

if (isMain(import.meta.url)) {
  const result = await measureReplay();
  console.log(formatReplay(result));
  mkdirSync(join(BENCH_DIR, "results"), { recursive: true });
  writeFileSync(join(BENCH_DIR, "results", "replay.json"), JSON.stringify(result, null, 2));
}
