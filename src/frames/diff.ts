/**
 * `frames.diff(before, after, { key })`: what changed between two tables of the same rows — the table
 * room's diff ({@link diffTables}) over column tables or danfo DataFrames.
 */
import type { DataFrame } from "../../vendor/danfo";
import { asColumnTable, preview, type ColumnTable, type TypedColumnTable } from "../table/column-table";
import { diffTables, type DiffOptions, type FrameDiff } from "../table/diff";
import { FrameDiffError } from "../table/errors";
import { fromDataFrame, isDataFrame } from "./danfo";

export {
  DEFAULT_DIFF_TOLERANCE,
  type CellChange,
  type DiffOptions,
  type FrameDiff,
  type RowChange,
} from "../table/diff";
export { FrameDiffError } from "../table/errors";

/**
 * Compares two tables (column tables or danfo DataFrames) row by row on `key`: rows only in `after`
 * are added, rows only in `before` removed, and rows in both whose values differ (numbers beyond the
 * tolerance) changed. Throws FrameDiffError naming the column when a key column is missing, a key is
 * repeated or missing in a table.
 *
 * @example
 * ```ts
 * const d = frames.diff(yesterday, today, { key: ["currency", "tenor"] });
 * d.summary;          // "3 rows changed, 0 added, 0 removed, 15 unchanged (key currency, tenor)"
 * plot.show(d);       // the changes, largest move first
 * ```
 */
export function diff(
  before: ColumnTable | TypedColumnTable | DataFrame,
  after: ColumnTable | TypedColumnTable | DataFrame,
  options: DiffOptions,
): FrameDiff {
  return diffTables(asTable(before, "before"), asTable(after, "after"), options);
}

function asTable(value: unknown, which: string): ColumnTable {
  const table = asColumnTable(value);
  if (table) return table;
  if (isDataFrame(value)) return fromDataFrame(value);
  throw new FrameDiffError(`${which} must be a column table or a danfo DataFrame, got ${preview(value)}`);
}
