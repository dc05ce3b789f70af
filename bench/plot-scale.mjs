/**
 * Do the chart builders scale with the rows? (issue 29, "Charts that scale") Every builder of `plot` that
 * takes a table is timed on about 4,000 and about 40,000 rows of the same kind of table, and the ratio of
 * the two medians is reported: n log n work gives about 10–14x for 10x the rows, quadratic work ~100x.
 * The goal: every ratio within 20x.
 *
 * Inputs: the embedded simulator's transaction table (GLOBAL-MACRO, 40,000 rows; its first 4,000 for the
 * small size), as danfo-guard check 5 takes it, for `concentration` and `transactions`; deterministic
 * hand-made column tables (fixed seed) of the same row counts for the others: a long yield-curve table of
 * 3 currencies × N market dates × 20 maturities, a maturity × strike cross-check grid and vol table, report
 * infos over N days, position effects of 8 contracts. The table preview (`tableHtml` / `tableText`) is
 * timed on the transaction table.
 *
 * How: one untimed call of each variant at each size, then BENCH_PLOT_ROUNDS (default 9) rounds timing
 * each variant at 4k then 40k (interleaved, so drift on the shared machine hits both alike), a sample
 * being 20 calls at 4k (some builders take well under a millisecond) and 2 at 40k, after a forced GC
 * when run with --expose-gc (as bench/run.mjs runs it), so that no sample pays for the garbage of the one
 * before. Per-call medians of wall time and of this process's CPU time; the ratio is of the CPU medians
 * (other processes taking the core away, most of the noise on a shared 2-core machine, do not count),
 * the wall ratio beside it. BENCH_PLOT_DIST runs another build (a copy of dist/ from before a change,
 * with `vendor` beside it) for a before/after figure. Check: every ratio ≤ 20 (exit 1 otherwise).
 *
 * Run: `npm run build && node --expose-gc bench/plot-scale.mjs`. Writes bench/results/plot-scale.json.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  DIST_ENTRY,
  envInt,
  formatTable,
  isMain,
  median,
  repoRequire,
  round,
  runStandalone,
  timeCall,
} from "./common.mjs";

/** The bound: time(40,000 rows) / time(4,000 rows). */
export const MAX_RATIO = 20;
const SMALL = 4_000;
const LARGE = 40_000;

function settingsFromEnv() {
  return {
    rounds: envInt("BENCH_PLOT_ROUNDS", 9),
    dist: process.env.BENCH_PLOT_DIST ? resolve(process.env.BENCH_PLOT_DIST) : undefined,
  };
}

/** A column table as the frames adapters make it (plain arrays, kinds, meta). */
function table(source, rowCount, columns) {
  const kinds = {};
  for (const [name, values] of Object.entries(columns))
    kinds[name] = values.some((v) => v instanceof Date)
      ? "date"
      : values.some((v) => typeof v === "string")
        ? "string"
        : "number";
  return {
    columns: Object.keys(columns),
    data: columns,
    kinds,
    rowCount,
    meta: { source, categories: {}, missing: {}, warnings: [], fields: {}, provenance: [] },
  };
}

/** A deterministic stream of numbers in [0, 1). */
function random(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

const DAY = 86_400_000;
const END = Date.UTC(2026, 10, 20);
const MATURITIES = [0.083, 0.25, 0.5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 50];
const CURRENCIES = ["USD", "EUR", "GBP"];
const STATUSES = ["none", "running", "succeeded", "warning", "failed"];

/** Hand-made tables of about `rows` rows for the builders that do not take trades. */
export function syntheticTables(rows, seed = 29) {
  const r = random(seed);
  const dates = Math.max(1, Math.round(rows / (CURRENCIES.length * MATURITIES.length)));
  const curve = { currency: [], market_date: [], maturity: [], rate: [] };
  for (let d = 0; d < dates; d++)
    for (const [c, ccy] of CURRENCIES.entries())
      for (const m of MATURITIES) {
        curve.currency.push(ccy);
        curve.market_date.push(new Date(END - (dates - 1 - d) * DAY));
        curve.maturity.push(m);
        curve.rate.push(0.02 + c * 0.005 + (0.01 * Math.log1p(m)) / 4 + (r() - 0.5) * 0.002);
      }
  const strikes = 20;
  const maturities = Math.max(1, Math.round(rows / strikes));
  const grid = { maturity: [], strike: [], vol: [], service_vol: [], local_vol: [], difference: [], error: [] };
  for (let i = 0; i < maturities; i++)
    for (let j = 0; j < strikes; j++) {
      const local = 0.2 + (0.1 * Math.abs(j - 10)) / 10 + 0.02 * Math.sqrt(i / maturities);
      const failed = i % 97 === 5;
      const diff = failed ? NaN : (r() - 0.5) * 2e-8;
      grid.maturity.push(7 + i);
      grid.strike.push(60 + 5 * j);
      grid.vol.push(local);
      grid.local_vol.push(local);
      grid.service_vol.push(failed ? NaN : local + diff);
      grid.difference.push(diff);
      grid.error.push(failed ? "no vol for this maturity" : null);
    }
  const days = Math.max(1, Math.round(rows / 50));
  const reports = { status: [], pricing_date: [] };
  for (let k = 0; k < rows; k++) {
    reports.status.push(STATUSES[Math.floor(r() * STATUSES.length)]);
    reports.pricing_date.push(new Date(END - Math.floor(r() * days) * DAY));
  }
  const effects = { contract_identifier: [], quantity: [] };
  for (let k = 0; k < rows; k++) {
    effects.contract_identifier.push(
      ["SPX.XCBO", "SX5E.XEUR", "USD", "EUR", "US10Y", "DE10Y", "NKY.XOSE", "GBP"][k % 8],
    );
    effects.quantity.push(Math.round((r() - 0.5) * 200));
  }
  return {
    curves: table("RateAsset", curve.currency.length, curve),
    grid: table("GetVol", grid.maturity.length, grid),
    reports: table("GetReportInfos", rows, reports),
    effects: table("GetTradeEventPositionEffects", rows, effects),
  };
}

/** The builders, each with the table it takes at one size and the call that draws it. */
export function variants(lib, trades, synthetic) {
  const { plot } = lib;
  return {
    "concentration by trade_id": () => plot.concentration(trades, { by: "trade_id", value: "notional" }),
    "concentration by counterparty × currency": () =>
      plot.concentration(trades, { by: "counterparty", series: "currency" }),
    transactions: () => plot.transactions(trades),
    "table preview (tableHtml + tableText)": () => plot.tableHtml(trades).length + plot.tableText(trades).length,
    positionEffects: () => plot.positionEffects(synthetic.effects),
    yieldCurve: () => plot.yieldCurve(synthetic.curves),
    curveHistory: () => plot.curveHistory(synthetic.curves),
    curveSurface: () => plot.curveSurface(synthetic.curves),
    spreadHistory: () => plot.spreadHistory(synthetic.curves),
    "curveTenorHeatmap (USD)": () => plot.curveTenorHeatmap(synthetic.curves, { currency: "USD" }),
    crossCheckHeatmap: () => plot.crossCheckHeatmap(synthetic.grid),
    reportStatus: () => plot.reportStatus(synthetic.reports),
    volSmiles: () => plot.volSmiles(synthetic.grid),
    volSurface: () => plot.volSurface(synthetic.grid),
  };
}

/** The simulator's GLOBAL-MACRO transaction table of `rows` rows, as a column table of its first 4,000 and of all. */
async function simulatorTrades(lib) {
  const sim = await lib.startSimulator({ transactionRows: LARGE });
  try {
    const rp = new lib.RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
    const res = await rp.position.transactionTable({ portfolio_name: "GLOBAL-MACRO", include_zero_quantities: true });
    // The column-table form is in risk-portal-lab/frames; a build before the subpaths had it at the root.
    const frames = lib.frames.transactionTableColumns ? lib.frames : lib.wholeFrames;
    const rowsOf = (n) => frames.transactionTableColumns({ ...res, data_table: (res.data_table ?? []).slice(0, n) });
    return { small: rowsOf(SMALL), large: rowsOf(LARGE) };
  } finally {
    await sim.close();
  }
}

/** Calls per timed sample: some builders take well under a millisecond on 4,000 rows, too short to time one by one. */
const REPS = { small: 20, large: 2 };

/** Wall and CPU ms of one call, the means over a sample of `reps` calls, after a forced GC when node runs with --expose-gc. */
function sample(fn, reps) {
  globalThis.gc?.();
  const t = timeCall(() => {
    for (let k = 0; k < reps; k++) fn();
  });
  return { ms: t.ms / reps, cpuMs: t.cpuMs / reps };
}

/** Medians at both sizes and their ratio, per builder. */
export function measurePlotScale(lib, inputs, settings, log = () => {}) {
  const sizes = {
    small: variants(lib, inputs.trades.small, inputs.synthetic.small),
    large: variants(lib, inputs.trades.large, inputs.synthetic.large),
  };
  const builders = {};
  let sink = 0;
  for (const name of Object.keys(sizes.small)) {
    sink += JSON.stringify(sizes.small[name]()).length + JSON.stringify(sizes.large[name]()).length;
    const ms = { small: [], large: [] };
    const cpu = { small: [], large: [] };
    for (let k = 0; k < settings.rounds; k++)
      for (const size of ["small", "large"]) {
        const t = sample(sizes[size][name], REPS[size]);
        ms[size].push(t.ms);
        cpu[size].push(t.cpuMs);
      }
    const b = {
      smallMs: median(ms.small),
      largeMs: median(ms.large),
      smallCpuMs: median(cpu.small),
      largeCpuMs: median(cpu.large),
    };
    // The ratio of CPU medians: other processes taking the core away (most of the noise on a shared machine) do not count.
    builders[name] = {
      ...b,
      ratio: b.largeCpuMs / Math.max(b.smallCpuMs, 0.01),
      wallRatio: b.largeMs / Math.max(b.smallMs, 0.01),
    };
    log(
      `${name}: CPU ${round(b.smallCpuMs, 3)} ms at 4k rows, ${round(b.largeCpuMs, 2)} ms at 40k (${round(builders[name].ratio, 1)}x; wall ${round(builders[name].wallRatio, 1)}x)`,
    );
  }
  const over = Object.entries(builders).filter(([, b]) => b.ratio > MAX_RATIO);
  return {
    rows: { small: SMALL, large: LARGE },
    rounds: settings.rounds,
    reps: REPS,
    gcBetweenSamples: typeof globalThis.gc === "function",
    dist: settings.dist ?? DIST_ENTRY,
    builders,
    check: { ok: over.length === 0, over: over.map(([n]) => n), maxRatio: MAX_RATIO },
    sink,
  };
}

export function formatPlotScale(r) {
  const rows = Object.entries(r.builders).map(([name, b]) => [
    name,
    `${round(b.smallCpuMs, 3)} ms`,
    `${round(b.largeCpuMs, 2)} ms`,
    `${round(b.ratio, 1)}x`,
    `${round(b.smallMs, 3)} / ${round(b.largeMs, 2)} ms`,
    `${round(b.wallRatio, 1)}x`,
  ]);
  return [
    formatTable(["builder", "CPU 4,000 rows", "CPU 40,000 rows", "ratio", "wall 4k / 40k", "wall ratio"], rows),
    `medians of ${r.rounds} rounds (samples of ${r.reps.small} calls at 4k, ${r.reps.large} at 40k${r.gcBetweenSamples ? ", a GC before each" : ""}), build ${r.dist}`,
    r.check.ok
      ? `every builder within ${r.check.maxRatio}x for 10x the rows (CPU)`
      : `OVER ${r.check.maxRatio}x: ${r.check.over.join(", ")}`,
  ].join("\n");
}

if (isMain(import.meta.url)) {
  const settings = settingsFromEnv();
  const dist = settings.dist ?? dirname(DIST_ENTRY);
  const whole = join(dist, "subpath", "frames.js");
  const lib = {
    ...repoRequire(join(dist, "index.js")),
    wholeFrames: existsSync(whole) ? repoRequire(whole) : undefined,
  };
  const inputs = {
    trades: await simulatorTrades(lib),
    synthetic: { small: syntheticTables(SMALL), large: syntheticTables(LARGE) },
  };
  runStandalone("plot-scale", (log) => measurePlotScale(lib, inputs, settings, log), formatPlotScale);
}
