/** Curve spreads and butterflies (2s10s, 2s5s10s), in basis points by default. */
import type { Compounding } from "./compounding";
import type { Curve } from "./curve";
import { CurveError } from "./errors";
import type { TimeInput } from "./tenor";
import type { DayCount } from "./day-count";

export interface SpreadOptions {
  /** Which rate: `zero` (default; the zero rate in `compounding`) or `par` (the par swap rate, `frequency` payments a year). */
  measure?: "zero" | "par";
  /** `bp` (default: basis points, 1 bp = 0.0001) or `decimal` (0.0050 = 50 bp). */
  unit?: "bp" | "decimal";
  /** For `measure: "zero"`: how the zero rates compound. Default continuous. */
  compounding?: Compounding;
  /** For `measure: "par"`: fixed-leg payments a year. Default 1. */
  frequency?: number;
  /** For `measure: "par"`: how the fixed leg accrues (see `ParRateOptions.dayCount`). */
  dayCount?: DayCount;
}

function rateAt(curve: Curve, t: TimeInput, options: SpreadOptions): number {
  const measure = options.measure ?? "zero";
  if (measure === "zero") return curve.zeroRate(t, { compounding: options.compounding });
  if (measure === "par") return curve.parRate(t, { frequency: options.frequency, dayCount: options.dayCount });
  throw new CurveError(`options.measure must be "zero" or "par", got ${JSON.stringify(measure)}`, "options.measure");
}

function scale(options: SpreadOptions): number {
  const unit = options.unit ?? "bp";
  if (unit === "bp") return 1e4;
  if (unit === "decimal") return 1;
  throw new CurveError(`options.unit must be "bp" or "decimal", got ${JSON.stringify(unit)}`, "options.unit");
}

/**
 * The spread `rate(long) − rate(short)`: `spread(curve, "2Y", "10Y")` is the 2s10s, in basis points
 * unless `unit: "decimal"`; zero rates (continuous) unless `measure: "par"`.
 *
 * @example
 * ```ts
 * curves.spread(usd, "2Y", "10Y");                       // 2s10s of zero rates, bp
 * curves.spread(usd, "2Y", "10Y", { measure: "par" });   // of annual par swap rates, bp
 * ```
 */
export function spread(curve: Curve, short: TimeInput, long: TimeInput, options: SpreadOptions = {}): number {
  const k = scale(options);
  return (rateAt(curve, long, options) - rateAt(curve, short, options)) * k;
}

/**
 * The butterfly `2·rate(belly) − rate(short) − rate(long)`: `butterfly(curve, "2Y", "5Y", "10Y")` is the
 * 2s5s10s (positive when the belly is high), in basis points unless `unit: "decimal"`; zero rates
 * (continuous) unless `measure: "par"`.
 * @example
 * ```ts
 * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
 * curves.butterfly(usd, "2Y", "5Y", "10Y"); // 2·5Y − 2Y − 10Y, in bp
 * ```
 */
export function butterfly(
  curve: Curve,
  short: TimeInput,
  belly: TimeInput,
  long: TimeInput,
  options: SpreadOptions = {},
): number {
  const k = scale(options);
  return (2 * rateAt(curve, belly, options) - rateAt(curve, short, options) - rateAt(curve, long, options)) * k;
}
