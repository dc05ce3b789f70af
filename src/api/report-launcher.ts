/**
 * Report-launcher creates: VaR (operation 7) and risk / PnL (operation 8). A create saves a launcher item
 * (the caller's launch preferences) and nothing more: "Saving does not launch a report or create a
 * report-run identifier" (A21).
 *
 * The pages put the VaR and risk members flat on the body (A11); the spec's nested parameter object
 * (`parameters: { … }`) is still accepted and flattened. Every member is optional, as on the pages.
 */
import { z } from "zod";
import { lazy } from "./lazy";
import { LAUNCHER_FIELDS, TYPE_NAMES } from "./assumptions";
import { currencyCode, dateTimeInput, nonBlank, operationOutcome, portfolioTypeInput, typeTag } from "./common";
import { defineOperation } from "./operation";
import type * as wire from "./wire-types";

/** A12: look-back display names such as `6M`, `1Y`, `10Y`. */
export const lookBackPeriod = lazy(() =>
  z.string().regex(/^\d+[DWMY]$/, { error: 'expected a look-back period such as "6M", "1Y" or "10Y"' }),
);

/** Members of a saved item the pages describe for the launchers: its client-supplied id, dates and flags. */
const savedItemMembers = lazy(() => ({
  /** "client-supplied saved-item Id". */
  id: nonBlank.nullish(),
  run_date: dateTimeInput.nullish(),
  /** "optional portfolio date-times". */
  portfolio_date_time: dateTimeInput.nullish(),
  /** "real-time … flags". */
  real_time_mkt_data: z.boolean().nullish(),
  /** "run-date flags": run for the day the item is run, whatever `run_date` says. */
  run_date_is_today: z.boolean().nullish(),
  /** "optional run linkage": the last report-run id (server-managed, accepted). */
  report_id: nonBlank.nullish(),
}));

/** VaR members (flat on the body, or nested under `parameters`). */
export const varMembers = lazy(() => ({
  ...savedItemMembers,
  horizon: z.number().int().positive({ error: "must be a positive whole number of days" }).nullish(),
  historical_look_back_period: lookBackPeriod.nullish(),
  confidence_level: z
    .number()
    .gt(0, { error: "must be in (0, 1), e.g. 0.99 for 99%" })
    .lt(1, { error: "must be in (0, 1), e.g. 0.99 for 99%" })
    .nullish(),
  first_observation_date: dateTimeInput.nullish(),
  last_observation_date: dateTimeInput.nullish(),
  /** "weighting definition": an object the pages do not detail; passed through. */
  weighting_var_definition: z.looseObject({}).nullish(),
}));

/** Risk (PnL) members (flat on the body, or nested under `parameters`). */
export const riskMembers = lazy(() => ({
  ...savedItemMembers,
  report_cutoff: nonBlank.nullish(),
  is_druid_report: z.boolean().nullish(),
  /** "position-filter choices" (the name the risk-run pages use). */
  position_filter_name: nonBlank.nullish(),
}));

const commonFields = lazy(() => ({
  report_name: nonBlank,
  /** Null or left out: the caller's configured reporting currency, or USD. */
  reporting_currency: currencyCode.nullish(),
  /** Left out: none ("empty by default"). */
  market_data_environment_names: z.array(nonBlank).nullish(),
  portfolio_name: nonBlank,
  /** Needed only when the portfolio name is ambiguous. */
  [LAUNCHER_FIELDS.portfolioType]: portfolioTypeInput.nullish(),
})) as {
  report_name: typeof nonBlank;
  reporting_currency: z.ZodOptional<z.ZodNullable<typeof currencyCode>>;
  market_data_environment_names: z.ZodOptional<z.ZodNullable<z.ZodArray<typeof nonBlank>>>;
  portfolio_name: typeof nonBlank;
} & { [LAUNCHER_FIELDS.portfolioType]: z.ZodOptional<z.ZodNullable<typeof portfolioTypeInput>> };

/**
 * A launcher create body: `$type`, the common fields, the members flat, and optionally the spec's nested
 * `parameters` object. Its output is flat: a member given both ways is refused.
 */
function launcherRequest<M extends z.ZodRawShape>(requestType: string, members: M) {
  return z
    .strictObject({
      $type: typeTag(requestType),
      ...commonFields,
      ...members,
      [LAUNCHER_FIELDS.parameters]: z.strictObject(members).optional(),
    })
    .transform((body, ctx) => {
      const { [LAUNCHER_FIELDS.parameters]: nested, ...flat } = body as Record<string, unknown>;
      if (!nested) return flat;
      for (const [k, v] of Object.entries(nested as Record<string, unknown>)) {
        if (v === undefined) continue;
        if (flat[k] !== undefined) {
          ctx.issues.push({
            code: "custom",
            path: [LAUNCHER_FIELDS.parameters, k],
            message: `${k} is given both on the body and in parameters; give it once (the pages put it on the body)`,
            input: v,
          });
          continue;
        }
        flat[k] = v;
      }
      return flat;
    })
    .superRefine((body, ctx) => {
      const first = body.first_observation_date as string | null | undefined;
      const last = body.last_observation_date as string | null | undefined;
      const run = body.run_date as string | null | undefined;
      if (first && run && Date.parse(first) > Date.parse(run))
        ctx.addIssue({ code: "custom", path: ["first_observation_date"], message: "must not be after run_date" });
      if (first && last && Date.parse(first) > Date.parse(last))
        ctx.addIssue({
          code: "custom",
          path: ["last_observation_date"],
          message: "must not be before first_observation_date",
        });
    }) as unknown as z.ZodType<LauncherOutput<M>, LauncherInput<M>>;
}

type Flat<M extends z.ZodRawShape> = z.input<z.ZodObject<M>>;
type LauncherInput<M extends z.ZodRawShape> = z.input<z.ZodObject<typeof commonFields>> &
  Flat<M> & { $type?: string; [LAUNCHER_FIELDS.parameters]?: Flat<M> };
type LauncherOutput<M extends z.ZodRawShape> = z.output<z.ZodObject<typeof commonFields>> &
  z.output<z.ZodObject<M>> & { $type: string };

export const varLauncherItemCreateRequest = lazy(() => launcherRequest(TYPE_NAMES.varLauncherRequest, varMembers));
export type VarLauncherItemCreateRequest = wire.VarLauncherItemCreateRequest;
export type VarParametersInput = Flat<typeof varMembers>;

export const riskLauncherItemCreateRequest = lazy(() => launcherRequest(TYPE_NAMES.riskLauncherRequest, riskMembers));
export type RiskLauncherItemCreateRequest = wire.RiskLauncherItemCreateRequest;
export type RiskParametersInput = Flat<typeof riskMembers>;

/** 7. POST /api/ReportLauncher/VarReportLauncherItemCreate */
export const varReportLauncherItemCreate = defineOperation({
  name: "VarReportLauncherItemCreate",
  method: "POST",
  path: "/api/ReportLauncher/VarReportLauncherItemCreate",
  retry: "write",
  mutates: true,
  requestIn: "body",
  request: varLauncherItemCreateRequest,
  requestType: TYPE_NAMES.varLauncherRequest,
  response: operationOutcome,
  outcome: true,
  responseType: TYPE_NAMES.baseResponse,
  whenOutcomeUnknown: "To check: look for the item in the portal's report launcher; re-sending creates a second item.",
});

/** 8. POST /api/ReportLauncher/RiskReportLauncherItemCreate */
export const riskReportLauncherItemCreate = defineOperation({
  name: "RiskReportLauncherItemCreate",
  method: "POST",
  path: "/api/ReportLauncher/RiskReportLauncherItemCreate",
  retry: "write",
  mutates: true,
  requestIn: "body",
  request: riskLauncherItemCreateRequest,
  requestType: TYPE_NAMES.riskLauncherRequest,
  response: operationOutcome,
  outcome: true,
  responseType: TYPE_NAMES.baseResponse,
  whenOutcomeUnknown: "To check: look for the item in the portal's report launcher; re-sending creates a second item.",
});
