/**
 * What the builders read: a frames column table (`frames.…Columns`), a danfo DataFrame (`frames.…`), or
 * a batch result (`{ table, failures }` / `{ frame, failures }`), seen through one small interface. A
 * DataFrame is read column by column, only the columns a chart needs, and never loads danfo itself.
 */
import type { DataFrame } from "../../vendor/danfo";
import {
  columnRecord,
  isColumnTable,
  isTypedColumnTable,
  ownEntry,
  plainColumn,
  type ColumnKind,
  type ColumnTable,
  type TypedColumnTable,
} from "../table/column-table";
import { frameInfo, isDataFrame, KIND_OF_DTYPE } from "../frames/danfo";
import { parseIsoDate } from "../table/iso-date";

/** A table a builder accepts: column table (typed or not), DataFrame, or a batch helper's `{ table }` / `{ frame }`. */
export type TableInput = ColumnTable | TypedColumnTable | DataFrame | { table: ColumnTable } | { frame: DataFrame };

/** Read access to the columns of a table, whatever it came as. */
export interface Columns {
  readonly rowCount: number;
  readonly names: readonly string[];
  /** Where the rows came from (`RateAsset`, `DataFrame`, …). */
  readonly source: string;
  /** Response fields that are not columns (`strike_type` of a vol grid, …). */
  readonly fields: Readonly<Record<string, unknown>>;
  has(name: string): boolean;
  /** The values of a column; throws naming the caller, the missing column and the columns there are. */
  values(name: string): readonly unknown[];
  kind(name: string): ColumnKind | undefined;
  /** Category levels in their natural order, when known. */
  levels(name: string): readonly string[] | undefined;
}

/** The structural checks of a column table and a DataFrame (frames owns them). */
export { isColumnTable, isDataFrame };

/**
 * The part of a danfo Series read to show it (structural: danfo is never loaded by this module): a column
 * (`df["notional"]`, `df.column("notional")`), or what a Series' `describe()`, `valueCounts()`, … return.
 */
export interface SeriesLike {
  values: ArrayLike<unknown>;
  index: ArrayLike<unknown>;
  /** `[name]`. */
  columns: string[];
  dtype: string;
}

/** True for a danfo Series: values, an index, a dtype, and no `column()` (which a DataFrame has). */
export function isSeries(value: unknown): value is SeriesLike {
  if (typeof value !== "object" || value === null) return false;
  const v = value as {
    column?: unknown;
    values?: { length?: unknown };
    index?: { length?: unknown };
    columns?: unknown;
    dtype?: unknown;
  };
  return (
    typeof v.column !== "function" &&
    typeof v.dtype === "string" &&
    Array.isArray(v.columns) &&
    typeof v.values?.length === "number" &&
    typeof v.index?.length === "number"
  );
}

/** The part of a danfo DataFrame read here (structural: danfo is never loaded by this module). */
interface FrameLike {
  shape: number[];
  columns: string[];
  dtypes: string[];
  values: unknown[];
  column(name: string): { values: unknown[] };
}

/** True for anything {@link columnsOf} accepts. */
export function isTableInput(value: unknown): value is TableInput {
  if (isColumnTable(value) || isTypedColumnTable(value) || isDataFrame(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  const v = value as { table?: unknown; frame?: unknown };
  return isColumnTable(v.table) || isDataFrame(v.frame);
}

function missingColumn(caller: string, name: string, names: readonly string[]): Error {
  return new TypeError(
    `${caller} needs a "${name}" column; the table has ${names.map((c) => `"${c}"`).join(", ") || "no columns"}`,
  );
}

/** A {@link Columns} view of `input`; throws a TypeError naming `caller` when `input` is not a table. */
export function columnsOf(input: TableInput, caller: string): Columns {
  if (typeof input === "object" && input !== null && !isColumnTable(input) && !isDataFrame(input)) {
    const batch = input as { table?: ColumnTable; frame?: DataFrame };
    if (isColumnTable(batch.table)) return tableColumns(batch.table, caller);
    if (isDataFrame(batch.frame)) return frameColumns(batch.frame, caller);
  }
  if (isColumnTable(input) || isTypedColumnTable(input)) return tableColumns(input, caller);
  if (isDataFrame(input)) return frameColumns(input, caller);
  throw new TypeError(
    `${caller} expects a frames column table, a danfo DataFrame or a { table } / { frame } batch result; got ${input === null ? "null" : typeof input}`,
  );
}

/** A table's columns; a typed table's number and date columns made plain (numbers, `Date`s) as they are read. */
function tableColumns(table: ColumnTable | TypedColumnTable, caller: string): Columns {
  const plain = new Map<string, readonly unknown[]>();
  return {
    rowCount: table.rowCount,
    names: table.columns,
    source: table.meta?.source ?? "table",
    fields: table.meta?.fields ?? {},
    has: (name) => Object.hasOwn(table.data, name),
    values(name) {
      const values = ownEntry(table.data, name);
      if (!values) throw missingColumn(caller, name, table.columns);
      if (!(values instanceof Float64Array)) return values;
      if (!plain.has(name)) plain.set(name, plainColumn(table.kinds[name]!, values));
      return plain.get(name)!;
    },
    kind: (name) => ownEntry(table.kinds, name),
    levels: (name) => ownEntry(table.meta?.categories, name),
  };
}

function frameColumns(df: DataFrame, caller: string): Columns {
  const frame = df as unknown as FrameLike;
  const info = frameInfo(df);
  // Adapters rename columns that collide with DataFrame members (`count` → `count_`): read by the original name.
  const renamed = info?.renamed ?? {};
  const original = columnRecord<string>();
  for (const [from, to] of Object.entries(renamed)) original[to] = from;
  const names = frame.columns.map((c) => original[c] ?? c);
  const frameName = (name: string) => ownEntry(renamed, name) ?? name;
  const cache = new Map<string, unknown[]>();
  return {
    rowCount: frame.shape[0] ?? 0,
    names,
    source: info?.source ?? "DataFrame",
    fields: info?.fields ?? {},
    has: (name) => frame.columns.includes(frameName(name)),
    values(name) {
      const cached = cache.get(name);
      if (cached) return cached;
      if (!frame.columns.includes(frameName(name))) throw missingColumn(caller, name, names);
      const values = frame.column(frameName(name)).values;
      cache.set(name, values);
      return values;
    },
    kind(name) {
      const j = frame.columns.indexOf(frameName(name));
      if (j < 0) return undefined;
      return info?.kinds[frameName(name)] ?? KIND_OF_DTYPE[frame.dtypes[j]!] ?? "mixed";
    },
    levels: (name) => info?.categories[name],
  };
}

/** The column as numbers: numbers kept, numeric text parsed, anything else `NaN`. */
export function numbers(view: Columns, name: string): number[] {
  return view.values(name).map(toNumber);
}

export function toNumber(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "") return Number(v);
  return NaN;
}

/** The column as epoch milliseconds: `Date`s, ISO 8601 text or epoch numbers; anything else `NaN`. */
export function times(view: Columns, name: string): number[] {
  return view.values(name).map(toTime);
}

export function toTime(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  if (typeof v === "string") return parseIsoDate(v);
  if (typeof v === "number") return v;
  return NaN;
}

/** The column as text (`null` for missing). */
export function texts(view: Columns, name: string): (string | null)[] {
  return view
    .values(name)
    .map((v) =>
      v === null || v === undefined || (typeof v === "number" && Number.isNaN(v))
        ? null
        : v instanceof Date
          ? plotDate(v.getTime())
          : String(v),
    );
}

/**
 * A date as plotly reads it, in UTC: `2026-11-20` at midnight, else `2026-11-20 07:21:00` (plotly
 * ignores time-zone suffixes, so none is written). `null` for NaN.
 */
export function plotDate(ms: number): string | null {
  if (!Number.isFinite(ms)) return null;
  const iso = new Date(ms).toISOString();
  if (iso.endsWith("T00:00:00.000Z")) return iso.slice(0, 10);
  return `${iso.slice(0, 10)} ${iso.slice(11, iso.endsWith(".000Z") ? 19 : 23)}`;
}

/** Row indices grouped by a key, groups in first-seen order. */
export function groupBy(n: number, keyOf: (i: number) => string): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const key = keyOf(i);
    let rows = groups.get(key);
    if (!rows) groups.set(key, (rows = []));
    rows.push(i);
  }
  return groups;
}

/** `null` for NaN / ±Infinity (plotly draws a gap), the number otherwise: figure data must be JSON. */
export function finiteOrNull(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}
