/**
 * The cells of `frames.toExcel`: each table as one sheet of typed cells, written
 * through exceljs's streaming writer (rows go to the file as they are made, not held as a workbook).
 */
import { createWriteStream } from "node:fs";
import type { Style } from "exceljs";
import type { ColumnKind, ColumnTable } from "../table/column-table";
import { ExcelError } from "../uploads/errors";
import { loadExcelJS } from "../uploads/load-exceljs";
import { columnLetter, EXCEL_MAX_COLUMNS, EXCEL_MAX_ROWS } from "../uploads/xlsx";

export interface SheetToWrite {
  name: string;
  table: ColumnTable;
}

/** The number format of a date column: the day alone when every value is midnight UTC. */
export const DATE_FORMAT = "yyyy-mm-dd";
export const DATE_TIME_FORMAT = "yyyy-mm-dd hh:mm:ss.000";

/** The style of a date in a mixed column (shared by every such cell). */
const MIXED_DATE: Partial<Style> = { numFmt: DATE_TIME_FORMAT };

/** The most characters an Excel cell holds. */
const MAX_CELL_TEXT = 32_767;

/** Writes the sheets to a new workbook at `temp` (messages name `target`, the file the caller asked for). */
export async function writeWorkbook(sheets: readonly SheetToWrite[], temp: string, target: string): Promise<void> {
  for (const s of sheets) checkSize(s, target);
  const E = loadExcelJS("frames.toExcel");
  // The file's stream is ours, so that a failed write ends it before the caller removes `temp`: exceljs's
  // own opens the file when it gets to it, and could make it again after the removal.
  const out = createWriteStream(temp);
  const wb = new E.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: true });
  try {
    await writeSheets(wb, sheets, target);
  } catch (error) {
    if (!out.closed) await new Promise<void>((resolve) => (out.once("close", () => resolve()), out.destroy()));
    throw error;
  }
}

/** Each sheet's rows, then the workbook's end. */
async function writeSheets(
  wb: InstanceType<ReturnType<typeof loadExcelJS>["stream"]["xlsx"]["WorkbookWriter"]>,
  sheets: readonly SheetToWrite[],
  target: string,
): Promise<void> {
  for (const { name, table } of sheets) {
    const ws = wb.addWorksheet(name, { views: [{ state: "frozen", ySplit: 1 }] });
    const formats = table.columns.map((c) => formatOf(table.kinds[c]!, table.data[c]!));
    ws.columns = table.columns.map((c, j) => ({
      header: c,
      key: String(j),
      width:
        formats[j] === DATE_FORMAT
          ? 12
          : formats[j] === DATE_TIME_FORMAT
            ? 24
            : Math.min(40, Math.max(10, c.length + 2)),
      ...(formats[j] ? { style: { numFmt: formats[j] } } : {}),
    }));
    ws.getRow(1).font = { bold: true };
    const columns = table.columns.map((c) => table.data[c]!);
    const kinds = table.columns.map((c) => table.kinds[c]!);
    const styles = formats.map((f): Partial<Style> => (f ? { numFmt: f } : {}));
    const width = columns.length;
    for (let i = 0; i < table.rowCount; i++) {
      const values = new Array<unknown>(width);
      for (let j = 0; j < width; j++)
        values[j] = cellOf(columns[j]![i], kinds[j]!, { name, row: i, column: j, target });
      const row = ws.addRow(values);
      // One style object per column, shared by its cells: exceljs registers a style once per object
      // (each cell's own merged copy cost 1.7× the CPU of the whole write). A date in a mixed column
      // gets the date-time format (the column has none).
      for (let j = 0; j < width; j++)
        row.getCell(j + 1).style = kinds[j] === "mixed" && values[j] instanceof Date ? MIXED_DATE : styles[j]!;
      row.commit();
    }
    ws.commit();
  }
  await wb.commit();
}

/** Too many rows or columns for a sheet: an error before anything is written. */
function checkSize({ name, table }: SheetToWrite, target: string): void {
  if (table.rowCount + 1 > EXCEL_MAX_ROWS)
    throw new ExcelError(
      `sheet ${JSON.stringify(name)}: ${table.rowCount} rows and a header do not fit in a sheet (${EXCEL_MAX_ROWS} rows at most); split the table across sheets, or write Parquet`,
      target,
      "frames.toExcel",
      name,
    );
  if (table.columns.length > EXCEL_MAX_COLUMNS)
    throw new ExcelError(
      `sheet ${JSON.stringify(name)}: ${table.columns.length} columns do not fit in a sheet (${EXCEL_MAX_COLUMNS} at most)`,
      target,
      "frames.toExcel",
      name,
    );
}

/** A date column's number format: the day alone when every date is midnight UTC, else day and time. */
function formatOf(kind: ColumnKind, values: readonly unknown[]): string | undefined {
  if (kind !== "date") return undefined;
  for (const v of values) if (v instanceof Date && v.getTime() % 86_400_000 !== 0) return DATE_TIME_FORMAT;
  return DATE_FORMAT;
}

interface CellPlace {
  name: string;
  row: number;
  column: number;
  target: string;
}

/** A value as the cell it becomes: missing → empty, objects → JSON text; over-long text is an error. */
function cellOf(v: unknown, kind: ColumnKind, at: CellPlace): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") return Number.isFinite(v) ? v : null; // NaN: missing; ±Infinity has no cell
  if (typeof v === "boolean" || v instanceof Date) return Number.isNaN((v as Date).getTime?.()) ? null : v;
  const text = typeof v === "string" ? v : typeof v === "bigint" ? v.toString() : JSON.stringify(v);
  if (text.length > MAX_CELL_TEXT)
    throw new ExcelError(
      `${at.name}!${columnLetter(at.column + 1)}${at.row + 2} (row ${at.row} of a ${kind} column): text of ${text.length} characters; an Excel cell holds ${MAX_CELL_TEXT} at most`,
      at.target,
      "frames.toExcel",
      at.name,
    );
  return text;
}
