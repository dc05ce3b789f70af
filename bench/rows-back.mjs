/**
 * Rows back from DuckDB into a JS column table (issue 46, item 2), on the deterministic transaction table
 * of bench/frames.mjs (13 columns) sorted by counterparty ascending, notional descending. Two workloads:
 *   filtered  the sorted rows of notional > 1,000,000 (544,291 of this payload's 1,000,000 rows; 372,550 of
 *             the simulator's table in issue 46)
 *   whole     the whole sorted table
 * Variants, each in its own child process (its peak RSS is its own), interleaved in every round:
 *   values     the value-by-value reading (`getColumnsJS()` of @duckdb/node-api), as before
 *   vectors    session.queryColumns: src/columnar/result-vectors.ts reads the vectors' bytes, a chunk at a
 *              time as DuckDB streams them
 *   typed      session.queryColumns(sql, { typed: true }): the same, number and date columns into
 *              Float64Arrays (a date as its epoch ms) instead of a JS value per cell
 *   dataframe  session.query: the same, then a danfo DataFrame; danfo is loaded before the timing (a
 *              first query of the process pays it once: its time is reported apart, as "danfo load")
 *   polars     nodejs-polars' filter on its own frame, when it can be required (ROWS_BACK_POLARS=path
 *              to its package, else from the repository's node_modules)
 * The table reaches each child as a Parquet file written once by the parent, so the child's memory before
 * the query is DuckDB's table, not a JSON payload. Run after `npm run build`:
 *
 *   node bench/rows-back.mjs      # ROWS_BACK_ROWS (default 1,000,000), ROWS_BACK_RUNS (default 3),
 *                                 # ROWS_BACK_VARIANTS (default all: values,vectors,typed,dataframe,polars)
 *
 * Prints each variant's median ms and the ratio to `values` and to polars, the peak RSS and its growth
 * over the RSS before the query, the load average; writes bench/results/rows-back.json.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BENCH_DIR, REPO_ROOT, envInt, formatTable, median, repoRequire, round } from "./common.mjs";

const ROWS = envInt("ROWS_BACK_ROWS", 1_000_000);
const RUNS = envInt("ROWS_BACK_RUNS", 3);
const THRESHOLD = 1_000_000;
const SORT_SQL = "create table sorted as select * from trades order by counterparty asc, notional desc";
const WORKLOADS = {
  filtered: `select * from sorted where notional > ${THRESHOLD}`,
  whole: "select * from sorted",
};
const MB = 1024 * 1024;

/** nodejs-polars, when it can be required (undefined otherwise). */
function polarsModule() {
  try {
    return repoRequire(process.env.ROWS_BACK_POLARS ?? "nodejs-polars");
  } catch {
    return undefined;
  }
}

/** A check every variant must agree on: rows, Σ notional, the first row's counterparty and notional. */
function check(rows, counterparty, notional) {
  let sum = 0;
  for (let i = 0; i < rows; i++) sum += Number(notional[i]);
  return { rows, notional: round(sum, 0), first: `${counterparty[0]} ${Number(notional[0])}` };
}

/** The dataframe variant's load of danfo (ms), made before its timing. */
let danfoLoadMs;

/** One child: loads the Parquet table, sorts it in DuckDB (or polars), then times one workload of one variant. */
async function child(variant, workload, file) {
  const gc = () => globalThis.gc?.();
  const run = await childVariant(variant, file);
  gc();
  const rssBefore = process.memoryUsage().rss / MB;
  const peakBefore = process.resourceUsage().maxRSS / 1024;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const value = await run(workload);
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  const peak = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    JSON.stringify({
      ms,
      cpuMs: (cpu.user + cpu.system) / 1000,
      rssBefore,
      peakBefore,
      peak,
      danfoLoadMs,
      check: value,
    }),
  );
}

/** The variant's `run(workload)`, its table loaded and sorted. */
async function childVariant(variant, file) {
  if (variant === "polars") {
    const pl = polarsModule();
    const sorted = pl.readParquet(file).sort(["counterparty", "notional"], [false, true]);
    return (workload) => {
      const f = workload === "whole" ? sorted.clone() : sorted.filter(pl.col("notional").gt(THRESHOLD));
      return check(f.height, f.getColumn("counterparty").toArray(), f.getColumn("notional").toArray());
    };
  }
  const frames = repoRequire(join(REPO_ROOT, "dist", "frames", "index.js"));
  const load = `create table trades as select * from read_parquet('${file}')`;
  if (variant === "dataframe" || variant === "vectors" || variant === "typed") {
    const session = await frames.duckdb();
    await session.run(load);
    await session.run(SORT_SQL);
    if (variant === "vectors" || variant === "typed")
      return async (workload) => {
        const t = await session.queryColumns(WORKLOADS[workload], { typed: variant === "typed" });
        return check(t.rowCount, t.data.counterparty, t.data.notional);
      };
    const start = performance.now();
    await session.query("select 1 as one");
    danfoLoadMs = performance.now() - start;
    return async (workload) => {
      const df = await session.query(WORKLOADS[workload]);
      return check(df.shape[0], df.column("counterparty").values, df.column("notional").values);
    };
  }
  const D = repoRequire("@duckdb/node-api");
  const { resultTable } = repoRequire(join(REPO_ROOT, "dist", "columnar", "sql.js"));
  const instance = await D.DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  await connection.run("set TimeZone = 'UTC'");
  await connection.run(load);
  await connection.run(SORT_SQL);
  return async (workload) => {
    const sql = WORKLOADS[workload];
    const reader = await connection.runAndReadAll(sql);
    const [names, types, columns] = [reader.columnNames(), reader.columnTypes(), reader.getColumnsJS()];
    const t = resultTable({ names, types, columns, rows: reader.currentRowCount }, sql, [], []);
    return check(t.rowCount, t.data.counterparty, t.data.notional);
  };
}

/** Writes the table as Parquet in `dir` (from the JSON payload, through the package's adapter). */
async function writeTable(dir) {
  const { transactionPayload } = await import("./frames.mjs");
  const frames = repoRequire(join(REPO_ROOT, "dist", "frames", "index.js"));
  const file = join(dir, "trades.parquet");
  await frames.writeParquet(frames.transactionTableColumns(JSON.parse(transactionPayload(ROWS))), file);
  return file;
}

function runChild(variant, workload, file) {
  const out = execFileSync(
    process.execPath,
    ["--expose-gc", fileURLToPath(import.meta.url), "--child", variant, workload, file],
    { encoding: "utf8", maxBuffer: 1 << 20, env: process.env },
  );
  return JSON.parse(out);
}

async function main() {
  const loadBefore = os.loadavg().map((x) => round(x, 2));
  const all = ["values", "vectors", "typed", "dataframe", ...(polarsModule() ? ["polars"] : [])];
  const chosen = process.env.ROWS_BACK_VARIANTS?.split(",").map((v) => v.trim());
  const variants = chosen ? all.filter((v) => chosen.includes(v)) : all;
  console.log(`rows back: ${ROWS.toLocaleString("en-US")} rows, ${RUNS} rounds, variants ${variants.join(", ")}`);
  const dir = mkdtempSync(join(os.tmpdir(), "rpl-rows-back-"));
  const results = {};
  try {
    const file = await writeTable(dir);
    for (let r = 0; r < RUNS; r++)
      for (const workload of Object.keys(WORKLOADS))
        for (const variant of variants) {
          const got = runChild(variant, workload, file);
          const key = `${workload}/${variant}`;
          (results[key] ??= []).push(got);
          const agreed = results[`${workload}/${variants[0]}`][r].check;
          if (JSON.stringify(got.check) !== JSON.stringify(agreed))
            throw new Error(`${key} disagrees: ${JSON.stringify(got.check)} vs ${JSON.stringify(agreed)}`);
          console.log(`  round ${r + 1} ${key}: ${round(got.ms, 0)} ms, peak ${round(got.peak, 0)} MB`);
        }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  report(variants, results, loadBefore);
}

function report(variants, results, loadBefore) {
  const summary = {};
  const rows = [];
  for (const workload of Object.keys(WORKLOADS)) {
    const ms = (v) => median(results[`${workload}/${v}`].map((x) => x.ms));
    for (const v of variants) {
      const runs = results[`${workload}/${v}`];
      const s = {
        rows: runs[0].check.rows,
        ms: round(ms(v), 1),
        cpuMs: round(median(runs.map((x) => x.cpuMs)), 1),
        peakMB: round(median(runs.map((x) => x.peak)), 0),
        growthMB: round(median(runs.map((x) => x.peak - x.rssBefore)), 0),
        vsValues: variants.includes("values") ? round(ms(v) / ms("values"), 3) : undefined,
        vsPolars: variants.includes("polars") ? round(ms(v) / ms("polars"), 2) : undefined,
        danfoLoadMs: runs[0].danfoLoadMs === undefined ? undefined : round(median(runs.map((x) => x.danfoLoadMs)), 0),
      };
      summary[`${workload}/${v}`] = s;
      rows.push([
        `${workload} (${s.rows.toLocaleString("en-US")} rows)`,
        v,
        `${s.ms} ms`,
        s.vsValues === undefined ? "–" : `${s.vsValues}×`,
        s.vsPolars === undefined ? "–" : `${s.vsPolars}×`,
        `${s.peakMB} MB`,
        `+${s.growthMB} MB`,
      ]);
    }
  }
  console.log(
    `\n${formatTable(["workload", "variant", "median", "÷ values", "÷ polars", "peak RSS", "growth"], rows)}`,
  );
  const danfo = Object.values(summary).find((x) => x.danfoLoadMs !== undefined)?.danfoLoadMs;
  if (danfo !== undefined)
    console.log(`danfo load (a process's first DataFrame, before the dataframe timings): ${danfo} ms`);
  const loadAfter = os.loadavg().map((x) => round(x, 2));
  console.log(`load average before ${loadBefore.join(" ")}, after ${loadAfter.join(" ")}`);
  mkdirSync(join(BENCH_DIR, "results"), { recursive: true });
  writeFileSync(
    join(BENCH_DIR, "results", "rows-back.json"),
    `${JSON.stringify({ startedAt: new Date().toISOString(), rows: ROWS, runs: RUNS, loadBefore, loadAfter, summary }, null, 2)}\n`,
  );
}

if (process.argv[2] === "--child") await child(process.argv[3], process.argv[4], process.argv[5]);
else await main();
