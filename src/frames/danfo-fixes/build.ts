/**
 * Frames built from columns with one transposition, and row selections built the same way (no tensor, no double
 * transposition). A selection of every column (a sort, a query, iloc/loc by rows) gets its rows (danfo's `$data`,
 * one array per row) on first read only: its columns are what `df[col]`, a comparison and the next query read,
 * and building a million row arrays that nobody reads was most of a query after a sort (issue 46, item 3).
 */
import { columnsOf, rowCount, type Frame, type FrameClass, type FrameConfig } from "./types";

/**
 * A DataFrame of `cls` from columns. danfo's constructor transposes twice for column input (columns → rows,
 * then rows → columns again for its column cache), which at a million rows costs about as much as
 * everything else together. So: construct an empty frame with the columns and dtypes (danfo validates
 * them and defines the column accessors), then set the column cache (these arrays), the index and the
 * row array (built when first read; at once in low-memory mode) exactly as danfo's constructor would. A self-check compares the result with what danfo
 * reports; if this danfo version keeps its state differently, the public constructor is used instead
 * (slower, same frame). `index` defaults to 0..n-1; it must hold distinct labels (not checked here).
 */
export function frameFromColumns(
  cls: FrameClass,
  names: string[],
  dtypes: string[],
  columns: unknown[][],
  n: number,
  index?: unknown[],
  config?: FrameConfig,
): Frame {
  const width = columns.length;
  const options: Record<string, unknown> = { columns: names, dtypes };
  if (config) options.config = config;
  if (n === 0 || width === 0) return new cls([], options);
  let labels = index;
  if (!labels) {
    labels = new Array<number>(n);
    for (let i = 0; i < n; i++) labels[i] = i;
  }
  const df = new cls([], options);
  if (Array.isArray(df.$data) && Array.isArray(df.$dataIncolumnFormat) && Array.isArray(df.$index)) {
    df.$dataIncolumnFormat = df.$config.isLowMemoryMode ? [] : columns;
    df.$index = labels;
    // The rows (one array per row) are built when first read, as for a selection (see takeFrame).
    if (df.$config.isLowMemoryMode) df.$data = rowsOf(columns, n);
    else rowsOnFirstRead(df, columns, n);
    const shape = df.shape;
    if (shape[0] === n && shape[1] === width && df.$dtypes.length === width) return df;
  }
  return new cls(rowsOf(columns, n), { ...options, index: labels });
}

/** `values` at `positions`. */
export function take<T>(values: readonly T[], positions: ArrayLike<number>): T[] {
  const out = new Array<T>(positions.length);
  for (let i = 0; i < positions.length; i++) out[i] = values[positions[i]!]!;
  return out;
}

/**
 * The rows of `frame` at `positions` (null: all, in order) and its columns at `columnPositions` (null: all),
 * index labels, names, dtypes and config kept: what danfo's iloc returns, built directly.
 */
export function takeFrame(
  cls: FrameClass,
  frame: Frame,
  positions: ArrayLike<number> | null,
  columnPositions: readonly number[] | null,
): Frame {
  const all = columnsOf(frame);
  const picked = columnPositions ?? all.map((_, j) => j);
  const n = positions ? positions.length : rowCount(frame);
  const columns = picked.map((j) => (positions ? take(all[j]!, positions) : all[j]!.slice()));
  const index = positions ? take(frame.$index, positions) : frame.$index.slice();
  const names = picked.map((j) => frame.$columns[j]!);
  const dtypes = picked.map((j) => frame.$dtypes[j]!);
  if (columnPositions || n === 0 || names.length === 0)
    return frameFromColumns(cls, names, dtypes, columns, n, index, frame.config);
  const df = new cls([], { columns: names, dtypes, config: frame.config });
  df.$dataIncolumnFormat = df.$config.isLowMemoryMode ? [] : columns;
  df.$index = index;
  if (df.$config.isLowMemoryMode) df.$data = rowsOf(columns, n);
  else rowsOnFirstRead(df, columns, n);
  return df;
}

/** The rows of `columns` (n values each): one array per row. */
function rowsOf(columns: readonly unknown[][], n: number): unknown[][] {
  const width = columns.length;
  const rows = new Array<unknown[]>(n);
  for (let i = 0; i < n; i++) {
    const row = new Array<unknown>(width);
    for (let j = 0; j < width; j++) row[j] = columns[j]![i];
    rows[i] = row;
  }
  return rows;
}

/** Marks a frame whose `$data` is not built yet (see {@link rowsOnFirstRead}). */
const ROWS_PENDING = Symbol("risk-portal-lab.danfo-fixes.rows-pending");

/**
 * Gives `df` a `$data` built from `columns` when first read (then an ordinary property, as danfo's constructor
 * leaves it); an assignment before that replaces it. The columns are the frame's column cache at this moment,
 * so the rows hold what an eager build would have held.
 */
function rowsOnFirstRead(df: Frame, columns: readonly unknown[][], n: number): void {
  const settle = (target: Frame, rows: unknown[]): void => {
    Object.defineProperty(target, "$data", { value: rows, writable: true, enumerable: true, configurable: true });
    delete (target as unknown as Record<symbol, unknown>)[ROWS_PENDING];
  };
  Object.defineProperty(df, ROWS_PENDING, { value: true, configurable: true });
  Object.defineProperty(df, "$data", {
    get(this: Frame) {
      const rows = rowsOf(columns, n);
      settle(this, rows);
      return rows;
    },
    set(this: Frame, rows: unknown[]) {
      settle(this, rows);
    },
    enumerable: true,
    configurable: true,
  });
}

/** Whether `frame`'s rows are still to be built (its shape is then its index's length by its columns). */
export function rowsPending(frame: Frame): boolean {
  return (frame as unknown as Record<symbol, unknown>)[ROWS_PENDING] === true;
}

/** Makes `target` hold `source`'s rows, columns and index (what an `inplace` operation leaves); dtypes stay. */
export function replaceContents(target: Frame, source: Frame): void {
  target.$data = source.$data;
  target.$dataIncolumnFormat = source.$dataIncolumnFormat;
  target.$index = source.$index;
}
