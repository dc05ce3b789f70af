/** Reports: GetReportInfos (9), ReportInfos (10), LookBacks (11). */
import { z } from "zod";
import { lazy } from "./lazy";
import { LAUNCHER_FIELDS, REPORT_STATUSES, TYPE_NAMES } from "./assumptions";
import {
  currencyCode,
  dateTimeInput,
  dateTimeOutput,
  nonBlank,
  noInput,
  portfolioTypeInput,
  portfolioTypeOutput,
  typeTag,
} from "./common";
import { defineOperation } from "./operation";
import type * as wire from "./wire-types";

/**
 * Report infos filtered by pricing date(s), report, portfolio(s) and portfolio type. The newer pages use
 * the singular `report_name`, `portfolio_name` and `pricing_date` (and call the plural `portfolio_names`,
 * `pricing_dates` obsolete); the older form is still accepted. At least one pricing date is needed; no
 * portfolio names means every portfolio.
 */
export const getReportInfosRequest = lazy(() =>
  z
    .strictObject({
      $type: typeTag(TYPE_NAMES.reportInfosRequest),
      report_name: nonBlank.nullish(),
      reporting_currency: currencyCode.nullish(),
      market_data_environment_names: z.array(nonBlank).nullish(),
      portfolio_name: nonBlank.nullish(),
      [LAUNCHER_FIELDS.portfolioType]: portfolioTypeInput.nullish(),
      pricing_date: dateTimeInput.nullish(),
      /** Obsolete on the newer pages; still understood. */
      pricing_dates: z.array(dateTimeInput).nullish(),
      /** Obsolete on the newer pages; still understood. */
      portfolio_names: z.array(nonBlank).nullish(),
      /** "RunByUserEmails": only runs started by these users. */
      run_by_user_emails: z.array(nonBlank).nullish(),
    })
    .superRefine((r, ctx) => {
      if (!r.pricing_date && !(r.pricing_dates && r.pricing_dates.length > 0)) {
        ctx.addIssue({
          code: "custom",
          path: ["pricing_date"],
          message: "give pricing_date (or the older pricing_dates, non-empty)",
        });
      }
    }),
);
export type GetReportInfosRequest = wire.GetReportInfosRequest;

/** A10: report status — the known values, or any string a newer server adds. */
export const reportStatus = lazy(() => z.union([z.enum(REPORT_STATUSES), z.string()]));

export const reportInfo = lazy(() =>
  z.looseObject({
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
  }),
);
export type ReportInfo = wire.ReportInfo;

export const getReportInfosResponse = lazy(() => z.looseObject({ report_infos: z.array(reportInfo) }));
export type GetReportInfosResponse = wire.GetReportInfosResponse;

/** The envelope the newer pages show on ReportInfos and LookBacks: `$type`, `is_success`, `error_messages`. */
const envelope = lazy(() => ({
  $type: z.string().optional(),
  is_success: z.boolean().optional(),
  error_messages: z.array(z.string()).nullish(),
}));

export const reportListEntry = lazy(() => z.looseObject({ report_type: z.string(), report_name: z.string() }));
/** `report_infos` may be null on an unsuccessful answer (then an empty list). */
export const reportListResponse = lazy(() =>
  z.looseObject({
    ...envelope,
    report_infos: z
      .array(reportListEntry)
      .nullish()
      .transform((r) => r ?? []),
  }),
);
export type ReportListResponse = wire.ReportListResponse;

/** `look_backs` is nullable on the pages (then an empty list). */
export const lookBacksResponse = lazy(() =>
  z.looseObject({
    ...envelope,
    look_backs: z
      .array(z.string())
      .nullish()
      .transform((l) => l ?? []),
  }),
);
export type LookBacksResponse = wire.LookBacksResponse;

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
  outcome: true,
  responseType: TYPE_NAMES.reportListResponse,
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
  outcome: true,
  responseType: TYPE_NAMES.lookBacksResponse,
});
