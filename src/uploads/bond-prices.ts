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
  refuseBeforeSending,
  issueToRowError,
  readRows,
  unknownColumnErrors,
  withoutTypeTags,
  type FieldType,
  type RecordsFromRowsOptions,
  type RowSource,
} from "./upload-rows";
import type { RowError } from "./errors";

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
  /** Every problem, by row; empty when all rows are valid. */
  errors: RowError[];
  /** For each record, the row it came from. */
  rows: number[];
  /** CSV sources: the line each row starts on, by row. */
  lines?: number[];
}

/**
 * Bond price rows → `bond_data` records. Columns: `date, code, market_identification_code,
 * identifier_type` (or `bond_identifier.code` …, or a `bond_identifier` object), `is_currency_per_bond_unit,
 * currency, traded_price, is_percentage_of_par`. Text cells become numbers / booleans when they
 * plainly are (`"99.5"`, `"TRUE"`, `"yes"`, `1`); blank cells are missing. Every row is checked.
 */
export function bondPriceRecords(source: RowSource, options: RecordsFromRowsOptions = {}): BondPriceRecordsResult {
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
  return {
    records: withoutTypeTags(records),
    errors: byRow(errors),
    rows,
    ...(read.lines ? { lines: read.lines } : {}),
  };
}

export interface UploadBondPricesOptions extends RecordsFromRowsOptions, Omit<CallOptions, "throwOnFailure"> {
  /** A18; default false (all-or-nothing). */
  use_best_effort?: boolean;
  /** A19; default false. */
  trigger_immediate_bootstrap?: boolean;
  /** Throw `OperationFailedError` when the service answers `is_success: false` (default) or return the outcome. */
  throwOnFailure?: boolean;
}

/**
 * Validates bond price rows and uploads them; when any row is invalid, throws {@link RowValidationError}
 * listing every bad row and sends nothing.
 *
 * ```ts
 * const outcome = await frames.uploadBondPrices(rp, { csvFile: "prices.csv" });
 * ```
 */
export async function uploadBondPrices(
  rp: RiskPortalClient,
  source: RowSource,
  options: UploadBondPricesOptions = {},
): Promise<OperationOutcome> {
  const { unknownColumns, use_best_effort, trigger_immediate_bootstrap, ...callOptions } = options;
  const { records, errors, rows, lines } = bondPriceRecords(source, { unknownColumns });
  refuseBeforeSending("UploadBondPriceData", errors, records.length);
  return rp.marketData
    .uploadBondPrices(
      {
        // Only the flags the caller set: the service applies its own defaults (best effort off, bootstrap on).
        ...(use_best_effort === undefined ? {} : { use_best_effort }),
        ...(trigger_immediate_bootstrap === undefined ? {} : { trigger_immediate_bootstrap }),
        bond_data: records,
      },
      callOptions,
    )
    .catch((error: unknown) => {
      throw inSourceTerms(
        error,
        source,
        rows.map((row) => [row]),
        lines,
      );
    });
}
