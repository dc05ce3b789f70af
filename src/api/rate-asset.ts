/** The display-currency discount curve (operation 4). */
import { z } from "zod";
import { TYPE_NAMES } from "./assumptions";
import { currencyCode, dateTimeInput, dateTimeOutput, finite } from "./common";
import { defineOperation } from "./operation";

export const rateAssetRequest = z.strictObject({
  currency: currencyCode,
  market_date: dateTimeInput,
});
export type RateAssetRequest = z.input<typeof rateAssetRequest>;

/** One curve point: `maturity` and `rate` as the service sends them, and the instrument fitted there. */
export const curvePoint = z.looseObject({
  maturity: finite,
  rate: finite,
  fitted_instrument_name: z.string().nullish(),
  expiry: dateTimeOutput.nullish(),
  fitted_instrument_rate: finite.nullish(),
});
export type CurvePoint = z.output<typeof curvePoint>;

export const yieldCurveModel = z.looseObject({
  latest_market_date: dateTimeOutput.nullish(),
  currency: z.string(),
  market_date: dateTimeOutput,
  data: z.array(curvePoint),
});
export type YieldCurveModel = z.output<typeof yieldCurveModel>;

export const rateAssetResponse = z.looseObject({
  $type: z.string().optional(),
  yield_curve_model: yieldCurveModel,
});
export type RateAssetResponse = z.output<typeof rateAssetResponse>;

/** 4. POST /api/RateAsset */
export const getRateAsset = defineOperation({
  name: "RateAsset",
  method: "POST",
  path: "/api/RateAsset",
  retry: "read",
  cacheable: true,
  requestIn: "body",
  request: rateAssetRequest,
  response: rateAssetResponse,
  responseType: TYPE_NAMES.discountCurveResponse,
});
