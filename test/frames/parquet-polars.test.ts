/**
 * Another engine reads what the panel verbs write (issue 48, item 4): the hive-partitioned Parquet dataset of
 * `frames.fetchTransactionTablesToParquet` is the hand-off to whatever a team runs beyond one laptop, so it is
 * read here by nodejs-polars (Rust's Parquet reader, not DuckDB, which wrote it) with hive partitioning, and
 * compared with the same panel fetched into memory: every column with its kind's type (text as String, numbers
 * as Float64, dates as UTC timestamps), the partition columns, the rows per portfolio × month and their sums,
 * and every value of every row.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pl from "nodejs-polars";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import { startSimulator, type Simulator } from "../../src/sim";

let sim: Simulator;
let rp: RiskPortalClient;
const dir = mkdtempSync(path.join(tmpdir(), "rpl-polars-"));
const portfolios = ["GLOBAL-MACRO", "RATES-EU"];
const months = ["2026-09", "2026-10"];
let memory: frames.ColumnTable;
let read: pl.DataFrame;

/** The polars type a column of each kind must be read as. */
const POLARS_TYPE: Partial<Record<frames.ColumnKind, string>> = {
  string: "String",
  category: "String",
  number: "Float64",
  date: "Datetime(us,UTC)",
};

beforeAll(async () => {
  sim = await startSimulator({ transactionRows: 2_000 });
  rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
  const panel = await frames.fetchTransactionTablesColumns(rp, { portfolios, months, progress: "none" });
  expect(panel.failures).toEqual([]);
  memory = panel.table;
  const out = path.join(dir, "panel");
  await frames.fetchTransactionTablesToParquet(rp, { portfolios, months, progress: "none" }, out);
  read = pl.scanParquet(`${out}/**/*.parquet`, { hivePartitioning: true }).collectSync();
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A value as both engines' rows can be compared: dates as ISO instants, the rest as they are. */
function comparable(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}

describe("a panel's Parquet dataset read by nodejs-polars", () => {
  it("has every column, each with its kind's type, and the hive partition columns", () => {
    expect(memory.rowCount).toBeGreaterThan(200);
    expect([...read.columns].sort()).toEqual([...memory.columns].sort());
    const types = Object.fromEntries(
      Object.entries(read.schema).map(([name, t]) => [name, String(t).replace(/^DataType\((.*)\)$/, "$1")]),
    );
    for (const column of memory.columns) {
      const expected = POLARS_TYPE[memory.kinds[column]!];
      expect(expected, `${column}: kind ${memory.kinds[column]} has no expected polars type`).toBeDefined();
      expect(types[column], column).toBe(expected);
    }
    expect(memory.kinds).toMatchObject({ portfolio: "category", month: "category", trade_date: "date" });
  });

  it("has the rows and Σ notional of each portfolio × month", () => {
    const cells = (rows: Iterable<{ portfolio: unknown; month: unknown; notional: unknown }>) => {
      const out: Record<string, [number, number]> = {};
      for (const r of rows) {
        const cell = (out[`${String(r.portfolio)}|${String(r.month)}`] ??= [0, 0]);
        cell[0] += 1;
        cell[1] += r.notional as number;
      }
      return out;
    };
    const ours = cells(
      Array.from({ length: memory.rowCount }, (_, i) => ({
        portfolio: memory.data.portfolio![i],
        month: memory.data.month![i],
        notional: memory.data.notional![i],
      })),
    );
    const grouped = read
      .groupBy(["portfolio", "month"])
      .agg(pl.len().alias("n"), pl.col("notional").sum().alias("s"))
      .toRecords();
    expect(Object.keys(ours)).toHaveLength(portfolios.length * months.length);
    expect(grouped).toHaveLength(Object.keys(ours).length);
    for (const g of grouped) {
      const [n, s] = ours[`${String(g.portfolio)}|${String(g.month)}`]!;
      expect(Number(g.n), `${String(g.portfolio)} ${String(g.month)}`).toBe(n);
      expect(Math.abs((g.s as number) - s)).toBeLessThanOrEqual(1e-6 * Math.abs(s));
    }
  });

  it("has every value of every row, dates as the same UTC instants", () => {
    const sorted = read.sort(["portfolio", "trade_id"]).toRecords();
    const order = Array.from({ length: memory.rowCount }, (_, i) => i).sort((a, b) => {
      const key = (i: number) => `${String(memory.data.portfolio![i])}\u0000${String(memory.data.trade_id![i])}`;
      return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
    });
    expect(sorted).toHaveLength(memory.rowCount);
    for (const [k, i] of order.entries()) {
      const ours = Object.fromEntries(memory.columns.map((c) => [c, comparable(memory.data[c]![i] ?? null)]));
      const theirs = Object.fromEntries(memory.columns.map((c) => [c, comparable(sorted[k]![c] ?? null)]));
      expect(theirs, `row ${k}`).toEqual(ours);
    }
  });
});
