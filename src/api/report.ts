/** Reports: GetReportInfos (9), ReportInfos (10), LookBacks (11). */
import { z } from "zod";
import { LAUNCHER_FIELDS, REPORT_STATUSES, TYPE_NAMES } from "./assumptions";
import { dateTimeInput, dateTimeOutput, nonBlank, noInput, portfolioTypeInput, portfolioTypeOutput } from "./common";
import { defineOperation } from "./operation";

/**
 * Report infos filtered by pricing date(s) and portfolios. At least one of `pricing_date` and
 * `pricing_dates` is needed; `portfolio_names` empty means every portfolio.
 */
export const getReportInfosRequest = z
  .strictObject({
    pricing_date: dateTimeInput.optional(),
    pricing_dates: z.array(dateTimeInput).optional(),
    portfolio_names: z.array(nonBlank).default([]),
    [LAUNCHER_FIELDS.portfolioType]: portfolioTypeInput.optional(),
  } as {
    pricing_date: z.ZodOptional<typeof dateTimeInput>;
    pricing_dates: z.ZodOptional<z.ZodArray<typeof dateTimeInput>>;
    portfolio_names: z.ZodDefault<z.ZodArray<typeof nonBlank>>;
  } & { [LAUNCHER_FIELDS.portfolioType]: z.ZodOptional<typeof portfolioTypeInput> })
  .superRefine((r, ctx) => {
    if (r.pricing_date === undefined && (r.pricing_dates === undefined || r.pricing_dates.length === 0)) {
      ctx.addIssue({ code: "custom", path: ["pricing_date"], message: "give pricing_date or a non-empty pricing_dates" });
    }
  });
export type GetReportInfosRequest = z.input<typeof getReportInfosRequest>;

/** A10: report status — the known values, or any string a newer server adds. */
export const reportStatus = z.union([z.enum(REPORT_STATUSES), z.string()]);

export const reportInfo = z.looseObject({
  id: z.string(),
  report_definition_id: z.string().nullish(),
  report_name: z.string(),
  description: z.string().nullish(),
  status: reportStatus,
  status_message: z.string().nullish(),
  portfolio_name: z.string().nullish(),
  portfolio_type: portfolioTypeOutput.nullish(),
  reporting_currency: z.string().nullish(),
  real_time_mkt_data: z.boolean().nullish(),
  mkt_data_date: dateTimeOutput.nullish(),
  pricing_date: dateTimeOutput,
  time_stamp: dateTimeOutput.nullish(),
});
export type ReportInfo = z.output<typeof reportInfo>;

export const getReportInfosResponse = z.looseObject({ report_infos: z.array(reportInfo) });
export type GetReportInfosResponse = z.output<typeof getReportInfosResponse>;

export const reportListEntry = z.looseObject({ report_type: z.string(), report_name: z.string() });
export const reportListResponse = z.looseObject({ report_infos: z.array(reportListEntry) });
export type ReportListResponse = z.output<typeof reportListResponse>;

export const lookBacksResponse = z.looseObject({ look_backs: z.array(z.string()) });
export type LookBacksResponse = z.output<typeof lookBacksResponse>;

/** 9. POST /api/Report/GetReportInfos */
export const getReportInfos = defineOperation({
  name: "GetReportInfos",
  method: "POST",
  path: "/api/Report/GetReportInfos",
  retry: "read",
  requestIn: "body",
  request: getReportInfosRequest,
  requestType: TYPE_NAMES.reportInfosRequest,
  response: getReportInfosResponse,
});

/** 10. GET /api/Report/ReportInfos */
export const reportInfos = defineOperation({
  name: "ReportInfos",
  method: "GET",
  path: "/api/Report/ReportInfos",
  retry: "read",
  requestIn: "none",
  request: noInput,
  response: reportListResponse,
});

/** 11. GET /api/Report/LookBacks */
export const lookBacks = defineOperation({
  name: "LookBacks",
  method: "GET",
  path: "/api/Report/LookBacks",
  retry: "read",
  cacheable: true,
  requestIn: "none",
  request: noInput,
  response: lookBacksResponse,
});
