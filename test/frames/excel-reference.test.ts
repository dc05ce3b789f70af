/**
 * A workbook written by another tool: openpyxl's (inline strings, no shared strings table, the workbook
 * part after the sheets), made by scripts/reference/openpyxl-workbook.py and stored in
 * test/frames/fixtures/. Every cell openpyxl reads from it (openpyxl-reference.json) is read the same by
 * frames.readExcelColumns, each column gets the kind its cells have, and what is read as missing
 * (a formula with no saved result, an error value) is said with its cell.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import { MARKS_KINDS } from "./openpyxl-reference";

const fixtures = path.join(__dirname, "fixtures");
const file = path.join(fixtures, "openpyxl-reference.xlsx");

interface RefCell {
  value: unknown;
  type: string;
  cell: string;
}
const reference = JSON.parse(readFileSync(path.join(fixtures, "openpyxl-reference.json"), "utf8")) as {
  sheets: Record<string, RefCell[][]>;
};

/** openpyxl's reading of a cell as ours should be: datetimes (no zone in Excel) as UTC, formulas and errors missing. */
function expected(c: RefCell): unknown {
  const v = c.value as { datetime?: string } | string | number | boolean;
  if (typeof v === "object" && v !== null && v.datetime) return new Date(`${v.datetime}Z`);
  if (c.type === "f" || c.type === "e") return null;
  if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v)) return new Date(`${v}T00:00:00Z`); // ISO date text
  return v;
}

/** The table's value at an A1 cell (`C3`), by the header's letters and the rows' sheet row numbers. */
function valueAt(t: frames.ColumnTable, cell: string, left = "A"): unknown {
  const [, letters, row] = /^([A-Z]+)(\d+)$/.exec(cell)!;
  const column = t.columns[letters!.charCodeAt(0) - left.charCodeAt(0)]!;
  const i = (t.meta.fields.sheetRows as number[]).indexOf(Number(row));
  const v = t.data[column]![i];
  return typeof v === "number" && Number.isNaN(v) ? null : v;
}

describe("a workbook written by openpyxl", () => {
  it("reads every cell of Marks as openpyxl does, with the kinds its cells have", async () => {
    const t = await frames.readExcelColumns(file, { sheet: "Marks" });
    const [header, ...rows] = reference.sheets.Marks!;
    expect(t.columns).toEqual(header!.map((c) => c.value));
    expect(t.rowCount).toBe(rows.length);
    for (const row of rows) for (const c of row) expect([c.cell, valueAt(t, c.cell)]).toEqual([c.cell, expected(c)]);
    expect(t.kinds).toEqual(MARKS_KINDS);
    expect(t.data.code).toEqual(["XS1", "0012", "US9 Ü"]);
    expect(t.meta.missing).toMatchObject({ price: 1, note: 1, value: 3, status: 1 });
    expect(t.meta.warnings.map((w) => w.message)).toEqual([
      "Marks!I2 is a formula with no saved result (=C2*D2); read as missing (open and save the workbook in Excel or LibreOffice to compute it)",
      "Marks!I3 is a formula with no saved result (=C3*D3); read as missing (open and save the workbook in Excel or LibreOffice to compute it)",
      "Marks!J3 holds the error #N/A; read as missing",
      "Marks!I4 is a formula with no saved result (=C4*D4); read as missing (open and save the workbook in Excel or LibreOffice to compute it)",
    ]);
    expect(t.meta.warnings[2]).toMatchObject({ row: 1, column: "status" });
  });

  it("reads the table of Curves from B3 (a title and a blank row above it), a mixed column said so", async () => {
    const t = await frames.readExcelColumns(file, { sheet: "Curves", range: "B3" });
    const rows = reference.sheets.Curves!.filter((r) => r.length > 0 && Number(r[0]!.cell.slice(1)) >= 3);
    expect(t.columns).toEqual(rows[0]!.map((c) => c.value));
    for (const row of rows.slice(1)) for (const c of row) expect(valueAt(t, c.cell, "B")).toEqual(expected(c));
    expect(t.kinds).toEqual({ tenor: "string", rate: "number", source: "mixed" });
    expect(t.meta.warnings.map((w) => w.message)).toEqual([
      'column "source" holds 2 numbers, 1 text value, e.g. row 1: "broker"; kept as received, nothing converted (cell Curves!D5)',
    ]);
    const df = await frames.readExcel(file, { sheet: 1, range: "B3:C6" });
    expect(df.columns).toEqual(["tenor", "rate"]);
    expect(df.shape).toEqual([3, 2]);
  });
});
