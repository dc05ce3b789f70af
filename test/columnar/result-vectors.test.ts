/**
 * Query results read from DuckDB's vectors (src/columnar/result-vectors.ts) give the very column table
 * the value-by-value reading gave (`getColumnsJS()` of @duckdb/node-api, kept here as the reference):
 * every type the column table reads, NULLs on both sides of the 2,048-row chunk boundaries, short
 * (inline) and long text, text with repeats and constant text, ENUMs, 64-bit integers up to and beyond
 * ±2^53, decimals, dates and timestamps before 1970 and with time zone, empty results, several chunks,
 * and a result read from a Parquet file; and the same errors for dates beyond a JS `Date`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import * as D from "@duckdb/node-api";
import * as B from "@duckdb/node-bindings";
import * as frames from "../../src/frames";
import { DateShare, readResultColumns, RecordTable, TextTable } from "../../src/columnar/result-vectors";
import { resultTable } from "../../src/columnar/sql";
import type { ColumnTable } from "../../src/table/column-table";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-result-vectors-"));
let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await D.DuckDBInstance.create(":memory:", { threads: "1" });
  connection = await instance.connect();
  await connection.run("set TimeZone = 'UTC'");
});
afterAll(() => {
  connection?.closeSync();
  instance?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

/** The result of `sql` read value by value, as before (the reference). */
async function reference(sql: string): Promise<ColumnTable> {
  const reader = await connection.runAndReadAll(sql);
  const read = {
    names: reader.columnNames(),
    types: reader.columnTypes(),
    columns: reader.getColumnsJS(),
    rows: reader.currentRowCount,
  };
  return resultTable(read, sql, [], []);
}

/** The result of `sql` read from the vectors. */
async function fromVectors(sql: string): Promise<ColumnTable> {
  return resultTable(await readResultColumns(D, B, await connection.run(sql)), sql, [], []);
}

/** Both readings of `sql`, checked equal (kinds, values with -0 and NaN told apart from 0 and null, levels, warnings). */
async function same(sql: string): Promise<ColumnTable> {
  const [want, got] = [await reference(sql), await fromVectors(sql)];
  expectSame(got, want);
  return got;
}

function expectSame(got: ColumnTable, want: ColumnTable): void {
  expect(got.columns).toEqual(want.columns);
  expect(got.kinds).toEqual(want.kinds);
  expect(got.rowCount).toBe(want.rowCount);
  for (const c of want.columns) {
    const [a, b] = [want.data[c]!, got.data[c]!];
    expect(b.length, c).toBe(a.length);
    for (let i = 0; i < a.length; i++)
      if (!Object.is(a[i], b[i])) {
        const [x, y] = [a[i], b[i]];
        if (!(x instanceof Date && y instanceof Date && x.getTime() === y.getTime()))
          expect(y, `${c}[${i}]`).toEqual(x);
      }
  }
  expect(got.meta).toEqual(want.meta);
}

/** NULL at both sides of each chunk boundary, the first and last rows, and every 97th. */
const NULLS = "(i in (0, 2047, 2048, 4095, 4096, 4999) or i % 97 = 5)";
const nullable = (expr: string) => `case when ${NULLS} then null else ${expr} end`;

describe("query results from DuckDB's vectors", () => {
  it("reads every fixed-width type as the value-by-value reading, NULLs across chunk boundaries", async () => {
    const t = await same(`select
      ${nullable("(i % 200 - 100)::tinyint")} as ti, ${nullable("(i * 7 - 20000)::smallint")} as si,
      ${nullable("(i * 104729 - 300000000)::integer")} as it, ${nullable("(i * 9007199254 - 4503599627370)::bigint")} as bi,
      ${nullable("(i % 256)::utinyint")} as uti, ${nullable("(i * 13)::usmallint")} as usi,
      ${nullable("(i * 858993)::uinteger")} as uit, ${nullable("(i * 1801439850948)::ubigint")} as ubi,
      ${nullable("(i / 7.0)::float")} as fl, ${nullable("case i % 5 when 1 then -0.0 when 2 then 'nan'::double when 3 then 'inf'::double else i / 3.0 - 700 end")} as db,
      ${nullable("i % 3 = 0")} as bo,
      ${nullable("((i % 7000) / 100 - 35)::decimal(4, 2)")} as d4, ${nullable("(i * 12.345 - 999)::decimal(9, 3)")} as d9,
      ${nullable("(i * 123456.789012 - 7)::decimal(18, 6)")} as d18, ${nullable("(i * 1e12 + 0.1)::decimal(30, 10)")} as d30,
      ${nullable("(i * 1234567890123)::hugeint")} as hi
      from range(5000) r(i)`);
    expect(t.rowCount).toBe(5000);
    expect(t.kinds.bi).toBe("number");
    expect(t.kinds.bo).toBe("boolean");
    expect(t.data.db![2053]).toBe(Infinity);
  });

  it("reads dates and timestamps (before 1970, sub-millisecond, with time zone) as the same Dates", async () => {
    const t = await same(`select
      ${nullable("date '1900-01-01' + (i * 37)::integer")} as d,
      ${nullable("timestamp '1969-12-31 23:59:59.9995' + to_microseconds(i * 1234567)")} as ts,
      ${nullable("(timestamp '1960-01-01' + to_microseconds(i * 987654321))::timestamp_s")} as ts_s,
      ${nullable("(timestamp '1960-01-01' + to_microseconds(i * 987654321))::timestamp_ms")} as ts_ms,
      ${nullable("(timestamp '1969-12-31 23:59:59.999' + to_microseconds(i * 3))::timestamp_ns")} as ts_ns,
      ${nullable("timestamptz '2026-03-29 01:30:00+02' - to_microseconds(i * 86400000001)")} as tz,
      ${nullable("timestamp '2300-01-01 00:00:00.0015' + to_microseconds(i)")} as far
      from range(5000) r(i)`);
    expect(t.kinds).toMatchObject({ d: "date", ts: "date", ts_s: "date", ts_ms: "date", ts_ns: "date", tz: "date" });
  });

  it("fails as before on a date beyond a JS Date", async () => {
    for (const sql of ["select 'infinity'::timestamp as t", "select '-infinity'::date as d"]) {
      const want = await reference(sql).then(
        () => "no error",
        (e: Error) => e.message,
      );
      expect(want).not.toBe("no error");
      await expect(fromVectors(sql)).rejects.toThrow(want);
    }
  });

  // A streamed result (connection.stream) would stop at the failing chunk without an error: the node
  // bindings do not say why a fetch gave no chunk. Results are materialized, and fail as a whole.
  it("reports a query that fails after its first rows as the SQL error it is, not as fewer rows", async () => {
    const sql =
      "select case when i = 2900000 then error('row 2900000 is bad') else i end as v from range(3000000) r(i)";
    const session = await frames.duckdb();
    try {
      const error = await session.queryColumns(sql).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(frames.SqlError);
      expect((error as Error).message).toMatch(/row 2900000 is bad[\s\S]*in: select case when i = 2900000/);
      expect((await session.queryColumns("select 1 as one")).data.one).toEqual([1]);
    } finally {
      await session.close();
    }
  });

  // A session streams one select's rows (DuckDB's copy of them is not kept beside ours) in a transaction
  // of its own; other statements, several statements and queries in the user's own transaction run as before.
  it("reads a session's queries (streamed or not) as the value-by-value reading", async () => {
    const session = await frames.duckdb({ threads: 2 });
    try {
      const rows = `select i, 'k' || (i % 7) as k, timestamp '2026-01-01' + to_seconds(i) as t,
        ${nullable("i * 0.25")} as x from range(9000) r(i)`;
      await session.run(`create table rows as ${rows}`);
      await connection.run(`create or replace table rows as ${rows}`);
      for (const sql of [
        "select * from rows order by k desc, i",
        "select k, count(*) as n from rows group by k order by k",
      ]) {
        const got = await session.queryColumns(sql);
        const want = await reference(sql);
        expectSame(got, { ...want, meta: { ...want.meta, fields: got.meta.fields } });
      }
      const several = "select 1 as a; select 2 as b from rows limit 3";
      expect((await session.queryColumns(several)).data).toEqual((await reference(several)).data);
      expect((await session.queryColumns("describe rows")).data.column_name).toEqual(["i", "k", "t", "x"]);
      await session.run("begin transaction");
      await session.run("insert into rows values (9000, 'k9', null, 1.5)");
      expect((await session.queryColumns("select count(*) as n from rows")).data.n).toEqual([9001]);
      await session.run("rollback");
      expect((await session.queryColumns("select count(*) as n from rows")).data.n).toEqual([9000]);
    } finally {
      await session.close();
    }
  });

  // A streamed result ends, without an error, when another statement runs on its connection.
  it("reads concurrent queries of one session whole", async () => {
    const session = await frames.duckdb({ threads: 2 });
    try {
      const sql = "select i, 'row ' || i as s from range(300000) r(i) order by i desc";
      const [a, b, c] = await Promise.all([
        session.queryColumns(sql),
        session.queryColumns(sql),
        session.run("create table side as select 1 as one").then(() => session.queryColumns("select * from side")),
      ]);
      expect([a.rowCount, b.rowCount, c.rowCount]).toEqual([300000, 300000, 1]);
      expect([a.data.s![299999], b.data.i![0]]).toEqual(["row 0", 299999]);
    } finally {
      await session.close();
    }
  });

  it("keeps 64-bit integers beyond ±2^53 as text with the same warning", async () => {
    const t =
      await same(`select i, case when i = 3000 then 9007199254740993 when i = 10 then null else i - 9007199254740991 end as b,
      case when i = 4500 then -9007199254740992 else -9007199254740991 + i end as c,
      case when i = 2100 then 18446744073709551615::ubigint else i::ubigint end as u
      from range(5000) r(i)`);
    expect(t.kinds).toMatchObject({ b: "string", c: "string", u: "string" });
    expect(t.meta.warnings.map((w) => w.row)).toEqual([3000, 4500, 2100]);
  });

  it("reads text: inline and long, UTF-8, empty, repeated, constant, and ENUMs", async () => {
    await connection.run(`create or replace type mood as enum ('sad', 'ok', 'happy', 'très content')`);
    await connection.run(`create or replace table words as select i,
      ${nullable("['USD', 'EUR', 'GBP', 'CHF', ''][i % 5 + 1]")} as short,
      ${nullable("'counterparty number ' || (i % 37)")} as long,
      ${nullable("['12 bytes ok!', '13 bytes long', 'déjà vu', '日本語のテキスト', 'ascii then é at the end', '🙂'][i % 6 + 1]")} as utf8,
      ${nullable("md5(i::varchar) || md5((i * 7)::varchar)")} as distinct_long,
      ${nullable("(['sad', 'ok', 'happy', 'très content'][i % 4 + 1])::mood")} as mood
      from range(5000) r(i)`);
    const t = await same("select * from words order by i");
    expect(t.kinds).toMatchObject({ short: "string", long: "string", utf8: "string", mood: "category" });
    expect(t.meta.categories.mood).toEqual(["sad", "ok", "happy", "très content"]);
    await same("select * from words where i % 3 = 1 order by long, i desc");
    await same("select 'the same long text on every row' as c, 'short' as s, i from range(4500) r(i)");
    const levels = Array.from({ length: 300 }, (_v, k) => `'level ${k}'`).join(", ");
    await same(`select (('level ' || (i % 300))::enum(${levels})) as wide from range(5000) r(i)`);
  });

  it("reads text of thousands of distinct values, an all-NULL chunk and UTF-8 past 12 bytes as before", async () => {
    // 5,000 distinct short and long values in random order (the transaction table's tradables), then a
    // chunk of NULLs only, then values again; long text with accents repeated.
    await same(`select i,
      case when i between 2048 and 4095 then null else 'TRD-' || lpad(((i * 7919) % 5000)::varchar, 5, '0') end as tradable,
      case when i between 2048 and 4095 then null else 'Instrument ' || ((i * 7919) % 5000) || ' EUR' end as instrument,
      case when i % 11 = 3 then null else ['ééééééé', 'ééééé-13b', 'Zürich Börse AG', ''][i % 4 + 1] end as accents
      from range(40000) r(i)`);
  });

  // A value that repeats the row before is that row's string, found without a lookup: runs across the
  // 2,048-row chunk edges, a run broken by NULLs, non-ASCII text, 12 bytes (the most DuckDB keeps inline)
  // and 13, and long values alike but for their last bytes or their middle.
  it("reads text that repeats the row before as before: across chunks, after NULLs, UTF-8, 12 and 13 bytes", async () => {
    const runs = (values: string[], width: number) =>
      `[${values.map((v) => `'${v}'`).join(", ")}][(i // ${width}) % ${values.length} + 1]`;
    const t = await same(`select i,
      ${nullable(runs(["12 bytes ok!", "12 bytes ok?", "13 bytes long", "13 bytes lonG", "déjà vu", "ééééééé", ""], 700))} as short_runs,
      ${nullable(runs(["Instrument 0001 EUR-A", "Instrument 0001 EUR-B", "Instrument X001 EUR-A", "Zürich Börse AG 2031", "日本語のテキスト"], 1000))} as long_runs,
      case when i % 3 = 1 then null else ${runs(["BUY", "SELL"], 2048)} end as after_null,
      case when i % 4 = 2 then null else ${runs(["US Treasury 3.75% 30-Jun-2027", "US Treasury 3.75% 30-Jun-2028"], 3)} end as long_after_null,
      case when i % 2 = 0 then 'ab' else 'ab' || chr(0) end as zero_byte,
      ['same long text every row é', 'same long text every row e'][(i % 7 = 0)::integer + 1] as alike
      from range(9000) r(i)`);
    expect(t.data.short_runs!.slice(2046, 2050)).toEqual(["13 bytes long", null, null, "13 bytes long"]);
    expect(t.data.after_null!.slice(2046, 2051)).toEqual(["BUY", null, "SELL", "SELL", null]);
    expect([t.data.zero_byte![0], t.data.zero_byte![1]]).toEqual(["ab", "ab\u0000"]);
    await same(
      "select long_runs, short_runs from (" +
        `select ${runs(["Instrument 0001 EUR-A", "Instrument 0001 EUR-B"], 1)} as long_runs, ${runs(["ab", "abc"], 1)} as short_runs, i from range(5000) r(i)` +
        ") where i % 5 <> 0 order by i desc",
    );
  });

  it("reads lists, structs and other types value by value, as before", async () => {
    await same(`select i, [i, i + 1] as l, {'a': i, 'b': 'x' || i} as s, uuid() is not null as u,
      interval (i) day as iv, time '12:00:00' as t, 'ab'::blob as bl, null as nothing from range(2100) r(i)`);
  });

  it("reads empty results and duplicate column names as before", async () => {
    const t = await same("select 1::integer as a, 'x' as a, now() as d from range(10) where false");
    expect(t.rowCount).toBe(0);
    await same("select i as a, i * 2 as a from range(3000) r(i)");
    const none = await same(
      "select null::double as x, null::varchar as s, null::timestamp as t, null::boolean as b, i from range(2100) r(i)",
    );
    expect(none.kinds).toMatchObject({ x: "empty", s: "empty", t: "empty", b: "empty", i: "number" });
  });

  // A session streams a select's rows into arrays of growing size (4,096 rows, then twice the last),
  // made one array at the end: every kind across those joins, NULLs at the chunk edges, and the small results.
  it("reads a streamed select across its arrays' joins, and 0, 1 and all-NULL results, as before", async () => {
    const session = await frames.duckdb({ threads: 2 });
    try {
      const rows = `select i, ${nullable("i * 0.5 - 3000")} as x, ${nullable("(i * 7)::integer")} as n,
        ${nullable("['USD', 'EUR', 'GBP', ''][i % 4 + 1]")} as ccy, ${nullable("'GLO-' || lpad(i::varchar, 7, '0')")} as id,
        ${nullable("['US Treasury 3.75% 30-Jun-2027', 'Schatz 2.50% 19-Mar-2027', 'Bund Zürich 2,5% – 2031'][i % 3 + 1]")} as name,
        ${nullable("['déjà vu', '日本', 'Zürich Börse AG'][i % 3 + 1]")} as utf8,
        ${nullable("timestamp '2024-11-25' + to_days((i % 40)::integer)")} as day,
        ${nullable("date '1969-12-01' + (i % 90)::integer")} as d, ${nullable("i % 3 = 0")} as b,
        null::varchar as nothing, case when i < 4096 then null else i end as late
        from range(13000) r(i)`;
      await session.run(`create table rows as ${rows}`);
      await connection.run(`create or replace table rows as ${rows}`);
      for (const sql of [
        "select * from rows order by i",
        "select * from rows where i % 5 <> 2 order by ccy desc, i",
        "select * from rows where i = 4096",
        "select * from rows where false",
        "select * from rows where i < 1",
      ]) {
        const got = await session.queryColumns(sql);
        const want = await reference(sql);
        expectSame(got, { ...want, meta: { ...want.meta, fields: got.meta.fields } });
      }
    } finally {
      await session.close();
    }
  });

  it("reads a result from a Parquet file (dictionary-encoded text) as before", async () => {
    const file = path.join(dir, "mixed.parquet");
    await connection.run(`copy (select i, ${nullable("'book ' || (i % 11)")} as book, ${nullable("i * 0.5")} as x,
      ${nullable("timestamptz '2026-11-20 00:00:00+00' + to_days((i % 40)::integer)")} as day,
      ${nullable("md5(i::varchar)")} as h from range(5000) r(i)) to '${file}' (format parquet, row_group_size 3000)`);
    const t = await same(`select * from read_parquet('${file}')`);
    expect(t.kinds).toMatchObject({ book: "string", x: "number", day: "date" });
    await frames.writeParquet(t, path.join(dir, "back.parquet"));
    const back = await frames.readParquetColumns(path.join(dir, "back.parquet"));
    expect(back.data).toEqual(t.data);
    expect(back.kinds).toEqual(t.kinds);
  });
});

/** The 16-byte record DuckDB keeps for text of at most 12 bytes: its length, then its bytes, zero-padded. */
function record(text: string): Uint32Array {
  const bytes = new Uint8Array(16);
  const utf8 = Buffer.from(text, "utf8");
  new DataView(bytes.buffer).setUint32(0, utf8.length, true);
  bytes.set(utf8, 4);
  return new Uint32Array(bytes.buffer);
}

describe("the tables of a text column's distinct values", () => {
  // A column's values repeat (5,000 tradables over a million trades) or do not (trade ids): the tables
  // share a repeated value's string and give up on a column of distinct values.
  const keys = (distinct: number, rows: number) => Array.from({ length: rows }, (_v, i) => (i * 7919) % distinct);

  it("keep sharing 5,000 distinct short values over 50,000 rows: each decoded once", () => {
    const table = new RecordTable();
    let decoded = 0;
    for (const k of keys(5000, 50_000)) {
      const words = record(`TRD-${String(k).padStart(5, "0")}`);
      if (table.get(words, 0) === undefined) {
        decoded++;
        table.set(words, 0, `TRD-${String(k).padStart(5, "0")}`);
      }
    }
    expect(table.on).toBe(true);
    expect(decoded).toBe(5000);
    expect(table.get(record("TRD-00042"), 0)).toBe("TRD-00042");
  });

  it("keep sharing 5,000 distinct long values over 50,000 rows: each decoded once", () => {
    const table = new TextTable();
    const values = Array.from({ length: 5000 }, (_v, k) => `Instrument ${k} EUR – Zürich`);
    const bytes = Buffer.from(values.join(""), "utf8");
    const at = [0];
    for (const v of values) at.push(at[at.length - 1]! + Buffer.byteLength(v));
    let [wrong, decoded] = [0, 0];
    for (const k of keys(5000, 50_000)) {
      const length = at[k + 1]! - at[k]!;
      let value = table.get(bytes, at[k]!, length);
      if (value === undefined) {
        decoded++;
        value = bytes.toString("utf8", at[k], at[k]! + length);
        table.set(bytes, at[k]!, length, value);
      }
      if (value !== values[k]) wrong++;
    }
    expect(wrong).toBe(0);
    expect(table.on).toBe(true);
    expect([table.size, decoded]).toEqual([5000, 5000]);
  });

  it("give up within 16,384 rows on a column of distinct values", () => {
    const short = new RecordTable();
    const long = new TextTable();
    const bytes = Buffer.from(Array.from({ length: 20_000 }, (_v, k) => `T${String(k).padStart(19, "0")}`).join(""));
    for (let k = 0; k < 20_000 && (short.on || long.on); k++) {
      const words = record(`T${String(k).padStart(8, "0")}`);
      if (short.on && short.get(words, 0) === undefined) short.set(words, 0, `T${k}`);
      if (long.on && long.get(bytes, k * 20, 20) === undefined) long.set(bytes, k * 20, 20, `T${k}`);
      if (k === 16_384) expect([short.on, long.on]).toEqual([false, false]);
    }
  });
});

// A date column repeats its days (537 trade dates over a million trades): one Date per instant, which the
// rows that share it cannot change (a change would reach every one of them); a Date of one row can be changed.
describe("the Dates of a date column", () => {
  it("are one per instant, shared by the rows of that instant, which cannot change it", async () => {
    const t = await fromVectors(`select timestamp '2024-11-25' + to_days((i % 3)::integer) as t,
      date '2024-01-01' + (i % 2)::integer as d, timestamp '2024-01-01' + to_seconds(i) as unique_t from range(5000) r(i)`);
    const [t0, t3, d0, d2] = [t.data.t![0] as Date, t.data.t![3] as Date, t.data.d![0] as Date, t.data.d![2] as Date];
    expect(t0).toBe(t3);
    expect(d0).toBe(d2);
    expect(t0).toBeInstanceOf(Date);
    expect(Object.prototype.toString.call(t0)).toBe("[object Date]");
    expect(t0.constructor).toBe(Date);
    expect(t0.toISOString()).toBe("2024-11-25T00:00:00.000Z");
    expect(JSON.stringify(t0)).toBe('"2024-11-25T00:00:00.000Z"');
    expect(() => t0.setUTCDate(1)).toThrow(
      new TypeError(
        "setUTCDate: this Date (2024-11-25T00:00:00.000Z) is the value of every row of the query result at that instant (one Date for all of them): change a copy, new Date(date)",
      ),
    );
    expect(() => d0.setTime(0)).toThrow(/setTime: this Date \(2024-01-01T00:00:00.000Z\) is the value of every row/);
    expect(t0.getTime()).toBe(Date.UTC(2024, 10, 25));
    const copy = new Date(t0);
    copy.setUTCDate(1);
    expect(copy.toISOString()).toBe("2024-11-01T00:00:00.000Z");
    const own = t.data.unique_t![7] as Date;
    own.setUTCHours(5);
    expect([own.toISOString(), (t.data.unique_t![8] as Date).toISOString()]).toEqual([
      "2024-01-01T05:00:07.000Z",
      "2024-01-01T00:00:08.000Z",
    ]);
  });

  // Midnights (a date column's usual instants) are found by their day number within 8,192 days of the
  // first one, others (and days beyond) through a map: both share one Date per instant alike.
  it("share midnights by their day, and other instants and far days through the map, alike", () => {
    const share = new DateShare();
    const DAY = 86_400_000;
    const days = [20_000, 20_001, -3, 20_000 + 5_000, 20_000 - 5_000, 1_000_000, -1_000_000];
    const instants = [...days.map((d) => d * DAY), 20_000 * DAY + 1, -1];
    const first = instants.map((ms) => share.date(ms));
    for (const d of first) expect(Object.getPrototypeOf(d)).toBe(Date.prototype);
    first[0]!.setTime(20_000 * DAY); // a Date of one row so far: changeable
    const again = instants.map((ms) => share.date(ms));
    again.forEach((d, k) => {
      expect(d, `instant ${instants[k]}`).toBe(first[k]);
      expect(d.getTime()).toBe(instants[k]);
      expect(() => d.setUTCHours(1), `instant ${instants[k]}`).toThrow(/is the value of every row/);
    });
    expect(share.date(20_000 * DAY)).toBe(first[0]);
    const runs = new DateShare();
    const run = [runs.date(DAY), runs.date(DAY), runs.date(2 * DAY)];
    expect(run[0]).toBe(run[1]);
    expect(() => run[0]!.setTime(0)).toThrow(/is the value of every row/);
    expect(Object.getPrototypeOf(run[2])).toBe(Date.prototype);
  });

  it("stop sharing within 16,384 rows on a column of distinct instants", () => {
    const share = new DateShare();
    const dates = Array.from({ length: 20_000 }, (_v, k) => share.date(k * 1000));
    expect(share.date(19_999_000)).toBe(dates[19_999]);
    expect(share.date(3000)).not.toBe(dates[3]);
    expect(share.date(3000).getTime()).toBe(3000);
    dates[3]!.setTime(1);
    expect(dates[3]!.getTime()).toBe(1);
  });
});
