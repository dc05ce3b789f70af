/** Long → wide: one row per index value, one column per key (a strike, a currency and date, …). */
import type { DataFrame } from "danfojs-node";
import { finishColumn, TableBuilder, valuesOf, type ColumnTable } from "./column-table";
import { toDataFrame } from "./danfo";
import { dateLabel } from "./iso-date";

export interface PivotOptions {
  /** The column whose distinct values become the rows (sorted ascending when numbers or dates). */
  index: string;
  /** The column(s) whose distinct value combinations become the columns, labelled `"EUR 2026-11-20"`. */
  columns: string | readonly string[];
  /** The column whose values fill the cells; a cell with no value is missing (`NaN` for numbers). */
  values: string;
  /** Order of the new columns: `first-seen` (default) or `sorted` (numbers ascending, then text). */
  columnOrder?: "first-seen" | "sorted";
}

/** How a key value names a column: numbers as written, dates as `YYYY-MM-DD` at midnight UTC, else ISO. */
export function keyLabel(value: unknown): string {
  if (value instanceof Date) return dateLabel(value);
  if (value === null || value === undefined || (typeof value === "number" && Number.isNaN(value))) return "(missing)";
  return String(value);
}

function sortKey(value: unknown): number | string {
  if (value instanceof Date) return value.getTime();
  return typeof value === "number" ? value : String(value);
}

function compare(a: unknown, b: unknown): number {
  const x = sortKey(a);
  const y = sortKey(b);
  if (typeof x === "number" && typeof y === "number") return x - y;
  if (typeof x === "number") return -1;
  if (typeof y === "number") return 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A wide column table from a long one (see {@link PivotOptions}); repeated (index, key) pairs keep the last value, with a warning. */
export function pivotColumns(table: ColumnTable, options: PivotOptions): ColumnTable {
  const keyColumns = typeof options.columns === "string" ? [options.columns] : [...options.columns];
  const indexValues = valuesOf(table, options.index);
  const keyValues = keyColumns.map((c) => valuesOf(table, c));
  const cellValues = valuesOf(table, options.values);
  const n = table.rowCount;

  // Distinct index values (by label, so equal Dates are one row) and distinct keys.
  const rowOf = new Map<string, number>();
  const rowValues: unknown[] = [];
  const colOf = new Map<string, number>();
  const colLabels: string[] = [];
  const colFirst: unknown[][] = [];
  const rowIds = new Int32Array(n);
  const colIds = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = indexValues[i];
    const rl = keyLabel(v);
    let r = rowOf.get(rl);
    if (r === undefined) {
      r = rowValues.length;
      rowOf.set(rl, r);
      rowValues.push(v);
    }
    rowIds[i] = r;
    const parts = keyValues.map((col) => col[i]);
    const cl = parts.map(keyLabel).join(" ");
    let c = colOf.get(cl);
    if (c === undefined) {
      c = colLabels.length;
      colOf.set(cl, c);
      colLabels.push(cl);
      colFirst.push(parts);
    }
    colIds[i] = c;
  }

  // Rows ascending when the index is numeric or dates (maturities, strikes); else in order seen.
  const indexKind = table.kinds[options.index];
  const rowOrder = [...rowValues.keys()];
  if (indexKind === "number" || indexKind === "date") rowOrder.sort((a, b) => compare(rowValues[a], rowValues[b]));
  const rowPosition = new Int32Array(rowValues.length);
  rowOrder.forEach((r, p) => (rowPosition[r] = p));
  const colOrder = [...colLabels.keys()];
  if (options.columnOrder === "sorted") {
    colOrder.sort((a, b) => {
      for (let k = 0; k < keyColumns.length; k++) {
        const d = compare(colFirst[a]![k], colFirst[b]![k]);
        if (d !== 0) return d;
      }
      return 0;
    });
  }

  const numeric = table.kinds[options.values] === "number";
  const cells = colLabels.map(() => new Array<unknown>(rowValues.length).fill(numeric ? NaN : null));
  const filled = colLabels.map(() => new Uint8Array(rowValues.length));
  let repeats = 0;
  for (let i = 0; i < n; i++) {
    const p = rowPosition[rowIds[i]!]!;
    const c = colIds[i]!;
    if (filled[c]![p]) repeats++;
    filled[c]![p] = 1;
    cells[c]![p] = cellValues[i];
  }

  const builder = new TableBuilder(rowValues.length, table.meta.source, { ...table.meta.fields }, table.meta.provenance);
  builder.addFinished(
    options.index,
    finishColumn(
      options.index,
      rowOrder.map((r) => rowValues[r]),
      { owned: true, detectDates: false },
    ),
  );
  for (const c of colOrder) {
    let label = colLabels[c]!;
    while (builder.has(label)) label += "_";
    builder.add(label, cells[c]!, { owned: true, detectDates: false });
  }
  if (repeats > 0) builder.warn(`${repeats} (${options.index}, ${keyColumns.join(", ")}) pair${repeats > 1 ? "s repeat" : " repeats"}: the last value is kept`);
  return builder.build();
}

/** {@link pivotColumns} as a danfo DataFrame. */
export function pivot(table: ColumnTable, options: PivotOptions): DataFrame {
  return toDataFrame(pivotColumns(table, options));
}
