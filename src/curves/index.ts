/**
 * Curves by tenor: the service's discount curve (RateAsset) as a function of time. Discount factors, zero
 * rates, forwards and par swap rates at any year fraction or tenor string (`"3M"`, `"2Y"`, `"10Y"`,
 * measured from the market date), under linear-in-zero (default), log-linear-in-DF or Hagan–West
 * monotone-convex interpolation; spreads and butterflies in bp. Pure functions, no I/O, no danfo.
 *
 * - All three interpolations go through every pillar exactly (`zeroRate(pillar.t) === pillar.rate`).
 * - Before the first pillar the zero rate is flat (the first pillar's); after the last the forward is
 *   flat (the last pillar-to-pillar forward). Under monotone convex the first interval is that flat
 *   stub too, so the forward steps at the first pillar from its rate to Hagan–West's pillar forward, and
 *   at the last to the flat tail; in between it is continuous except next to an interval whose pillar
 *   forward equals its discrete forward at one end only (see `Curve.instantaneousForward`).
 * - A tenor is measured from the market date as written (`"1M"` from 31 Jan is 28 Feb), ACT/365,
 *   rounded to 6 decimals like the service's maturities.
 * - `dayCountFraction("2026-02-28", "2026-03-31", "30/360")`: ACT/365F, ACT/360, 30/360, 30E/360 and ACT/ACT
 *   ISDA year fractions between two dates, as QuantLib counts them.
 * - Holiday calendars: `calendar("TARGET" | "US-GOVT" | "UK" | "JP" | "CH")` or `calendarFor("EUR")` gives
 *   `isBusinessDay`, `adjust` (rolls), `advance` (`"2D"` business days, `"1W"`, `"3M"`, `"10Y"`),
 *   `businessDaysBetween` and `holidays`, as QuantLib 1.29's calendars 1990–2070 except the days in
 *   `QUANTLIB_DIFFERENCES` (where QuantLib is out of date), with their reasons.
 * - Bad input throws `CurveError` (a `RiskPortalError`) naming the argument; nothing returns NaN.
 *
 * ```ts
 * import { curves } from "risk-portal-lab";
 * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
 * usd.zeroRate("2Y"); usd.discountFactor("18M"); usd.forwardRate("1Y", "2Y"); usd.parRate("10Y");
 * curves.spread(usd, "2Y", "10Y"); // 2s10s, bp
 * curves.calendarFor("USD").advance("2026-11-20", "3M", { roll: "modified-following", endOfMonth: true });
 * ```
 */
export { CurveError } from "./errors";
export type { Compounding } from "./compounding";
export {
  Curve,
  fromResponse,
  type Pillar,
  type CurveOptions,
  type CompoundingOptions,
  type ParRateOptions,
} from "./curve";
export { DEFAULT_INTERPOLATION, INTERPOLATIONS, type Interpolation } from "./interpolation";
export { parseTenor, addMonths, addTenor, tenorText, DAYS_PER_YEAR, type TenorUnits, type TimeInput } from "./tenor";
export { dayCountFraction, DAY_COUNTS, type DayCount } from "./day-count";
export { spread, butterfly, type SpreadOptions } from "./spread";
export {
  calendar,
  calendarFor,
  CALENDARS,
  ROLLS,
  QUANTLIB_DIFFERENCES,
  type Calendar,
  type CalendarName,
  type Roll,
  type DateInput,
  type AdvanceOptions,
  type QuantLibDifference,
} from "./calendar";
