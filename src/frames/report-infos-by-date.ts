/**
 * Report infos across many pricing dates: one `GetReportInfos` call per date with bounded concurrency,
 * one long frame, the failed dates beside it.
 */
import type { CallOptions } from "../client/pipeline";
import type { RiskPortalClient } from "../client/client";
import type { PORTFOLIO_TYPES } from "../api/assumptions";
import { emptyTable } from "../table/column-table";
import { concatColumns } from "../table/concat";
import { toDataFrame } from "./danfo";
import { dateText } from "../batch/failure";
import type { ProgressOptions } from "../batch/progress";
import { runBatch, type BatchColumns, type BatchFrame } from "../batch/run";
import { REPORT_INFO_FIELDS, reportInfosColumns } from "./reports";
import { batchDateWarnings, datesOf, withoutDateWarnings } from "./answered-dates";

export interface ReportInfosByDateOptions extends ProgressOptions {
  /** Pricing dates: `Date`s, ISO date-times with an offset, or `YYYY-MM-DD`. */
  pricingDates: readonly (string | Date)[];
  /** Portfolios to include; empty or absent means all. */
  portfolio_names?: readonly string[];
  portfolio_type?: (typeof PORTFOLIO_TYPES)[number];
  /** Calls in flight at once. Default 4. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Per-call options (`timeoutMs`, `retry`, `headers`). */
  call?: Omit<CallOptions, "signal" | "throwOnFailure">;
}

/** A pricing date whose report infos could not be fetched, and why. */
export interface ReportInfosFailure {
  pricing_date: string;
  error: string;
  status?: number;
}

/**
 * Report infos of every pricing date as one long column table (dates in the order given), failures
 * beside it; `meta.provenance` has one entry per date fetched, in the same order. Dates asked whose infos
 * came back priced on another date are named in `meta.warnings`, with the rows that are then duplicates.
 * @example
 * ```ts
 * const { table, failures } = await frames.fetchReportInfosByDateColumns(rp, { pricingDates: ["2026-11-19", "2026-11-20"] });
 * ```
 */
export async function fetchReportInfosByDateColumns(
  rp: RiskPortalClient,
  options: ReportInfosByDateOptions,
): Promise<BatchColumns<ReportInfosFailure>> {
  const { pricingDates } = options;
  if (!Array.isArray(pricingDates) || pricingDates.length === 0)
    throw new TypeError('pricingDates must be a non-empty array, e.g. ["2026-11-19", "2026-11-20"]');
  const { results, failures } = await runBatch(
    {
      what: "report infos",
      jobs: pricingDates,
      label: dateText,
      run: async (pricing_date) => {
        const request = {
          pricing_date,
          portfolio_names: [...(options.portfolio_names ?? [])],
          ...(options.portfolio_type ? { portfolio_type: options.portfolio_type } : {}),
        };
        const answer = await rp.report.infos(request, { ...options.call, signal: options.signal });
        return { table: withoutDateWarnings(reportInfosColumns(answer)), dates: datesOf(answer) };
      },
      failure: (pricing_date, reason): ReportInfosFailure => ({ pricing_date: dateText(pricing_date), ...reason }),
    },
    options,
  );
  // With every call failed, the frame still has the report-info columns (and no rows).
  const tables = results.map((r) => r.table);
  const table =
    tables.length > 0
      ? concatColumns(tables, "GetReportInfos")
      : emptyTable(
          "GetReportInfos",
          REPORT_INFO_FIELDS.map((f) => f.name),
        );
  // Dates asked whose infos are another date's (A23), with the rows that are then duplicates.
  table.meta.warnings.push(...batchDateWarnings(results.map((r) => r.dates)));
  return { table, failures };
}

/**
 * Report infos of every pricing date as one long danfo DataFrame, failures beside it.
 *
 * @example
 * ```ts
 * const { frame, failures } = await frames.fetchReportInfosByDate(rp, { pricingDates: ["2026-11-18", "2026-11-19", "2026-11-20"] });
 * ```
 */
export async function fetchReportInfosByDate(
  rp: RiskPortalClient,
  options: ReportInfosByDateOptions,
): Promise<BatchFrame<ReportInfosFailure>> {
  const { table, failures } = await fetchReportInfosByDateColumns(rp, options);
  return { frame: toDataFrame(table), failures };
}
