/** Report-launcher creates: VaR (operation 7) and risk / PnL (operation 8). */
import { z } from "zod";
import { DEFAULT_PORTFOLIO_TYPE, LAUNCHER_FIELDS, TYPE_NAMES } from "./assumptions";
import { currencyCode, dateTimeInput, nonBlank, operationOutcome, portfolioTypeInput } from "./common";
import { defineOperation } from "./operation";

/** A12: look-back display names such as `6M`, `1Y`, `10Y`. */
export const lookBackPeriod = z.string().regex(/^\d+[DWMY]$/, { error: 'expected a look-back period such as "6M", "1Y" or "10Y"' });

/** VaR parameters (the nested parameter object, A11 `parameters`). */
export const varParameters = z
  .strictObject({
    horizon: z.number().int().positive({ error: "must be a positive whole number of days" }),
    historical_look_back_period: lookBackPeriod,
    confidence_level: z.number().gt(0).lt(1, { error: "must be in (0, 1), e.g. 0.99 for 99%" }),
    run_date: dateTimeInput,
    first_observation_date: dateTimeInput.optional(),
  })
  .superRefine((p, ctx) => {
    if (p.first_observation_date && Date.parse(p.first_observation_date) > Date.parse(p.run_date)) {
      ctx.addIssue({ code: "custom", path: ["first_observation_date"], message: "must not be after run_date" });
    }
  });
export type VarParametersInput = z.input<typeof varParameters>;

/** Risk (PnL) parameters. */
export const riskParameters = z.strictObject({
  report_cutoff: nonBlank,
  is_druid_report: z.boolean().default(false),
  run_date: dateTimeInput,
});
export type RiskParametersInput = z.input<typeof riskParameters>;

const commonFields = {
  report_name: nonBlank,
  reporting_currency: currencyCode,
  market_data_environment_names: z.array(nonBlank),
  portfolio_name: nonBlank,
  [LAUNCHER_FIELDS.portfolioType]: portfolioTypeInput.default(DEFAULT_PORTFOLIO_TYPE),
} as {
  report_name: typeof nonBlank;
  reporting_currency: typeof currencyCode;
  market_data_environment_names: z.ZodArray<typeof nonBlank>;
  portfolio_name: typeof nonBlank;
} & { [LAUNCHER_FIELDS.portfolioType]: z.ZodDefault<typeof portfolioTypeInput> };

export const varLauncherItemCreateRequest = z.strictObject({
  ...commonFields,
  [LAUNCHER_FIELDS.parameters]: varParameters,
} as typeof commonFields & { [LAUNCHER_FIELDS.parameters]: typeof varParameters });
export type VarLauncherItemCreateRequest = z.input<typeof varLauncherItemCreateRequest>;

export const riskLauncherItemCreateRequest = z.strictObject({
  ...commonFields,
  [LAUNCHER_FIELDS.parameters]: riskParameters,
} as typeof commonFields & { [LAUNCHER_FIELDS.parameters]: typeof riskParameters });
export type RiskLauncherItemCreateRequest = z.input<typeof riskLauncherItemCreateRequest>;

/** 7. POST /api/ReportLauncher/VarReportLauncherItemCreate */
export const varReportLauncherItemCreate = defineOperation({
  name: "VarReportLauncherItemCreate",
  method: "POST",
  path: "/api/ReportLauncher/VarReportLauncherItemCreate",
  retry: "write",
  requestIn: "body",
  request: varLauncherItemCreateRequest,
  requestType: TYPE_NAMES.varLauncherRequest,
  response: operationOutcome,
  outcome: true,
  responseType: TYPE_NAMES.baseResponse,
});

/** 8. POST /api/ReportLauncher/RiskReportLauncherItemCreate */
export const riskReportLauncherItemCreate = defineOperation({
  name: "RiskReportLauncherItemCreate",
  method: "POST",
  path: "/api/ReportLauncher/RiskReportLauncherItemCreate",
  retry: "write",
  requestIn: "body",
  request: riskLauncherItemCreateRequest,
  requestType: TYPE_NAMES.riskLauncherRequest,
  response: operationOutcome,
  outcome: true,
  responseType: TYPE_NAMES.baseResponse,
});
