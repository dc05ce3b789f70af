/**
 * The uploads' errors, one family with the client's (`err instanceof RiskPortalError` catches them all):
 * invalid upload rows (nothing sent), a CSV that cannot be read.
 */
import { RequestValidationError, RiskPortalError } from "../client/errors";

/** One problem with the input, located by row. */
export interface RowError {
  /** 0-based position of the row (array index, DataFrame position, CSV data record); `null` for the whole table. */
  row: number | null;
  /** CSV: the line in the file where the row starts (the header is line 1 in a plain file); a sheet: its row. */
  line?: number;
  /** A workbook source: the sheet's name. */
  sheet?: string;
  /** A workbook source: the cell at fault (`C7`), or the row's cells (`A7:H7`) when no one column is. */
  cell?: string;
  /** The wire field (`traded_price`, `bond_identifier.code`), when one field is at fault. */
  field?: string;
  message: string;
}

/** A sheet's name as a cell reference starts: `Bonds`, or `'Bond marks'` when it needs quotes (as Excel writes it). */
export function sheetRef(sheet: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet) ? sheet : `'${sheet.replace(/'/g, "''")}'`;
}

/**
 * Where a row error is: `row 7`, `line 9 (row 7)` (CSV), `Bonds!C9 (row 7)` (a workbook), `line 1`,
 * `Bonds!C1` or `table` (the whole table).
 */
export function rowPlace(e: Pick<RowError, "row" | "line" | "sheet" | "cell">): string {
  if (e.sheet !== undefined && e.cell !== undefined) {
    const at = `${sheetRef(e.sheet)}!${e.cell}`;
    return e.row === null ? at : `${at} (row ${e.row})`;
  }
  if (e.row === null) return e.line !== undefined ? `line ${e.line}` : "table";
  return e.line !== undefined ? `line ${e.line} (row ${e.row})` : `row ${e.row}`;
}

/**
 * `row 7: traded_price: expected number, got "abc"` (CSV: `line 9 (row 7): …`; a workbook: `Bonds!G9 (row 7): …`).
 * @example
 * ```ts
 * const { errors } = frames.bondPriceRecords({ csvFile: "prices.csv" });
 * for (const e of errors) console.log(frames.formatRowError(e));
 * ```
 */
export function formatRowError(e: RowError): string {
  return `${rowPlace(e)}: ${e.field ? `${e.field}: ` : ""}${e.message}`;
}

/** What a refused upload says of the way to send its valid rows (`frames.upload*` options). */
export const SKIP_INVALID_HINT =
  "To send the valid rows and get one table of the others: { use_best_effort: true, skipInvalid: true }";

/**
 * Invalid upload rows: nothing was sent. `rows` lists every problem (all rows are checked, not just
 * the first bad one); `issues` has the same as field issues (`[7].traded_price`).
 */
export class RowValidationError extends RequestValidationError {
  constructor(
    operation: string,
    readonly rows: readonly RowError[],
  ) {
    const shown = rows.slice(0, 10).map(formatRowError);
    if (rows.length > 10) shown.push(`… and ${rows.length - 10} more`);
    const count = new Set(rows.map((r) => r.row)).size;
    // Rows refused one by one (not the whole table): the other rows could go up, and this is how.
    const hint = rows.some((r) => r.row !== null) ? `. ${SKIP_INVALID_HINT}` : "";
    super(
      `${operation}: ${count} invalid row${count === 1 ? "" : "s"}, nothing was sent — ${shown.join("; ")}${hint}`,
      { operation },
      rows.map((r) => ({
        path: `${r.row === null ? "(table)" : `[${r.row}]`}${r.field ? `.${r.field}` : ""}`,
        message: r.message,
      })),
    );
  }
}

/** A CSV text that cannot be read (an unterminated quote, no header). */
export class CsvError extends RiskPortalError {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`, { operation: "readCsv" });
  }
}

/**
 * A workbook that cannot be read or written (no such file, not an .xlsx, a corrupt zip, no such sheet,
 * too many rows, a cell Excel cannot hold): the message names the file, and the sheet and cell when one
 * is at fault. `operation` is the function as a notebook calls it (`frames.readExcel`).
 */
export class ExcelError extends RiskPortalError {
  constructor(
    message: string,
    readonly file: string,
    operation: string,
    readonly sheet?: string,
    cause?: unknown,
  ) {
    super(`${operation}: ${message}`, { operation, cause });
  }
}
