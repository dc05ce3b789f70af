/** Long → wide: one row per index value, one column per key (a strike, a currency and date, …). */
import type { DataFrame } from "danfojs-node";
import { finishColumn, TableBuilder, valuesOf, type ColumnKind, type ColumnTable } from "./column-table";
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

/** The distinct index values and keys of a long table, and which of them each of its rows has. */
interface Distinct {
  /** Distinct index values, in order seen (by label, so equal Dates are one row). */
  rowValues: unknown[];
  /** Distinct key labels, in order seen, and the key values first seen with each. */
  colLabels: string[];
  colFirst: unknown[][];
  /** Per input row: its position in `rowValues` and in `colLabels`. */
  rowIds: Int32Array;
  colIds: Int32Array;
}

/** Finds the distinct index values and keys (by label) and numbers each input row's pair of them. */
function distinctRowsAndKeys(indexValues: readonly unknown[], keyValues: readonly (readonly unknown[])[], n: number): Distinct {
  const rowOf = new Map<string, number>();
  const colOf = new Map<string, number>();
  const d: Distinct = { rowValues: [], colLabels: [], colFirst: [], rowIds: new Int32Array(n), colIds: new Int32Array(n) };
  for (let i = 0; i < n; i++) {
    const v = indexValues[i];
    const rl = keyLabel(v);
    let r = rowOf.get(rl);
    if (r === undefined) {
      r = d.rowValues.length;
      rowOf.set(rl, r);
      d.rowValues.push(v);
    }
    d.rowIds[i] = r;
    const parts = keyValues.map((col) => col[i]);
    const cl = parts.map(keyLabel).join(" ");
    let c = colOf.get(cl);
    if (c === undefined) {
      c = d.colLabels.length;
      colOf.set(cl, c);
      d.colLabels.push(cl);
      d.colFirst.push(parts);
    }
    d.colIds[i] = c;
  }
  return d;
}

/** The order of the new rows: ascending when the index is numeric or dates (maturities, strikes); else in order seen. */
function rowOrderOf(rowValues: readonly unknown[], indexKind: ColumnKind | undefined): number[] {
  const rowOrder = [...rowValues.keys()];
  if (indexKind === "number" || indexKind === "date") rowOrder.sort((a, b) => compare(rowValues[a], rowValues[b]));
  return rowOrder;
}

/** The order of the new columns: in order seen, or sorted key part by key part for `columnOrder: "sorted"`. */
function columnOrderOf(colFirst: readonly (readonly unknown[])[], keyCount: number, columnOrder: PivotOptions["columnOrder"]): number[] {
  const colOrder = [...colFirst.keys()];
  if (columnOrder === "sorted") {
    colOrder.sort((a, b) => {
      for (let k = 0; k < keyCount; k++) {
        const d = compare(colFirst[a]![k], colFirst[b]![k]);
        if (d !== 0) return d;
      }
      return 0;
    });
  }
  return colOrder;
}

/** Fills one array of cells per key, rows in `rowOrder`; a repeated (index, key) pair keeps the last value and is counted. */
function fillCells(d: Distinct, rowOrder: readonly number[], cellValues: readonly unknown[], numeric: boolean): { cells: unknown[][]; repeats: number } {
  const rowPosition = new Int32Array(d.rowValues.length);
  rowOrder.forEach((r, p) => (rowPosition[r] = p));
  const cells = d.colLabels.map(() => new Array<unknown>(d.rowValues.length).fill(numeric ? NaN : null));
  const filled = d.colLabels.map(() => new Uint8Array(d.rowValues.length));
  let repeats = 0;
  for (let i = 0; i < d.rowIds.length; i++) {
    const p = rowPosition[d.rowIds[i]!]!;
    const c = d.colIds[i]!;
    if (filled[c]![p]) repeats++;
    filled[c]![p] = 1;
    cells[c]![p] = cellValues[i];
  }
  return { cells, repeats };
}

/** A wide column table from a long one (see {@link PivotOptions}); repeated (index, key) pairs keep the last value, with a warning. */
export function pivotColumns(table: ColumnTable, options: PivotOptions): ColumnTable {
  const keyColumns = typeof options.columns === "string" ? [options.columns] : [...options.columns];
  const indexValues = valuesOf(table, options.index);
  const keyValues = keyColumns.map((c) => valuesOf(table, c));
  const cellValues = valuesOf(table, options.values);
  const d = distinctRowsAndKeys(indexValues, keyValues, table.rowCount);
  const rowOrder = rowOrderOf(d.rowValues, table.kinds[options.index]);
  const colOrder = columnOrderOf(d.colFirst, keyColumns.length, options.columnOrder);
  const { cells, repeats } = fillCells(d, rowOrder, cellValues, table.kinds[options.values] === "number");

  const builder = new TableBuilder(d.rowValues.length, table.meta.source, { ...table.meta.fields }, table.meta.provenance);
  builder.addFinished(
    options.index,
    finishColumn(
      options.index,
      rowOrder.map((r) => d.rowValues[r]),
      { owned: true, detectDates: false },
    ),
  );
  for (const c of colOrder) {
    let label = d.colLabels[c]!;
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
