/** The display-currency discount curve (operation 4). */
import { z } from "zod";
import { lazy } from "./lazy";
import { TYPE_NAMES } from "./assumptions";
import { checkOneSelector, currencyCode, dateTimeInput, dateTimeOutput, finite, nonBlank, typeTag } from "./common";
import { defineOperation } from "./operation";
import type * as wire from "./wire-types";

/** `entity_access_type` values the pages list (an open enum: others pass). */
export const ENTITY_ACCESS_TYPES = ["view", "edit", "owner", "blocked"] as const;

/**
 * The discount curve of a currency. `market_date` is optional: left out (or null), the service uses the
 * latest available market date (A22). One provider / environment selector form at most.
 */
export const rateAssetRequest = lazy(() =>
  z
    .strictObject({
      $type: typeTag(TYPE_NAMES.discountCurveRequest),
      provider_id: nonBlank.nullish(),
      entity_access_type: (
        z.string() as unknown as z.ZodType<(typeof ENTITY_ACCESS_TYPES)[number] | (string & {})>
      ).optional(),
      market_data_environment_names: z.array(nonBlank).nullish(),
      market_data_environment_name: nonBlank.nullish(),
      currency: currencyCode,
      market_date: dateTimeInput.nullish(),
    })
    .superRefine(checkOneSelector),
);
export type RateAssetRequest = wire.RateAssetRequest;

/** One curve point: `maturity` and `rate` as the service sends them, and the instrument fitted there. */
export const curvePoint = lazy(() =>
  z.looseObject({
    maturity: finite,
    rate: finite,
    fitted_instrument_name: z.string().nullish(),
    expiry: dateTimeOutput.nullish(),
    fitted_instrument_rate: finite.nullish(),
  }),
);
export type CurvePoint = wire.CurvePoint;

export const yieldCurveModel = lazy(() =>
  z.looseObject({
    latest_market_date: dateTimeOutput.nullish(),
    currency: z.string(),
    market_date: dateTimeOutput,
    data: z.array(curvePoint),
  }),
);
export type YieldCurveModel = wire.YieldCurveModel;

export const rateAssetResponse = lazy(() =>
  z.looseObject({
    $type: z.string().optional(),
    yield_curve_model: yieldCurveModel,
  }),
);
export type RateAssetResponse = wire.RateAssetResponse;

/** 4. POST /api/RateAsset */
export const getRateAsset = defineOperation({
  name: "RateAsset",
  method: "POST",
  path: "/api/RateAsset",
  retry: "read",
  cacheable: true,
  requestIn: "body",
  request: rateAssetRequest,
  requestType: TYPE_NAMES.discountCurveRequest,
  response: rateAssetResponse,
  responseType: TYPE_NAMES.discountCurveResponse,
});
