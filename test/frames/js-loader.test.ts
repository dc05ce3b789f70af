/**
 * The streamed routes (loader "js": JSON.parse, the adapter and the appender batch by batch; loader
 * "duckdb": DuckDB's reader, with the js route for tables the adapter warns about) against the in-memory
 * route on the same body over loopback HTTP: the same columns, kinds, rows, warnings and errors, into
 * Parquet and into an SQL session, whatever batch a column's values first appear in.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import { formatWarning } from "../../src/table/column-table";
import { serveBody } from "./loopback-body";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-jsload-"));
let files = 0;
const file = () => path.join(dir, `t-${++files}.parquet`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const P = { portfolio_name: "P" };

/** The body, served over loopback HTTP in chunks of 61 bytes. */
const serve = (body: string) => serveBody(body, 61);

/** Every column's values, dates as ISO text, NaN as null. */
function contents(t: frames.ColumnTable): Record<string, unknown[]> {
  return Object.fromEntries(
    t.columns.map((c) => [
      c,
      t.data[c]!.map((v) =>
        v instanceof Date ? v.toISOString() : typeof v === "number" && Number.isNaN(v) ? null : v,
      ),
    ]),
  );
}

/** What a route said and gave: columns, kinds, warnings, and its rows as its destination reads them back (or its error). */
type Outcome = { columns: string[]; kinds: Record<string, string>; warnings: string[]; back: unknown } | string;

async function outcome(run: () => Promise<Outcome>): Promise<Outcome> {
  return run().catch((e: unknown) => `${(e as Error).name}: ${(e as Error).message}`);
}

/** A Parquet file read back: its columns, kinds and values. */
async function parquetBack(file: string) {
  const t = await frames.readParquetColumns(file);
  return { columns: t.columns, kinds: t.kinds, rows: contents(t) };
}

/** An SQL table read back: its column types and values. */
async function sqlBack(db: frames.SqlSession, name: string) {
  const types = (await db.queryColumns(`describe ${name}`)).data.column_type;
  return { types, rows: contents(await db.queryColumns(`select * from ${name}`)) };
}

/**
 * The in-memory route (its table written with frames.writeParquet, and registered in a session), then
 * each loader into Parquet and into SQL, on the same body: keyed by route, each with what it said.
 */
async function routes(body: string, batchRows: number, dates?: "keep") {
  const server = await serve(body);
  const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "t0ken-never-shown" }, retry: { limit: 0 } });
  const db = await frames.duckdb();
  try {
    const got: Record<string, Outcome> = {};
    const said = (t: frames.ColumnTable) => ({
      columns: t.columns,
      kinds: t.kinds,
      warnings: t.meta.warnings.map(formatWarning),
    });
    got["in memory → Parquet"] = await outcome(async () => {
      const t = await frames.fetchTransactionTableColumns(rp, P, { dates });
      const target = file();
      await frames.writeParquet(t, target);
      return { ...said(t), back: await parquetBack(target) };
    });
    got["in memory → SQL"] = await outcome(async () => {
      const t = await frames.fetchTransactionTableColumns(rp, P, { dates });
      await db.register("t", t);
      return { ...said(t), back: await sqlBack(db, "t") };
    });
    for (const loader of ["js", "duckdb"] as const) {
      got[`${loader} → Parquet`] = await outcome(async () => {
        const w = await frames.fetchTransactionTableToParquet(rp, P, file(), { loader, batchRows, dates });
        return { columns: w.columns, kinds: w.kinds, warnings: w.warnings, back: await parquetBack(w.path) };
      });
      got[`${loader} → SQL`] = await outcome(async () => {
        const l = await frames.fetchTransactionTableToDuckDB(rp, P, db, "t", { loader, batchRows, dates });
        return { columns: l.columns, kinds: l.kinds, warnings: l.warnings, back: await sqlBack(db, "t") };
      });
    }
    return got;
  } finally {
    await db.close();
    await server.close();
  }
}

/** Every streamed route gives what the in-memory route gives into the same destination; returns what that said. */
async function expectAsInMemory(rows: unknown[], batchRows: number, dates?: "keep"): Promise<Outcome> {
  const got = await routes(JSON.stringify({ data_table: rows }), batchRows, dates);
  const want: Record<string, Outcome> = {};
  for (const route of Object.keys(got)) want[route] = got[`in memory → ${route.split(" → ")[1]}`]!;
  expect(got).toEqual(want);
  return got["in memory → Parquet"]!;
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i }));

describe("the streamed routes give the in-memory route's table, whatever batch a column starts in", () => {
  it("a column that first appears after the first batch: the column, missing in the earlier rows", async () => {
    const rows = ids(7).map((r) => (r.id >= 5 ? { ...r, extra: `x${r.id}` } : r));
    const table = await expectAsInMemory(rows, 2);
    expect(table).toMatchObject({ columns: ["id", "extra"], kinds: { id: "number", extra: "string" } });
  });

  it("a column empty in the first batch that holds numbers later: number", async () => {
    const rows = ids(6).map((r) => ({ ...r, n: r.id < 3 ? null : r.id * 1.5 }));
    rows[1] = { id: 1 } as (typeof rows)[number];
    const table = await expectAsInMemory(rows, 3);
    expect(table).toMatchObject({ kinds: { id: "number", n: "number" }, warnings: [] });
  });

  it("numbers, then text in a later batch: mixed, with the in-memory route's warning", async () => {
    const rows = ids(7).map((r) => ({ ...r, n: r.id === 5 ? "n/a" : r.id }));
    const table = await expectAsInMemory(rows, 2);
    expect(table).toMatchObject({
      kinds: { n: "mixed" },
      warnings: ['column "n" holds 6 numbers, 1 text value, e.g. row 5: "n/a"; kept as received, nothing converted'],
    });
  });

  it("dates, then text in a later batch: text, with the in-memory route's warning", async () => {
    const rows = ids(5).map((r) => ({ ...r, when: r.id === 3 ? "see row 1" : `2026-01-0${r.id + 1}T00:00:00Z` }));
    const table = await expectAsInMemory(rows, 2);
    expect(table).toMatchObject({
      kinds: { when: "string" },
      warnings: [
        'column "when": value at row 3 ("see row 1") is not an ISO 8601 date, though earlier values are; the column is kept as text',
      ],
    });
  });

  it("dates kept as text: text, and nothing to warn about", async () => {
    const rows = ids(5).map((r) => ({ ...r, when: r.id === 3 ? "see row 1" : `2026-01-0${r.id + 1}T00:00:00Z` }));
    const table = await expectAsInMemory(rows, 2, "keep");
    expect(table).toMatchObject({ kinds: { when: "string" }, warnings: [] });
  });

  it("text, then dates in a later batch: text, and nothing to warn about", async () => {
    const rows = ids(4).map((r) => ({ ...r, when: r.id < 2 ? "pending" : "2026-01-02T00:00:00Z" }));
    const table = await expectAsInMemory(rows, 2);
    expect(table).toMatchObject({ kinds: { when: "string" }, warnings: [] });
  });

  it("rows that are not objects in several batches: one warning that counts them all", async () => {
    const rows: unknown[] = ids(6);
    rows[1] = 7;
    rows[4] = null;
    const table = await expectAsInMemory(rows, 2);
    expect(table).toMatchObject({
      warnings: ["2 rows are not an object (first: row 1, 7); their cells are missing"],
    });
  });
});

describe("the streamed routes give the in-memory route's table when the rows change kind between batches", () => {
  const rows = [
    { id: 1, amount: 10.5, when: "2026-01-02T00:00:00Z", flag: true, note: "é", empty: null },
    { id: 2, amount: null, when: "2026-01-03T00:00:00Z", flag: false, note: "2026-01-02", empty: null },
    { id: 3, amount: 12, when: null, flag: null, note: null, empty: null },
    { id: 4, amount: "n/a", when: "2026-01-05T00:00:00Z", flag: true, note: "{not: json}", empty: null, late: 1 },
    { id: 5, amount: 13, when: "not a date", flag: false, note: "]", empty: null, late: 2 },
    { id: 6, amount: 14, when: "2026-01-07", flag: true, note: "x", late: null, nested: { a: [1, 2] } },
    { id: 7, amount: "n/b", when: "2026-01-08T00:00:00Z", flag: 1, note: "y", empty: null, nested: "z" },
  ];
  it.each([1, 3, 4])("in batches of %i rows: the same kinds, values and warnings", async (batchRows) => {
    const table = await expectAsInMemory(rows, batchRows);
    expect(table).toMatchObject({
      kinds: { amount: "mixed", when: "string", flag: "mixed", note: "string", empty: "empty", late: "number" },
      warnings: [
        'column "amount" holds 4 numbers, 2 text values, e.g. row 3: "n/a"; kept as received, nothing converted',
        'column "when": value at row 4 ("not a date") is not an ISO 8601 date, though earlier values are; the column is kept as text',
        'column "flag" holds 1 number, 5 booleans; kept as received, nothing converted',
        'column "nested" holds 1 text value, 1 object/array, e.g. row 5: {"a":[1,2]}; kept as received, nothing converted',
      ],
    });
  });
});
