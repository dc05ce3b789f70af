/**
 * The local vol-surface model (vol-model.md): `GetVol` reproduced from a `surface`, strike conventions,
 * static-arbitrage diagnostics, a cross-check against the service, and a builder of valid surfaces.
 * Pure functions over Float64Array, no I/O (except `crossCheck`, which calls the client it is given).
 *
 * ```ts
 * import { vol, STRIKE_TYPE } from "risk-portal-lab";
 * const s = vol.fromSurface(surface);
 * const v = s.vols(90, [80, 100, 120], STRIKE_TYPE.PercentForward);
 * const report = vol.diagnose(s);
 * const check = await vol.crossCheck(rp, surface, { maturities: [30, 90, 365], strikes: [80, 100, 120] });
 * ```
 */
export { VolModelError, type VolModelErrorDetails } from "./errors";
export {
  fromSurface,
  forwardWithinDoublePrecision,
  VolSurfaceModel,
  LOG_MONEYNESS_LIMIT,
  type Benchmark,
  type VolGrid,
  type WireSurface,
} from "./surface";
export type { SurfaceLike } from "./surface-input";
export {
  LOCAL_STRIKE_TYPES,
  PERCENT_REFERENCE,
  FORWARD_CALL_DELTA,
  deltaLabel,
  type ModelStrikeType,
  type DeltaStrikeType,
  type DeltaConvention,
} from "./strikes";
export {
  rawSvi,
  sliceParams,
  centredSlice,
  minTotalVariance,
  modelMinTotalVariance,
  butterflyG,
  densityFactor,
  sviW,
  sviW1,
  sviW2,
  type RawSvi,
  type SliceParams,
  type SliceLocation,
  type SviSlice,
} from "./svi";
export { normCdf, normInv, erfc, erfcx } from "./normal";
export {
  black76,
  black76Strikes,
  type Black76Input,
  type Black76Greeks,
  type Black76Arrays,
  type Black76Market,
  type OptionKind,
} from "./black76";
export { bachelier, bachelierStrikes, type BachelierInput, type BachelierMarket } from "./bachelier";
export { impliedVol, impliedVols, type ImpliedVolInput, type ImpliedVolsInput, type VolModel } from "./implied-vol";
export {
  priceOptions,
  strikeDeltas,
  impliedDensity,
  localVol,
  type PriceOptionsOptions,
  type OptionPrices,
  type StrikesAt,
  type ImpliedDensity,
  type LocalVolOptions,
  type LocalVol,
  type LocalVolGap,
} from "./pricing";
export {
  diagnose,
  DEFAULT_K_GRID,
  INTERPOLATED_CHECKS,
  type ArbitrageReport,
  type Violation,
  type DiagnoseOptions,
} from "./diagnostics";
export {
  crossCheck,
  formatSummary,
  DEFAULT_CROSS_CHECK_TOLERANCE,
  DEFAULT_CROSS_CHECK_CONCURRENCY,
  type CrossCheckRow,
  type CrossCheckResult,
  type CrossCheckSummary,
  type CrossCheckOptions,
  type FailedMaturity,
} from "./cross-check";
export { buildSurface, BUILD_DEFAULTS, type BuildSurfaceOptions, type PerBenchmark } from "./build-surface";
export {
  rawToNatural,
  naturalToRaw,
  rawToJumpWings,
  jumpWingsToRaw,
  rawToModel,
  modelToRaw,
  modelToJumpWings,
  jumpWingsToModel,
  naturalToJumpWings,
  jumpWingsToNatural,
  naturalToModel,
  modelToNatural,
  convertSlice,
  sliceForm,
  repairButterfly,
  SVI_FORM_KEYS,
  type NaturalSvi,
  type JumpWings,
  type SviForms,
  type SviForm,
  type AnySviSlice,
  type FormOf,
  type SsviSlice,
  type RepairChange,
  type ButterflyRepair,
} from "./parametrisations";
export {
  surfaceFromEquityVolCurve,
  ATM_CALENDAR_TOLERANCE,
  type EquityVolCurveLike,
  type SurfaceFromEquityVolCurveOptions,
} from "./atm-bridge";
export {
  calibrate,
  CALIBRATION_MARGINS,
  DEFAULT_MAX_ITERATIONS,
  MAX_OUTER,
  MIN_QUOTES,
  NOISE_RMSE_LIMIT,
  SANE_LIMITS,
  VEGA_WEIGHT_FLOOR,
  type CalibrateOptions,
  type CalibrationResult,
  type CalibrationConstraint,
  type SliceFit,
  type SmileQuotes,
} from "./calibrate";
