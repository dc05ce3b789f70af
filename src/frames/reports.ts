/** Reports as frames: report infos (operation 9), the report list (10), look-backs (11). */
import type { DataFrame } from "../../vendor/danfo";
import { PORTFOLIO_TYPES, REPORT_STATUSES, LOOK_BACK_PERIODS } from "../api/assumptions";
import type { GetReportInfosResponse, LookBacksResponse, ReportInfo, ReportListResponse } from "../api/report";
import { isRecord } from "../api/operation";
import { TableBuilder, type ColumnTable } from "../table/column-table";
import { toDataFrame } from "./danfo";
import { provenanceFrom } from "./provenance";
import { withDateWarnings } from "./answered-dates";
import { otherFields, tableFromRecords, type FieldSpec } from "./records";

/** The report-info columns, in the spec's order; dates as `Date`, `status` and `portfolio_type` categories. */
export const REPORT_INFO_FIELDS: readonly FieldSpec[] = [
  { name: "id", hint: "string" },
  { name: "report_definition_id", hint: "string" },
  { name: "report_name", hint: "string" },
  { name: "description", hint: "string" },
  { name: "status", hint: "category", levels: REPORT_STATUSES },
  { name: "status_message", hint: "string" },
  { name: "portfolio_name", hint: "string" },
  { name: "portfolio_type", hint: "category", levels: PORTFOLIO_TYPES },
  { name: "reporting_currency", hint: "string" },
  { name: "real_time_mkt_data", hint: "boolean" },
  { name: "mkt_data_date", hint: "date" },
  { name: "pricing_date", hint: "date" },
  { name: "time_stamp", hint: "date" },
];

function recordsOf(response: unknown, field: string): unknown[] {
  if (Array.isArray(response)) return response;
  if (isRecord(response) && Array.isArray(response[field])) return response[field] as unknown[];
  return [];
}

/**
 * Report infos as a column table: every spec field (dates as `Date`; `status` and `portfolio_type`
 * as categories whose levels — the known values in lifecycle order, then any new ones — are in
 * `meta.categories`), then any extra fields. Takes the `GetReportInfos` response or its `report_infos`.
 * Infos of another pricing date than the request asked for carry a warning naming both dates.
 * @example
 * ```ts
 * const table = frames.reportInfosColumns(await rp.report.infos({ pricing_date: "2026-11-20" }));
 * ```
 */
export function reportInfosColumns(response: GetReportInfosResponse | readonly ReportInfo[]): ColumnTable {
  const table = tableFromRecords(recordsOf(response, "report_infos"), REPORT_INFO_FIELDS, {
    source: "GetReportInfos",
    fields: otherFields(response, ["report_infos"]),
    provenance: provenanceFrom(response),
  });
  return withDateWarnings(table, response);
}

/**
 * Report infos as a danfo DataFrame (see {@link reportInfosColumns}); the category levels are in
 * `frameInfo(df).categories`.
 *
 * @example
 * ```ts
 * const df = frames.reportInfos(await rp.report.infos({ pricing_date: "2026-11-20" }));
 * ```
 */
export function reportInfos(response: GetReportInfosResponse | readonly ReportInfo[]): DataFrame {
  return toDataFrame(reportInfosColumns(response));
}

/**
 * The caller's report list as a column table: `report_type` (category), `report_name`, then extras.
 * @example
 * ```ts
 * const table = frames.reportListColumns(await rp.report.list());
 * ```
 */
export function reportListColumns(response: ReportListResponse | ReportListResponse["report_infos"]): ColumnTable {
  return tableFromRecords(
    recordsOf(response, "report_infos"),
    [
      { name: "report_type", hint: "category" },
      { name: "report_name", hint: "string" },
    ],
    { source: "ReportInfos", fields: otherFields(response, ["report_infos"]), provenance: provenanceFrom(response) },
  );
}

/**
 * The caller's report list as a danfo DataFrame.
 *
 * @example
 * ```ts
 * const df = frames.reportList(await rp.report.list());
 * ```
 */
export function reportList(response: ReportListResponse | ReportListResponse["report_infos"]): DataFrame {
  return toDataFrame(reportListColumns(response));
}

/** Months in a look-back display name (`6M` → 6, `2Y` → 24), or NaN for other units. */
function months(lookBack: unknown): number {
  const m = typeof lookBack === "string" ? /^(\d+)([MY])$/i.exec(lookBack.trim()) : null;
  if (!m) return NaN;
  return Number(m[1]) * (m[2]!.toUpperCase() === "Y" ? 12 : 1);
}

/**
 * Look-backs as a column table: `look_back` (category; levels in A12 order, then others) and `months`
 * (`6M` → 6, `1Y` → 12; missing for other units), in the order received.
 * @example
 * ```ts
 * const table = frames.lookBacksColumns(await rp.report.lookBacks()); // look_back, months
 * ```
 */
export function lookBacksColumns(response: LookBacksResponse | readonly string[]): ColumnTable {
  const values = recordsOf(response, "look_backs");
  const builder = new TableBuilder(
    values.length,
    "LookBacks",
    otherFields(response, ["look_backs"]),
    provenanceFrom(response),
  );
  builder.add("look_back", [...values], { hint: "category", levels: LOOK_BACK_PERIODS, owned: true });
  builder.add("months", values.map(months), { hint: "number", owned: true });
  return builder.build();
}

/**
 * Look-backs as a danfo DataFrame.
 *
 * @example
 * ```ts
 * const df = frames.lookBacks(await rp.report.lookBacks());
 * ```
 */
export function lookBacks(response: LookBacksResponse | readonly string[]): DataFrame {
  return toDataFrame(lookBacksColumns(response));
}
