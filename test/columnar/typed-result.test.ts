/**
 * Typed query results (`queryColumns(sql, { typed: true })`): number and date columns as `Float64Array`s
 * (NaN missing; a date as its epoch milliseconds), every other column as the untyped result has it. The
 * typed table holds the same rows, kinds, values and meta as the untyped one (streamed and materialized
 * results, several chunks, an empty result, all-NULL columns, dates before 1970, 64-bit integers, ENUMs),
 * and every consumer of a column table takes it: a DataFrame, Arrow, Parquet (read back by DuckDB), an
 * SQL source, a chart, the table display, diff, pivot, concat, valuesOf.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import * as plot from "../../src/plot";
import { frameInfo } from "../../src/frames/danfo";
import { displayBundles } from "../../src/plot/show";
import { isColumnTable, type ColumnTable, type TypedColumnTable } from "../../src/table/column-table";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-typed-result-"));
let db: frames.SqlSession;

/** NULL at both sides of each chunk boundary, the first and last rows, and every 97th. */
const NULLS = "(i in (0, 2047, 2048, 4095, 4096, 4999) or i % 97 = 5)";
const nullable = (expr: string) => `case when ${NULLS} then null else ${expr} end`;

/** 5,000 rows (three DuckDB chunks) of every kind, NULLs at the chunk edges. */
const ROWS = `select i,
  ${nullable("i * 0.25 - 300")} as x,
  ${nullable("case i % 5 when 1 then -0.0 when 2 then 'nan'::double when 3 then 'inf'::double else i / 3.0 end")} as odd,
  ${nullable("(i * 9007199254 - 4503599627370)::bigint")} as big,
  ${nullable("(i * 12.345 - 999)::decimal(9, 3)")} as dec,
  ${nullable("(i % 200 - 100)::tinyint")} as tiny,
  ${nullable("date '1900-01-01' + (i * 37)::integer")} as d,
  ${nullable("timestamp '1969-12-31 23:59:59.9995' + to_microseconds(i * 1234567)")} as ts,
  ${nullable("timestamptz '2026-03-29 01:30:00+02' - to_microseconds(i * 86400000001)")} as tz,
  ${nullable("(timestamp '1960-01-01' + to_microseconds(i * 987654321))::timestamp_s")} as ts_s,
  ${nullable("['USD', 'EUR', 'GBP', 'CHF', ''][i % 5 + 1]")} as ccy,
  ${nullable("'a longer text value, row ' || (i % 13)")} as long_text,
  ${nullable("i % 3 = 0")} as flag,
  ${nullable("['sad', 'ok', 'happy'][i % 3 + 1]::mood")} as mood,
  null::double as none
  from range(5000) r(i)`;

beforeAll(async () => {
  db = await frames.duckdb({ threads: 2 });
  await db.run("create type mood as enum ('sad', 'ok', 'happy')");
  await db.run(`create table rows as ${ROWS}`);
});
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The typed table holds the untyped one's rows: its number and date columns as Float64Arrays (a date as
 * its epoch ms, missing as NaN), the other columns, the kinds and the meta the same.
 */
function expectSameRows(typed: TypedColumnTable, plain: ColumnTable): void {
  expect(typed.typed).toBe(true);
  expect(typed.columns).toEqual(plain.columns);
  expect(typed.kinds).toEqual(plain.kinds);
  expect(typed.rowCount).toBe(plain.rowCount);
  expect(typed.meta).toEqual(plain.meta);
  for (const c of plain.columns) {
    const [want, got] = [plain.data[c]!, typed.data[c]!];
    expect(got.length, c).toBe(want.length);
    const kind = plain.kinds[c];
    if (kind === "number" || kind === "date") {
      expect(got, c).toBeInstanceOf(Float64Array);
      for (let i = 0; i < want.length; i++) {
        const w = kind === "date" ? (want[i] === null ? NaN : (want[i] as Date).getTime()) : want[i];
        if (!Object.is(got[i], w)) expect(got[i], `${c}[${i}]`).toBe(w);
      }
    } else {
      expect(Array.isArray(got), c).toBe(true);
      expect(got, c).toEqual(want);
    }
  }
}

async function both(sql: string): Promise<[TypedColumnTable, ColumnTable]> {
  return [await db.queryColumns(sql, { typed: true }), await db.queryColumns(sql)];
}

describe("typed query results", () => {
  it("hold the untyped result's rows, kinds and values: numbers and dates as Float64Arrays (streamed)", async () => {
    const [typed, plain] = await both("select * from rows order by i desc");
    expectSameRows(typed, plain);
    expect(plain.kinds).toMatchObject({ x: "number", big: "number", dec: "number", tiny: "number", d: "date" });
    expect(plain.kinds).toMatchObject({ ccy: "string", flag: "boolean", mood: "category", none: "empty" });
    expect(typed.data.none).toEqual(new Array(5000).fill(null));
    // 1899-12-31 is before 1970: a negative epoch ms, exact.
    expect(typed.data.d![4999 - 1]).toBe(Date.UTC(1900, 0, 1 + 37));
    expect(typed.meta.missing.x).toBe(plain.meta.missing.x);
  });

  it("are the same read materialized (in the user's transaction), empty, or of one row", async () => {
    await db.run("begin transaction");
    try {
      expectSameRows(...(await both("select * from rows where i % 2 = 1")));
    } finally {
      await db.run("rollback");
    }
    const [empty, none] = await both("select * from rows where i < 0");
    expectSameRows(empty, none);
    expect(empty.rowCount).toBe(0);
    expectSameRows(...(await both("select x, d, ccy from rows where i = 7")));
  });

  it("fail as the untyped result does on a date beyond a JS Date", async () => {
    const sql = "select 'infinity'::timestamp as t";
    const want = await db.queryColumns(sql).then(
      () => "no error",
      (e: Error) => e.message,
    );
    expect(want).not.toBe("no error");
    await expect(db.queryColumns(sql, { typed: true })).rejects.toThrow(want);
  });

  it("come from frames.queryColumns and readParquetColumns with { typed: true }; a wrong option is refused", async () => {
    const source = await db.queryColumns("select * from rows");
    const sql = "select i, x, d, ccy from src where i % 3 = 0";
    expectSameRows(
      await frames.queryColumns(sql, { src: source }, { typed: true }),
      await frames.queryColumns(sql, { src: source }),
    );
    const file = path.join(dir, "rows.parquet");
    await frames.writeParquet(source, file);
    expectSameRows(await frames.readParquetColumns(file, { typed: true }), await frames.readParquetColumns(file));
    await expect(frames.queryColumns(sql, { src: source }, { typed: "yes" as never })).rejects.toThrow(
      'frames.queryColumns: typed must be true or false; got "yes"',
    );
    await expect(db.queryColumns(sql, { typed: 1 as never })).rejects.toThrow(
      "queryColumns: typed must be true or false; got 1",
    );
  });

  it("are not plain column tables: frames.plainColumns gives one, with a Date per date", async () => {
    const [typed, plain] = await both("select * from rows");
    expect(isColumnTable(typed)).toBe(false);
    const back = frames.plainColumns(typed);
    expect(back.data).toEqual(plain.data);
    expect({ ...back, data: undefined }).toEqual({ ...plain, data: undefined });
    expect("typed" in back).toBe(false);
    expect(frames.plainColumns(plain)).toBe(plain);
    expect(frames.valuesOf(typed, "d")).toEqual(plain.data.d);
    expect(frames.numbersOf(typed, "x")).toEqual(plain.data.x);
  });
});

describe("a typed table's consumers", () => {
  it("make the same DataFrame, Arrow table and Parquet file (read back by DuckDB) as the untyped one", async () => {
    const [typed, plain] = await both("select * from rows where i % 5 = 0");
    const [a, b] = [frames.toDataFrame(typed), frames.toDataFrame(plain)];
    expect(a.dtypes).toEqual(b.dtypes);
    expect(a.values).toEqual(b.values);
    expect(frameInfo(a)).toEqual(frameInfo(b));
    expect(frames.fromArrow(frames.toArrow(typed))).toEqual(frames.fromArrow(frames.toArrow(plain)));
    const [fromTyped, fromPlain] = [path.join(dir, "typed.parquet"), path.join(dir, "plain.parquet")];
    await frames.writeParquet(typed, fromTyped);
    await frames.writeParquet(plain, fromPlain);
    const read = (file: string) =>
      frames.queryColumns(`select * from read_parquet('${file}') order by i`).then((t) => t.data);
    expect(await read(fromTyped)).toEqual(await read(fromPlain));
    const [back, want] = [await frames.readParquetColumns(fromTyped), await frames.readParquetColumns(fromPlain)];
    expect(back.meta.fields.parquet).toBe(fromTyped);
    expect({ ...back, meta: { ...back.meta, fields: {} } }).toEqual({ ...want, meta: { ...want.meta, fields: {} } });
  });

  it("load as an SQL source as the untyped one does", async () => {
    const [typed, plain] = await both("select * from rows");
    const sql = "select * from t order by i";
    expect(await frames.queryColumns(sql, { t: typed })).toEqual(await frames.queryColumns(sql, { t: plain }));
  });

  it("chart, show, diff, pivot and concat as the untyped one", async () => {
    await db.run(`create table trades as select 'T' || i as tradable_id, 'Instrument ' || (i % 7) as instrument_name,
      ['Alpha', 'Beta', 'Gamma'][i % 3 + 1] as counterparty, ['USD', 'EUR'][i % 2 + 1] as currency,
      (i - 20) * 1000.5 as quantity, (i - 20) * 101234.5 as notional,
      timestamp '2026-01-01' + to_hours(i * 7) as trade_date from range(60) r(i)`);
    const [typed, plain] = await both("select * from trades");
    expect(plot.transactions(typed)).toEqual(plot.transactions(plain));
    expect(plot.tableText(typed)).toEqual(plot.tableText(plain).replace("ColumnTable", "TypedColumnTable"));
    expect(plot.tableHtml(typed)).toEqual(plot.tableHtml(plain).replace("ColumnTable", "TypedColumnTable"));
    const [shown] = displayBundles(typed);
    expect(shown!["text/plain"]).toEqual(plot.tableText(typed));
    const d = frames.diff(typed, plain, { key: "tradable_id" });
    expect([d.rows, d.unchanged, d.added.rowCount, d.removed.rowCount]).toEqual([[], 60, 0, 0]);
    const pivot = { index: "counterparty", columns: "currency", values: "notional", agg: "sum" } as const;
    expect(frames.pivotColumns(typed, pivot)).toEqual(frames.pivotColumns(plain, pivot));
    expect(frames.concatColumns([typed, plain], "both")).toEqual(frames.concatColumns([plain, plain], "both"));
    expect(frames.provenance(typed)).toEqual(frames.provenance(plain));
  });
});
