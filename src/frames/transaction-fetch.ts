/**
 * Fetching a transaction table: into memory as a column table or DataFrame (the lean path: the answer
 * checked without copying, each row released once its cells are in the columns), or, with `parquet:
 * file`, streamed into a Parquet file (transaction-stream.ts). Apart from transaction-table.ts, which
 * reads a table and which the stream uses, so that neither imports the other.
 */
import { z } from "zod";
import type { DataFrame } from "../../vendor/danfo";
import { isRecord, defineOperation } from "../api/operation";
import { getTransactionTable, type TransactionTableRequest } from "../api/position";
import type { CallOptions } from "../client/pipeline";
import type { RiskPortalClient } from "../client/client";
import type { ColumnTable } from "./column-table";
import { toDataFrame } from "./danfo";
import { buildTransactionTable, type TransactionTableOptions } from "./transaction-table";
import { fetchTransactionTableToParquet, type TransactionTableWritten } from "./transaction-stream";

/** `GetTransactionTable` with a response check that does not copy the table (the pipeline's schema copies arrays). */
const leanTransactionTable = defineOperation({
  ...getTransactionTable,
  response: z.custom<{ data_table: unknown }>((v) => isRecord(v) && "data_table" in v, { error: "expected an object with a data_table field" }),
});

/** Options of a fetch straight into Parquet: the file, and whether it may replace one. */
export interface ToParquetOptions {
  /** A Parquet file to stream the table into instead of returning it (see `frames.readParquet`). */
  parquet: string;
  /** Replace an existing file (default false: it is an error, and nothing is fetched). */
  overwrite?: boolean;
}

/**
 * Fetches a transaction table and returns its column table, holding the payload once: the response is
 * checked without copying, and each row object is released as soon as its cells are in the columns, so
 * the parsed rows and the finished columns are never both complete in memory. Same request, retries,
 * auth and errors as `rp.position.transactionTable`.
 *
 * With `parquet: file` the table is not returned but streamed into that Parquet file as its answer
 * arrives, never held whole (a batch of 20,000 rows at a time): for tables larger than memory. The
 * columns get the same kinds as in memory; what was written is returned.
 *
 * ```ts
 * const trades = await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" });
 * const file = await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" }, { parquet: "data/trades.parquet" });
 * ```
 */
export async function fetchTransactionTableColumns(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  options: TransactionTableOptions & CallOptions & ToParquetOptions,
): Promise<TransactionTableWritten>;
export async function fetchTransactionTableColumns(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  options?: TransactionTableOptions & CallOptions,
): Promise<ColumnTable>;
export async function fetchTransactionTableColumns(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  options: TransactionTableOptions & CallOptions & Partial<ToParquetOptions> = {},
): Promise<ColumnTable | TransactionTableWritten> {
  const { dates, parquet, overwrite, ...callOptions } = options;
  if (parquet !== undefined) {
    if (typeof parquet !== "string" || parquet === "") throw new TypeError('parquet must be a file path, e.g. "data/trades.parquet"');
    return fetchTransactionTableToParquet(rp, request, parquet, { ...callOptions, dates, overwrite });
  }
  const response = await rp.request(leanTransactionTable, request, callOptions);
  return buildTransactionTable(response, { dates }, true);
}

/**
 * {@link fetchTransactionTableColumns} as a danfo DataFrame: the lean end-to-end path (HTTP → parse →
 * frame) for large tables; with `parquet: file`, streamed into that file instead (what was written is
 * returned).
 *
 * ```ts
 * const df = await frames.fetchTransactionTable(rp, { portfolio_name: "GLOBAL-MACRO" });
 * ```
 */
export async function fetchTransactionTable(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  options: TransactionTableOptions & CallOptions & ToParquetOptions,
): Promise<TransactionTableWritten>;
export async function fetchTransactionTable(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  options?: TransactionTableOptions & CallOptions,
): Promise<DataFrame>;
export async function fetchTransactionTable(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  options: TransactionTableOptions & CallOptions & Partial<ToParquetOptions> = {},
): Promise<DataFrame | TransactionTableWritten> {
  if (options.parquet !== undefined) return fetchTransactionTableColumns(rp, request, options as TransactionTableOptions & CallOptions & ToParquetOptions);
  return toDataFrame(await fetchTransactionTableColumns(rp, request, options));
}
