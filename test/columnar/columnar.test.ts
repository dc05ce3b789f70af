/**
 * Arrow, SQL (DuckDB) and Parquet over real data from the simulator (a portfolio's transaction table,
 * report infos, curves, through the client and the frames adapters): round trips keep every value, kind,
 * category level and provenance record; SQL aggregates equal the same aggregates computed here in plain
 * JavaScript; Parquet datasets written by the package read back through DuckDB's own `read_parquet(…,
 * hive_partitioning = true)` with identical aggregates.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Table as ArrowJsTable } from "apache-arrow";
import * as frames from "../../src/frames";
import { loadArrow } from "../../src/subpath/frames";
import { TableBuilder } from "../../src/table/column-table";
import { simData, type SimData } from "../plot/sim-data";

let d: SimData;
let trades: frames.ColumnTable;
let reports: frames.ColumnTable;
const dir = mkdtempSync(path.join(tmpdir(), "rpl-columnar-"));

beforeAll(async () => {
  d = await simData();
  trades = await d.trades();
  reports = await d.reports();
}, 60_000);
afterAll(async () => {
  await d?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Σ notional and count by the given key columns, computed here (keys joined with "|", sorted). */
function groupSums(t: frames.ColumnTable, keys: string[], value = "notional"): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (let i = 0; i < t.rowCount; i++) {
    const key = keys.map((k) => String(t.data[k]![i])).join("|");
    const v = t.data[value]![i] as number;
    const s = (out[key] ??= [0, 0]);
    if (v === v) s[0] += v;
    s[1] += 1;
  }
  return out;
}

/** The same from an SQL result with columns `keys…, s, n`. */
function sqlSums(t: frames.ColumnTable, keys: string[]): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (let i = 0; i < t.rowCount; i++)
    out[keys.map((k) => String(t.data[k]![i])).join("|")] = [t.data.s![i] as number, t.data.n![i] as number];
  return out;
}

function expectSameSums(a: Record<string, [number, number]>, b: Record<string, [number, number]>): void {
  expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
  for (const k of Object.keys(a)) {
    expect(b[k]![1], k).toBe(a[k]![1]);
    expect(Math.abs(b[k]![0] - a[k]![0]), k).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(a[k]![0])));
  }
}

/** A table with every column kind, missing values in each, and a category with a fixed level order. */
function everyKind(): frames.ColumnTable {
  return new TableBuilder(5, "Hand-made", { note: "every kind" })
    .add("n", [1.5, NaN, -3, 1e300, 0])
    .add("s", ["a", null, "c", "it's", "é"])
    .add("c", ["BUY", "SELL", null, "BUY", "HOLD"], { hint: "category", levels: ["SELL", "BUY"] })
    .add("b", [true, false, null, true, false])
    .add("d", ["2026-11-20", null, "2026-01-01T10:00:00Z", "1999-12-31", "2026-02-02"])
    .add("m", [1, "x", null, 2, true])
    .add("e", [null, null, null, null, null])
    .build();
}

describe("frames.toArrow / frames.fromArrow", () => {
  it("types each kind, keeps missing values as nulls, category levels in order, provenance in the schema", () => {
    const t = frames.toArrow(everyKind());
    expect(t.schema.fields.map((f) => `${f.name}: ${String(f.type)}`)).toEqual([
      "n: Float64",
      "s: Utf8",
      "c: Dictionary<Int32, Utf8>",
      "b: Bool",
      "d: Timestamp<MILLISECOND, UTC>",
      "m: Utf8",
      "e: Null",
    ]);
    expect(t.numRows).toBe(5);
    expect(t.getChild("n")!.nullCount).toBe(1);
    // The rest of apache-arrow's API (a dictionary's chunks) through its own type, as ArrowTable's doc says.
    const full = t as unknown as ArrowJsTable;
    expect(full.getChild("c")!.data[0]!.dictionary!.toArray()).toEqual(["SELL", "BUY", "HOLD"]);
    expect(t.getChild("d")!.get(2)).toBe(Date.parse("2026-01-01T10:00:00Z"));
    const tx = frames.toArrow(trades);
    expect(JSON.parse(tx.schema.metadata.get("risk_portal_lab.provenance")!)).toEqual(
      JSON.parse(JSON.stringify(trades.meta.provenance)),
    );
    expect(trades.meta.provenance.length).toBeGreaterThan(0);
  });

  it("round-trips every value, kind, level, warning and provenance record", () => {
    for (const table of [everyKind(), trades, reports]) {
      const back = frames.fromArrow(frames.toArrow(table));
      expect(back.columns).toEqual(table.columns);
      expect(back.kinds).toEqual(table.kinds);
      expect(back.data).toEqual(table.data);
      expect(back.meta.categories).toEqual(table.meta.categories);
      expect(back.meta.missing).toEqual(table.meta.missing);
      expect(back.meta.warnings).toEqual(table.meta.warnings);
      expect(back.meta.source).toBe(table.meta.source);
      expect(JSON.parse(JSON.stringify(back.meta.provenance))).toEqual(
        JSON.parse(JSON.stringify(table.meta.provenance)),
      );
    }
  });

  it("takes a danfo DataFrame, and reads Arrow tables it did not write by their types", () => {
    const fromFrame = frames.toArrow(frames.toDataFrame(trades));
    expect(fromFrame.numRows).toBe(trades.rowCount);
    const A = loadArrow();
    const foreign = A.tableFromArrays({
      id: new BigInt64Array([1n, 2n, 3n]),
      x: new Float32Array([0.5, 1.5, 2.5]),
      tag: ["a", "b", "a"],
    });
    // The package declares ArrowTable itself (its types do not import apache-arrow's): any apache-arrow Table is one.
    const declared: frames.ArrowTable = foreign;
    expect(declared.getChild("tag")?.get(1)).toBe("b");
    const back = frames.fromArrow(foreign);
    expect(back.kinds).toEqual({ id: "number", x: "number", tag: "category" });
    expect(back.data.id).toEqual([1, 2, 3]);
    expect(back.meta.categories.tag).toEqual(["a", "b"]);
    const huge = frames.fromArrow(A.tableFromArrays({ id: new BigInt64Array([1n, 2n ** 60n]) }));
    expect(huge.kinds.id).toBe("string");
    expect(huge.data.id).toEqual(["1", String(2n ** 60n)]);
    expect(huge.meta.warnings[0]?.message).toMatch(
      /column "id": row 1 holds 1152921504606846976, beyond what a double holds exactly/,
    );
  });

  it("refuses what is not a table, naming the function", () => {
    expect(() => frames.toArrow(42 as never)).toThrow(
      /frames\.toArrow expects a frames column table or a danfo DataFrame; got number/,
    );
    expect(() => frames.fromArrow({} as never)).toThrow(/frames\.fromArrow expects an apache-arrow Table/);
  });
});

describe("frames.query / frames.queryColumns (DuckDB)", () => {
  it("a group-by over the transaction table equals the same group-by done here", async () => {
    const result = await frames.queryColumns(
      "select counterparty, direction, sum(notional) as s, count(*) as n from trades group by all",
      { trades },
    );
    expect(result.kinds).toMatchObject({ counterparty: "string", direction: "string", s: "number", n: "number" });
    expectSameSums(groupSums(trades, ["counterparty", "direction"]), sqlSums(result, ["counterparty", "direction"]));
  });

  it("returns a DataFrame with a fresh 0..n-1 index, carrying the SQL, its sources and their provenance", async () => {
    const sql =
      "select currency, sum(notional) as s, count(*) as n from trades where notional > 0 group by currency order by s desc";
    const df = await frames.query(sql, { trades, reports });
    expect(df.index).toEqual([...Array(df.shape[0]).keys()]);
    const info = frames.frameInfo(df)!;
    expect(info.source).toBe("SQL");
    expect(info.fields.sql).toBe(sql);
    // Only the source the SQL names.
    expect(info.fields.sources).toEqual([{ name: "trades", source: trades.meta.source, rows: trades.rowCount }]);
    expect(info.provenance).toEqual(trades.meta.provenance);
  });

  it("dates come back as dates, counts as numbers, categories as categories with their levels", async () => {
    const t = everyKind();
    const r = await frames.queryColumns(
      "select c, count(*) as n, min(d) as first, max(n) as top, bool_or(b) as any_b from t group by c order by c",
      { t },
    );
    expect(r.kinds).toEqual({ c: "category", n: "number", first: "date", top: "number", any_b: "boolean" });
    expect(r.meta.categories.c).toEqual(["SELL", "BUY", "HOLD"]);
    // ENUM order (the levels' order), NULL last.
    expect(r.data.c).toEqual(["SELL", "BUY", "HOLD", null]);
    expect(r.data.n).toEqual([1, 2, 1, 1]);
    expect((r.data.first as Date[])[1]).toEqual(new Date("1999-12-31T00:00:00Z"));
    const all = await frames.queryColumns("select * from t", { t });
    expect(all.data.n).toEqual(t.data.n);
    expect(all.data.d).toEqual(t.data.d);
    expect(all.data.m).toEqual(["1", "x", null, "2", "true"]);
    expect(all.kinds.e).toBe("empty");
  });

  it("a table of many chunks: each chunk carries its own missing values, text of few values comes back as text", async () => {
    const n = 20_000; // ten of DuckDB's 2,048-row chunks
    const values = Array.from({ length: n }, (_, i) => (i < 3000 && i % 7 === 0 ? NaN : i));
    const when = Array.from({ length: n }, (_, i) =>
      i >= 15_000 && i % 5 === 0 ? null : new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    );
    const tag = Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : `tag-${i % 13}`));
    const t = new TableBuilder(n, "Hand-made")
      .add("v", values)
      .add("stamp", when, { hint: "date" })
      .add("tag", tag)
      .build();
    const r = await frames.queryColumns(
      "select count(v) as v, count(stamp) as w, count(tag) as t, count(distinct tag) as d, sum(v) as s from t",
      { t },
    );
    expect(r.data).toEqual({
      v: [n - t.meta.missing.v!],
      w: [n - t.meta.missing.stamp!],
      t: [n - t.meta.missing.tag!],
      d: [13],
      s: [values.reduce((a, b) => (b === b ? a + b : a), 0)],
    });
    const all = await frames.queryColumns("select * from t", { t });
    expect(all.kinds).toEqual({ v: "number", stamp: "date", tag: "string" });
    expect(all.data).toEqual(t.data);
  });

  it("long text of few values (loaded through an ENUM of its sorted values) and of many values loads exactly, nulls in place", async () => {
    const n = 12_000; // at least 10,000 rows: text of at most n/4 distinct values goes through an ENUM
    const names = [
      "Zeta instrument long",
      "alpha instrument long",
      "Émile instrument long",
      "beta instrument long",
      "0 first by code unit",
    ];
    const few = Array.from({ length: n }, (_, i) => (i % 9 === 4 ? null : names[(i * 7) % names.length]!));
    // n/4 + 1 distinct values: one too many for an ENUM, loaded value by value.
    const many = Array.from({ length: n }, (_, i) =>
      i % 10 === 1 ? null : `a long distinct value ${i % (n / 4 + 1)}`,
    );
    const t = new TableBuilder(n, "Hand-made").add("few", few).add("many", many).build();
    const all = await frames.queryColumns("select * from t", { t });
    expect(all.kinds).toEqual({ few: "string", many: "string" });
    expect(all.data).toEqual(t.data);
    const grouped = await frames.queryColumns("select few, count(*) as n from t group by few order by few nulls last", {
      t,
    });
    expect(grouped.data.few).toEqual([...names].sort().concat([null as unknown as string]));
  });

  it("short text (copied as DuckDB's inline records) and dates of any era load exactly, and compare and group as text and time", async () => {
    const n = 6_000; // three chunks
    const words = [
      "",
      "a",
      "USD",
      "é",
      "𝄞",
      "naïve café",
      "12345678901",
      "123456789012",
      "ééééééé",
      "€€€€",
      "end\u0000x",
    ];
    const text = Array.from({ length: n }, (_, i) => (i % 13 === 5 ? null : words[i % words.length]!));
    const long = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? "thirteen byte" : words[i % words.length]!)); // one value > 12 bytes: not inline
    const eras = [
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      0,
      Date.UTC(1900, 0, 1),
      Date.UTC(2026, 10, 20, 10, 30, 0, 123),
      Date.UTC(2300, 0, 1),
      8.64e15,
      -8.64e15,
    ];
    const when = Array.from({ length: n }, (_, i) => (i % 17 === 3 ? null : new Date(eras[i % eras.length]!)));
    const t = new TableBuilder(n, "Hand-made")
      .add("s", text, { hint: "string" })
      .add("l", long, { hint: "string" })
      .add("d", when, { hint: "date" })
      .build();
    const all = await frames.queryColumns("select * from t", { t });
    expect(all.kinds).toEqual({ s: "string", l: "string", d: "date" });
    expect(all.data.s).toEqual(text);
    expect(all.data.l).toEqual(long);
    expect((all.data.d as (Date | null)[]).map((d) => d && d.getTime())).toEqual(when.map((d) => d && d.getTime()));
    // DuckDB's own view of the values: lengths, equality, grouping and order agree with JS.
    const lengths = await frames.queryColumns(
      "select s, length(s) as chars, strlen(s) as bytes, count(*) as n from t where s is not null group by s order by s",
      { t },
    );
    const counts = new Map<string, number>();
    for (const s of text) if (s !== null) counts.set(s, (counts.get(s) ?? 0) + 1);
    const keys = [...counts.keys()].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1));
    expect(lengths.data.s).toEqual(keys);
    expect(lengths.data.chars).toEqual(keys.map((k) => [...k].length));
    expect(lengths.data.bytes).toEqual(keys.map((k) => Buffer.byteLength(k)));
    expect(lengths.data.n).toEqual(keys.map((k) => counts.get(k)));
    const eq = await frames.queryColumns("select count(*) as n from t where s = 'naïve café' and s = l", { t });
    expect(eq.data.n).toEqual([text.filter((s, i) => s === "naïve café" && long[i] === s).length]);
    const years = await frames.queryColumns(
      "select year(d) as y, count(*) as n from t where d is not null group by 1 order by 1",
      { t },
    );
    expect(years.data.y).toEqual([-271821, 1900, 1969, 1970, 2026, 2300, 275760]);
  });

  it("a session serves many queries, registers Parquet datasets without loading them, and closes", async () => {
    const db = await frames.duckdb({ threads: 1 });
    await db.register("trades", trades);
    await db.register("frame", frames.toDataFrame(reports));
    await db.register("arrow", frames.toArrow(trades));
    expect(db.names).toEqual(["trades", "frame", "arrow"]);
    const a = await db.queryColumns("select count(*) as n from trades");
    const b = await db.queryColumns("select count(*) as n from arrow");
    expect(a.data.n).toEqual([trades.rowCount]);
    expect(b.data.n).toEqual([trades.rowCount]);
    expect((await db.queryColumns("select count(*) as n from frame")).data.n).toEqual([reports.rowCount]);
    // A Parquet dataset, queried where it lies (a view over read_parquet).
    const out = path.join(dir, "session-dataset");
    await frames.writeParquet(trades, out, { partitionBy: "currency" });
    await db.registerParquet("pq", out);
    const byCurrency = await db.queryColumns(
      "select currency, sum(notional) as s, count(*) as n from pq group by currency",
    );
    expectSameSums(groupSums(trades, ["currency"]), sqlSums(byCurrency, ["currency"]));
    expect(byCurrency.meta.fields.sources).toEqual([
      { name: "pq", source: "Parquet", rows: trades.rowCount, path: out },
    ]);
    // Registering a name again replaces it.
    await db.register("trades", reports);
    expect((await db.queryColumns("select count(*) as n from trades")).data.n).toEqual([reports.rowCount]);
    await db.close();
    await expect(db.queryColumns("select 1")).rejects.toThrow(/this SQL session is closed/);
  });

  it("says what DuckDB refused, with the SQL and the names registered; refuses names that need quoting", async () => {
    await expect(frames.queryColumns("select nope from trades", { trades })).rejects.toThrow(
      /Referenced column "nope" not found[\s\S]*in: select nope from trades[\s\S]*registered: trades/,
    );
    await expect(frames.queryColumns("select 1", { "my trades": trades })).rejects.toThrow(
      /name must be an SQL identifier .* got "my trades"/,
    );
    await expect(frames.queryColumns("  ")).rejects.toThrow(/sql must be a non-empty SQL text/);
  });
});

describe("frames.writeParquet / frames.readParquet", () => {
  it("one file: read back by DuckDB's read_parquet with identical aggregates, and by readParquet with kinds and provenance", async () => {
    const file = path.join(dir, "trades.parquet");
    const written = await frames.writeParquet(trades, file);
    expect(written).toEqual({ path: file, rows: trades.rowCount, files: [file] });
    const viaDuckDB = await frames.queryColumns(
      `select counterparty, direction, sum(notional) as s, count(*) as n from read_parquet('${file}') group by all`,
    );
    expectSameSums(groupSums(trades, ["counterparty", "direction"]), sqlSums(viaDuckDB, ["counterparty", "direction"]));
    const back = await frames.readParquetColumns(file);
    expect(back.columns).toEqual(trades.columns);
    expect(back.kinds).toEqual(trades.kinds);
    expect(back.data).toEqual(trades.data);
    expect(back.meta.source).toBe(trades.meta.source);
    expect(JSON.parse(JSON.stringify(back.meta.provenance))).toEqual(
      JSON.parse(JSON.stringify(trades.meta.provenance)),
    );
    const df = await frames.readParquet(file);
    expect(df.shape).toEqual([trades.rowCount, trades.columns.length]);
  });

  it("a hive-partitioned dataset: a directory per value, read back in DuckDB (hive_partitioning = true) with identical aggregates", async () => {
    const out = path.join(dir, "by-currency");
    const written = await frames.writeParquet(trades, out, { partitionBy: ["currency", "direction"] });
    const currencies = [...new Set(trades.data.currency as string[])].sort();
    expect(readdirSync(out).sort()).toEqual(currencies.map((c) => `currency=${c}`));
    expect(written.files.length).toBeGreaterThanOrEqual(currencies.length);
    expect(written.files.every((f) => f.endsWith(".parquet") && existsSync(f))).toBe(true);
    const viaDuckDB = await frames.queryColumns(
      `select currency, direction, sum(notional) as s, count(*) as n from read_parquet('${out}/**/*.parquet', hive_partitioning = true) group by all`,
    );
    expectSameSums(groupSums(trades, ["currency", "direction"]), sqlSums(viaDuckDB, ["currency", "direction"]));
    const back = await frames.readParquetColumns(out);
    expect(back.columns).toEqual(trades.columns); // partition columns back in their place
    expect(back.rowCount).toBe(trades.rowCount);
    expectSameSums(groupSums(trades, ["currency", "book"]), groupSums(back, ["currency", "book"]));
  });

  it("every kind survives a file; categories keep their levels", async () => {
    const t = everyKind();
    const file = path.join(dir, "kinds.parquet");
    await frames.writeParquet(t, file);
    const back = await frames.readParquetColumns(file);
    expect(back.kinds).toEqual({ ...t.kinds, m: "string" });
    expect(back.meta.categories.c).toEqual(["SELL", "BUY", "HOLD"]);
    expect(back.data.n).toEqual(t.data.n);
    expect(back.data.d).toEqual(t.data.d);
    expect(back.data.c).toEqual(t.data.c);
  });

  it("never overwrites by accident, and names a partition column that is not there", async () => {
    const file = path.join(dir, "once.parquet");
    writeFileSync(file, "not parquet");
    await expect(frames.writeParquet(trades, file)).rejects.toThrow(
      /once\.parquet exists; pass \{ overwrite: true \} to replace it \(nothing was written\)/,
    );
    await frames.writeParquet(trades, file, { overwrite: true });
    expect((await frames.readParquetColumns(file)).rowCount).toBe(trades.rowCount);
    await expect(frames.writeParquet(trades, path.join(dir, "x"), { partitionBy: "ccy" })).rejects.toThrow(
      /partitionBy names "ccy", which is not a column/,
    );
    await expect(frames.readParquetColumns(path.join(dir, "missing.parquet"))).rejects.toThrow(
      /no Parquet file or directory at/,
    );
  });
});
