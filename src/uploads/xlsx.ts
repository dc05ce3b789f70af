/**
 * One sheet of an .xlsx workbook as rows of typed cells, for `frames.readExcel` and the upload helpers'
 * `{ xlsxFile, sheet }`. exceljs is loaded on first use (never by importing the package) and read as a
 * stream: rows are taken one at a time and the read stops at `maxRows`, so a huge workbook costs an
 * error, not the machine's memory (under Deno a workbook is read whole, up to a size: see wholeWorkbook).
 * Every cell keeps its place (`Sheet1!C7`), for warnings and row errors.
 *
 * Cells as read: numbers, text, booleans, and dates (a number cell with a date format, read as that day
 * at midnight UTC: Excel keeps no time zone). Missing: an empty cell, empty text, an error value
 * (`#N/A`, `#DIV/0!`: noted) and a formula with no saved result (noted). A formula is its saved result.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { ExcelError } from "./errors";
import { loadExcelJS } from "./load-exceljs";

/** The most rows a worksheet has in Excel (and so in any .xlsx): the default `maxRows`. */
export const EXCEL_MAX_ROWS = 1_048_576;
/** The most columns a worksheet has in Excel. */
export const EXCEL_MAX_COLUMNS = 16_384;

/** Which sheet and cells to read. */
export interface SheetOptions {
  /** The sheet: its name, or its 0-based position in the workbook (default 0: the first). */
  sheet?: string | number;
  /**
   * The cells to read, A1-style: `"B3:F200"`, or `"B3"` for from B3 to the sheet's last row and column
   * (default: the whole sheet, from A1). Its first row is the header unless `header` says otherwise.
   */
  range?: string;
  /**
   * `true` (default): the first row holds the column names; `false`: every row is data and the columns
   * are named by their letter (`A`, `B`, …); a list of names: every row is data, columns named so.
   */
  header?: boolean | readonly string[];
  /**
   * Stop with an error past this many data rows (default 1,048,576, a sheet's own limit). The read holds
   * the rows as it goes: a lower limit bounds its memory.
   */
  maxRows?: number;
}

/** A cell as read: `null` is missing. */
export type CellValue = number | string | boolean | Date | null;

/** Something read as missing although the cell was not empty, and where. */
export interface CellNote {
  /** `C7` */
  cell: string;
  message: string;
}

/** One sheet's cells in a rectangle: the header and the data rows (blank rows left out). */
export interface SheetCells {
  file: string;
  sheet: string;
  /** Column names (trimmed; an empty header cell is named by its letter). */
  header: string[];
  /** The letter of each column (`C`). */
  letters: string[];
  /** The sheet row (1-based, as Excel shows it) of the header; `null` when there is none. */
  headerRow: number | null;
  /** Data rows, `header.length` cells each. */
  rows: CellValue[][];
  /** The sheet row (1-based) of each data row. */
  rowNumbers: number[];
  /** Cells read as missing although not empty (errors, formulas without a result), header names made up. */
  notes: CellNote[];
}

/** `3` → `C`, `28` → `AB` (1-based column number → letters). */
export function columnLetter(column: number): string {
  let out = "";
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
  return out;
}

/** `AB` → 28; NaN for anything that is not one to three letters. */
function columnNumber(letters: string): number {
  if (!/^[A-Z]{1,3}$/.test(letters)) return NaN;
  let n = 0;
  for (const c of letters) n = n * 26 + (c.charCodeAt(0) - 64);
  return n;
}

/** A rectangle of a sheet, 1-based and inclusive; `Infinity` for an open end. */
export interface CellRange {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/** `"B3:F200"` or `"B3"` → a {@link CellRange}; a RangeError saying what is accepted otherwise. */
export function parseRange(range: string | undefined): CellRange {
  if (range === undefined) return { top: 1, left: 1, bottom: Infinity, right: Infinity };
  const m = /^\s*\$?([A-Za-z]{1,3})\$?(\d+)(?::\$?([A-Za-z]{1,3})\$?(\d+))?\s*$/.exec(range);
  const bad = () =>
    new RangeError(`range ${JSON.stringify(range)}: expected cells as "B3:F200" (or "B3": from B3 to the end)`);
  if (!m) throw bad();
  const left = columnNumber(m[1]!.toUpperCase());
  const top = Number(m[2]);
  const right = m[3] ? columnNumber(m[3].toUpperCase()) : Infinity;
  const bottom = m[4] ? Number(m[4]) : Infinity;
  if (!(left >= 1 && top >= 1 && right >= left && bottom >= top) || left > EXCEL_MAX_COLUMNS) throw bad();
  return { top, left, bottom, right };
}

/** Throws an {@link ExcelError} unless `file` is an .xlsx file (a zip); says what it is when it is not. */
function checkWorkbookFile(file: string, operation: string): void {
  let head: Buffer;
  try {
    if (statSync(file).isDirectory()) throw new ExcelError(`${file} is a directory, not a workbook`, file, operation);
    const fd = openSync(file, "r");
    try {
      head = Buffer.alloc(8);
      head = head.subarray(0, readSync(fd, head, 0, 8, 0));
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof ExcelError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : error instanceof Error ? error.message : String(error);
    throw new ExcelError(`cannot read ${file}: ${why}`, file, operation, undefined, error);
  }
  if (head.length >= 4 && head.readUInt32LE(0) === 0x04034b50) return; // "PK\3\4": a zip
  if (head.length >= 4 && head.readUInt32BE(0) === 0xd0cf11e0)
    throw new ExcelError(
      `${file} is not an .xlsx workbook: it is an Excel 97–2003 (.xls) or other OLE file; save it as .xlsx (Excel Workbook) and read that`,
      file,
      operation,
    );
  const what = head.length === 0 ? "it is empty" : `it starts with ${JSON.stringify(head.toString("latin1"))}`;
  throw new ExcelError(`${file} is not an .xlsx workbook (an .xlsx is a zip file; ${what})`, file, operation);
}

/**
 * Lets exceljs's stream reader find the names of the sheets of a workbook whose relationships name their
 * parts from the package's root (`/xl/worksheets/sheet1.xml`, as openpyxl writes them): it matches
 * `worksheets/sheet1.xml` only, and would call every sheet `Sheet<n>`.
 */
function fixReader(reader: object): void {
  const r = reader as { _parseRels(entry: unknown): Promise<void>; workbookRels?: { Target?: string }[] };
  const parseRels = r._parseRels.bind(reader);
  r._parseRels = async (entry: unknown) => {
    await parseRels(entry);
    for (const rel of r.workbookRels ?? []) if (rel.Target) rel.Target = rel.Target.replace(/^\/xl\//, "");
  };
}

/** How a sheet is picked, for messages: `sheet "Prices"` or `sheet 2 (0-based)`. */
function sheetWanted(sheet: string | number): string {
  return typeof sheet === "string" ? `sheet ${JSON.stringify(sheet)}` : `sheet ${sheet} (0-based)`;
}

/** A worksheet as exceljs's stream reader hands it out (the parts used here). */
interface StreamSheet {
  name?: string;
  [Symbol.asyncIterator](): AsyncIterator<StreamRow>;
}
/** A row as exceljs hands it out (stream or whole workbook): its sheet row, its values from index 1. */
interface StreamRow {
  number: number;
  values: unknown[];
  getCell(column: number): { numFmt?: string };
  /** Read whole: the columns whose text cell holds a shared string's index (see {@link markTextIndexes}). */
  textIndexes?: Map<number, number>;
}

/**
 * Reads one sheet of an .xlsx file: the cells of `range` (default the whole sheet), the header row, the
 * data rows with their sheet row numbers. Throws an {@link ExcelError} naming the file (and the sheet, the
 * cell) for a missing file, a file that is not a workbook, a corrupt zip, a sheet not in the workbook, or
 * more rows than `maxRows`.
 */
export async function readSheetCells(
  file: string,
  options: SheetOptions = {},
  operation = "frames.readExcel",
): Promise<SheetCells> {
  const range = parseRange(options.range);
  const maxRows = options.maxRows ?? EXCEL_MAX_ROWS;
  if (!(Number.isInteger(maxRows) && maxRows >= 0)) throw new RangeError(`maxRows must be a whole number ≥ 0`);
  checkWorkbookFile(file, operation);
  const how = { range, maxRows, options, operation };
  if (underDeno()) return readSheetOnce(file, how, await wholeWorkbook(file, operation));
  try {
    return await readSheetOnce(file, how, streamedWorkbook(file, operation));
  } catch (error) {
    if (error instanceof ExcelError && !(error.cause instanceof TypeError)) throw error;
    if (!(error instanceof ExcelError) && !(error instanceof PartialRead)) throw error;
    // The stream reader ended early (PartialRead), or exceljs failed inside on a zip it streams wrong (a
    // TypeError: one rewritten by JSZip, say): read the workbook whole, within its bound, as under Deno.
    const why = error instanceof PartialRead ? error.message : "its sheets' parts";
    return readSheetOnce(file, how, await wholeWorkbook(file, operation, why));
  }
}

/**
 * exceljs's stream reader left out a part the sheet needs (the message names it): it did, now and then,
 * under load (a sheet handed out before the workbook part or the shared strings were read, its name then
 * "Sheet1" and its text `{ sharedString: 0 }`, without an error). The workbook is then read whole.
 */
class PartialRead extends Error {}

/** One read of the sheet asked for; throws {@link PartialRead} when the reader did not read what it needs. */
async function readSheetOnce(
  file: string,
  how: { range: CellRange; maxRows: number; options: SheetOptions; operation: string },
  source: SheetSource,
): Promise<SheetCells> {
  const { range, maxRows, options, operation } = how;
  const wanted = options.sheet ?? 0;
  const names: string[] = [];
  let tabs: string[] | undefined;
  let found: SheetCells | undefined;
  try {
    let position = 0;
    for await (const ws of source.sheets) {
      const missing = source.missing();
      if (missing) throw new PartialRead(missing);
      tabs ??= source.tabs();
      const name = ws.name ?? `sheet ${position + 1}`;
      names.push(name);
      // A position counts the tabs: sheets come in the order their files are stored, which a tab moved
      // in Excel does not change.
      const match = typeof wanted === "string" ? name === wanted : tabs ? tabs[wanted] === name : position === wanted;
      position++;
      if (match) {
        found = await readRows(ws, { file, name, range, options, maxRows, operation, date1904: source.date1904() });
        break;
      }
      for await (const _row of ws); // a sheet not asked for: read past it
    }
  } catch (error) {
    if (error instanceof ExcelError || error instanceof PartialRead) throw error;
    throw unreadable(file, operation, error);
  } finally {
    source.close();
  }
  if (found) return found;
  if (names.length === 0)
    throw new ExcelError(`${file} holds no worksheet: a zip, but not an .xlsx workbook`, file, operation);
  throw new ExcelError(
    `${file} has no ${sheetWanted(wanted)}; its sheets: ${(tabs ?? names).map((n) => JSON.stringify(n)).join(", ")}`,
    file,
    operation,
  );
}

/** A workbook's sheets, one at a time, and how to let go of the file. */
interface SheetSource {
  sheets: AsyncIterable<StreamSheet>;
  /** What a sheet handed out now would be read without (the workbook part), or undefined. */
  missing(): string | undefined;
  /** The sheets' names in tab order, when the sheets come in another order; else undefined. */
  tabs(): string[] | undefined;
  /** Whether the workbook counts its days from 1904 (Excel for Mac's old default), not 1900. */
  date1904(): boolean;
  close(): void;
}

function unreadable(file: string, operation: string, error: unknown): ExcelError {
  return new ExcelError(
    `${file} is not a readable workbook (a corrupt or truncated zip, or not an .xlsx inside): ${error instanceof Error ? error.message : String(error)}`,
    file,
    operation,
    undefined,
    error,
  );
}

/** exceljs's stream reader: a sheet's rows are parsed as they are read, so memory stays bounded. */
function streamedWorkbook(file: string, operation: string): SheetSource {
  const reader = new (loadExcelJS(operation).stream.xlsx.WorkbookReader)(file, {
    worksheets: "emit",
    sharedStrings: "cache",
    styles: "cache", // the number formats say which numbers are dates
    hyperlinks: "ignore",
    entries: "ignore",
  });
  fixReader(reader);
  const parts = reader as unknown as {
    model?: { sheets?: { name: string }[] };
    workbookRels?: unknown;
    properties?: { model?: { date1904?: boolean } };
  };
  return {
    sheets: reader as unknown as AsyncIterable<StreamSheet>,
    missing: () =>
      parts.model === undefined || parts.workbookRels === undefined
        ? "the workbook part (xl/workbook.xml and its relationships: the sheets' names)"
        : undefined,
    tabs: () => parts.model?.sheets?.map((sheet) => sheet.name),
    date1904: () => parts.properties?.model?.date1904 === true,
    // Stopped at the sheet asked for (or at an error): close the file rather than read the rest.
    close: () => (reader as unknown as { stream?: { destroy?(): void } }).stream?.destroy?.(),
  };
}

/** True in Deno (the runtime of Deno's Jupyter kernel). */
function underDeno(): boolean {
  return typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
}

/**
 * The most bytes of a workbook read under Deno, where it is read whole: about 300,000 rows of 10 columns,
 * about 1 GB of memory in exceljs's model of it.
 */
export const DENO_MAX_WORKBOOK_BYTES = 32 * 1024 * 1024;

/**
 * The whole workbook, read at once, under Deno: there exceljs's stream reader (its unzipping, on Deno's
 * Node streams) is not reliable — from one run to the next a sheet was parsed before the shared strings
 * or the styles, and read as empty header cells or dates as numbers, without an error. A file over
 * {@link DENO_MAX_WORKBOOK_BYTES} is refused, to keep the memory bounded.
 */
async function wholeWorkbook(file: string, operation: string, streamMissed?: string): Promise<SheetSource> {
  const size = statSync(file).size;
  if (size > DENO_MAX_WORKBOOK_BYTES)
    throw new ExcelError(
      streamMissed === undefined
        ? `${file} has ${Math.round(size / 1e6)} MB; under Deno a workbook is read whole, up to ${DENO_MAX_WORKBOOK_BYTES / 1024 / 1024} MiB (about 300,000 rows of 10 columns): read it under Node (tslab), or save the sheet you need alone`
        : `${file} could not be read as a stream (exceljs's stream reader ended before ${streamMissed}), and at ${Math.round(size / 1e6)} MB it is over the ${DENO_MAX_WORKBOOK_BYTES / 1024 / 1024} MiB read whole instead; nothing was returned rather than a sheet read without it: save it again from Excel or LibreOffice, or save the sheet you need alone`,
      file,
      operation,
    );
  const wb = new (loadExcelJS(operation).Workbook)();
  try {
    await wb.xlsx.readFile(file);
  } catch (error) {
    throw unreadable(file, operation, error);
  }
  async function* sheets(): AsyncIterable<StreamSheet> {
    for (const ws of wb.worksheets) {
      yield {
        name: ws.name,
        async *[Symbol.asyncIterator]() {
          const rows: StreamRow[] = [];
          ws.eachRow((row) => rows.push(markTextIndexes(row as unknown as WholeRow)));
          yield* rows;
        },
      };
    }
  }
  // exceljs's whole workbook lists its worksheets in tab order.
  const date1904 = (wb.properties as { date1904?: boolean } | undefined)?.date1904 === true;
  return {
    sheets: sheets(),
    missing: () => undefined,
    tabs: () => undefined,
    date1904: () => date1904,
    close: () => undefined,
  };
}

/** A row of exceljs's whole workbook: its cells with their types. */
interface WholeRow extends StreamRow {
  eachCell(visit: (cell: { type: number; value: unknown; col: number }) => void): void;
}

/** exceljs's type of a text cell (its `ValueType.String`). */
const TEXT_CELL = 3;

/**
 * Marks the text cells whose value is a number: read whole, exceljs keeps a shared string's index as the
 * value when the workbook has no shared strings part, which would read as columns named "0", "1" and text
 * as numbers. The sheet read refuses them ({@link refuseTextIndexes}); a sheet read past does not.
 */
function markTextIndexes(row: WholeRow): StreamRow {
  row.eachCell((cell) => {
    if (cell.type === TEXT_CELL && typeof cell.value === "number")
      (row.textIndexes ??= new Map()).set(cell.col, cell.value);
  });
  return row;
}

/** Throws for a marked cell of `row` within the range read (see {@link markTextIndexes}). */
function refuseTextIndexes(row: StreamRow, indexes: Map<number, number>, ctx: ReadContext): void {
  for (const [column, index] of indexes) {
    if (column < ctx.range.left || column > ctx.range.right) continue;
    throw new ExcelError(
      `${ctx.file} sheet ${JSON.stringify(ctx.name)}: cell ${columnLetter(column)}${row.number} is text kept in the workbook's shared strings (xl/sharedStrings.xml), which the file does not have; nothing was read rather than the text's index (${index}) as a number: save the workbook again from Excel or LibreOffice`,
      ctx.file,
      ctx.operation,
      ctx.name,
    );
  }
}

interface ReadContext {
  /** The workbook's day count starts in 1904 ({@link SheetSource.date1904}). */
  date1904: boolean;
  file: string;
  name: string;
  range: CellRange;
  options: SheetOptions;
  maxRows: number;
  operation: string;
}

/** The rows of one streamed sheet within the range: header, data rows, notes. */
async function readRows(ws: StreamSheet, ctx: ReadContext): Promise<SheetCells> {
  const { range, maxRows } = ctx;
  const notes: CellNote[] = [];
  const named = ctx.options.header ?? true;
  const rows: CellValue[][] = [];
  const rowNumbers: number[] = [];
  let headerCells: CellValue[] | null = null;
  let headerRow: number | null = null;
  let width = 0;
  for await (const row of ws) {
    const r = row.number;
    if (r < range.top) continue;
    if (r > range.bottom) continue; // read on: the stream must be drained
    if (row.textIndexes) refuseTextIndexes(row, row.textIndexes, ctx);
    const cells = rowCells(row, range, { notes, date1904: ctx.date1904 });
    if (named === true && headerRow === null) {
      headerRow = r;
      headerCells = cells;
      width = Math.max(width, lastFilled(cells));
      continue;
    }
    const filled = lastFilled(cells);
    if (filled === 0) continue; // a blank row, as the CSV reader skips a blank line
    if (rows.length === maxRows)
      throw new ExcelError(
        `${ctx.file} sheet ${JSON.stringify(ctx.name)} has more than ${maxRows} data rows (maxRows), at ${ctx.name}!${columnLetter(range.left)}${r}; read part of it with { range: "A1:J${maxRows + (headerRow ?? 0)}" }, or raise maxRows`,
        ctx.file,
        ctx.operation,
        ctx.name,
      );
    width = Math.max(width, filled);
    rows.push(cells);
    rowNumbers.push(r);
  }
  if (range.right !== Infinity) width = range.right - range.left + 1;
  const letters = Array.from({ length: width }, (_, j) => columnLetter(range.left + j));
  for (const cells of rows) cells.length = width;
  for (const cells of rows) for (let j = 0; j < width; j++) cells[j] ??= null;
  const header = headerNames(named, headerCells, headerRow, letters, ctx, notes);
  return { file: ctx.file, sheet: ctx.name, header, letters, headerRow, rows, rowNumbers, notes };
}

/** The column names: the header row's cells, made unique; letters for empty ones (noted). */
function headerNames(
  named: boolean | readonly string[],
  cells: CellValue[] | null,
  headerRow: number | null,
  letters: string[],
  ctx: ReadContext,
  notes: CellNote[],
): string[] {
  if (Array.isArray(named)) {
    if (named.length !== letters.length)
      throw new ExcelError(
        `${ctx.file} sheet ${JSON.stringify(ctx.name)}: header gives ${named.length} names, the cells read have ${letters.length} columns (${letters[0] ?? "-"}…${letters.at(-1) ?? "-"})`,
        ctx.file,
        ctx.operation,
        ctx.name,
      );
    return [...(named as string[])];
  }
  if (named === false || cells === null) return [...letters];
  const seen = new Map<string, number>();
  return letters.map((letter, j) => {
    const v = cells[j];
    let name = v === null || v === undefined ? "" : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim();
    if (name === "") {
      name = letter;
      notes.push({
        cell: `${letter}${headerRow}`,
        message: `the header cell is empty; the column is named "${letter}"`,
      });
    }
    const count = seen.get(name) ?? 0;
    seen.set(name, count + 1);
    if (count > 0) {
      const renamed = `${name}.${count}`;
      notes.push({ cell: `${letter}${headerRow}`, message: `"${name}" is a column name already; named "${renamed}"` });
      name = renamed;
    }
    return name;
  });
}

/** 1 + the position of the last non-missing cell (0 for a blank row). */
function lastFilled(cells: readonly CellValue[]): number {
  for (let j = cells.length - 1; j >= 0; j--) if (cells[j] !== null && cells[j] !== undefined) return j + 1;
  return 0;
}

/** The row's cells from the range's left column to its right one (or the row's last cell). */
/** What reading a cell needs beside it: where its notes go, and the workbook's day count. */
interface CellReading {
  notes: CellNote[];
  date1904: boolean;
}

function rowCells(row: StreamRow, range: CellRange, reading: CellReading): CellValue[] {
  const values = row.values; // 1-based, sparse
  const end = Math.min(values.length - 1, range.right);
  const cells: CellValue[] = [];
  for (let c = range.left; c <= end; c++) {
    const v = values[c];
    cells.push(v === undefined || v === null ? null : cellValue(v, row, c, reading));
  }
  return cells;
}

/** One cell's value as read (see the module comment); notes why a non-empty cell reads as missing. */
function cellValue(v: unknown, row: StreamRow, column: number, reading: CellReading): CellValue {
  const notes = reading.notes;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string") return v === "" ? null : v;
  if (typeof v === "boolean") return v;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v;
  const o = v as Record<string, unknown>;
  const cell = `${columnLetter(column)}${row.number}`;
  if ("sharedString" in o) throw new PartialRead(`the shared strings (xl/sharedStrings.xml: the text of ${cell})`);
  if (Array.isArray(o.richText)) {
    const text = (o.richText as { text?: string }[]).map((p) => p.text ?? "").join("");
    return text === "" ? null : text;
  }
  if ("error" in o) {
    notes.push({ cell, message: `holds the error ${String(o.error)}; read as missing` });
    return null;
  }
  if ("formula" in o || "sharedFormula" in o) {
    const result = o.result;
    if (result === undefined || result === null) {
      notes.push({
        cell,
        message: `is a formula with no saved result (=${String(o.formula ?? o.sharedFormula)}); read as missing (open and save the workbook in Excel or LibreOffice to compute it)`,
      });
      return null;
    }
    if (typeof result === "number" && isDateFormat(row.getCell(column).numFmt))
      return excelDate(result, reading.date1904);
    return cellValue(result, row, column, reading);
  }
  if ("text" in o) return cellValue(o.text, row, column, reading); // a hyperlink: its text
  notes.push({ cell, message: `holds a value that is not a number, text, boolean or date; read as missing` });
  return null;
}

/** Whether an Excel number format shows a date or time (`yyyy-mm-dd`, `d/m/yy h:mm`), as exceljs decides. */
function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  return /[ymdhMsb]+/.test(format.replace(/\[[^\]]*]/g, "").replace(/"[^"]*"/g, ""));
}

/** An Excel serial day number → its instant, UTC (day 0 is 1899-12-30 in the 1900 system, 1904-01-01 in 1904's). */
function excelDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - (date1904 ? 24_107 : 25_569)) * 86_400_000));
}
