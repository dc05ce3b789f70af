/**
 * Columnar beside danfo, on the 1,000,000-row, 13-column transaction table of bench/frames.mjs (same
 * deterministic payload). Run after `npm run build`:
 *
 *   node bench/columnar.mjs          # COLUMNAR_BENCH_ROWS=… to change the size
 *
 * Ratios measured in one run, on one machine (issue 16's targets in brackets):
 *   load      column table → DuckDB (frames.duckdb().register) vs JSON.parse of the same payload [≤ 0.5×]
 *   group-by  Σ notional by counterparty × direction: danfo's groupby().agg() vs SQL in DuckDB [≥ 20×]
 *   size      the table as one zstd Parquet file vs the payload's JSON bytes [≤ 1/10]
 * Each timing is the median of RUNS runs (default 3). Prints the figures and writes
 * bench/results/columnar.json.
 */
import { mkdtempSync, rmSync, statSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { BENCH_DIR, REPO_ROOT, envInt, formatTable, median, repoRequire, round } from "./common.mjs";
import { transactionPayload } from "./frames.mjs";

const ROWS = envInt("COLUMNAR_BENCH_ROWS", 1_000_000);
const RUNS = envInt("COLUMNAR_BENCH_RUNS", 3);
const frames = repoRequire(join(REPO_ROOT, "dist", "frames", "index.js"));

async function timed(fn, runs = RUNS) {
  const ms = [];
  let value;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    value = await fn();
    ms.push(performance.now() - start);
  }
  return { value, ms: median(ms), runs: ms };
}

const machine = { node: process.version, cpuModel: os.cpus()[0]?.model ?? "unknown", cpus: os.cpus().length };
const loadBefore = os.loadavg().map((x) => round(x, 2));
console.log(
  `columnar bench: ${ROWS.toLocaleString("en-US")} rows, median of ${RUNS}; node ${machine.node} on ${machine.cpuModel} x${machine.cpus}`,
);

const payload = transactionPayload(ROWS);
const jsonBytes = Buffer.byteLength(payload, "latin1");
const parse = await timed(() => JSON.parse(payload));
const table = frames.transactionTableColumns(parse.value);
parse.value = undefined;
console.log(`JSON.parse of ${round(jsonBytes / 1e6, 1)} MB: ${round(parse.ms, 0)} ms`);

const loadRuns = [];
for (let i = 0; i < RUNS; i++) {
  const session = await frames.duckdb();
  const start = performance.now();
  await session.register("trades", table);
  loadRuns.push(performance.now() - start);
  await session.close();
}
const load = { ms: median(loadRuns), runs: loadRuns };
console.log(`column table → DuckDB: ${round(load.ms, 0)} ms (${round(load.ms / parse.ms, 2)}× JSON.parse)`);

const SQL = "select counterparty, direction, sum(notional) as notional, count(*) as trades from trades group by all";
const db = await frames.duckdb();
await db.register("trades", table);
const sql = await timed(() => db.queryColumns(SQL), RUNS * 3);
await db.close();
const df = frames.toDataFrame(table);
const danfo = await timed(() => df.groupby(["counterparty", "direction"]).agg({ notional: "sum" }));
if (danfo.value.shape[0] !== sql.value.rowCount)
  throw new Error(`danfo found ${danfo.value.shape[0]} groups, SQL ${sql.value.rowCount}`);
console.log(
  `group-by: danfo ${round(danfo.ms, 0)} ms, SQL ${round(sql.ms, 1)} ms (${round(danfo.ms / sql.ms, 1)}× faster in SQL)`,
);

const dir = mkdtempSync(join(os.tmpdir(), "rpl-columnar-bench-"));
let parquetBytes;
let parquetMs;
try {
  const file = join(dir, "trades.parquet");
  parquetMs = (await timed(() => frames.writeParquet(table, file, { overwrite: true }), 1)).ms;
  parquetBytes = statSync(file).size;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `Parquet (zstd): ${round(parquetBytes / 1e6, 1)} MB = 1/${round(jsonBytes / parquetBytes, 1)} of the JSON, written in ${round(parquetMs, 0)} ms`,
);

const rows = [
  [
    "load: column table → DuckDB ÷ JSON.parse",
    `${round(load.ms / parse.ms, 2)}× (${round(load.ms, 0)} / ${round(parse.ms, 0)} ms)`,
    "≤ 0.5×",
  ],
  [
    "group-by: danfo ÷ SQL",
    `${round(danfo.ms / sql.ms, 1)}× (${round(danfo.ms, 0)} / ${round(sql.ms, 1)} ms)`,
    "≥ 20×",
  ],
  [
    "size: Parquet ÷ JSON",
    `1/${round(jsonBytes / parquetBytes, 1)} (${round(parquetBytes / 1e6, 1)} / ${round(jsonBytes / 1e6, 1)} MB)`,
    "≤ 1/10",
  ],
];
console.log(`\n${formatTable(["figure", "measured", "target"], rows)}`);
const loadAfter = os.loadavg().map((x) => round(x, 2));
console.log(`load average before ${loadBefore.join(" ")}, after ${loadAfter.join(" ")}`);

mkdirSync(join(BENCH_DIR, "results"), { recursive: true });
writeFileSync(
  join(BENCH_DIR, "results", "columnar.json"),
  `${JSON.stringify(
    {
      startedAt: new Date().toISOString(),
      machine,
      rows: ROWS,
      runs: RUNS,
      loadBefore,
      loadAfter,
      jsonMB: round(jsonBytes / 1e6, 1),
      parseMs: round(parse.ms, 1),
      duckdbLoadMs: round(load.ms, 1),
      loadRatio: round(load.ms / parse.ms, 3),
      danfoGroupByMs: round(danfo.ms, 1),
      sqlGroupByMs: round(sql.ms, 2),
      groupBySpeedup: round(danfo.ms / sql.ms, 1),
      parquetMB: round(parquetBytes / 1e6, 2),
      parquetShareOfJson: round(parquetBytes / jsonBytes, 4),
    },
    null,
    2,
  )}\n`,
);
