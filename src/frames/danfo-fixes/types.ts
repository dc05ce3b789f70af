/** danfo's internals as the corrections use them (danfojs-base 1.2's NDframe, DataFrame and Series). */

/** danfo's frame configuration (a `Config` instance). */
export interface FrameConfig {
  readonly isLowMemoryMode: boolean;
}

/** A DataFrame or Series: danfo's `$` fields and the public accessors the corrections read. */
export interface Frame {
  /** Rows (a DataFrame: one array per row) or values (a Series). */
  $data: unknown[];
  /** Columns (a DataFrame, unless low-memory mode) or the values again (a Series). */
  $dataIncolumnFormat: unknown[];
  $index: unknown[];
  $columns: string[];
  /** danfo's own labels (`float32` for numbers): what danfo's code checks. */
  $dtypes: string[];
  $config: FrameConfig;
  $isSeries: boolean;
  readonly shape: number[];
  readonly columns: string[];
  /** The labels users see (`float64` for numbers, see dtypes.ts). */
  readonly dtypes: string[];
  readonly index: unknown[];
  readonly values: unknown[];
  readonly config: FrameConfig;
}

/** A danfo class, as its constructor. */
export type FrameClass = new (data: unknown, options?: Record<string, unknown>) => Frame;

/** What every correction needs: danfo's base classes (those danfo's own methods construct) and their prototypes. */
export interface DanfoClasses {
  /** danfojs-base's DataFrame: what head(), sortValues(), … return; danfojs-node's DataFrame extends it. */
  DataFrame: FrameClass;
  Series: FrameClass;
  frame: Record<string, unknown>;
  series: Record<string, unknown>;
  /** NDframe, the prototype both share (dtypes, tensor, …). */
  ndframe: Record<string, unknown>;
  /** The method a correction replaced, as danfo had it. */
  upstream(target: object, key: string): (...args: unknown[]) => unknown;
}

/** True for a danfo DataFrame or Series made by these classes (or by danfojs-node's subclasses). */
export function isFrame(value: unknown, cls: FrameClass): value is Frame {
  return value instanceof cls;
}

/** Missing as the package means it: null, undefined, NaN (danfo's isNa sees the same). */
export function isMissing(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === "number" && Number.isNaN(value));
}

/** A frame's number of rows, read from its index (its rows may not be built yet: build.ts). */
export function rowCount(frame: Frame): number {
  return frame.$index.length;
}

/** The columns of a frame (its column cache, or its rows transposed in low-memory mode). */
export function columnsOf(frame: Frame): unknown[][] {
  if (!frame.$config.isLowMemoryMode && frame.$dataIncolumnFormat.length === frame.$columns.length)
    return frame.$dataIncolumnFormat as unknown[][];
  const rows = frame.$data as unknown[][];
  const width = frame.$columns.length;
  const columns: unknown[][] = [];
  for (let j = 0; j < width; j++) {
    const column = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) column[i] = rows[i]![j];
    columns.push(column);
  }
  return columns;
}
