/**
 * The upload direction's common part: a source (a danfo DataFrame, an array of objects, CSV text or a
 * CSV file) → rows keyed by wire field, with row numbers for errors; text cells converted to the type a
 * field needs (strictly: `"abc"` stays text, and the wire schema then says why it is wrong); zod issues
 * → `row 7: traded_price: expected number, got "abc"`.
 */
import type { z } from "zod";
import { MISSING, isMissing, namesValue } from "../api/field-messages";
import { formatPath } from "../api/operation";
import { preview } from "../table/column-table";
import { dateLabel } from "../table/iso-date";
import { parseCsv, readCsvFile, type CsvOptions, type CsvTable } from "./csv";
import { OperationFailedError, withOutcome } from "../client/errors";
import { CsvError, RowValidationError, sheetRef, type RowError } from "./errors";
import { readSheetCells, type SheetCells, type SheetOptions } from "./xlsx";

/** Anything with danfo's `columns` and row-major `values` (a danfo DataFrame). */
export interface DataFrameLike {
  columns: string[];
  values: unknown;
}

/**
 * Where upload rows come from: a danfo DataFrame, an array of objects, `{ csv: text }` or
 * `{ csvFile: path }` (with an optional `delimiter`).
 */
export type RowSource =
  | DataFrameLike
  | readonly Record<string, unknown>[]
  | ({ csv: string } & CsvOptions)
  | ({ csvFile: string } & CsvOptions);

/**
 * A sheet of an .xlsx workbook as an upload source: `{ xlsxFile: "marks.xlsx", sheet: "Bonds" }` (with
 * `range`, `header`, `maxRows` as `frames.readExcel` takes them). The helpers that take one answer with a
 * Promise (the workbook is read first); row errors name the cell (`Bonds!C7`).
 */
export type XlsxSource = { xlsxFile: string } & SheetOptions;

/** A workbook sheet already read (what an {@link XlsxSource} becomes before its rows are checked). */
export interface SheetSource {
  sheetCells: SheetCells;
}

/** True for `{ xlsxFile }`. */
export function isXlsxSource(source: unknown): source is XlsxSource {
  return typeof source === "object" && source !== null && !Array.isArray(source) && "xlsxFile" in source;
}

/** Reads the sheet of an {@link XlsxSource}; errors name the file and sheet, and `operation`. */
export async function loadSheet(source: XlsxSource, operation: string): Promise<SheetSource> {
  return { sheetCells: await readSheetCells(source.xlsxFile, source, operation) };
}

/** Where a sheet's rows are: its name, and each column's letter (normalised name → `C`). */
export interface SheetPlaces {
  name: string;
  letters: Record<string, string>;
  first: string;
  last: string;
}

/** Rows read from a source, keyed by normalised column name. */
export interface SourceRows {
  /** A workbook sheet: its name and column letters (`lines` then holds each row's sheet row). */
  sheet?: SheetPlaces;
  rows: Record<string, unknown>[];
  /** CSV: the line each row starts on, and the header's. */
  lines?: number[];
  headerLine?: number;
  /** Column names as normalised (for the unknown-column check). */
  columns: string[];
  /** Problems found while reading (a CSV row with the wrong number of cells). */
  errors: RowError[];
  /** Rows that could not be read at all (their errors are in `errors`). */
  unreadable: Set<number>;
}

/** `Traded Price` → `traded_price`: header cells and keys are trimmed, lower-cased, spaces and `-` → `_`. */
export function normaliseName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

function isDataFrameLike(source: unknown): source is DataFrameLike {
  return (
    typeof source === "object" &&
    source !== null &&
    !Array.isArray(source) &&
    Array.isArray((source as DataFrameLike).columns) &&
    Array.isArray((source as DataFrameLike).values)
  );
}

/** Reads any {@link RowSource} (or a sheet already read) into rows. */
export function readRows(source: RowSource | SheetSource): SourceRows {
  if (typeof source === "object" && source !== null && "sheetCells" in source) return sheetRows(source.sheetCells);
  if (Array.isArray(source)) {
    const columns: string[] = [];
    const rows = source.map((r) => {
      const out: Record<string, unknown> = {};
      if (typeof r !== "object" || r === null) return out;
      for (const [k, v] of Object.entries(r)) {
        const name = normaliseName(k);
        if (!columns.includes(name)) columns.push(name);
        out[name] = v;
      }
      return out;
    });
    const unreadable = new Set<number>();
    const errors: RowError[] = [];
    source.forEach((r, i) => {
      if (typeof r !== "object" || r === null || Array.isArray(r)) {
        unreadable.add(i);
        errors.push({ row: i, message: `expected an object, got ${preview(r)}` });
      }
    });
    return { rows, columns, errors, unreadable };
  }
  if (isDataFrameLike(source)) {
    const columns = source.columns.map(normaliseName);
    const values = source.values as unknown[][];
    const rows = values.map((cells) => {
      const out: Record<string, unknown> = {};
      columns.forEach((c, j) => (out[c] = Array.isArray(cells) ? cells[j] : undefined));
      return out;
    });
    return { rows, columns, errors: [], unreadable: new Set() };
  }
  if (typeof source === "object" && source !== null && ("csv" in source || "csvFile" in source)) {
    let table: CsvTable;
    try {
      table = "csv" in source ? parseCsv(source.csv, source) : readCsvFile(source.csvFile, source);
    } catch (error) {
      if (error instanceof CsvError)
        return {
          rows: [],
          columns: [],
          errors: [{ row: null, line: error.line, message: error.message.replace(/^line \d+: /, "") }],
          unreadable: new Set(),
        };
      throw error;
    }
    const columns = table.header.map(normaliseName);
    const errors: RowError[] = [];
    const unreadable = new Set<number>();
    const rows = table.records.map((cells, i) => {
      const out: Record<string, unknown> = {};
      if (cells.length !== columns.length) {
        unreadable.add(i);
        errors.push({
          row: i,
          line: table.lines[i],
          message: `has ${cells.length} cell${cells.length === 1 ? "" : "s"}, the header has ${columns.length}`,
        });
      }
      columns.forEach((c, j) => (out[c] = cells[j]));
      return out;
    });
    return { rows, lines: table.lines, headerLine: table.headerLine, columns, errors, unreadable };
  }
  throw new TypeError("expected a danfo DataFrame, an array of objects, { csv: text } or { csvFile: path }");
}

/**
 * A sheet's rows: `lines` are the sheet rows (1-based, as Excel shows them), the header's is `headerLine`.
 * A date cell becomes the text a CSV would hold (`2026-11-20` for a day, else the UTC instant), so a
 * sheet and a CSV of the same rows make the same records.
 */
function sheetRows(cells: SheetCells): SourceRows {
  const columns = cells.header.map(normaliseName);
  const rows = cells.rows.map((values) => {
    const out: Record<string, unknown> = {};
    columns.forEach((c, j) => {
      const v = values[j];
      out[c] = v instanceof Date ? dateLabel(v) : v;
    });
    return out;
  });
  const letters: Record<string, string> = Object.create(null) as Record<string, string>;
  columns.forEach((c, j) => (letters[c] = cells.letters[j]!));
  return {
    rows,
    lines: cells.rowNumbers,
    ...(cells.headerRow !== null ? { headerLine: cells.headerRow } : {}),
    columns,
    errors: [],
    unreadable: new Set(),
    sheet: { name: cells.sheet, letters, first: cells.letters[0] ?? "A", last: cells.letters.at(-1) ?? "A" },
  };
}

/**
 * Puts each error of a sheet's rows at its cell: the cell of the field's column (`C7`), the row's cells
 * (`A7:H7`) when no one column is at fault, the header cell for a column problem. `nested` is the wire
 * object the flat columns fill (`bond_identifier`: its `code` is the `code` column). Errors of other
 * sources are left as they are.
 */
export function placeInSheet(read: SourceRows, errors: Iterable<RowError>, nested: string): void {
  const sheet = read.sheet;
  if (!sheet) return;
  const columnOf = (field: string | undefined): string | undefined =>
    field === undefined
      ? undefined
      : read.columns.find(
          (c) =>
            c === field ||
            `${nested}.${c}` === field ||
            field.startsWith(`${c}[`) ||
            field.startsWith(`${c}.`) ||
            field.startsWith(`${nested}.${c}[`),
        );
  for (const e of errors) {
    if (e.sheet !== undefined || e.line === undefined) continue;
    const column = columnOf(e.field);
    e.sheet = sheet.name;
    e.cell =
      column !== undefined
        ? `${sheet.letters[column]}${e.line}`
        : e.row === null
          ? `${sheet.first}${e.line}`
          : `${sheet.first}${e.line}:${sheet.last}${e.line}`;
  }
}

/** The type a wire field needs, for converting text cells. */
export type FieldType = "number" | "boolean" | "date" | "string";

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const TRUE = new Set(["true", "yes", "y", "1"]);
const FALSE = new Set(["false", "no", "n", "0"]);

/** True for an absent cell: undefined, null, NaN (danfo's missing number) or empty text. */
export function isBlank(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === "number" && Number.isNaN(value)) ||
    (typeof value === "string" && value.trim() === "")
  );
}

/**
 * A cell converted to the field's type when it is unambiguously one (`"99.5"` → 99.5, `"TRUE"` →
 * true, `1` → true for a boolean); a blank cell → `undefined`; anything else unchanged, so the schema
 * reports it with the value the user wrote.
 */
export function convertCell(value: unknown, type: FieldType): unknown {
  if (isBlank(value)) return undefined;
  if (type === "number" && typeof value === "string" && NUMBER.test(value.trim())) return Number(value.trim());
  if (type === "boolean") {
    if (typeof value === "string") {
      const v = value.trim().toLowerCase();
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
    }
    if (value === 1) return true;
    if (value === 0) return false;
  }
  return value;
}

/** One zod issue as a row error: `expected number, got "abc"`, `missing`, or the schema's own message. */
export function issueToRowError(
  issue: z.core.$ZodIssue,
  row: number,
  line: number | undefined,
  pathPrefix: readonly PropertyKey[] = [],
): RowError {
  const path = [...pathPrefix, ...issue.path];
  const input = (issue as { input?: unknown }).input;
  let message: string;
  if (isMissing(issue)) message = MISSING;
  else if (issue.code === "invalid_type") message = `expected ${issue.expected}, got ${preview(input)}`;
  else if (
    input !== undefined &&
    (typeof input !== "object" || input instanceof Date) &&
    !namesValue(issue.message, input)
  )
    message = `${issue.message}, got ${preview(input)}`;
  else message = issue.message;
  const out: RowError = { row, message };
  if (line !== undefined) out.line = line;
  if (path.length > 0) out.field = formatPath(path);
  return out;
}

/** Errors in reading order: whole-table problems first, then by row. */
export function byRow(errors: RowError[]): RowError[] {
  return errors
    .map((e, k) => ({ e, k }))
    .sort((a, b) => (a.e.row ?? -1) - (b.e.row ?? -1) || a.k - b.k)
    .map(({ e }) => e);
}

export interface RecordsFromRowsOptions {
  /** A column that maps to no wire field: `error` (default, it may be a misspelt field) or `ignore`. */
  unknownColumns?: "error" | "ignore";
}

/** Column-name problems, reported once for the table. */
export function unknownColumnErrors(
  read: SourceRows,
  known: Record<string, unknown>,
  nested: readonly string[],
  unknown: "error" | "ignore" | undefined,
): RowError[] {
  if (unknown === "ignore") return [];
  const bad = read.columns.filter((c) => !(c in known) && !nested.includes(c));
  const expected = Object.keys(known)
    .filter((k) => !k.includes("."))
    .join(", ");
  return bad.map((c) => ({
    row: null,
    ...(read.headerLine !== undefined ? { line: read.headerLine } : {}),
    field: c,
    message: `unknown column; expected ${expected} (pass { unknownColumns: "ignore" } to skip it)`,
  }));
}

/**
 * A validated record without the `$type` tags the schema adds: the records a helper returns read as the
 * caller's data; the client tags them again (in its brand) when it sends them.
 */
export function withoutTypeTags<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutTypeTags) as T;
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== "$type") out[k] = withoutTypeTags(v);
  return out as T;
}

/** What a source is called in a message: re-sending "the whole file" (or sheet, CSV text, frame, array). */
function sourceNoun(source: RowSource | XlsxSource): string {
  if (Array.isArray(source)) return "array";
  if (isDataFrameLike(source)) return "frame";
  if ("xlsxFile" in source) return "sheet";
  return "csvFile" in source ? "file" : "CSV text";
}

/** `bond_data[3]: unknown bond` → `unknown bond`; `equity_vol_curves[1].vols[0]: 9` → `vols[0]: 9`. */
function withoutRecordPrefix(message: string): string {
  return message.replace(/^\s*[A-Za-z_$][\w$]*\[\d+\](?:\.|:\s*)?/, "");
}

/**
 * A best-effort upload the service stored in part, said in the source's terms: the rejected records'
 * rows (and CSV lines), and that re-sending the whole source would store the others again. `recordRows[i]`
 * are the rows record `i` was built from. Any other error is returned as it is.
 */
export function inSourceTerms(
  error: unknown,
  source: RowSource | XlsxSource,
  recordRows: readonly (readonly number[])[],
  lines?: readonly (number | undefined)[],
  sheet?: string,
): unknown {
  if (!(error instanceof OperationFailedError) || error.outcome !== "partially-applied" || !error.rejected)
    return error;
  const rejected = error.rejected.map((r) => ({ ...r, rows: [...(recordRows[r.index] ?? [])] }));
  const where = (rows: number[]) => {
    const line = rows.length === 1 ? lines?.[rows[0]!] : undefined;
    const named = `row${rows.length === 1 ? "" : "s"} ${rows.join(", ")}`;
    if (line === undefined) return named;
    return sheet === undefined ? `line ${line} (${named})` : `${sheetRef(sheet)} row ${line} (${named})`;
  };
  const shown = rejected.slice(0, 5).map((r) => `${where(r.rows)}: ${r.messages.map(withoutRecordPrefix).join("; ")}`);
  if (rejected.length > 5) shown.push(`… and ${rejected.length - 5} more`);
  const rows = rejected.flatMap((r) => r.rows);
  const { stored, sent } = error as { stored: number; sent: number };
  const message =
    `${error.operation} partially applied: ${stored} of the ${sent} records were stored, ${rejected.length} rejected — ${shown.join("; ")}. ` +
    `The ${stored} stored are on the service now: re-sending the whole ${sourceNoun(source)} would store the ${stored} again; send only the rejected row${rows.length === 1 ? "" : "s"} (${rows.slice(0, 20).join(", ")}${rows.length > 20 ? ", …" : ""}), fixed.`;
  const { operation, method, url, status, requestId, body, outcome } = error;
  return new OperationFailedError(
    message,
    { operation, method, url, status, requestId, body, outcome, cause: error.cause },
    error.errorMessages,
    {
      sent,
      stored,
      rejected,
    },
  );
}

/** Rows refused before anything was sent: a write's error says it was not applied. */
export function notSent(error: RowValidationError): RowValidationError {
  return withOutcome(error, "not-applied");
}

/** Throws, before anything is sent, when rows were refused or there is no record to upload. */
export function refuseBeforeSending(operation: string, errors: RowError[], records: number): void {
  if (errors.length > 0) throw notSent(new RowValidationError(operation, errors));
  if (records === 0)
    throw notSent(new RowValidationError(operation, [{ row: null, message: "no rows: there is nothing to upload" }]));
}
