/** Positions: GetTransactionTable (operation 12). */
import { z } from "zod";
import { lazy } from "./lazy";
import { TYPE_NAMES } from "./assumptions";
import { dateTimeInput, nonBlank, portfolioTypeInput, typeTag } from "./common";
import { defineOperation } from "./operation";
import type * as wire from "./wire-types";

export const transactionTableRequest = lazy(() =>
  z
    .strictObject({
      $type: typeTag(TYPE_NAMES.transactionTableRequest),
      portfolio_name: nonBlank,
      /** Needed only when the name is ambiguous. */
      portfolio_type: portfolioTypeInput.nullish(),
      start_date: dateTimeInput.optional(),
      end_date: dateTimeInput.optional(),
      /** The service's default: false. */
      include_zero_quantities: z.boolean().optional(),
      /** Left out or empty: every counterparty. */
      counterparties: z.array(nonBlank).nullish(),
    })
    .superRefine((r, ctx) => {
      if (r.start_date && r.end_date && Date.parse(r.start_date) > Date.parse(r.end_date)) {
        ctx.addIssue({ code: "custom", path: ["end_date"], message: "must not be before start_date" });
      }
    }),
);
export type TransactionTableRequest = wire.TransactionTableRequest;

/**
 * A13: the table's shape is not published. Rows of objects is the expected one; `{columns, rows}`,
 * `{columns, data}` and column-major objects also arrive. The frames adapters normalise; here any
 * array or object is accepted, and `null` is an empty table.
 */
export const dataTable = lazy(() =>
  z.union([z.array(z.unknown()), z.record(z.string(), z.unknown()), z.null()]).transform((t) => t ?? []),
);
export type DataTable = wire.DataTable;

export const transactionTableResponse = lazy(() => z.looseObject({ data_table: dataTable }));
export type TransactionTableResponse = wire.TransactionTableResponse;

/** 12. POST /api/Position/GetTransactionTable */
export const getTransactionTable = defineOperation({
  name: "GetTransactionTable",
  method: "POST",
  path: "/api/Position/GetTransactionTable",
  retry: "read",
  cacheable: true,
  requestIn: "body",
  request: transactionTableRequest,
  requestType: TYPE_NAMES.transactionTableRequest,
  response: transactionTableResponse,
  largeAnswer: {
    streamInstead:
      'stream the table into Parquet: frames.fetchTransactionTableToParquet(rp, request, "trades.parquet")',
  },
});
