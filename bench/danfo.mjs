/**
 * danfo as the package corrects it (src/frames/danfo-fixes) against danfo 1.2 alone, in one run, on a
 * transaction-like table (13 columns, fixed seed) of 200,000 and 1,000,000 rows. Run after `npm run build`:
 *
 *   node bench/danfo.mjs     # DANFO_BENCH_SIZES=200000,1000000; DANFO_BENCH_UPSTREAM_SORT_MAX=200000
 *
 * For each size:
 *   query after sort   sortValues("notional", descending), then query(notional > 5,000,000): rows returned
 *                      and rows that are wrong (not > 5,000,000, or missing from what a plain filter gives)
 *   query after sort, timed   median ms of sorted.query(sorted["notional"].gt(5,000,000)) (the column, the mask,
 *                      the query; and df[col] alone), against arquero's filter of the same sorted columns, reified (when arquero
 *                      resolves: a devDependency of the peers' bench), and always a plain typed-array filter
 *                      that gathers every column at the kept positions (what a reified filter does); bound:
 *                      ≤ 3× the reference (arquero when present, else the typed-array filter), issue 46
 *   arithmetic         loc({ columns: ["notional", "price"] }).mul(2) (the loc corrected in both: danfo's own is
 *                      quadratic): the largest |result − 2·x| and the cells off
 *   sortValues         median ms of the corrected sortValues vs a plain JS sort of the same column (an index
 *                      array sorted by a comparator, as danfo-guard times it); danfo alone once, up to
 *                      DANFO_BENCH_UPSTREAM_SORT_MAX rows (it is quadratic: tens of seconds at 200,000)
 *   groupby            median ms of groupby(["book", "currency"]).agg({ notional: "sum", price: "mean" }) vs
 *                      the column table's own aggregation (frames.pivotColumns by book × currency, sum) and a
 *                      plain JS Map; danfo alone once; the results compared with danfo's
 * `withUpstreamDanfo` (dist/frames/danfo-fixes) puts danfo's own methods back for the "before" figures.
 * Writes bench/results/danfo.json; exit code 1 when a corrected figure is wrong or over its bound
 * (sortValues ≤ 10× the JS sort, groupby ≤ 2× the column table, query after sort ≤ 3× the reference filter).
 */
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { envInt, formatTable, isMain, loadPackage, median, requireBuilt, round } from "./common.mjs";

const SIZES = (process.env.DANFO_BENCH_SIZES ?? "200000,1000000").split(",").map(Number);
const UPSTREAM_SORT_MAX = envInt("DANFO_BENCH_UPSTREAM_SORT_MAX", 200_000);
const ROUNDS = envInt("DANFO_BENCH_ROUNDS", 5);
const BOOKS = ["RATES-US", "RATES-EU", "CREDIT-IG", "CREDIT-HY", "EQ-DELTA1", "FX-SPOT", "EM-MACRO"];
const CURRENCIES = ["USD", "EUR", "GBP", "JPY", "CHF"];

/** A column table of n trades (deterministic): doubles float32 cannot hold, text, dates, a few missing notionals. */
function tradeTable(n, TableBuilder) {
  let seed = 29;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const col = (f) => Array.from({ length: n }, (_, i) => f(i));
  const day0 = Date.UTC(2025, 0, 2);
  return new TableBuilder(n, "bench", {})
    .add(
      "trade_id",
      col((i) => `T${String(i).padStart(7, "0")}`),
    )
    .add(
      "book",
      col(() => BOOKS[Math.floor(rand() * BOOKS.length)]),
    )
    .add(
      "currency",
      col(() => CURRENCIES[Math.floor(rand() * CURRENCIES.length)]),
    )
    .add(
      "counterparty",
      col((i) => `CP${i % 97}`),
    )
    .add(
      "trade_date",
      col(() => new Date(day0 + Math.floor(rand() * 365) * 86_400_000)),
      { hint: "date" },
    )
    .add(
      "quantity",
      col(() => Math.floor(rand() * 10_000) - 2_000),
    )
    .add(
      "price",
      col(() => Math.round((80 + rand() * 40) * 1000) / 1000),
    )
    .add(
      "notional",
      col((i) => (i % 1000 === 999 ? null : Math.round((rand() - 0.2) * 5e7 * (rand() < 0.01 ? 1000 : 1) * 100) / 100)),
    )
    .add(
      "fee",
      col(() => Math.round(rand() * 1e4) / 100),
    )
    .add(
      "status",
      col(() => (rand() < 0.9 ? "settled" : "pending")),
    )
    .add(
      "desk",
      col((i) => `D${i % 13}`),
    )
    .add(
      "venue",
      col((i) => `V${i % 5}`),
    )
    .add(
      "flag",
      col(() => rand() < 0.5),
    )
    .build();
}

function time(fn) {
  const t = performance.now();
  const result = fn();
  return [performance.now() - t, result];
}

/** Median ms over ROUNDS calls, interleaved with the other variants of the same round. */
function medians(variants) {
  const ms = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  const last = {};
  for (let r = 0; r < ROUNDS; r++)
    for (const [k, f] of Object.entries(variants)) {
      const [t, out] = time(f);
      ms[k].push(t);
      last[k] = out;
    }
  return { ms: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, median(v)])), last };
}

function queryAfterSort(df, notional) {
  const want = notional.filter((x) => x > 5e6).sort((a, b) => a - b);
  const sorted = df.sortValues("notional", { ascending: false });
  const judge = (q) => {
    const got = q["notional"].values.slice().sort((a, b) => a - b);
    // Rows of the result that a plain filter does not give (a multiset difference of the two sorted lists).
    let common = 0;
    for (let i = 0, j = 0; i < got.length && j < want.length;) {
      if (got[i] === want[j]) [i, j, common] = [i + 1, j + 1, common + 1];
      else if (got[i] < want[j]) i++;
      else j++;
    }
    return { rows: got.length, want: want.length, wrong: got.length - common };
  };
  return { sorted, judge };
}

/** arquero when it resolves from the repo (a devDependency of bench/peers.mjs), else null. */
function loadArquero() {
  try {
    return createRequire(import.meta.url)("arquero");
  } catch {
    return null;
  }
}

/**
 * Timed query after sort: the corrected danfo against a typed-array filter that gathers every column of the
 * sorted frame at the kept positions, and arquero's filter of the same columns (reified) when present.
 */
function timedQuery(sorted, aq) {
  const names = sorted.columns;
  const columns = names.map((c) => sorted[c].values);
  const x = Float64Array.from(sorted["notional"].values, (v) => (typeof v === "number" ? v : NaN));
  const variants = {
    after: () => sorted.query(sorted["notional"].gt(5e6)),
    column: () => sorted["notional"],
    typed: () => {
      const kept = new Uint32Array(x.length);
      let m = 0;
      for (let i = 0; i < x.length; i++) if (x[i] > 5e6) kept[m++] = i;
      return columns.map((col) => {
        const out = new Array(m);
        for (let k = 0; k < m; k++) out[k] = col[kept[k]];
        return out;
      });
    },
  };
  if (aq) {
    const table = aq.table(Object.fromEntries(names.map((c, j) => [c, columns[j]])));
    variants.arquero = () => table.filter(aq.escape((d) => d.notional > 5e6)).reify();
  }
  const r = medians(variants);
  const reference = aq ? "arquero" : "typed";
  return {
    afterMs: r.ms.after,
    columnMs: r.ms.column,
    typedMs: r.ms.typed,
    arqueroMs: aq ? r.ms.arquero : null,
    reference,
    ratio: r.ms.after / r.ms[reference],
    rows: r.last.after.shape[0],
    typedRows: r.last.typed[0].length,
  };
}

function arithmetic(numbers, notional) {
  const m = numbers.mul(2)["notional"].values;
  let worst = 0;
  let off = 0;
  for (let i = 0; i < notional.length; i++) {
    const d = Math.abs(m[i] - 2 * notional[i]);
    if (d > 0) off++;
    if (d > worst) worst = d;
  }
  return { maxError: worst, cellsOff: off };
}

function measureSize(n, lib, upstream, TableBuilder, log) {
  const table = tradeTable(n, TableBuilder);
  const df = lib.frames.toDataFrame(table);
  const notional = table.data.notional.map((x) => (x === null ? NaN : x));
  const out = { rows: n };
  const { sorted, judge } = queryAfterSort(df, notional);
  const mask = sorted["notional"].gt(5e6);
  out.queryAfterSort = { before: upstream(() => judge(sorted.query(mask))), after: judge(sorted.query(mask)) };
  log(`${n} rows: query after sort ${JSON.stringify(out.queryAfterSort)}`);
  out.queryTimed = timedQuery(sorted, loadArquero());
  log(`${n} rows: query after sort, timed ${JSON.stringify(out.queryTimed)}`);
  // The selection outside the timing of either: danfo's own loc is quadratic (indexOf per row) even without rows.
  const numbers = df.loc({ columns: ["notional", "price"] });
  out.arithmetic = { before: upstream(() => arithmetic(numbers, notional)), after: arithmetic(numbers, notional) };
  log(`${n} rows: mul(2) ${JSON.stringify(out.arithmetic)}`);

  const x = Float64Array.from(notional, (v) => (Number.isNaN(v) ? -Infinity : v));
  const sort = medians({
    js: () => Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => x[b] - x[a]),
    after: () => df.sortValues("notional", { ascending: false }),
  });
  out.sortValues = { jsMs: sort.ms.js, afterMs: sort.ms.after, ratio: sort.ms.after / sort.ms.js, beforeMs: null };
  if (n <= UPSTREAM_SORT_MAX)
    [out.sortValues.beforeMs] = time(() => upstream(() => df.sortValues("notional", { ascending: false })));
  log(`${n} rows: sortValues ${JSON.stringify(out.sortValues)}`);

  const spec = { notional: "sum", price: "mean" };
  const books = table.data.book;
  const ccys = table.data.currency;
  const group = medians({
    after: () => df.groupby(["book", "currency"]).agg(spec),
    columnTable: () =>
      lib.frames.pivotColumns(table, { index: "book", columns: "currency", values: "notional", agg: "sum" }),
    jsMap: () => {
      const sums = new Map();
      for (let i = 0; i < n; i++) {
        const k = `${books[i]}\u0000${ccys[i]}`;
        sums.set(k, (sums.get(k) ?? 0) + notional[i]);
      }
      return sums;
    },
  });
  const [beforeMs, theirs] = time(() => upstream(() => df.groupby(["book", "currency"]).agg(spec)));
  const same =
    JSON.stringify(theirs.values) === JSON.stringify(group.last.after.values) &&
    theirs.columns.join() === group.last.after.columns.join();
  out.groupby = {
    afterMs: group.ms.after,
    columnTableMs: group.ms.columnTable,
    jsMapMs: group.ms.jsMap,
    beforeMs,
    ratioToColumnTable: group.ms.after / group.ms.columnTable,
    sameAsDanfo: same,
  };
  log(`${n} rows: groupby ${JSON.stringify(out.groupby)}`);
  return out;
}

export function measureDanfo(log = () => {}) {
  // The column-table forms (pivotColumns, …) are in risk-portal-lab/frames, not the root's frames.
  const lib = { ...loadPackage(), frames: requireBuilt("subpath", "frames.js") };
  const danfo = lib.frames.loadDanfo();
  const { withUpstreamDanfo } = requireBuilt("frames", "danfo-fixes", "index.js");
  const { TableBuilder } = requireBuilt("table", "column-table.js");
  const upstream = (fn) => withUpstreamDanfo(danfo, fn);
  const sizes = SIZES.map((n) => measureSize(n, lib, upstream, TableBuilder, log));
  const problems = [];
  for (const s of sizes) {
    if (s.queryAfterSort.after.wrong !== 0 || s.queryAfterSort.after.rows !== s.queryAfterSort.after.want)
      problems.push(`${s.rows}: query after sort wrong`);
    if (s.arithmetic.after.maxError !== 0) problems.push(`${s.rows}: mul(2) not exact`);
    if (s.queryTimed.ratio > 3 || s.queryTimed.rows !== s.queryTimed.typedRows)
      problems.push(
        `${s.rows}: query after sort ${round(s.queryTimed.ratio, 1)}x the ${s.queryTimed.reference} filter`,
      );
    if (s.sortValues.ratio > 10) problems.push(`${s.rows}: sortValues ${round(s.sortValues.ratio, 1)}x the JS sort`);
    if (s.groupby.ratioToColumnTable > 2)
      problems.push(`${s.rows}: groupby ${round(s.groupby.ratioToColumnTable, 1)}x the column table`);
    if (!s.groupby.sameAsDanfo) problems.push(`${s.rows}: groupby differs from danfo's`);
  }
  return { sizes, check: { ok: problems.length === 0, problems } };
}

const ms = (x) => (x === null ? "not run" : `${round(x, 0)} ms`);

export function formatDanfo(r) {
  const rows = r.sizes.flatMap((s) => [
    [
      `${s.rows}: query after sort, rows / wrong`,
      `${s.queryAfterSort.before.rows} / ${s.queryAfterSort.before.wrong}`,
      `${s.queryAfterSort.after.rows} / ${s.queryAfterSort.after.wrong}`,
      `want ${s.queryAfterSort.after.want}`,
    ],
    [
      `${s.rows}: query after sort, timed`,
      "",
      `${ms(s.queryTimed.afterMs)} (${round(s.queryTimed.ratio, 1)}x ${s.queryTimed.reference})`,
      `df[col] ${ms(s.queryTimed.columnMs)}, typed filter ${ms(s.queryTimed.typedMs)}, arquero ${s.queryTimed.arqueroMs === null ? "not installed" : ms(s.queryTimed.arqueroMs)}`,
    ],
    [
      `${s.rows}: mul(2) max error / cells off`,
      `${s.arithmetic.before.maxError} / ${s.arithmetic.before.cellsOff}`,
      `${s.arithmetic.after.maxError} / ${s.arithmetic.after.cellsOff}`,
      "0 / 0",
    ],
    [
      `${s.rows}: sortValues`,
      ms(s.sortValues.beforeMs),
      `${ms(s.sortValues.afterMs)} (${round(s.sortValues.ratio, 1)}x JS)`,
      `JS sort ${ms(s.sortValues.jsMs)}`,
    ],
    [
      `${s.rows}: groupby(book, currency).agg`,
      ms(s.groupby.beforeMs),
      `${ms(s.groupby.afterMs)} (${round(s.groupby.ratioToColumnTable, 2)}x table)`,
      `pivotColumns ${ms(s.groupby.columnTableMs)}, JS Map ${ms(s.groupby.jsMapMs)}, ${s.groupby.sameAsDanfo ? "same as danfo" : "DIFFERS from danfo"}`,
    ],
  ]);
  return (
    formatTable(["danfo 1.2", "before (danfo alone)", "after (corrected)", "reference"], rows) +
    (r.check.ok ? "" : `\nPROBLEMS: ${r.check.problems.join("; ")}`)
  );
}

if (isMain(import.meta.url)) {
  const { runStandalone } = await import("./common.mjs");
  runStandalone("danfo", measureDanfo, formatDanfo);
}
