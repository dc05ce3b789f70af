/**
 * Bond prices from a DataFrame, an array of objects or a CSV file → validated `bond_data` records,
 * every invalid row reported before anything is sent. Validation is the wire schema's
 * (`bondPriceRecord`), so the rules live in one place.
 */
import { bondPriceRecord, type BondPriceRecord } from "../api/market-data";
import type { OperationOutcome } from "../api/common";
import { isRecord } from "../api/operation";
import type { CallOptions } from "../client/pipeline";
import type { RiskPortalClient } from "../client/client";
import {
  byRow,
  convertCell,
  inSourceTerms,
  isBlank,
  isXlsxSource,
  loadSheet,
  placeInSheet,
  refuseBeforeSending,
  issueToRowError,
  readRows,
  unknownColumnErrors,
  withoutTypeTags,
  type FieldType,
  type RecordsFromRowsOptions,
  type RowSource,
  type SheetSource,
  type XlsxSource,
} from "./upload-rows";
import type { RowError } from "./errors";
import { rejectionsTable } from "./rejections";
import type { ColumnTable } from "../table/column-table";

/** A flat column and the wire field it fills (dotted for the identifier). */
interface ColumnMap {
  path: readonly [string] | readonly [string, string];
  type: FieldType;
}

const ID = "bond_identifier";
/** Accepted column names (after normalising: trimmed, lower case, spaces → `_`). */
const BOND_COLUMNS: Record<string, ColumnMap> = {
  date: { path: ["date"], type: "date" },
  code: { path: [ID, "code"], type: "string" },
  market_identification_code: { path: [ID, "market_identification_code"], type: "string" },
  identifier_type: { path: [ID, "identifier_type"], type: "string" },
  is_currency_per_bond_unit: { path: ["is_currency_per_bond_unit"], type: "boolean" },
  currency: { path: ["currency"], type: "string" },
  traded_price: { path: ["traded_price"], type: "number" },
  is_percentage_of_par: { path: ["is_percentage_of_par"], type: "boolean" },
};
for (const key of ["code", "market_identification_code", "identifier_type"])
  BOND_COLUMNS[`${ID}.${key}`] = BOND_COLUMNS[key]!;

export interface BondPriceRecordsResult {
  /** The valid records, in wire form (dates as ISO strings; an `identifier_type` left blank is left out). */
  records: BondPriceRecord[];
  /**
   * Every problem, by row; empty when all rows are valid. Rows with one date and code but other values
   * (conflicting duplicates) are all refused here: nothing says which one is meant.
   */
  errors: RowError[];
  /** Rows that repeat an earlier row exactly (same date, code and values): left out, the first is sent once. */
  duplicates: RowError[];
  /** For each record, the row it came from. */
  rows: number[];
  /** Rows read from the source (valid or not). */
  rowsRead: number;
  /** CSV sources: the line each row starts on, by row; a workbook: each row's sheet row. */
  lines?: number[];
  /** A workbook source: the sheet read (errors name its cells: `Bonds!C7`). */
  sheet?: string;
}

/**
 * Bond price rows → `bond_data` records. Columns: `date, code, market_identification_code,
 * identifier_type` (or `bond_identifier.code` …, or a `bond_identifier` object), `is_currency_per_bond_unit,
 * currency, traded_price, is_percentage_of_par`. Text cells become numbers / booleans when they
 * plainly are (`"99.5"`, `"TRUE"`, `"yes"`, `1`); blank cells are missing. Every row is checked. One date
 * and code once: a row repeating another exactly is left out and listed in `duplicates` (sent once); rows
 * of one date and code with other values are all refused, in `errors`. A workbook sheet
 * (`{ xlsxFile, sheet }`) is read first, so the answer is then a Promise; its errors name their cells.
 * @example
 * ```ts
 * const { records, errors } = frames.bondPriceRecords({ csvFile: "prices.csv" });
 * errors.map(frames.formatRowError); // "line 9 (row 7): traded_price: expected number, got \"abc\""
 * ```
 */
export function bondPriceRecords(source: XlsxSource, options?: RecordsFromRowsOptions): Promise<BondPriceRecordsResult>;
export function bondPriceRecords(
  source: RowSource | SheetSource,
  options?: RecordsFromRowsOptions,
): BondPriceRecordsResult;
export function bondPriceRecords(
  source: RowSource | SheetSource | XlsxSource,
  options: RecordsFromRowsOptions = {},
): BondPriceRecordsResult | Promise<BondPriceRecordsResult> {
  if (isXlsxSource(source))
    return loadSheet(source, "frames.bondPriceRecords").then((sheet) => bondPriceRecords(sheet, options));
  const read = readRows(source);
  const errors: RowError[] = [...unknownColumnErrors(read, BOND_COLUMNS, [ID], options.unknownColumns), ...read.errors];
  const records: BondPriceRecord[] = [];
  const rows: number[] = [];
  read.rows.forEach((row, i) => {
    if (read.unreadable.has(i)) return;
    const line = read.lines?.[i];
    const candidate: Record<string, unknown> = {};
    const identifier: Record<string, unknown> = isRecord(row[ID]) ? { ...row[ID] } : {};
    for (const [column, value] of Object.entries(row)) {
      const map = BOND_COLUMNS[column];
      if (!map) continue;
      const converted = convertCell(value, map.type);
      if (converted === undefined) continue;
      if (map.path.length === 2) identifier[map.path[1]] = converted;
      else candidate[map.path[0]] = converted;
    }
    // A blank identifier_type means "the service's default" (the brand's own identifiers).
    if (isBlank(identifier.identifier_type)) delete identifier.identifier_type;
    candidate[ID] = identifier;
    const parsed = bondPriceRecord.safeParse(candidate, { reportInput: true });
    if (parsed.success) {
      records.push(parsed.data);
      rows.push(i);
    } else {
      for (const issue of parsed.error.issues) errors.push(issueToRowError(issue, i, line));
    }
  });
  const unique = withoutDuplicates(withoutTypeTags(records), rows, read.lines, errors);
  placeInSheet(read, [...errors, ...unique.duplicates], ID);
  return {
    records: unique.records,
    errors: byRow(errors),
    duplicates: unique.duplicates,
    rows: unique.rows,
    rowsRead: read.rows.length,
    ...(read.lines ? { lines: read.lines } : {}),
    ...(read.sheet ? { sheet: read.sheet.name } : {}),
  };
}

/** A wire date as a person wrote it: the day alone when it is midnight UTC. */
function shownDate(date: string): string {
  return date.endsWith("T00:00:00Z") ? date.slice(0, 10) : date;
}

/** The fields (dotted) a bond record can differ in besides its key (date + code), in the order they are named. */
const COMPARED: readonly (readonly [string, (r: BondPriceRecord) => unknown])[] = [
  ["traded_price", (r) => r.traded_price],
  ["currency", (r) => r.currency],
  ["is_percentage_of_par", (r) => r.is_percentage_of_par],
  ["is_currency_per_bond_unit", (r) => r.is_currency_per_bond_unit],
  [`${ID}.market_identification_code`, (r) => r.bond_identifier.market_identification_code],
  [`${ID}.identifier_type`, (r) => r.bond_identifier.identifier_type],
];

/**
 * Records with one key (date + code) once: an exact repeat is dropped and reported in `duplicates`
 * (sent once); records of one key that differ are all refused (an error on each, naming the others and
 * what differs), as nothing says which one is meant.
 */
function withoutDuplicates(
  records: BondPriceRecord[],
  rows: number[],
  lines: readonly number[] | undefined,
  errors: RowError[],
): { records: BondPriceRecord[]; rows: number[]; duplicates: RowError[] } {
  const at = (k: number, message: string, field?: string): RowError => ({
    row: rows[k]!,
    ...(lines?.[rows[k]!] !== undefined ? { line: lines[rows[k]!] } : {}),
    ...(field ? { field } : {}),
    message,
  });
  const byKey = new Map<string, number[]>();
  records.forEach((r, k) => {
    const key = `${r.date}\u0000${r.bond_identifier.code}`;
    byKey.set(key, [...(byKey.get(key) ?? []), k]);
  });
  const drop = new Set<number>();
  const duplicates: RowError[] = [];
  for (const members of byKey.values()) {
    if (members.length < 2) continue;
    const first = records[members[0]!]!;
    const differ = (a: BondPriceRecord, b: BondPriceRecord) => COMPARED.find(([, get]) => get(a) !== get(b));
    const what = `date ${shownDate(first.date)} and code ${first.bond_identifier.code}`;
    if (members.every((k) => !differ(records[k]!, first))) {
      for (const k of members.slice(1)) {
        drop.add(k);
        duplicates.push(
          at(
            k,
            `exact duplicate of row ${rows[members[0]!]} (date ${shownDate(first.date)}, code ${first.bond_identifier.code}): sent once`,
          ),
        );
      }
      continue;
    }
    for (const k of members) {
      drop.add(k);
      const others = members.flatMap((o) => {
        const field = differ(records[o]!, records[k]!);
        return field ? [{ o, field }] : [];
      });
      const said = others
        .map(
          ({ o, field: [name, get] }) =>
            `row ${rows[o]} with ${name} ${String(get(records[o]!))} (${String(get(records[k]!))} here)`,
        )
        .join(", ");
      errors.push(
        at(
          k,
          `${what} are also on ${said}: conflicting duplicates are refused, none of them is sent; keep the one you mean`,
          others[0]!.field[0],
        ),
      );
    }
  }
  return {
    records: records.filter((_, k) => !drop.has(k)),
    rows: rows.filter((_, k) => !drop.has(k)),
    duplicates,
  };
}

export interface UploadBondPricesOptions extends RecordsFromRowsOptions, Omit<CallOptions, "throwOnFailure"> {
  /** A18; default false (all-or-nothing). */
  use_best_effort?: boolean;
  /** A19; default false. */
  trigger_immediate_bootstrap?: boolean;
  /** Throw `OperationFailedError` when the service answers `is_success: false` (default) or return the outcome. */
  throwOnFailure?: boolean;
  /**
   * Default false: any invalid row refuses the whole source (nothing sent). True: send the valid rows and
   * answer with one table of every row not stored and why, local and service (see `rejectionsTable`);
   * with `use_best_effort: true` the service too stores what it can.
   */
  skipInvalid?: boolean;
}

/**
 * Validates bond price rows and uploads them. By default, when any row is invalid, throws
 * {@link RowValidationError} listing every bad row and sends nothing. With `skipInvalid: true`, sends
 * the valid rows (an exact duplicate once) and returns one table of the rows not stored, local and
 * service: columns `row, line, field, reason, source`, counts in `meta.fields`, duplicates and the
 * service's notes in `meta.warnings`.
 *
 * `traded_price` is a price in percent of par, clean (without accrued interest), as bond markets quote:
 * neither the spec nor the public reference says clean or dirty; `TRADED_PRICE`.
 *
 * @example
 * ```ts
 * const outcome = await frames.uploadBondPrices(rp, { csvFile: "prices.csv" });
 * await frames.uploadBondPrices(rp, { xlsxFile: "marks.xlsx", sheet: "Bonds" }); // errors name cells: Bonds!G7
 * const rejected = await frames.uploadBondPrices(rp, { csvFile: "prices.csv" }, { use_best_effort: true, skipInvalid: true });
 * ```
 */
export async function uploadBondPrices(
  rp: RiskPortalClient,
  source: RowSource | XlsxSource,
  options: UploadBondPricesOptions & { skipInvalid: true },
): Promise<ColumnTable>;
export async function uploadBondPrices(
  rp: RiskPortalClient,
  source: RowSource | XlsxSource,
  options?: UploadBondPricesOptions,
): Promise<OperationOutcome>;
export async function uploadBondPrices(
  rp: RiskPortalClient,
  source: RowSource | XlsxSource,
  options: UploadBondPricesOptions = {},
): Promise<OperationOutcome | ColumnTable> {
  const { unknownColumns, use_best_effort, trigger_immediate_bootstrap, skipInvalid, ...callOptions } = options;
  const loaded = isXlsxSource(source) ? await loadSheet(source, "frames.uploadBondPrices") : source;
  const { records, errors, duplicates, rows, rowsRead, lines, sheet } = bondPriceRecords(loaded, { unknownColumns });
  const body = {
    // Only the flags the caller set: the service applies its own defaults (best effort off, bootstrap on).
    ...(use_best_effort === undefined ? {} : { use_best_effort }),
    ...(trigger_immediate_bootstrap === undefined ? {} : { trigger_immediate_bootstrap }),
    bond_data: records,
  };
  if (skipInvalid) {
    const outcome =
      records.length === 0
        ? undefined
        : await rp.marketData.uploadBondPrices(body, { ...callOptions, throwOnFailure: false });
    return rejectionsTable({
      operation: "UploadBondPriceData",
      field: "bond_data",
      rowsRead,
      errors,
      notSent: [],
      duplicates,
      recordRows: rows.map((row) => [row]),
      ...(lines ? { lines } : {}),
      ...(outcome ? { outcome } : {}),
      ...(use_best_effort === undefined ? {} : { useBestEffort: use_best_effort }),
    });
  }
  refuseBeforeSending("UploadBondPriceData", errors, records.length);
  return rp.marketData.uploadBondPrices(body, callOptions).catch((error: unknown) => {
    throw inSourceTerms(
      error,
      source,
      rows.map((row) => [row]),
      lines,
      sheet,
    );
  });
}
