/** Frames built from columns with one transposition, and row selections built the same way (no tensor, no double transposition). */
import { columnsOf, type Frame, type FrameClass, type FrameConfig } from "./types";

/**
 * A DataFrame of `cls` from columns. danfo's constructor transposes twice for column input (columns → rows,
 * then rows → columns again for its column cache), which at a million rows costs about as much as
 * everything else together. So: construct an empty frame with the columns and dtypes (danfo validates
 * them and defines the column accessors), then set the row array, the column cache (these arrays) and
 * the index exactly as danfo's constructor would. A self-check compares the result with what danfo
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
  const rows = new Array<unknown[]>(n);
  for (let i = 0; i < n; i++) {
    const row = new Array<unknown>(width);
    for (let j = 0; j < width; j++) row[j] = columns[j]![i];
    rows[i] = row;
  }
  let labels = index;
  if (!labels) {
    labels = new Array<number>(n);
    for (let i = 0; i < n; i++) labels[i] = i;
  }
  const df = new cls([], options);
  if (Array.isArray(df.$data) && Array.isArray(df.$dataIncolumnFormat) && Array.isArray(df.$index)) {
    df.$data = rows;
    df.$dataIncolumnFormat = df.$config.isLowMemoryMode ? [] : columns;
    df.$index = labels;
    const shape = df.shape;
    if (shape[0] === n && shape[1] === width && df.$dtypes.length === width) return df;
  }
  return new cls(rows, { ...options, index: labels });
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
  const n = positions ? positions.length : frame.$data.length;
  const columns = picked.map((j) => (positions ? take(all[j]!, positions) : all[j]!.slice()));
  const index = positions ? take(frame.$index, positions) : frame.$index.slice();
  const names = picked.map((j) => frame.$columns[j]!);
  const dtypes = picked.map((j) => frame.$dtypes[j]!);
  if (columnPositions || n === 0 || names.length === 0)
    return frameFromColumns(cls, names, dtypes, columns, n, index, frame.config);
  // Every column: each new row is a copy of a source row (one contiguous copy, not one read per column).
  const source = frame.$data as unknown[][];
  const rows = new Array<unknown[]>(n);
  for (let i = 0; i < n; i++) rows[i] = source[positions ? positions[i]! : i]!.slice();
  return withRows(cls, names, dtypes, rows, columns, index, frame.config);
}

/** A frame holding these rows, columns (the same values) and index, set as danfo's constructor would. */
function withRows(
  cls: FrameClass,
  names: string[],
  dtypes: string[],
  rows: unknown[][],
  columns: unknown[][],
  index: unknown[],
  config: FrameConfig,
): Frame {
  const df = new cls([], { columns: names, dtypes, config });
  df.$data = rows;
  df.$dataIncolumnFormat = df.$config.isLowMemoryMode ? [] : columns;
  df.$index = index;
  return df;
}

/** Makes `target` hold `source`'s rows, columns and index (what an `inplace` operation leaves); dtypes stay. */
export function replaceContents(target: Frame, source: Frame): void {
  target.$data = source.$data;
  target.$dataIncolumnFormat = source.$dataIncolumnFormat;
  target.$index = source.$index;
}
