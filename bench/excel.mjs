/**
 * Excel read and write speed (issue 48, item 1): frames.toExcel and frames.readExcelColumns on a table of
 * ROWS rows × 10 columns (2 dates, 4 numbers, 3 texts, 1 boolean; some cells missing), beside the same
 * rows as CSV (written with one join, read back with frames.readCsvFile: text only, no kinds) for a ratio
 * measured in the same run. Run after `npm run build`:
 *
 *   node bench/excel.mjs        # EXCEL_BENCH_ROWS (default 100,000), EXCEL_BENCH_RUNS (default 3)
 *
 * Each round runs every variant once in turn (interleaved); the figures are medians. Prints rows per
 * second, the xlsx/CSV ratios, the file sizes, the process's peak RSS and the load average before and
 * after; writes bench/results/excel.json. Exits 1 if the table read back is not the one written.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { envInt, formatTable, isMain, loadPackage, median, perSecond, round, writeResults } from "./common.mjs";

const ROWS = envInt("EXCEL_BENCH_ROWS", 100_000);
const RUNS = envInt("EXCEL_BENCH_RUNS", 3);

/** The columns of a deterministic table of `n` rows × 10 columns (plain arrays; NaN / null missing). */
export function benchColumns(n) {
  const day = Date.UTC(2020, 0, 1);
  const books = ["RATES", "CREDIT", "FX", "EQUITY", "COMMODITIES"];
  const data = {
    trade_date: [],
    settle: [],
    notional: [],
    price: [],
    pnl: [],
    qty: [],
    book: [],
    counterparty: [],
    comment: [],
    active: [],
  };
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < n; i++) {
    data.trade_date.push(new Date(day + (i % 2000) * 86_400_000));
    data.settle.push(
      i % 97 === 0 ? null : new Date(day + (i % 2000) * 86_400_000 + 2 * 86_400_000 + (i % 3600) * 1000),
    );
    data.notional.push(Math.round(rand() * 1e7));
    data.price.push(i % 53 === 0 ? NaN : 90 + rand() * 20);
    data.pnl.push((rand() - 0.5) * 1e5);
    data.qty.push(i % 1000);
    data.book.push(books[i % books.length]);
    data.counterparty.push(`CP${String(i % 4999).padStart(5, "0")}`);
    data.comment.push(i % 7 === 0 ? null : `trade ${i} of a bench run`);
    data.active.push(i % 3 !== 0);
  }
  return data;
}

/** A column table literal: the package's kinds for these columns. */
function tableOf(data, n) {
  const kinds = {
    trade_date: "date",
    settle: "date",
    notional: "number",
    price: "number",
    pnl: "number",
    qty: "number",
    book: "string",
    counterparty: "string",
    comment: "string",
    active: "boolean",
  };
  const missing = Object.fromEntries(
    Object.entries(data).map(([k, v]) => [
      k,
      v.filter((x) => x === null || (typeof x === "number" && isNaN(x))).length,
    ]),
  );
  return {
    columns: Object.keys(data),
    data,
    kinds,
    rowCount: n,
    meta: { source: "bench", categories: {}, missing, warnings: [], fields: {}, provenance: [] },
  };
}

/** The rows as CSV text (dates as ISO text, missing as empty). */
function toCsv(data, n) {
  const columns = Object.keys(data);
  const cell = (v) =>
    v === null || (typeof v === "number" && isNaN(v)) ? "" : v instanceof Date ? v.toISOString() : String(v);
  const lines = [columns.join(",")];
  for (let i = 0; i < n; i++) lines.push(columns.map((c) => cell(data[c][i])).join(","));
  return lines.join("\n") + "\n";
}

async function measure(log) {
  const { frames } = loadPackage();
  const table = tableOf(benchColumns(ROWS), ROWS);
  const dir = mkdtempSync(join(os.tmpdir(), "rpl-excel-bench-"));
  const xlsx = join(dir, "bench.xlsx");
  const csv = join(dir, "bench.csv");
  const ms = { xlsxWrite: [], xlsxRead: [], csvWrite: [], csvRead: [] };
  let back;
  try {
    for (let r = 0; r < RUNS; r++) {
      let t = performance.now();
      await frames.toExcel(table, xlsx, { overwrite: true });
      ms.xlsxWrite.push(performance.now() - t);
      t = performance.now();
      back = await frames.readExcelColumns(xlsx);
      ms.xlsxRead.push(performance.now() - t);
      t = performance.now();
      writeFileSync(csv, toCsv(table.data, ROWS));
      ms.csvWrite.push(performance.now() - t);
      t = performance.now();
      frames.readCsvFile(csv);
      ms.csvRead.push(performance.now() - t);
      log(
        `round ${r + 1}: ${Object.entries(ms)
          .map(([k, v]) => `${k} ${round(v.at(-1), 0)} ms`)
          .join(", ")}`,
      );
    }
    const sizes = { xlsxBytes: statSync(xlsx).size, csvBytes: statSync(csv).size };
    const med = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, median(v)]));
    const ok =
      back.rowCount === ROWS &&
      table.columns.every((c) => back.kinds[c] === table.kinds[c]) &&
      back.data.trade_date[ROWS - 1].getTime() === table.data.trade_date[ROWS - 1].getTime() &&
      back.data.pnl[7] === table.data.pnl[7];
    return {
      rows: ROWS,
      columns: table.columns.length,
      runs: RUNS,
      medianMs: Object.fromEntries(Object.entries(med).map(([k, v]) => [k, round(v, 1)])),
      rowsPerSecond: {
        xlsxWrite: Math.round(perSecond(ROWS, med.xlsxWrite)),
        xlsxRead: Math.round(perSecond(ROWS, med.xlsxRead)),
        csvWrite: Math.round(perSecond(ROWS, med.csvWrite)),
        csvRead: Math.round(perSecond(ROWS, med.csvRead)),
      },
      ratios: {
        xlsxWriteOverCsvWrite: round(med.xlsxWrite / med.csvWrite, 1),
        xlsxReadOverCsvRead: round(med.xlsxRead / med.csvRead, 1),
        xlsxReadOverXlsxWrite: round(med.xlsxRead / med.xlsxWrite, 2),
      },
      sizes,
      peakRssMB: round(process.resourceUsage().maxRSS / 1024, 0),
      check: { ok, kinds: back.kinds },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function format(r) {
  return [
    formatTable(
      ["", "median ms", "rows/s"],
      ["xlsxWrite", "xlsxRead", "csvWrite", "csvRead"].map((k) => [
        k,
        String(r.medianMs[k]),
        r.rowsPerSecond[k].toLocaleString("en-US"),
      ]),
    ),
    `xlsx/CSV: write ${r.ratios.xlsxWriteOverCsvWrite}×, read ${r.ratios.xlsxReadOverCsvRead}× (CSV read: text only, no kinds)`,
    `files: xlsx ${round(r.sizes.xlsxBytes / 1e6, 1)} MB, CSV ${round(r.sizes.csvBytes / 1e6, 1)} MB; peak RSS ${r.peakRssMB} MB`,
    `read back: ${r.check.ok ? "the table written" : "NOT the table written"}`,
  ].join("\n");
}

if (isMain(import.meta.url)) {
  const loadBefore = os.loadavg().map((x) => round(x, 2));
  console.log(
    `excel bench: ${ROWS.toLocaleString("en-US")} rows × 10 columns, median of ${RUNS}; node ${process.version}, ${os.cpus().length} CPUs; load average ${loadBefore.join(" ")}\n`,
  );
  const started = Date.now();
  const result = await measure((line) => console.log(line));
  const loadAfter = os.loadavg().map((x) => round(x, 2));
  console.log("\n" + format(result) + `\nload average after: ${loadAfter.join(" ")}`);
  const file = writeResults("excel", {
    startedAt: new Date(started).toISOString(),
    durationS: round((Date.now() - started) / 1000, 1),
    loadAverage: { before: loadBefore, after: loadAfter },
    ...result,
  });
  console.log(`wrote ${file}`);
  if (!result.check.ok) process.exitCode = 1;
}
