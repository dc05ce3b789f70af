/** Long → wide: one row per index value, one column per key (a strike, a currency and date, …). */
import { finishColumn, TableBuilder, valuesOf, type ColumnKind, type ColumnTable } from "./column-table";
import { PivotError } from "./errors";
import { dateLabel } from "./iso-date";

/**
 * How the rows of one (index, key) pair make its cell. Missing values are skipped; a pair without a
 * value is missing (`NaN`), except for `count`, which is 0 there.
 * - `sum`, `mean`: numbers only
 * - `min`, `max`: numbers or dates
 * - `count`: the values present, any kind
 * - `first`, `last`: the first or last value present, in row order, any kind
 */
export type PivotAgg = "sum" | "mean" | "count" | "min" | "max" | "first" | "last";
const AGGS: readonly PivotAgg[] = ["sum", "mean", "count", "min", "max", "first", "last"];

export interface PivotOptions {
  /** The column whose distinct values become the rows (ascending when numbers or dates, a category's in its declared order). */
  index: string;
  /** The column(s) whose distinct value combinations become the columns, labelled `"EUR 2026-11-20"`. */
  columns: string | readonly string[];
  /** The column whose values fill the cells; a cell with no value is missing (`NaN` for numbers). */
  values: string;
  /**
   * Order of the new columns: `first-seen` (default) or `sorted` (numbers ascending, then text). A
   * category key goes by its declared levels either way (`meta.categories`: report statuses in lifecycle
   * order).
   */
  columnOrder?: "first-seen" | "sorted";
  /**
   * How to combine the rows of a repeated (index, key) pair (see {@link PivotAgg}). Without it a
   * repeated pair is an error: which of its values belongs in the cell is not the pivot's to guess.
   */
  agg?: PivotAgg;
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
function distinctRowsAndKeys(
  indexValues: readonly unknown[],
  keyValues: readonly (readonly unknown[])[],
  n: number,
): Distinct {
  const rowOf = new Map<string, number>();
  const colOf = new Map<string, number>();
  const d: Distinct = {
    rowValues: [],
    colLabels: [],
    colFirst: [],
    rowIds: new Int32Array(n),
    colIds: new Int32Array(n),
  };
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

/**
 * A category column's declared order (`meta.categories`: known levels in their natural order, e.g. report
 * statuses in lifecycle order, then others as first seen): each value's rank, missing last. Undefined for
 * other columns.
 */
function levelRank(table: ColumnTable, column: string): ((v: unknown) => number) | undefined {
  const levels = table.kinds[column] === "category" ? table.meta.categories?.[column] : undefined;
  if (!levels) return undefined;
  const rank = new Map(levels.map((level, i) => [level, i]));
  return (v) => (typeof v === "string" ? (rank.get(v) ?? levels.length) : levels.length + 1);
}

/**
 * The order of the new rows: ascending when the index is numeric or dates (maturities, strikes), in the
 * declared order of its levels when it is a category; else in order seen.
 */
function rowOrderOf(
  rowValues: readonly unknown[],
  indexKind: ColumnKind | undefined,
  rank: ((v: unknown) => number) | undefined,
): number[] {
  const rowOrder = [...rowValues.keys()];
  if (rank) rowOrder.sort((a, b) => rank(rowValues[a]) - rank(rowValues[b]));
  else if (indexKind === "number" || indexKind === "date") rowOrder.sort((a, b) => compare(rowValues[a], rowValues[b]));
  return rowOrder;
}

/**
 * The order of the new columns: in order seen, or sorted key part by key part for `columnOrder: "sorted"`.
 * A category key part always goes by its declared levels (a pivot of `status` lists running before
 * failed whichever came first); with one, the other parts go by the order their values were first seen
 * (or sorted), part by part.
 */
function columnOrderOf(
  colFirst: readonly (readonly unknown[])[],
  ranks: readonly (((v: unknown) => number) | undefined)[],
  columnOrder: PivotOptions["columnOrder"],
): number[] {
  const colOrder = [...colFirst.keys()];
  const categories = ranks.some((r) => r !== undefined);
  if (columnOrder !== "sorted" && !categories) return colOrder;
  const parts = ranks.map((rank, k) => {
    if (rank) return (a: number, b: number) => rank(colFirst[a]![k]) - rank(colFirst[b]![k]);
    if (columnOrder === "sorted") return (a: number, b: number) => compare(colFirst[a]![k], colFirst[b]![k]);
    const seen = new Map<string, number>();
    for (const key of colFirst) if (!seen.has(keyLabel(key[k]))) seen.set(keyLabel(key[k]), seen.size);
    return (a: number, b: number) => seen.get(keyLabel(colFirst[a]![k]))! - seen.get(keyLabel(colFirst[b]![k]))!;
  });
  colOrder.sort((a, b) => {
    for (const part of parts) {
      const d = part(a, b);
      if (d !== 0) return d;
    }
    return 0;
  });
  return colOrder;
}

const isMissingValue = (v: unknown): boolean =>
  v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));

/**
 * Fills one array of cells per key, rows in `rowOrder`, combining the rows of a pair with `agg`;
 * without `agg` a repeated pair throws, naming the first.
 */
function fillCells(
  d: Distinct,
  rowOrder: readonly number[],
  cellValues: readonly unknown[],
  numeric: boolean,
  agg: PivotAgg | undefined,
  names: { index: string; keys: readonly string[] },
): { cells: unknown[][]; repeats: number } {
  const rowPosition = new Int32Array(d.rowValues.length);
  rowOrder.forEach((r, p) => (rowPosition[r] = p));
  const rows = d.rowValues.length;
  const counting = agg === "count";
  const cells = d.colLabels.map(() =>
    new Array<unknown>(rows).fill(counting ? 0 : numeric || agg === "sum" || agg === "mean" ? NaN : null),
  );
  const seen = d.colLabels.map(() => new Int32Array(rows).fill(-1)); // the first input row of each pair
  const present = agg === "mean" ? d.colLabels.map(() => new Uint32Array(rows)) : undefined;
  let repeats = 0;
  let firstRepeat: [number, number] | undefined;
  const repeated = d.colLabels.map(() => new Uint8Array(rows));
  for (let i = 0; i < d.rowIds.length; i++) {
    const p = rowPosition[d.rowIds[i]!]!;
    const c = d.colIds[i]!;
    if (seen[c]![p]! >= 0) {
      if (!repeated[c]![p]) {
        repeated[c]![p] = 1;
        repeats++;
        firstRepeat ??= [seen[c]![p]!, i];
      }
    } else seen[c]![p] = i;
    const v = cellValues[i];
    if (agg === undefined) {
      cells[c]![p] = v;
      continue;
    }
    if (isMissingValue(v)) continue;
    const cell = cells[c]!;
    switch (agg) {
      case "count":
        cell[p] = (cell[p] as number) + 1;
        break;
      case "sum":
      case "mean":
        cell[p] = Number.isNaN(cell[p]) ? v : (cell[p] as number) + (v as number);
        if (present) present[c]![p]!++;
        break;
      case "min":
      case "max": {
        const old = cell[p];
        if (isMissingValue(old) || (agg === "min" ? compare(v, old) < 0 : compare(v, old) > 0)) cell[p] = v;
        break;
      }
      case "first":
        if (isMissingValue(cell[p])) cell[p] = v;
        break;
      case "last":
        cell[p] = v;
        break;
    }
  }
  if (present)
    cells.forEach((cell, c) =>
      cell.forEach((v, p) => (cell[p] = present[c]![p]! > 0 ? (v as number) / present[c]![p]! : NaN)),
    );
  if (agg === undefined && firstRepeat) {
    const [a, b] = firstRepeat;
    const pair = [
      `${names.index} ${keyLabel(d.rowValues[d.rowIds[a]!])}`,
      ...names.keys.map((k, j) => `${k} ${keyLabel(d.colFirst[d.colIds[a]!]![j])}`),
    ];
    throw new PivotError(
      `${repeats} (${[names.index, ...names.keys].join(", ")}) pair${repeats > 1 ? "s have" : " has"} more than one row (first: ${pair.join(", ")}: rows ${a} and ${b}); pass agg: "sum", "mean", "count", "min", "max", "first" or "last" to say how to combine them`,
    );
  }
  return { cells, repeats };
}

/** The values' kind allows the aggregation, or a {@link PivotError} says why not. */
function checkAgg(agg: unknown, kind: ColumnKind | undefined, values: string): void {
  if (agg === undefined) return;
  if (!AGGS.includes(agg as PivotAgg))
    throw new PivotError(`agg must be one of ${AGGS.join(", ")}; got ${JSON.stringify(agg)}`);
  const numbers = kind === "number" || kind === "empty";
  if ((agg === "sum" || agg === "mean") && !numbers)
    throw new PivotError(`agg "${agg}" needs numbers; "${values}" is ${kind}`);
  if ((agg === "min" || agg === "max") && !numbers && kind !== "date")
    throw new PivotError(`agg "${agg}" needs numbers or dates; "${values}" is ${kind}`);
}

/**
 * A wide column table from a long one (see {@link PivotOptions}); a repeated (index, key) pair needs
 * `agg`. `frames.pivotColumns` / `frames.pivot` take a danfo DataFrame too.
 */
export function pivotTable(table: ColumnTable, options: PivotOptions): ColumnTable {
  const keyColumns = typeof options.columns === "string" ? [options.columns] : [...options.columns];
  const indexValues = valuesOf(table, options.index);
  const keyValues = keyColumns.map((c) => valuesOf(table, c));
  const cellValues = valuesOf(table, options.values);
  const valueKind = table.kinds[options.values];
  checkAgg(options.agg, valueKind, options.values);
  const d = distinctRowsAndKeys(indexValues, keyValues, table.rowCount);
  const rowOrder = rowOrderOf(d.rowValues, table.kinds[options.index], levelRank(table, options.index));
  const colOrder = columnOrderOf(
    d.colFirst,
    keyColumns.map((c) => levelRank(table, c)),
    options.columnOrder,
  );
  const { cells, repeats } = fillCells(d, rowOrder, cellValues, valueKind === "number", options.agg, {
    index: options.index,
    keys: keyColumns,
  });

  const builder = new TableBuilder(
    d.rowValues.length,
    table.meta.source,
    { ...table.meta.fields },
    table.meta.provenance,
  );
  builder.addFinished(
    options.index,
    finishColumn(
      options.index,
      rowOrder.map((r) => d.rowValues[r]),
      { owned: true, detectDates: false },
    ),
  );
  const hint = options.agg === "count" || options.agg === "sum" || options.agg === "mean" ? "number" : "auto";
  for (const c of colOrder) {
    let label = d.colLabels[c]!;
    while (builder.has(label)) label += "_";
    builder.add(label, cells[c]!, { owned: true, detectDates: false, hint });
  }
  if (repeats > 0 && (options.agg === "first" || options.agg === "last"))
    builder.warn(
      `${repeats} (${[options.index, ...keyColumns].join(", ")}) pair${repeats > 1 ? "s have" : " has"} more than one row: the ${options.agg} value of each is kept (agg: "${options.agg}")`,
    );
  return builder.build();
}
