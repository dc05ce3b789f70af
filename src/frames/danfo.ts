/**
 * The one place danfo is loaded (lazily, on first use: importing the package must not load danfo or
 * tensorflow) and the one place a {@link ColumnTable} becomes a danfo DataFrame.
 *
 * How danfo holds our values (danfojs-node 1.2, as corrected by ./danfo-fixes when it loads):
 * - number columns hold JavaScript doubles and say `float64` in `dtypes` (danfo's own label, `float32`,
 *   stays inside the frame, where danfo's code checks it); frame-wide arithmetic and comparisons
 *   (`df.add(1)`, `df.gt(0)`) and Series arithmetic are computed in doubles.
 * - `datetime` columns hold `Date` objects untouched. danfo's own inference would call a column of
 *   Dates and nulls `float32`, so dtypes are always passed explicitly.
 * - missing values: `NaN` in number columns (`null + 1` would be `1` in danfo's Series arithmetic;
 *   `NaN + 1` stays missing), `null` elsewhere; `isNa()`, `dropNa()` and `fillNa()` see both.
 * - there is no categorical dtype: category columns are `string` columns, and their levels are in
 *   {@link frameInfo}`(df).categories`.
 */
import type { DataFrame } from "../../vendor/danfo";
import {
  columnRecord,
  formatWarning,
  plainColumns,
  TableBuilder,
  type ColumnKind,
  type ColumnTable,
  type TableMeta,
  type TypedColumnTable,
} from "../table/column-table";
import { setFrameConversions } from "../columnar/frames";
import { makeDisplayable } from "../kernel/display";
import { applyDanfoFixes } from "./danfo-fixes";
import { frameFromColumns } from "./danfo-fixes/build";
import type { FrameClass } from "./danfo-fixes/types";

type Danfo = typeof import("../../vendor/danfo");

let danfo: Danfo | undefined;

/**
 * danfo, loaded on first call (about 0.3 s: it brings TensorFlow.js) and cached. The package ships danfojs-node
 * 1.2 bundled in `vendor/danfo` with pure-JS TensorFlow.js and without Excel I/O (scripts/vendor-danfo.mjs
 * says why): a consumer installs none of danfojs-node's own dependencies. Every adapter that
 * returns a DataFrame calls this; the `…Columns` twins never do.
 * @example
 * ```ts
 * const dfd = frames.loadDanfo();
 * const df = new dfd.DataFrame({ tenor: ["2Y", "10Y"], rate: [0.031, 0.035] });
 * ```
 */
export function loadDanfo(): Danfo {
  if (!danfo) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    danfo = require("../../vendor/danfo") as Danfo;
    // Every DataFrame and Series, made here or by danfo, displays as plot.show would when it is a cell's
    // last expression in Deno's kernel (a non-enumerable Symbol.for("Jupyter.display") on the prototype).
    // danfojs-node's classes extend danfojs-base's, and what head(), sortValues(), … return is the base
    // class: the method goes on the base, which the node class inherits.
    makeDisplayable(baseOf(danfo.DataFrame.prototype, "DataFrame"));
    makeDisplayable(baseOf(danfo.Series.prototype, "Series"));
    // What danfo gets wrong on the frames people use (danfo-fixes/index.ts lists it), corrected once.
    applyDanfoFixes(danfo);
  }
  return danfo;
}

/** The last prototype up the chain whose constructor is still called `name` (danfojs-base's class). */
function baseOf(proto: object, name: string): object {
  for (
    let up = Object.getPrototypeOf(proto) as object | null;
    up?.constructor?.name === name;
    up = Object.getPrototypeOf(up) as object | null
  )
    proto = up;
  return proto;
}

/** True for a danfo DataFrame (structural: column(), columns, dtypes, shape; danfo is not loaded). */
export function isDataFrame(value: unknown): value is DataFrame {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { column?: unknown; columns?: unknown; dtypes?: unknown; shape?: unknown };
  return (
    typeof v.column === "function" && Array.isArray(v.columns) && Array.isArray(v.dtypes) && Array.isArray(v.shape)
  );
}

/** danfo's dtype for each column kind. */
export const DTYPE_OF_KIND: Record<ColumnKind, string> = {
  number: "float64",
  string: "string",
  category: "string",
  boolean: "boolean",
  date: "datetime",
  mixed: "string",
  empty: "float64",
};

/** What {@link frameInfo} returns: the table's meta, plus the columns renamed for danfo. */
export interface FrameInfo extends Omit<TableMeta, "warnings"> {
  /** The table's warnings as shown (`formatWarning`), then the frame's own (renamed columns, …): one line each. */
  warnings: string[];
  /** Column kinds by (frame) column name. */
  kinds: Record<string, ColumnKind>;
  /**
   * Columns whose names collide with a DataFrame member (`count`, `index`, `values`, …) get a `_`
   * suffix in the frame (`count_`), because danfo defines every column as a property of the frame and
   * would hide the member. Maps original name → frame name. The `…Columns` table keeps the original.
   */
  renamed: Record<string, string>;
}

const infos = new WeakMap<object, FrameInfo>();

/**
 * The facts an adapter attached to a DataFrame it built: source operation, category levels, missing
 * counts, warnings, response fields that are not columns, provenance, renamed columns. `undefined` for
 * frames not built by an adapter (including frames derived from one with danfo operations).
 * @example
 * ```ts
 * const df = frames.reportInfos(await rp.report.infos({ pricing_date: "2026-11-20" }));
 * frames.frameInfo(df).categories; // status levels: none, running, succeeded, warning, failed
 * ```
 */
export function frameInfo(df: DataFrame): FrameInfo | undefined {
  return infos.get(df);
}

let reserved: Set<string> | undefined;

/** Names a column must not take: every DataFrame member, and danfo's internal `$` fields. */
function reservedNames(d: Danfo): Set<string> {
  if (reserved) return reserved;
  const names = new Set<string>(["constructor", "__proto__"]);
  const probe = new d.DataFrame([], { columns: [] });
  for (let o: object | null = probe; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) names.add(key);
  }
  reserved = names;
  return names;
}

/**
 * A danfo DataFrame of the table, column order kept, dtypes set from the column kinds (see the module
 * comment for dates, missing values and categories). The frame shares the table's column arrays (no
 * copy); treat the table as read-only afterwards. A typed table's number and date columns are made
 * arrays of numbers and `Date`s first (danfo holds JS values). Loads danfo on first use.
 * @example
 * ```ts
 * const df = frames.toDataFrame(frames.yieldCurveColumns(curve));
 * ```
 */
export function toDataFrame(input: ColumnTable | TypedColumnTable): DataFrame {
  const table = plainColumns(input);
  const d = loadDanfo();
  const taken = reservedNames(d);
  const renamed = columnRecord<string>();
  const names: string[] = [];
  const used = new Set<string>();
  for (const column of table.columns) {
    let name = column;
    while (taken.has(name) || used.has(name)) name += "_";
    if (name !== column) renamed[column] = name;
    used.add(name);
    names.push(name);
  }
  const kinds = columnRecord<ColumnKind>();
  const dtypes: string[] = [];
  const columns: unknown[][] = [];
  table.columns.forEach((column, j) => {
    const kind = table.kinds[column]!;
    kinds[names[j]!] = kind;
    dtypes.push(DTYPE_OF_KIND[kind]);
    const values = table.data[column]!;
    // An all-missing column is float64 in the frame, so its missing values are NaN there too.
    columns.push(kind === "empty" ? values.map(() => NaN) : values);
  });

  const warnings = table.meta.warnings.map(formatWarning);
  for (const [from, to] of Object.entries(renamed))
    warnings.push(`column "${from}" is "${to}" in the DataFrame: "${from}" is a DataFrame member`);
  let df: DataFrame;
  if (names.length === 0 || table.rowCount === 0) {
    if (table.rowCount > 0) warnings.push(`${table.rowCount} rows without any field: the DataFrame is empty`);
    df = new d.DataFrame([], { columns: names, dtypes });
  } else {
    // One transposition, not danfo's two (danfo-fixes/build.ts); the frame is danfojs-node's class.
    df = frameFromColumns(
      d.DataFrame as unknown as FrameClass,
      names,
      dtypes,
      columns,
      table.rowCount,
    ) as unknown as DataFrame;
  }
  infos.set(df, { ...table.meta, warnings, kinds, renamed });
  return df;
}

/** What a danfo dtype holds, as a column kind (`float64`, `float32` and `int32` columns hold JavaScript doubles). */
export const KIND_OF_DTYPE: Readonly<Record<string, ColumnKind>> = {
  float64: "number",
  float32: "number",
  int32: "number",
  string: "string",
  boolean: "boolean",
  datetime: "date",
};

/**
 * A column table from a danfo DataFrame (for helpers that take either, such as `pivotCurves`): kinds
 * from the dtypes (checked against the values), category levels and meta from {@link frameInfo} when
 * an adapter built the frame.
 * @example
 * ```ts
 * const table = frames.fromDataFrame(frames.yieldCurve(curve));
 * ```
 */
export function fromDataFrame(df: DataFrame): ColumnTable {
  const known = infos.get(df);
  const builder = new TableBuilder(df.shape[0]!, known?.source ?? "DataFrame", { ...known?.fields }, known?.provenance);
  df.columns.forEach((name, j) => {
    const values = [...(df.column(name).values as unknown[])];
    const kind = known?.kinds[name] ?? KIND_OF_DTYPE[df.dtypes[j]!] ?? "mixed";
    const hint = kind === "mixed" || kind === "empty" ? "auto" : kind;
    builder.add(name, values, { hint, owned: true, levels: known?.categories[name], detectDates: false });
  });
  return builder.build();
}

// The columnar room (Arrow, SQL, Parquet) takes and gives DataFrames through this door too.
setFrameConversions({ isDataFrame, fromDataFrame, toDataFrame });
