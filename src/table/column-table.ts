/**
 * The column-wise intermediate every adapter builds before (optionally) handing it to danfo: plain
 * arrays, one per column, in column order. Usable on its own — a plot or the vol code can take a
 * column without loading danfo.
 *
 * Missing values: `NaN` in `number` columns (JSON cannot carry NaN, so a NaN there always means the
 * value was null or absent on the wire — danfo's convention, and arithmetic propagates it), `null` in
 * every other kind. A value that does not fit its column's kind is never converted: the column is kept
 * as received (`mixed`) and a warning says where.
 */
import { namedDateProblem } from "../api/field-messages";
import { parseIsoDate } from "./iso-date";

/**
 * One record of where a table's rows came from. The table room carries these records and never reads
 * them: the client says what one holds (`Provenance`) and the frames room's provenance module
 * merges that into this interface, so `meta.provenance` is a `Provenance[]` wherever the package is used.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging (above)
export interface TableProvenance {}

/** Marks a value as displayable in a notebook kernel; the display layer registers its own (`makeDisplayable`). */
export type DisplayMarker = <T extends object>(value: T) => T;

let markDisplayable: DisplayMarker = (value) => value;

/**
 * Registers what every table (and diff) this room builds goes through last: the display layer gives them
 * Deno's `Symbol.for("Jupyter.display")` when it loads. The table room itself knows no kernel.
 */
export function setDisplayMarker(mark: DisplayMarker): void {
  markDisplayable = mark;
}

/** `value`, marked displayable by whatever the display layer registered (itself until then). */
export function displayable<T extends object>(value: T): T {
  return markDisplayable(value);
}

/**
 * What a column holds:
 * - `number`: finite numbers, `NaN` = missing
 * - `string`: text, `null` = missing
 * - `category`: text from a known set of levels (see `meta.categories`), `null` = missing
 * - `boolean`: `true`/`false`, `null` = missing
 * - `date`: `Date` (the instant; the original offset is not kept), `null` = missing
 * - `mixed`: values as received (e.g. numbers and text), `null` = missing — see `meta.warnings`
 * - `empty`: every value missing (`null`)
 */
export type ColumnKind = "number" | "string" | "category" | "boolean" | "date" | "mixed" | "empty";

/**
 * Something a table kept as received instead of converting it, and where: data, not prose to be
 * rewritten. `row` counts in the table that holds the warning (a streamed table's batches number their
 * rows from where the batch starts); `message` says it in words, the row and column included, and is
 * what a display, a DataFrame's `frameInfo(df).warnings` and printed results show (`formatWarning`).
 */
export interface TableWarning {
  /** The row at fault (0-based), when one row is. */
  row?: number;
  /** The column at fault, when one column is. */
  column?: string;
  message: string;
}

/** A warning as it is shown: its message (a plain string, from a table written before warnings were records, as is). */
export function formatWarning(warning: TableWarning | string): string {
  return typeof warning === "string" ? warning : warning.message;
}

/**
 * Warnings without repeats (the same message once), strings read as warnings without a row or column:
 * what a table read back from Arrow or Parquet keeps of the warnings written with it and its own.
 */
export function uniqueWarnings(warnings: readonly (TableWarning | string)[]): TableWarning[] {
  const seen = new Set<string>();
  const out: TableWarning[] = [];
  for (const w of warnings) {
    const warning = typeof w === "string" ? { message: w } : w;
    if (seen.has(warning.message)) continue;
    seen.add(warning.message);
    out.push(warning);
  }
  return out;
}

/** Facts about a table that do not fit in its columns. */
export interface TableMeta {
  /** Where the rows came from: the operation name (`RateAsset`) or the helper that built them. */
  source: string;
  /** The level list of each `category` column: known levels in their natural order, then any others seen. */
  categories: Record<string, string[]>;
  /** Number of missing values per column. */
  missing: Record<string, number>;
  /** Everything that was kept as received instead of converted, where, and why (one record each). */
  warnings: TableWarning[];
  /** Transaction tables: the layout the rows arrived in (wire-assumptions A13). */
  shape?: TableShape;
  /** Response fields that are not columns (`$type`, `latest_market_date`, …), as received. */
  fields: Record<string, unknown>;
  /**
   * Where the responses behind the rows came from (operation, canonical request, time received, source,
   * server), one entry per response, in request order; `[]` when the input carried none (a part of a
   * response, a local model's grid, hand-made rows).
   */
  provenance: TableProvenance[];
}

/** Layouts of a transaction table (A13): rows of objects, `{columns, rows}`, `{columns, data}`, `{col: [...]}`. */
export type TableShape = "rows" | "columns+rows" | "columns+data" | "column-major" | "empty";

/** Column-wise table: `data[name]` is a plain array of `rowCount` values, `kinds[name]` says what they are. */
export interface ColumnTable {
  /** Column names, in order (for transaction tables: the order received). */
  columns: string[];
  data: Record<string, unknown[]>;
  kinds: Record<string, ColumnKind>;
  rowCount: number;
  meta: TableMeta;
}

/**
 * A column of a {@link TypedColumnTable}: a `Float64Array` for a `number` column (`NaN` = missing) and for
 * a `date` column (each date as its milliseconds since 1970-01-01 UTC, `NaN` = missing); a plain array,
 * as in a {@link ColumnTable}, for every other kind.
 */
export type TypedColumn = Float64Array | unknown[];

/**
 * A column table whose `number` and `date` columns are `Float64Array`s (see {@link TypedColumn}): what
 * `queryColumns(sql, { typed: true })` and `readParquetColumns(path, { typed: true })` give, read from
 * DuckDB without a JS value per cell. Same columns, kinds, row count and meta as the untyped result.
 * `typed: true` tells it from a {@link ColumnTable}, which it is not (`isColumnTable` says false): the
 * library's functions that take a column table take it too (`toDataFrame`, `toArrow`, `writeParquet`, an
 * SQL source, the charts, `plot.show`, `diff`, `pivot`, `concatColumns`, `valuesOf`), converting what they
 * need; `frames.plainColumns(table)` gives the plain table (a `Date` per date).
 */
export interface TypedColumnTable {
  /** Column names, in order. */
  columns: string[];
  data: Record<string, TypedColumn>;
  kinds: Record<string, ColumnKind>;
  rowCount: number;
  meta: TableMeta;
  readonly typed: true;
}

/** What an adapter expects of a column; `auto` infers it from the values. */
export type ColumnHint = "auto" | "number" | "string" | "boolean" | "date" | "category";

export interface FinishOptions {
  /** What the adapter expects (default `auto`: infer). */
  hint?: ColumnHint;
  /** `raw` is the caller's scratch array and may be rewritten in place (default false: copy first). */
  owned?: boolean;
  /** Known category levels, in order (for `category` columns). */
  levels?: readonly string[];
  /** With `auto`, read a text column whose values are all ISO 8601 dates as dates (default true). */
  detectDates?: boolean;
  /** The table row of `raw[0]`, for the rows warnings name (default 0; a streamed batch's first row). */
  firstRow?: number;
}

export interface FinishedColumn {
  values: unknown[];
  kind: ColumnKind;
  missing: number;
  /** The category levels, for `category` columns. */
  levels?: string[];
  warning?: TableWarning;
}

const MAX_PREVIEW = 40;

/** `"abc"`, `12`, `{…}`: a short rendering of a value for warnings and errors. */
export function preview(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  let text: string;
  try {
    text =
      typeof value === "string"
        ? JSON.stringify(value)
        : typeof value === "object" && value !== null
          ? JSON.stringify(value)
          : String(value);
  } catch {
    // Nested too deep for JSON.stringify: String() of such an array overflows the stack as well.
    text = Array.isArray(value) ? "[…]" : typeof value === "object" && value !== null ? "{…}" : String(value);
  }
  return text.length > MAX_PREVIEW ? `${text.slice(0, MAX_PREVIEW - 1)}…` : text;
}

/**
 * Turns the raw values of one column into its final form (see {@link ColumnKind}) in one scan, plus a
 * conversion pass for dates. `raw` may have holes or `undefined` (a row without the field): both are
 * missing. When `owned` is true `raw` may be rewritten in place (it is the caller's scratch array);
 * otherwise a copy is made before anything changes.
 */
export function finishColumn(name: string, raw: unknown[], options: FinishOptions = {}): FinishedColumn {
  const { hint = "auto", owned = false, levels: knownLevels = [], detectDates = true, firstRow = 0 } = options;
  const n = raw.length;
  let numbers = 0;
  let strings = 0;
  let booleans = 0;
  let dates = 0;
  let missing = 0;
  let others = 0;
  let firstString = -1;
  let firstNumber = -1;
  let firstOther = -1;
  for (let i = 0; i < n; i++) {
    const v = raw[i];
    if (v === null || v === undefined || v !== v)
      missing++; // v !== v: NaN, missing in a finished number column
    else {
      const t = typeof v;
      if (t === "number") {
        if (firstNumber < 0) firstNumber = i;
        numbers++;
      } else if (t === "string") {
        if (firstString < 0) firstString = i;
        strings++;
      } else if (t === "boolean") booleans++;
      else if (v instanceof Date) dates++;
      else {
        if (firstOther < 0) firstOther = i;
        others++;
      }
    }
  }
  const present = n - missing;

  if (present === 0) {
    return { values: missingAs(raw, null, owned, missing), kind: "empty", missing };
  }
  if (numbers === present && hint !== "string" && hint !== "category" && hint !== "date" && hint !== "boolean") {
    return { values: missingAs(raw, NaN, owned, missing), kind: "number", missing };
  }
  if (booleans === present && (hint === "auto" || hint === "boolean")) {
    return { values: missingAs(raw, null, owned, missing), kind: "boolean", missing };
  }
  if (dates === present && (hint === "auto" || hint === "date")) {
    return { values: missingAs(raw, null, owned, missing), kind: "date", missing };
  }
  if (strings === present && hint !== "number" && hint !== "boolean") {
    if (hint === "category") {
      const values = missingAs(raw, null, owned, missing) as (string | null)[];
      return { values, kind: "category", missing, levels: levelsOf(values, knownLevels) };
    }
    if (hint === "date" || (hint === "auto" && detectDates && isDateText(raw[firstString] as string))) {
      const converted = toDates(raw);
      if (converted.bad < 0) return { values: converted.values, kind: "date", missing };
      const warning = notADateWarning(name, firstRow + converted.bad, raw[converted.bad], hint);
      return { values: missingAs(raw, null, owned, missing), kind: "string", missing, warning };
    }
    return { values: missingAs(raw, null, owned, missing), kind: "string", missing };
  }

  // Mixed, or not what the adapter expected: keep every value as received and say so.
  const values = missingAs(raw, null, owned, missing);
  return {
    values,
    kind: "mixed",
    missing,
    warning: mixedWarning(
      name,
      hint,
      { numbers, strings, booleans, dates, others },
      { firstString, firstNumber, firstOther },
      raw,
      firstRow,
    ),
  };
}

/**
 * What a text column whose values are not all dates says: `value` at `row` is the first that is not one
 * (`hint` "date": the column was expected to hold dates; else its earlier values are dates).
 */
export function notADateWarning(name: string, row: number, value: unknown, hint: ColumnHint): TableWarning {
  const why = namedDateProblem(value);
  const message = `column "${name}": value at row ${row} (${preview(value)}) is not an ISO 8601 date${why ? ` (${why})` : ""}${hint === "date" ? "" : ", though earlier values are"}; the column is kept as text`;
  return { row, column: name, message };
}

/**
 * What a column kept as received (`mixed`) says: how many values of each kind it holds, and the value
 * that breaks the expectation. `first`: the first row holding each kind (-1: none), counted from 0 in
 * `raw`, which needs hold only those rows' values; `firstRow`: the number of `raw`'s first row.
 */
export function mixedWarning(
  name: string,
  hint: ColumnHint,
  counts: { numbers: number; strings: number; booleans: number; dates: number; others: number },
  first: { firstString: number; firstNumber: number; firstOther: number },
  raw: Readonly<Record<number, unknown>>,
  firstRow: number,
): TableWarning {
  const parts: string[] = [];
  if (counts.numbers) parts.push(`${counts.numbers} number${counts.numbers > 1 ? "s" : ""}`);
  if (counts.strings) parts.push(`${counts.strings} text value${counts.strings > 1 ? "s" : ""}`);
  if (counts.booleans) parts.push(`${counts.booleans} boolean${counts.booleans > 1 ? "s" : ""}`);
  if (counts.dates) parts.push(`${counts.dates} date${counts.dates > 1 ? "s" : ""}`);
  if (counts.others)
    parts.push(`${counts.others} object${counts.others > 1 ? "s" : ""}/array${counts.others > 1 ? "s" : ""}`);
  // Point at the value that breaks the expectation: text in a number column, else the first odd one.
  let at = first.firstOther;
  if (hint === "number" || (counts.numbers > counts.strings && first.firstString >= 0))
    at = first.firstString >= 0 ? first.firstString : at;
  else if (at < 0)
    at = first.firstNumber >= 0 && counts.strings >= counts.numbers ? first.firstNumber : first.firstString;
  const expected = hint === "auto" ? "" : ` (expected ${hint})`;
  const where = at >= 0 ? `, e.g. row ${firstRow + at}: ${preview(raw[at])}` : "";
  const message = `column "${name}"${expected} holds ${parts.join(", ")}${where}; kept as received, nothing converted`;
  return at >= 0 ? { row: firstRow + at, column: name, message } : { column: name, message };
}

/** True when the text reads as an ISO date (checked on a column's first value before converting it all). */
function isDateText(text: string): boolean {
  return !Number.isNaN(parseIsoDate(text));
}

/** Every string → Date (missing → null); `bad` is the row of the first non-date string, or -1. */
function toDates(raw: unknown[]): { values: (Date | null)[]; bad: number } {
  const n = raw.length;
  const values = new Array<Date | null>(n);
  for (let i = 0; i < n; i++) {
    const v = raw[i];
    if (v === null || v === undefined) {
      values[i] = null;
      continue;
    }
    const ms = parseIsoDate(v as string);
    if (ms !== ms) return { values, bad: i }; // NaN
    values[i] = new Date(ms);
  }
  return { values, bad: -1 };
}

/** The array with every missing value (hole, undefined, null) replaced by `fill`. */
function missingAs(raw: unknown[], fill: unknown, owned: boolean, missing: number): unknown[] {
  const n = raw.length;
  if (missing === 0 && owned) return raw;
  const out = owned ? raw : new Array(n);
  for (let i = 0; i < n; i++) {
    const v = raw[i];
    out[i] = v === null || v === undefined || v !== v ? fill : v;
  }
  return out;
}

/** Known levels first (in their order), then other values in the order they first appear. */
export function levelsOf(values: readonly (string | null)[], known: readonly string[]): string[] {
  const levels = [...known];
  const seen = new Set(levels);
  for (const v of values) {
    if (v !== null && !seen.has(v)) {
      seen.add(v);
      levels.push(v);
    }
  }
  return levels;
}

/**
 * A table with no rows (and the given columns, all `empty`).
 * @example
 * ```ts
 * import { emptyTable } from "risk-portal-lab/frames";
 * const none = emptyTable("GetTransactionTable", ["trade_id", "notional"]); // 0 rows, those columns
 * ```
 */
export function emptyTable(
  source: string,
  columns: readonly string[] = [],
  fields: Record<string, unknown> = {},
  provenance: readonly TableProvenance[] = [],
): ColumnTable {
  const data = columnRecord<unknown[]>();
  const kinds = columnRecord<ColumnKind>();
  const missing = columnRecord<number>();
  for (const c of columns) {
    data[c] = [];
    kinds[c] = "empty";
    missing[c] = 0;
  }
  return displayable({
    columns: [...columns],
    data,
    kinds,
    rowCount: 0,
    meta: { source, categories: columnRecord(), missing, warnings: [], fields, provenance: [...provenance] },
  });
}

/**
 * An empty record keyed by column name, without a prototype: a column may be called `constructor`,
 * `toString` or `__proto__` (a service's field, an SQL alias), and on a plain `{}` such a name is already
 * "in" the record, or assigning it replaces the prototype instead of adding the column.
 */
export function columnRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** `record[key]` when the record has it as its own entry, else undefined (never a prototype member's). */
export function ownEntry<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A table builder: add finished columns in order, then `build()`. */
export class TableBuilder {
  readonly #columns: string[] = [];
  readonly #data = columnRecord<unknown[]>();
  readonly #kinds = columnRecord<ColumnKind>();
  readonly #meta: TableMeta;

  constructor(
    readonly rowCount: number,
    source: string,
    fields: Record<string, unknown> = {},
    provenance: readonly TableProvenance[] = [],
  ) {
    this.#meta = {
      source,
      categories: columnRecord(),
      missing: columnRecord(),
      warnings: [],
      fields,
      provenance: [...provenance],
    };
  }

  /** Adds a column from raw values (see {@link finishColumn}). */
  add(name: string, raw: unknown[], options: FinishOptions = {}): this {
    if (raw.length !== this.rowCount)
      throw new Error(`column "${name}" has ${raw.length} values, the table has ${this.rowCount} rows`);
    return this.addFinished(name, finishColumn(name, raw, options));
  }

  /** Adds a column that is already in its final form. */
  addFinished(name: string, column: FinishedColumn): this {
    if (Object.hasOwn(this.#data, name)) throw new Error(`duplicate column "${name}"`);
    this.#columns.push(name);
    this.#data[name] = column.values;
    this.#kinds[name] = column.kind;
    this.#meta.missing[name] = column.missing;
    if (column.levels) this.#meta.categories[name] = column.levels;
    if (column.warning) this.#meta.warnings.push(column.warning);
    return this;
  }

  /** Adds a warning (a string: one without a row or column). */
  warn(warning: TableWarning | string): this {
    this.#meta.warnings.push(typeof warning === "string" ? { message: warning } : warning);
    return this;
  }

  has(name: string): boolean {
    return Object.hasOwn(this.#data, name);
  }

  build(): ColumnTable {
    // Displays as plot.show would when it is a cell's last expression in Deno's kernel (see setDisplayMarker).
    return displayable({
      columns: this.#columns,
      data: this.#data,
      kinds: this.#kinds,
      rowCount: this.rowCount,
      meta: this.#meta,
    });
  }
}

/**
 * True for a {@link ColumnTable} (structural check: columns, data, kinds, rowCount); false for a
 * {@link TypedColumnTable}, whose number and date columns are not arrays of JS values.
 */
export function isColumnTable(value: unknown): value is ColumnTable {
  return isTableShaped(value) && (value as { typed?: unknown }).typed !== true;
}

/** True for a {@link TypedColumnTable} (a column table's shape, and `typed: true`). */
export function isTypedColumnTable(value: unknown): value is TypedColumnTable {
  return isTableShaped(value) && (value as { typed?: unknown }).typed === true;
}

function isTableShaped(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<ColumnTable>;
  return (
    Array.isArray(v.columns) &&
    typeof v.data === "object" &&
    v.data !== null &&
    typeof v.kinds === "object" &&
    typeof v.rowCount === "number"
  );
}

/** A column table of `value`: itself, a typed table made plain (see {@link plainColumns}); else undefined. */
export function asColumnTable(value: unknown): ColumnTable | undefined {
  if (isColumnTable(value)) return value;
  return isTypedColumnTable(value) ? plainColumns(value) : undefined;
}

/**
 * The table with one JS value per cell: a {@link TypedColumnTable}'s `number` columns as arrays of
 * numbers (`NaN` missing) and its `date` columns as arrays of `Date`s (`null` missing), the rest shared
 * with it; a {@link ColumnTable} is returned as it is.
 * @example
 * ```ts
 * const typed = await frames.queryColumns("select * from trades where notional > 1e6", { trades }, { typed: true });
 * const table = frames.plainColumns(typed); // table.data.trade_date holds Dates, as queryColumns without typed gives
 * ```
 */
export function plainColumns(table: ColumnTable | TypedColumnTable): ColumnTable {
  if (!isTypedColumnTable(table)) return table;
  const data = columnRecord<unknown[]>();
  for (const c of table.columns) data[c] = plainColumn(table.kinds[c]!, table.data[c]!);
  const { columns, kinds, rowCount, meta } = table;
  return displayable({ columns: [...columns], data, kinds: { ...kinds }, rowCount, meta: { ...meta } });
}

/** A column with one JS value per cell: a typed date column's milliseconds as `Date`s (`null` for NaN), typed numbers as an array. */
export function plainColumn(kind: ColumnKind, values: TypedColumn): unknown[] {
  if (!(values instanceof Float64Array)) return values;
  if (kind !== "date") return Array.from(values);
  const n = values.length;
  const out = new Array<Date | null>(n);
  for (let i = 0; i < n; i++) {
    const ms = values[i]!;
    out[i] = ms === ms ? new Date(ms) : null;
  }
  return out;
}

/** Row `i` of a column as a plain table holds it (see {@link plainColumn}). */
export function plainValue(kind: ColumnKind | undefined, values: TypedColumn | undefined, i: number): unknown {
  const v = values?.[i];
  if (kind !== "date" || !(values instanceof Float64Array)) return v;
  return v === v ? new Date(v as number) : null;
}

/**
 * Turns `table` itself into a typed table: its `number` and `date` columns become `Float64Array`s (see
 * {@link TypedColumn}) and it is marked `typed`; the other columns and meta are kept, columns already typed
 * too. In place, so only for a table just read that no one else holds (a query's result, a Parquet read).
 */
export function typedColumns(table: ColumnTable | TypedColumnTable): TypedColumnTable {
  const data = table.data as Record<string, TypedColumn>;
  for (const c of table.columns) {
    const kind = table.kinds[c];
    const values = data[c]!;
    if ((kind !== "number" && kind !== "date") || values instanceof Float64Array) continue;
    const out = new Float64Array(values.length);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      out[i] = kind === "number" ? (v as number) : v instanceof Date ? v.getTime() : NaN;
    }
    data[c] = out;
  }
  return Object.assign(table, { typed: true as const });
}

/**
 * The values of a column (a typed table's as a plain table holds them: numbers in an array, `Date`s);
 * throws naming the table's columns when there is no such column.
 * @example
 * ```ts
 * import { valuesOf } from "risk-portal-lab/frames";
 * const names = valuesOf(frames.yieldCurveColumns(curve), "fitted_instrument_name");
 * ```
 */
export function valuesOf(table: ColumnTable | TypedColumnTable, name: string): unknown[] {
  const values = Object.hasOwn(table.data, name) ? table.data[name] : undefined;
  if (!values)
    throw new Error(
      `no column "${name}"; the table has ${table.columns.map((c) => `"${c}"`).join(", ") || "no columns"}`,
    );
  return plainColumn(table.kinds[name]!, values);
}

/**
 * The values of a `number` column (`NaN` = missing; a typed table's copied to an array), e.g. for a plot;
 * throws when the column is not numeric.
 * @example
 * ```ts
 * import { numbersOf } from "risk-portal-lab/frames";
 * const rates = numbersOf(frames.yieldCurveColumns(curve), "rate"); // number[]; an error for a text column
 * ```
 */
export function numbersOf(table: ColumnTable | TypedColumnTable, name: string): number[] {
  const values = valuesOf(table, name);
  const kind = table.kinds[name];
  if (kind !== "number" && kind !== "empty") throw new Error(`column "${name}" is ${kind}, not number`);
  return kind === "empty" ? values.map(() => NaN) : (values as number[]);
}
