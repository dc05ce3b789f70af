/**
 * Fetching a transaction table into memory, as a column table (the lean path: the answer
 * checked without copying, each row released once its cells are in the columns). Streaming one into a
 * Parquet file is its own verb, {@link fetchTransactionTableToParquet}; the DataFrame forms are in frames/.
 */
import { getTransactionTable, type TransactionTableRequest } from "../api/position";
import type { CallOptions } from "../client/pipeline";
import type { RiskPortalClient } from "../client/client";
import type { ColumnTable } from "../table/column-table";
import { buildTransactionTable, type TransactionTableOptions } from "./table";

/**
 * The `parquet` option that these functions took until issue 31 (it changed what they return): a clear
 * error naming the verb that streams into Parquet now, instead of silently fetching into memory.
 */
export function refuseParquetOption(options: object, verb: string, instead: string): void {
  if (options !== null && typeof options === "object" && "parquet" in options)
    throw new TypeError(
      `${verb} has no parquet option: it always returns the table. To stream into a Parquet file, call ${instead}`,
    );
}

/**
 * Fetches a transaction table and returns its column table, holding the payload once: the response is
 * checked without copying, and each row object is released as soon as its cells are in the columns, so
 * the parsed rows and the finished columns are never both complete in memory. Same request, retries,
 * auth and errors as `rp.position.transactionTable`. For a table larger than memory, stream it into a
 * Parquet file instead: {@link fetchTransactionTableToParquet}.
 *
 * @example
 * ```ts
 * const trades = await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" });
 * ```
 */
export async function fetchTransactionTableColumns(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  options: TransactionTableOptions & CallOptions = {},
): Promise<ColumnTable> {
  refuseParquetOption(
    options,
    "frames.fetchTransactionTableColumns",
    'frames.fetchTransactionTableToParquet(rp, request, "data/trades.parquet", { overwrite })',
  );
  const { dates, ...callOptions } = options;
  // The rows are checked as they go into the columns: the pipeline checks the answer's top level only.
  const response = await rp.request(getTransactionTable, request, { ...callOptions, responseCheck: "top-level" });
  return buildTransactionTable(response, { dates }, true);
}
