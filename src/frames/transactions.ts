/**
 * The transaction tables as danfo DataFrames: the column tables of the transactions room (in memory, from a
 * response, or across portfolios and months) through the one door to danfo.
 */
import type { DataFrame } from "../../vendor/danfo";
import type { TransactionTableRequest } from "../api/position";
import type { BatchFrame } from "../batch/run";
import type { RiskPortalClient } from "../client/client";
import type { CallOptions } from "../client/pipeline";
import { fetchTransactionTableColumns, refuseParquetOption } from "../transactions/fetch";
import {
  fetchTransactionTablesColumns,
  type TransactionTablesFailure,
  type TransactionTablesOptions,
} from "../transactions/panel";
import { transactionTableColumns, type TransactionTableOptions } from "../transactions/table";
import { toDataFrame } from "./danfo";

/**
 * The transaction table as a danfo DataFrame (see {@link transactionTableColumns}).
 *
 * @example
 * ```ts
 * const df = frames.transactionTable(await rp.position.transactionTable({ portfolio_name: "GLOBAL-MACRO" }));
 * ```
 */
export function transactionTable(input: unknown, options: TransactionTableOptions = {}): DataFrame {
  return toDataFrame(transactionTableColumns(input, options));
}

/**
 * {@link fetchTransactionTableColumns} as a danfo DataFrame: the lean end-to-end path (HTTP → parse →
 * frame) for large tables.
 *
 * @example
 * ```ts
 * const df = await frames.fetchTransactionTable(rp, { portfolio_name: "GLOBAL-MACRO" });
 * ```
 */
export async function fetchTransactionTable(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  options: TransactionTableOptions & CallOptions = {},
): Promise<DataFrame> {
  refuseParquetOption(
    options,
    "frames.fetchTransactionTable",
    'frames.fetchTransactionTableToParquet(rp, request, "data/trades.parquet", { overwrite })',
  );
  return toDataFrame(await fetchTransactionTableColumns(rp, request, options));
}

/**
 * {@link fetchTransactionTablesColumns} in memory, as one long danfo DataFrame (fresh 0..n-1 index), failures beside it.
 * @example
 * ```ts
 * const { frame, failures } = await frames.fetchTransactionTables(rp, { portfolios: ["GLOBAL-MACRO", "RATES-EU"], months: ["2026-09", "2026-10"] });
 * ```
 */
export async function fetchTransactionTables(
  rp: RiskPortalClient,
  options: TransactionTablesOptions,
): Promise<BatchFrame<TransactionTablesFailure>> {
  const { table, failures } = await fetchTransactionTablesColumns(rp, options);
  return { frame: toDataFrame(table), failures };
}
