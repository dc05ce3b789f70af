/** Market-data uploads: bond prices (operation 1) and equity vol curves (operation 2). */
import { z } from "zod";
import { lazy } from "./lazy";
import { TYPE_NAMES } from "./assumptions";
import {
  auditFields,
  currencyCode,
  dateTimeInput,
  finite,
  identifier,
  nonBlank,
  numberArray,
  operationOutcome,
  positive,
  typeTag,
} from "./common";
import { defineOperation } from "./operation";
import type * as wire from "./wire-types";

/**
 * One bond price (element of `bond_data`, `MarketData.BondDataExternal`), with the audit fields the pages show.
 * `traded_price` is a clean price (without accrued interest); with `is_percentage_of_par`, in percent of
 * par (97.43). Neither the spec nor the public pages say clean or dirty: A24, `TRADED_PRICE` in assumptions.ts.
 */
export const bondPriceRecord = lazy(() =>
  z.strictObject({
    $type: typeTag(TYPE_NAMES.bondData),
    ...auditFields,
    date: dateTimeInput,
    bond_identifier: identifier,
    is_currency_per_bond_unit: z.boolean(),
    currency: currencyCode,
    /** Clean (no accrued interest); percent of par when `is_percentage_of_par` (A24). */
    traded_price: finite,
    is_percentage_of_par: z.boolean(),
  }),
);
export type BondPriceRecordInput = wire.BondPriceRecordInput;
export type BondPriceRecord = wire.BondPriceRecord;

/**
 * Where uploaded market data goes: a market-data environment by name and / or a provider by its opaque
 * id ("a non-Derivitec provider that the caller may edit"). The newer pages' upload examples send both,
 * so, unlike RateAsset's selectors, both together are accepted.
 */
const uploadTarget = lazy(() => ({
  market_data_environment_name: nonBlank.nullish(),
  provider_id: nonBlank.nullish(),
}));

/**
 * `trigger_immediate_bootstrap` (the service's default: true, refreshes finish after the response) and
 * `use_best_effort` (default false) are sent only when the caller sets them.
 */
export const uploadBondPriceDataRequest = lazy(() =>
  z.strictObject({
    $type: typeTag(TYPE_NAMES.uploadBondPriceRequest),
    ...uploadTarget,
    trigger_immediate_bootstrap: z.boolean().optional(),
    use_best_effort: z.boolean().optional(),
    bond_data: z.array(bondPriceRecord).min(1, { error: "must hold at least one bond price" }),
  }),
);
export type UploadBondPriceDataRequest = wire.UploadBondPriceDataRequest;

/**
 * One equity vol curve (A8): ATM-forward vols (decimal) at maturities in days after `reference_date`,
 * one vol per maturity, maturities strictly increasing.
 */
export const equityVolCurve = lazy(() =>
  z
    .strictObject({
      $type: typeTag(TYPE_NAMES.equityVolCurve),
      ...auditFields,
      asset_id: identifier,
      reference_date: dateTimeInput,
      maturities: numberArray,
      vols: numberArray,
      spot_ref: positive.optional(),
    })
    .superRefine((curve, ctx) => {
      if (curve.maturities.length !== curve.vols.length) {
        ctx.addIssue({
          code: "custom",
          path: ["vols"],
          message: `has ${curve.vols.length} values but maturities has ${curve.maturities.length}; they must have the same length`,
        });
      }
      curve.maturities.forEach((m, i) => {
        if (!(m > 0))
          ctx.addIssue({ code: "custom", path: ["maturities", i], message: "must be > 0 (days after reference_date)" });
        else if (i > 0 && !(m > curve.maturities[i - 1]!)) {
          ctx.addIssue({ code: "custom", path: ["maturities", i], message: "maturities must be strictly increasing" });
        }
      });
      curve.vols.forEach((v, i) => {
        if (!(v > 0)) ctx.addIssue({ code: "custom", path: ["vols", i], message: "must be > 0 (decimal, 0.2 = 20%)" });
      });
    }),
);
export type EquityVolCurveInput = wire.EquityVolCurveInput;
export type EquityVolCurve = wire.EquityVolCurve;

export const uploadEquityVolCurvesRequest = lazy(() =>
  z.strictObject({
    $type: typeTag(TYPE_NAMES.uploadEquityVolCurvesRequest),
    ...uploadTarget,
    use_best_effort: z.boolean().optional(),
    equity_vol_curves: z.array(equityVolCurve).min(1, { error: "must hold at least one curve" }),
  }),
);
export type UploadEquityVolCurvesRequest = wire.UploadEquityVolCurvesRequest;

/** 1. POST /api/MarketData/UploadBondPriceData */
export const uploadBondPriceData = defineOperation({
  name: "UploadBondPriceData",
  method: "POST",
  path: "/api/MarketData/UploadBondPriceData",
  retry: "write",
  mutates: true,
  requestIn: "body",
  request: uploadBondPriceDataRequest,
  requestType: TYPE_NAMES.uploadBondPriceRequest,
  response: operationOutcome,
  outcome: true,
  responseType: TYPE_NAMES.uploadBondPriceResponse,
  whenOutcomeUnknown:
    "To check: once bootstrapped, the prices show as BOND points in RateAsset for their currency and date.",
});

/** 2. POST /api/MarketData/UploadEquityVolCurves */
export const uploadEquityVolCurves = defineOperation({
  name: "UploadEquityVolCurves",
  method: "POST",
  path: "/api/MarketData/UploadEquityVolCurves",
  retry: "write",
  mutates: true,
  requestIn: "body",
  request: uploadEquityVolCurvesRequest,
  requestType: TYPE_NAMES.uploadEquityVolCurvesRequest,
  response: operationOutcome,
  outcome: true,
  responseType: TYPE_NAMES.uploadEquityVolCurvesResponse,
  whenOutcomeUnknown: "To check: look for the curves in the portal's market data before re-sending.",
});
