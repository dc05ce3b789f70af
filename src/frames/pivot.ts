/** `frames.pivotColumns` / `frames.pivot`: the table room's pivot ({@link pivotTable}), from and to danfo. */
import type { DataFrame } from "../../vendor/danfo";
import { asColumnTable, type ColumnTable, type TypedColumnTable } from "../table/column-table";
import { pivotTable, type PivotOptions } from "../table/pivot";
import { fromDataFrame, isDataFrame, toDataFrame } from "./danfo";

export type { PivotAgg, PivotOptions } from "../table/pivot";

/** A column table from a column table or a danfo DataFrame. */
function tableOf(input: ColumnTable | TypedColumnTable | DataFrame, caller: string): ColumnTable {
  const table = asColumnTable(input);
  if (table) return table;
  if (isDataFrame(input)) return fromDataFrame(input);
  throw new TypeError(
    `${caller}: expected a column table or a danfo DataFrame, got ${input === null ? "null" : typeof input}`,
  );
}

/**
 * A wide column table from a long one (a column table or a danfo DataFrame; see {@link PivotOptions}).
 * A repeated (index, key) pair needs `agg`.
 *
 * @example
 * ```ts
 * frames.pivot(trades, { index: "counterparty", columns: "currency", values: "notional", agg: "sum" });
 * ```
 */
export function pivotColumns(input: ColumnTable | TypedColumnTable | DataFrame, options: PivotOptions): ColumnTable {
  return pivotTable(tableOf(input, "frames.pivot"), options);
}

/**
 * {@link pivotColumns} as a danfo DataFrame (fresh 0..n-1 index).
 * @example
 * ```ts
 * const trades = frames.transactionTable(await rp.position.transactionTable({ portfolio_name: "GLOBAL-MACRO" }));
 * const book = frames.pivot(trades, { index: "counterparty", columns: "currency", values: "notional", agg: "sum" });
 * ```
 */
export function pivot(input: ColumnTable | TypedColumnTable | DataFrame, options: PivotOptions): DataFrame {
  return toDataFrame(pivotColumns(input, options));
}
