/**
 * The rows spool (RowsSpoolSink) as DuckDB and the fall-back read it: the rows array's bytes become
 * newline-delimited JSON on the way (the commas between rows newlines, the newlines between a row's tokens
 * spaces), written in blocks off the main thread. Whatever the chunks, the spacing (pretty-printed rows,
 * CRLF, tabs), a second `data_table` array (with rows or none) and block boundaries, DuckDB's reader of
 * the spool gives the rows `JSON.parse` gives, and so does the spool read again for the fall-back.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJsonRows } from "../../src/columnar/json-load";
import { RowsSpoolSink } from "../../src/columnar/row-staging";
import { SqlSession } from "../../src/columnar/sql";
import { SPOOL_BLOCK_BYTES } from "../../src/columnar/spool-out";
import { chunked, utf8 } from "./chunked";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-row-spool-"));
let session: SqlSession;
let files = 0;
beforeAll(async () => {
  session = await SqlSession.open();
});
afterAll(async () => {
  await session.close();
  rmSync(dir, { recursive: true, force: true });
});

type Row = Record<string, string | number | boolean | null>;

/** The sink's spool of `chunks`: its file, profile and the rows read again for the fall-back. */
async function spool(chunks: Uint8Array[]) {
  const sink = new RowsSpoolSink(path.join(dir, `rows-${++files}.json`), { batchRows: 7 });
  await sink.reset();
  for (const chunk of chunks) await sink.chunk(chunk);
  await sink.finish();
  const reread = [...sink.reread()].flat();
  const result = { file: sink.file, profile: sink.profile, reread, bytes: readFileSync(sink.file) };
  await sink.close();
  return result;
}

/** The spool's rows as DuckDB's JSON reader gives them, in order, as plain values (a missing number, NaN in a column table, as null). */
async function duckRows(file: string, profile: RowsSpoolSink["profile"]): Promise<Row[]> {
  const columns = profile.plan();
  const table = await session.queryColumns(`select * from ${readJsonRows(file, columns, profile.maxRowBytes)}`);
  return Array.from({ length: table.rowCount }, (_, i) =>
    Object.fromEntries(
      table.columns.map((c) => {
        const v = table.data[c]![i] as Row[string];
        return [c, Number.isNaN(v) ? null : v];
      }),
    ),
  );
}

/** `rows` as JSON.parse gives them, each with every column (missing keys null), as DuckDB gives them. */
function expected(rows: Row[], names: string[]): Row[] {
  return rows.map((r) => Object.fromEntries(names.map((n) => [n, r[n] ?? null])));
}

const text = fc.string({ unit: fc.constantFrom("a", " ", ",", "{", "}", "\n", "\r", "\t", '"', "\\", "é", "𝄞") });
const number = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 });
/** Rows whose columns keep one kind each (the route DuckDB reads): text, number, boolean, with nulls. */
const rowsArb = fc
  .array(fc.record({ id: text, x: fc.option(number), ok: fc.option(fc.boolean()), note: fc.option(text) }), {
    maxLength: 40,
  })
  .map((rows) => rows.map((r) => r as Row));

/** Pretty forms: JSON.stringify's indent, then its newlines as CRLF or with tabs. */
const spacing = fc.constantFrom<(rows: Row[]) => string>(
  (rows) => JSON.stringify(rows),
  (rows) => JSON.stringify(rows, null, 1),
  (rows) => JSON.stringify(rows, null, 2).replace(/\n/g, "\r\n"),
  (rows) => JSON.stringify(rows, null, "\t").replace(/,\n/g, " ,\n\n"),
);

describe("RowsSpoolSink: the rows as newline-delimited JSON for DuckDB", () => {
  it("gives DuckDB and the fall-back the rows JSON.parse gives, whatever the chunks and the spacing", async () => {
    await fc.assert(
      fc.asyncProperty(rowsArb, spacing, fc.array(fc.nat(), { maxLength: 25 }), async (rows, form, cuts) => {
        const bytes = utf8(`{"$type": "T", "data_table": ${form(rows)} , "n": 1}`);
        const got = await spool(chunked(bytes, cuts));
        const parsed = (JSON.parse(new TextDecoder().decode(bytes)) as { data_table: Row[] }).data_table;
        expect(got.profile.rows).toBe(rows.length);
        expect(got.reread).toEqual(parsed);
        if (rows.length === 0) return;
        expect(await duckRows(got.file, got.profile)).toEqual(expected(parsed, got.profile.names));
        // A row a line: as many lines with a row as rows.
        const lines = new TextDecoder().decode(got.bytes).split("\n");
        expect(lines.filter((l) => l.trim() !== "").length).toBe(rows.length);
      }),
      { numRuns: 60 },
    );
  });

  it("puts the rows of a second data_table array (with rows or none) after the first's", async () => {
    await fc.assert(
      fc.asyncProperty(rowsArb, rowsArb, spacing, fc.array(fc.nat(), { maxLength: 10 }), async (a, b, form, cuts) => {
        const bytes = utf8(`{"data_table":${form(a)},"k":[1,2],"data_table":${form(b)}}`);
        const got = await spool(chunked(bytes, cuts));
        const both = JSON.parse(JSON.stringify([...a, ...b])) as Row[];
        expect(got.reread).toEqual(both);
        if (both.length === 0) return;
        expect(await duckRows(got.file, got.profile)).toEqual(expected(both, got.profile.names));
      }),
      { numRuns: 40 },
    );
  });

  it("gives the same rows across the spool's blocks (rows and a newline cut at a block's end)", async () => {
    const note = "n".repeat(997);
    const rows: Row[] = Array.from({ length: Math.ceil((3 * SPOOL_BLOCK_BYTES) / 1040) }, (_, i) => ({
      id: `r${i}`,
      x: i / 7,
      note: note.slice(0, 900 + (i % 97)),
    }));
    const bytes = utf8(`{"data_table":${JSON.stringify(rows, null, 1)}}`);
    const got = await spool(
      chunked(bytes, [65_536, SPOOL_BLOCK_BYTES - 1, SPOOL_BLOCK_BYTES + 3, 2 * SPOOL_BLOCK_BYTES]),
    );
    expect(got.bytes.length).toBeGreaterThan(2 * SPOOL_BLOCK_BYTES);
    expect(await duckRows(got.file, got.profile)).toEqual(expected(rows, ["id", "x", "note"]));
    expect(got.reread).toEqual(rows);
  });
});
