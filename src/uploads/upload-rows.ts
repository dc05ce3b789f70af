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
import { parseCsv, readCsvFile, type CsvOptions, type CsvTable } from "./csv";
import { OperationFailedError, withOutcome } from "../client/errors";
import { CsvError, RowValidationError, type RowError } from "./errors";

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

/** Rows read from a source, keyed by normalised column name. */
export interface SourceRows {
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

/** Reads any {@link RowSource} into rows. */
export function readRows(source: RowSource): SourceRows {
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

/** What a source is called in a message: re-sending "the whole file" (or CSV text, frame, array). */
function sourceNoun(source: RowSource): string {
  if (Array.isArray(source)) return "array";
  if (isDataFrameLike(source)) return "frame";
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
  source: RowSource,
  recordRows: readonly (readonly number[])[],
  lines?: readonly (number | undefined)[],
): unknown {
  if (!(error instanceof OperationFailedError) || error.outcome !== "partially-applied" || !error.rejected)
    return error;
  const rejected = error.rejected.map((r) => ({ ...r, rows: [...(recordRows[r.index] ?? [])] }));
  const where = (rows: number[]) => {
    const line = rows.length === 1 ? lines?.[rows[0]!] : undefined;
    const named = `row${rows.length === 1 ? "" : "s"} ${rows.join(", ")}`;
    return line === undefined ? named : `line ${line} (${named})`;
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
