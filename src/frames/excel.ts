/**
 * Excel workbooks (.xlsx) in and out: `readExcel` / `readExcelColumns` read one sheet into a DataFrame or
 * a column table, kinds inferred as every other table's ({@link ColumnKind}: numbers, text,
 * booleans, dates — date cells, and text cells that are ISO 8601 dates — empty cells missing, a column of
 * several kinds kept as received with a warning naming the cell); `toExcel` writes tables as typed cells,
 * one sheet each, into one workbook, replacing the file whole or not at all.
 *
 * exceljs (through `loadExcelJS`) is loaded on the first call, never by importing the package.
 */
import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { link, mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { DataFrame } from "../../vendor/danfo";
import { columnTableOf, type TableLike } from "../columnar/arrow";
import { finishColumn, TableBuilder, type ColumnTable, type TableWarning } from "../table/column-table";
import { loadExcelJS } from "../uploads/load-exceljs";
import { ExcelError } from "../uploads/errors";
import { readSheetCells, type SheetCells, type SheetOptions } from "../uploads/xlsx";
import { toDataFrame } from "./danfo";
import { writeWorkbook, type SheetToWrite } from "./excel-write";

export type { SheetOptions as ReadExcelOptions } from "../uploads/xlsx";

/**
 * One sheet of an .xlsx workbook as a column table (no danfo). Options: `sheet` (name or 0-based
 * position, default the first), `range` (`"B3:F200"`, or `"B3"` to the end; default the whole sheet),
 * `header` (default true: the range's first row names the columns), `maxRows` (default 1,048,576: a
 * bound on memory). Blank rows are left out. `meta.fields` holds `file`, `sheet` and, per row, the sheet
 * row it came from (`sheetRows`). Warnings name the cell (`Sheet1!C7`).
 *
 * @example
 * ```ts
 * const marks = await frames.readExcelColumns("marks.xlsx", { sheet: "Bonds", range: "A3:F500" });
 * ```
 */
export async function readExcelColumns(file: string, options: SheetOptions = {}): Promise<ColumnTable> {
  return tableOfCells(await readSheetCells(file, options, "frames.readExcelColumns"));
}

/**
 * {@link readExcelColumns} as a danfo DataFrame (`frameInfo(df).warnings` has the warnings).
 * @example
 * ```ts
 * const df = await frames.readExcel("report.xlsx", { sheet: "EUR" });
 * ```
 */
export async function readExcel(file: string, options: SheetOptions = {}): Promise<DataFrame> {
  return toDataFrame(tableOfCells(await readSheetCells(file, options, "frames.readExcel")));
}

/** The column table of a sheet's cells: kinds inferred per column, warnings placed at their cells. */
export function tableOfCells(cells: SheetCells): ColumnTable {
  const { rows, header, letters, sheet, rowNumbers } = cells;
  const n = rows.length;
  const builder = new TableBuilder(n, "readExcel", { file: cells.file, sheet, sheetRows: rowNumbers });
  const place = (row: number, column: number) => `${sheet}!${letters[column]}${rowNumbers[row]}`;
  header.forEach((name, j) => {
    const raw = new Array<unknown>(n);
    for (let i = 0; i < n; i++) raw[i] = rows[i]![j];
    const finished = finishColumn(name, raw, { owned: true });
    const w = finished.warning;
    if (w?.row !== undefined) finished.warning = { ...w, message: `${w.message} (cell ${place(w.row, j)})` };
    builder.addFinished(name, finished);
  });
  const tableRow = new Map(rowNumbers.map((r, i) => [r, i]));
  for (const note of cells.notes) {
    const [, letter, sheetRow] = /^([A-Z]+)(\d+)$/.exec(note.cell)!;
    const j = letters.indexOf(letter!);
    const warning: TableWarning = { message: `${sheet}!${note.cell} ${note.message}` };
    const row = tableRow.get(Number(sheetRow));
    if (row !== undefined) warning.row = row;
    if (j >= 0) warning.column = header[j]!;
    builder.warn(warning);
  }
  return builder.build();
}

export interface ToExcelOptions {
  /** The sheet's name when one table is written (default `Sheet1`); a record of tables names its own. */
  sheet?: string;
  /** Replace a file already at the path (default false: an existing file is an error and is left as it is). */
  overwrite?: boolean;
}

export interface ExcelWritten {
  /** The workbook written (absolute). */
  path: string;
  /** Each sheet: its name, data rows and columns. */
  sheets: { name: string; rows: number; columns: number }[];
}

/**
 * Writes tables (column tables or DataFrames) to an .xlsx workbook: one table to one sheet, or a record
 * `{ sheetName: table, … }` to a sheet each, in that order. Cells are typed: numbers as numbers, text as
 * text, booleans as booleans, dates as dates with a date format (`yyyy-mm-dd`, or `yyyy-mm-dd
 * hh:mm:ss.000` for a column with times; UTC), missing values as empty cells; the first row holds the
 * column names. The workbook is written to a temporary file beside `file` and moved in place only
 * when whole, so a failure leaves what was there; without `overwrite` an existing file is an error.
 *
 * @example
 * ```ts
 * await frames.toExcel({ Curves: frames.yieldCurveColumns(curve), Trades: trades }, "out/report.xlsx", { overwrite: true });
 * ```
 */
export async function toExcel(
  input: TableLike | Record<string, TableLike>,
  file: string,
  options: ToExcelOptions = {},
): Promise<ExcelWritten> {
  const operation = "frames.toExcel";
  const target = path.resolve(file);
  const sheets = sheetsToWrite(input, options.sheet ?? "Sheet1", target);
  if (existsSync(target)) {
    if (statSync(target).isDirectory())
      throw new ExcelError(`${target} is a directory; give a file path`, target, operation);
    if (!options.overwrite)
      throw new ExcelError(
        `${target} exists; pass { overwrite: true } to replace it (it is left as it is)`,
        target,
        operation,
      );
  }
  loadExcelJS(operation); // not installed: say so, before anything is written
  await mkdir(path.dirname(target), { recursive: true });
  const temp = `${target}.partial-${randomUUID()}`;
  try {
    await writeWorkbook(sheets, temp, target);
    await flush(temp);
    if (options.overwrite) await rename(temp, target);
    else await linkNew(temp, target);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    if (error instanceof ExcelError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    const was = existsSync(target) ? "the previous file is as it was" : "nothing was written there";
    throw new ExcelError(`could not write ${target}: ${why}; ${was}`, target, operation, undefined, error);
  }
  await rm(temp, { force: true });
  return {
    path: target,
    sheets: sheets.map((s) => ({ name: s.name, rows: s.table.rowCount, columns: s.table.columns.length })),
  };
}

/** Moves `temp` to `target` only if no file is there (a file made since the check is not replaced). */
async function linkNew(temp: string, target: string): Promise<void> {
  try {
    await link(temp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    throw new ExcelError(
      `${target} appeared while the workbook was written; pass { overwrite: true } to replace it (it is left as it is)`,
      target,
      "frames.toExcel",
    );
  }
}

/** Flushes a written file to disk before it is moved in place. */
async function flush(file: string): Promise<void> {
  const handle = await open(file, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Characters Excel refuses in a sheet name. */
const BAD_SHEET_CHARS = /[[\]:*?/\\]/;

/** The sheets to write, their names checked as Excel checks them. */
function sheetsToWrite(input: unknown, single: string, target: string): SheetToWrite[] {
  const operation = "frames.toExcel";
  const isRecordOfTables =
    typeof input === "object" &&
    input !== null &&
    !Array.isArray(input) &&
    Object.getPrototypeOf(input) === Object.prototype &&
    !("columns" in input && "data" in input && "kinds" in input);
  const entries: [string, unknown][] = isRecordOfTables ? Object.entries(input) : [[single, input]];
  if (entries.length === 0) throw new ExcelError(`no table to write (an empty record)`, target, operation);
  const seen = new Set<string>();
  return entries.map(([name, table]) => {
    const why =
      name.length === 0
        ? "is empty"
        : name.length > 31
          ? "is longer than 31 characters"
          : BAD_SHEET_CHARS.test(name)
            ? "has one of [ ] : * ? / \\"
            : name.startsWith("'") || name.endsWith("'")
              ? "starts or ends with an apostrophe"
              : seen.has(name.toLowerCase())
                ? "is used twice (Excel ignores case)"
                : undefined;
    if (why) throw new ExcelError(`sheet name ${JSON.stringify(name)} ${why}`, target, operation, name);
    seen.add(name.toLowerCase());
    return { name, table: columnTableOf(table, `${operation} (sheet ${JSON.stringify(name)})`) };
  });
}
