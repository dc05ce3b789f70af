/**
 * Discount factors and forward rates from zero rates, under an explicit compounding convention.
 * Times are in years (the curve's `maturity`), rates decimal (0.03 = 3%).
 */

/**
 * How a zero rate compounds:
 * - `continuous`: `DF = exp(-r·t)` (the service's curve rates are continuously compounded zero rates)
 * - `simple`: `DF = 1 / (1 + r·t)`
 * - `annual`, `semiannual`, `quarterly`, `monthly`, or `{ periodsPerYear: m }`: `DF = (1 + r/m)^(-m·t)`
 */
export type Compounding =
  "continuous" | "simple" | "annual" | "semiannual" | "quarterly" | "monthly" | { periodsPerYear: number };

/** The default convention, matching the service's curves. */
export const DEFAULT_COMPOUNDING: Compounding = "continuous";

const PERIODS: Record<string, number> = { annual: 1, semiannual: 2, quarterly: 4, monthly: 12 };

/** `m` for periodic compounding, `0` for continuous, `-1` for simple; throws on anything else. */
function periodsOf(compounding: Compounding): number {
  if (compounding === "continuous") return 0;
  if (compounding === "simple") return -1;
  if (typeof compounding === "string" && compounding in PERIODS) return PERIODS[compounding]!;
  if (
    typeof compounding === "object" &&
    compounding !== null &&
    Number.isInteger(compounding.periodsPerYear) &&
    compounding.periodsPerYear > 0
  ) {
    return compounding.periodsPerYear;
  }
  throw new RangeError(
    `compounding must be "continuous", "simple", "annual", "semiannual", "quarterly", "monthly" or { periodsPerYear: n } (n a positive integer), got ${JSON.stringify(compounding)}`,
  );
}

/**
 * The discount factor at `t` years of the zero rate `rate`; `NaN` for a negative or non-finite input.
 * @example
 * ```ts
 * import { discountFactor } from "risk-portal-lab/frames";
 * discountFactor(0.03, 2);             // e^(−0.06), continuously compounded
 * discountFactor(0.03, 2, "annual");   // 1.03^−2
 * ```
 */
export function discountFactor(rate: number, t: number, compounding: Compounding = DEFAULT_COMPOUNDING): number {
  const m = periodsOf(compounding);
  if (!Number.isFinite(rate) || !Number.isFinite(t) || t < 0) return NaN;
  if (t === 0) return 1;
  if (m === 0) return Math.exp(-rate * t);
  if (m === -1) return 1 / (1 + rate * t);
  return Math.pow(1 + rate / m, -m * t);
}

/**
 * The forward rate between `t1` and `t2` (years, `t2 > t1`) implied by the discount factors there, in
 * the same convention; `NaN` when `t2 <= t1` or an input is not finite.
 * @example
 * ```ts
 * import { discountFactor, forwardRate } from "risk-portal-lab/frames";
 * forwardRate(1, discountFactor(0.03, 1), 2, discountFactor(0.035, 2)); // the 1y1y forward, 4%
 * ```
 */
export function forwardRate(
  t1: number,
  df1: number,
  t2: number,
  df2: number,
  compounding: Compounding = DEFAULT_COMPOUNDING,
): number {
  const m = periodsOf(compounding);
  const tau = t2 - t1;
  if (!(tau > 0) || !(df1 > 0) || !(df2 > 0)) return NaN;
  const growth = df1 / df2;
  if (m === 0) return Math.log(growth) / tau;
  if (m === -1) return (growth - 1) / tau;
  return m * (Math.pow(growth, 1 / (m * tau)) - 1);
}

export interface CurveMeasures {
  discountFactors: number[];
  /** Forward rate from the next shorter maturity (from 0 for the shortest) to this one. */
  forwardRates: number[];
  /** Points whose forward is undefined and why (a repeated or negative maturity). */
  problems: string[];
}

/**
 * Discount factors at every maturity, and the forward rate between consecutive maturities (taken in
 * ascending order, whatever the order of the points; the shortest maturity's forward runs from 0, so
 * it equals its zero rate). Results are in the points' order.
 * @example
 * ```ts
 * import { curveMeasures } from "risk-portal-lab/frames";
 * const { discountFactors, forwardRates } = curveMeasures([1, 2, 5], [0.03, 0.032, 0.035]);
 * ```
 */
export function curveMeasures(
  maturities: readonly number[],
  rates: readonly number[],
  compounding: Compounding = DEFAULT_COMPOUNDING,
): CurveMeasures {
  periodsOf(compounding); // reject a bad convention even for an empty curve
  const n = maturities.length;
  const discountFactors = new Array<number>(n);
  const forwardRates = new Array<number>(n).fill(NaN);
  const problems: string[] = [];
  for (let i = 0; i < n; i++) discountFactors[i] = discountFactor(rates[i]!, maturities[i]!, compounding);
  const order = [...maturities.keys()]
    .filter((i) => Number.isFinite(maturities[i]!))
    .sort((a, b) => maturities[a]! - maturities[b]!);
  let prevT = 0;
  let prevDf = 1;
  for (const i of order) {
    const t = maturities[i]!;
    if (t < 0) {
      problems.push(`maturity ${t} at point ${i} is negative: no discount factor or forward`);
      continue;
    }
    if (t === prevT) {
      problems.push(
        t === 0
          ? `maturity 0 at point ${i}: no forward over an empty period`
          : `maturity ${t} repeats at point ${i}: no forward over an empty period`,
      );
    } else {
      forwardRates[i] = forwardRate(prevT, prevDf, t, discountFactors[i]!, compounding);
    }
    if (Number.isFinite(discountFactors[i]!)) {
      prevT = t;
      prevDf = discountFactors[i]!;
    }
  }
  return { discountFactors, forwardRates, problems };
}
