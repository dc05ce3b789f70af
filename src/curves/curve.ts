/**
 * `Curve`: a discount curve of the service (RateAsset) as a function of time — discount factors, zero
 * rates, forwards and par swap rates at any year fraction or tenor, under one of three interpolations.
 */
import type { RateAssetResponse, YieldCurveModel } from "../api/rate-asset";
import { discountFactor as dfOf, forwardRate as forwardOf, DEFAULT_COMPOUNDING, type Compounding } from "./compounding";
import { namedDateProblem } from "../api/field-messages";
import { parseIsoDate } from "../table/iso-date";
import { CurveError } from "./errors";
import { refuseThenables } from "../await-guard";
import {
  DEFAULT_INTERPOLATION,
  INTERPOLATIONS,
  makeInterpolator,
  makeNodes,
  type Interpolation,
  type Interpolator,
  type Nodes,
} from "./interpolation";
import {
  addMonths,
  addTenor,
  calendarDayOf,
  parseTenor,
  roundYears,
  toYears,
  yearFraction,
  type TimeInput,
} from "./tenor";
import { checkDayCount, dayCountFraction, type DayCount } from "./day-count";
import type { Calendar, Roll } from "./calendar";
import {
  dayText,
  rolledMonthDay,
  rolledTenorDay,
  tenorDateRule,
  type TenorDateOptions,
  type TenorDateRule,
} from "./tenor-dates";

const DAY_MS = 86_400_000;

/** One point the curve goes through: `t` (ACT/365 years, the service's `maturity`) and `rate` (continuous zero rate, decimal). */
export interface Pillar {
  t: number;
  rate: number;
  /** The point's `expiry` (null when the service sent none). */
  expiry: Date | null;
  /** `fitted_instrument_name` (null when the service sent none). */
  instrument: string | null;
}

/**
 * How the curve is built. `calendar`, `roll` and `spotLag` (see `TenorDateOptions`) put tenor dates on
 * business days: spot is the market date (rolled following) plus `spotLag` business days, a tenor lands
 * `calendar.advance(spot, tenor, { roll })` (`"2D"`: business days; no end-of-month rule; `"ON"` is one
 * business day from the market date, whatever the spot lag), and its time is ACT/365 from the market date to that day. Without `calendar` (the default), tenors are unadjusted
 * calendar arithmetic from the market date, as before.
 */
export interface CurveOptions extends TenorDateOptions {
  /**
   * How to fill the gaps between pillars. Default `linear-zero`.
   * - `linear-zero`: linear in the zero rate;
   * - `log-linear-df`: linear in log(discount factor), i.e. piecewise-constant forwards;
   * - `monotone-convex`: Hagan & West (2006), with their positivity-preserving amendment (forwards stay
   *   >= 0 when every discrete forward of the input is > 0).
   *
   * All three go through every pillar: `zeroRate(pillar.t) === pillar.rate`.
   */
  interpolation?: Interpolation;
  /**
   * `monotone-convex` only: apply Hagan–West's positivity-preserving collar to the pillar forwards when
   * every discrete forward is > 0. Default true; false gives the plain method (whose forwards can dip
   * below zero on a steep curve).
   */
  positivity?: boolean;
}

export interface CompoundingOptions {
  /** How the returned rate compounds (see `curves.Compounding`). Default `continuous`, the service's convention. */
  compounding?: Compounding;
}

export interface ParRateOptions {
  /** Fixed-leg payments per year: 1 (default), 2, 3, 4, 6 or 12. */
  frequency?: number;
  /**
   * How each period accrues, from its unadjusted start and end dates (see {@link DayCount}): `ACT/365F`,
   * `ACT/360`, `30/360` (US / Bond Basis), `30E/360` or `ACT/ACT ISDA`. The 30/360 counts and ACT/ACT need
   * dates, so a tenor string;
   * with a year fraction, `ACT/365F` accrues the periods' year fractions and `ACT/360` them × 365/360.
   * Without it, every full period accrues exactly `1/frequency` whatever its dates (no day count), and a
   * front stub its ACT/365 length.
   */
  dayCount?: DayCount;
}

const FREQUENCIES = [1, 2, 3, 4, 6, 12];

/** The model inside a response, or the model itself. */
function modelOf(input: RateAssetResponse | YieldCurveModel): YieldCurveModel {
  if (typeof input !== "object" || input === null) {
    throw new CurveError(
      `curves.fromResponse expects a RateAsset response or its yield_curve_model, got ${input === null ? "null" : typeof input}`,
      "response",
    );
  }
  // Validated at the edge: the input may be any object a notebook holds.
  const model: unknown = "yield_curve_model" in input ? input.yield_curve_model : input;
  if (typeof model !== "object" || model === null || !Array.isArray((model as { data?: unknown }).data)) {
    throw new CurveError(
      "curves.fromResponse: the response has no yield_curve_model.data array (expected a RateAsset response or its yield_curve_model)",
      "response",
    );
  }
  return model as YieldCurveModel;
}

const dateOrNull = (v: unknown): Date | null => {
  if (v instanceof Date) return v;
  if (typeof v !== "string") return null;
  const ms = parseIsoDate(v);
  return Number.isNaN(ms) ? null : new Date(ms);
};

/**
 * A discount curve built from a `RateAsset` response (or its `yield_curve_model`).
 *
 * `t` (everywhere) is years from the market date (ACT/365, like the service's `maturity`) or a tenor
 * string: `"ON"`/`"1D"`, `"1W"`, `"3M"`, `"18M"`, `"2Y"`, `"10Y"` (case-insensitive), measured from the
 * market date by calendar arithmetic (months added with end-of-month clamping: 31 Jan + 1M = 28 Feb; no
 * business-day adjustment) and converted to years ACT/365, rounded to 6 decimals as the service rounds
 * its maturities (so a tenor landing on a pillar's expiry is exactly that pillar).
 *
 * Outside the pillars, whatever the interpolation:
 * - before the first pillar, the zero rate is flat at the first pillar's rate (so the forward there is
 *   that rate too); `t = 0` has discount factor 1 and zero rate the first pillar's rate (the limit);
 * - after the last pillar, the forward is flat at the last interval's forward (from the second-last to
 *   the last pillar; the first pillar's rate for a one-pillar curve): `DF(t) = DF(t_n)·exp(−f·(t − t_n))`,
 *   so the zero rate tends towards that forward instead of jumping.
 *
 * Bad input (NaN, negative `t`, an unknown tenor, `t2 <= t1`, …) throws a {@link CurveError} naming the
 * argument; nothing returns NaN.
 */
export class Curve {
  /** The curve's currency (`USD`). */
  readonly currency: string;
  /** The market date, as the instant the service sent. */
  readonly marketDate: Date;
  readonly interpolation: Interpolation;
  /** The pillars, ascending in `t` (a pillar repeated with the same rate is kept once). */
  readonly pillars: readonly Pillar[];
  /** The business-day calendar tenor dates follow (`options.calendar`), or null: unadjusted tenors. */
  readonly calendar: Calendar | null;
  /** How tenor dates roll on {@link calendar} (`options.roll`, default `"modified-following"`); null without a calendar. */
  readonly roll: Roll | null;
  /** Business days from the market date to spot (`options.spotLag`, default 0); 0 without a calendar. */
  readonly spotLag: number;
  /** The tenor rule (null without a calendar) and the days tenors landed on, by tenor text. */
  readonly #rule: TenorDateRule | null;
  readonly #tenorDays = new Map<string, number>();
  /** The calendar day tenors are measured from (ms at 00:00 UTC): the market date as written. */
  readonly #day: number;
  readonly #nodes: Nodes;
  readonly #interp: Interpolator;
  /** The forward after the last pillar. */
  readonly #tailForward: number;

  constructor(currency: string, marketDate: string | Date, pillars: readonly Pillar[], options: CurveOptions = {}) {
    refuseThenables("curves.Curve", [currency, marketDate, pillars, options]);
    const interpolation = options.interpolation ?? DEFAULT_INTERPOLATION;
    if (!INTERPOLATIONS.includes(interpolation)) {
      throw new CurveError(
        `options.interpolation must be ${INTERPOLATIONS.map((x) => `"${x}"`).join(", ")}; got ${JSON.stringify(interpolation)}`,
        "options.interpolation",
      );
    }
    const day =
      marketDate instanceof Date
        ? Date.UTC(marketDate.getUTCFullYear(), marketDate.getUTCMonth(), marketDate.getUTCDate())
        : calendarDayOf(marketDate);
    const instant = marketDate instanceof Date ? marketDate.getTime() : parseIsoDate(marketDate);
    if (Number.isNaN(day) || Number.isNaN(instant)) {
      const why = namedDateProblem(marketDate);
      throw new CurveError(
        why ? `market_date: ${why}` : `market_date must be an ISO 8601 date, got ${JSON.stringify(marketDate)}`,
        "market_date",
      );
    }
    this.currency = currency;
    this.marketDate = new Date(instant);
    this.interpolation = interpolation;
    this.#day = day;
    this.#rule = tenorDateRule(options, day);
    this.calendar = this.#rule?.calendar ?? null;
    this.roll = this.#rule?.roll ?? null;
    this.spotLag = this.#rule?.spotLag ?? 0;
    this.pillars = checkPillars(pillars);
    const n = this.pillars.length;
    this.#nodes = makeNodes(
      Float64Array.from(this.pillars, (p) => p.t),
      Float64Array.from(this.pillars, (p) => p.rate),
    );
    this.#interp = makeInterpolator(interpolation, this.#nodes, { positivity: options.positivity ?? true });
    this.#tailForward = this.#nodes.fd[n - 1]!;
  }

  /**
   * Years (ACT/365) from the market date to `t` (a year fraction is returned as is, after checking it); a
   * tenor to the day {@link tenorDate} gives, rounded to 6 decimals.
   * @example
   * ```ts
   * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
   * usd.years("18M"); // ACT/365 years from the market date (or spot) to the 18M date
   * ```
   */
  years(t: TimeInput, argument = "t"): number {
    if (this.#rule === null || typeof t !== "string") return toYears(t, this.#day, argument);
    return roundYears(yearFraction(this.#day, this.#tenorDay(t, argument)));
  }

  /**
   * The day `tenor` lands on, `"YYYY-MM-DD"`: on the curve's calendar, spot plus the tenor rolled (see
   * {@link CurveOptions}); without one, the market date plus the tenor, unadjusted (`"1M"` from 31 Jan is 28 Feb).
   * @example
   * ```ts
   * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
   * usd.tenorDate("3M"); // the ISO date the 3M tenor lands on
   * ```
   */
  tenorDate(tenor: string): string {
    if (this.#rule === null) return dayText(addTenor(this.#day, parseTenor(tenor)));
    return dayText(this.#tenorDay(tenor, "tenor"));
  }

  /** The rolled day of a tenor (ms at 00:00 UTC), looked up once per tenor text. */
  #tenorDay(tenor: string, argument: string): number {
    let day = this.#tenorDays.get(tenor);
    if (day === undefined) {
      day = rolledTenorDay(this.#rule!, tenor, argument);
      this.#tenorDays.set(tenor, day);
    }
    return day;
  }

  /** The continuously compounded zero rate at `y` years (checked). */
  #zero(y: number): number {
    const { t, z, I } = this.#nodes;
    const n = t.length;
    if (y <= t[0]!) return z[0]!; // flat zero before (and at) the first pillar
    if (y >= t[n - 1]!) return y === t[n - 1]! ? z[n - 1]! : (I[n - 1]! + this.#tailForward * (y - t[n - 1]!)) / y;
    const i = upper(t, y);
    if (t[i] === y) return z[i]!; // exact at the pillars
    return this.#interp.integral(i, y) / y;
  }

  /**
   * The continuously compounded zero rate at `t` converted to `compounding` (default continuous). At
   * `t = 0`, the limit: the first pillar's rate, converted.
   * @example
   * ```ts
   * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
   * usd.zeroRate("2Y");                                // continuously compounded, decimal
   * usd.zeroRate(2, { compounding: "annual" });       // a year fraction, another convention
   * ```
   */
  zeroRate(t: TimeInput, options: CompoundingOptions = {}): number {
    const compounding = checkCompounding(options.compounding);
    const y = this.years(t);
    const z = this.#zero(y);
    if (compounding === "continuous") return z;
    if (y === 0) return shortRate(z, compounding);
    return forwardOf(0, 1, y, Math.exp(-z * y), compounding);
  }

  /**
   * The discount factor at `t`: `exp(−z(t)·t)`, 1 at `t = 0`.
   * @example
   * ```ts
   * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
   * usd.discountFactor("18M");
   * ```
   */
  discountFactor(t: TimeInput): number {
    const y = this.years(t);
    return y === 0 ? 1 : Math.exp(-this.#zero(y) * y);
  }

  /**
   * The forward rate from `t1` to `t2` (both measured from the market date: `forwardRate("1Y", "2Y")` is
   * the 1y1y), `t2 > t1`, in `compounding` (default continuous: `(z2·t2 − z1·t1) / (t2 − t1)`).
   * @example
   * ```ts
   * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
   * usd.forwardRate("1Y", "2Y"); // the 1y1y forward
   * ```
   */
  forwardRate(t1: TimeInput, t2: TimeInput, options: CompoundingOptions = {}): number {
    const compounding = checkCompounding(options.compounding);
    const y1 = this.years(t1, "t1");
    const y2 = this.years(t2, "t2");
    if (!(y2 > y1))
      throw new CurveError(
        `t2 must be after t1: got t1 = ${String(t1)} (${y1} years), t2 = ${String(t2)} (${y2} years)`,
        "t2",
      );
    const i1 = this.#zero(y1) * y1;
    const i2 = this.#zero(y2) * y2;
    if (compounding === "continuous") return (i2 - i1) / (y2 - y1);
    return forwardOf(y1, Math.exp(-i1), y2, Math.exp(-i2), compounding);
  }

  /**
   * The instantaneous forward rate at `t` (continuous): `d(z·t)/dt`, from the right at a pillar (and at
   * 0). Piecewise constant under `log-linear-df`. Under `monotone-convex`, continuous inside each
   * interval and at the interior pillars, except: a step at the first pillar (from the flat stub), a step at
   * the last (to the flat tail), and a step at a pillar next to an interval whose pillar forward at one
   * end equals its discrete forward and at the other does not (1Y/2Y/3Y at 3%, 5Y/10Y at 3.6%: 3.00% up to
   * 3Y, 3.50% at 3Y). That is Hagan–West's construction's limit; see `interpolation.ts`.
   * @example
   * ```ts
   * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
   * usd.instantaneousForward(5); // f(5y)
   * ```
   */
  instantaneousForward(t: TimeInput): number {
    const y = this.years(t);
    const { t: ts, z } = this.#nodes;
    const n = ts.length;
    if (y < ts[0]!) return z[0]!;
    if (y >= ts[n - 1]!) return this.#tailForward;
    // From the right: the interval (t_{i-1}, t_i] with t_{i-1} <= y < t_i.
    let i = upper(ts, y);
    if (ts[i] === y) i++;
    return this.#interp.forward(i, y);
  }

  /**
   * The par rate of a fixed leg paying `frequency` times a year (default 1) to `tenor`:
   * `(1 − DF(T)) / Σ α_k·DF(t_k)`. Payment dates run back from `T` every 12/frequency months (calendar
   * arithmetic from the market date, end-of-month clamped, unadjusted; for a year fraction, every
   * 1/frequency years), the first period starting at the market date. The accruals `α_k`: with
   * `dayCount`, that count on each period's unadjusted dates (see {@link ParRateOptions.dayCount});
   * without, exactly `1/frequency` a full period whatever its dates (not 30/360: 31 Jan → 28 Feb is 1/12,
   * where 30/360 says 28/360) and a shorter first period (a front stub) its ACT/365 length. Annual
   * compounding of that rate; decimal. On a calendar ({@link CurveOptions}), the leg starts at spot
   * (`(DF(spot) − DF(T)) / Σ α_k·DF(t_k)`) and its payment days are spot plus the months, rolled.
   * @example
   * ```ts
   * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
   * usd.parRate("10Y", { frequency: 2 });                    // semi-annual par rate
   * usd.parRate("5Y", { frequency: 1, dayCount: "30/360" });
   * ```
   */
  parRate(tenor: TimeInput, options: ParRateOptions = {}): number {
    const frequency = options.frequency ?? 1;
    if (!FREQUENCIES.includes(frequency))
      throw new CurveError(
        `options.frequency must be 1, 2, 3, 4, 6 or 12 payments a year, got ${String(frequency)}`,
        "options.frequency",
      );
    const dayCount = options.dayCount === undefined ? undefined : checkDayCount(options.dayCount, "options.dayCount");
    const schedule = this.#schedule(tenor, frequency);
    const { times } = schedule;
    const accruals = dayCount === undefined ? defaultAccruals(schedule, frequency) : this.#accruals(schedule, dayCount);
    let annuity = 0;
    for (let k = 0; k < times.length; k++) annuity += accruals[k]! * this.discountFactor(times[k]!);
    const first = schedule.start === 0 ? 1 : this.discountFactor(schedule.start);
    return (first - this.discountFactor(times[times.length - 1]!)) / annuity;
  }

  /**
   * Each period's accrual under `dayCount`: on the dates (unadjusted; with a calendar, rolled, the first
   * period from spot), or (a year fraction) from the times.
   */
  #accruals({ times, days }: Schedule, dayCount: DayCount): number[] {
    const start = this.#rule?.spot ?? this.#day;
    if (days !== null) return days.map((d, k) => dayCountFraction(dayCount, k === 0 ? start : days[k - 1]!, d));
    if (dayCount === "30/360" || dayCount === "30E/360" || dayCount === "ACT/ACT ISDA") {
      throw new CurveError(
        `options.dayCount ${dayCount} needs payment dates: give the tenor as a string such as "2Y" (a year fraction has none)`,
        "options.dayCount",
      );
    }
    const scale = dayCount === "ACT/360" ? 365 / 360 : 1;
    return times.map((t, k) => (t - (k === 0 ? 0 : times[k - 1]!)) * scale);
  }

  /**
   * The fixed leg's payment times (years, ascending) for {@link parRate}; `full` says whether the first
   * period is a whole one (no front stub).
   * @example
   * ```ts
   * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
   * usd.paymentTimes("2Y", 2); // the four coupon times in years, back from 2Y
   * ```
   */
  paymentTimes(tenor: TimeInput, frequency = 1): number[] & { full: boolean } {
    const { times, full } = this.#schedule(tenor, frequency);
    return Object.assign(times, { full });
  }

  /** Payment times (ascending), their days (ms at 00:00 UTC; null for a year fraction) and whether there is no front stub. */
  #schedule(tenor: TimeInput, frequency: number): Schedule {
    const times: number[] = [];
    let full = false;
    if (typeof tenor === "string") {
      const units = parseTenor(tenor);
      const step = 12 / frequency;
      const days: number[] = [];
      for (let k = 0; ; k++) {
        const months = units.months - k * step;
        if (k > 0 && months <= 0) {
          full = months === 0 && units.days === 0;
          break;
        }
        days.push(this.#paymentDay(tenor, k, months, units.days));
      }
      days.reverse();
      const start = this.#rule === null ? 0 : roundYears(yearFraction(this.#day, this.#rule.spot));
      return { times: days.map((d) => roundYears(yearFraction(this.#day, d))), days, full, start };
    }
    const end = this.years(tenor, "tenor");
    if (end === 0) throw new CurveError("tenor must be > 0 years for a par rate, got 0", "tenor");
    for (let k = 0; ; k++) {
      const tk = end - k / frequency;
      if (k > 0 && tk <= 1e-9) {
        full = Math.abs(tk) <= 1e-9;
        break;
      }
      times.push(tk);
    }
    times.reverse();
    return { times, days: null, full, start: 0 };
  }

  /**
   * The `k`-th payment day back from the end (`months` months and `days` days from the start): the market
   * date plus those, unadjusted; with a calendar, the tenor's own day (k = 0) or spot plus the months, rolled.
   */
  #paymentDay(tenor: string, k: number, months: number, days: number): number {
    if (this.#rule === null) return addMonths(this.#day, months) + days * DAY_MS;
    return k === 0 ? this.#tenorDay(tenor, "tenor") : rolledMonthDay(this.#rule, months);
  }
}

/** A fixed leg's schedule: payment times (years), their days (null for a year-fraction tenor), no front stub. */
interface Schedule {
  times: number[];
  days: number[] | null;
  full: boolean;
  /** When the first period starts (years): 0, or spot on a calendar. */
  start: number;
}

/** Without a day count: `1/frequency` a full period, a front stub its ACT/365 length (from spot on a calendar). */
function defaultAccruals({ times, full, start }: Schedule, frequency: number): number[] {
  return times.map((t, k) => (k > 0 || full ? 1 / frequency : t - start));
}

/** Index of the first pillar time >= y (y strictly inside (t_0, t_{n-1})). */
function upper(t: Float64Array, y: number): number {
  let lo = 0;
  let hi = t.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (t[mid]! < y) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The compounding option, checked (a bad one is a CurveError naming `options.compounding`). */
function checkCompounding(compounding: Compounding | undefined): Compounding {
  const c = compounding ?? DEFAULT_COMPOUNDING;
  try {
    dfOf(0, 1, c);
  } catch (error) {
    throw new CurveError(`options.${(error as Error).message}`, "options.compounding");
  }
  return c;
}

/** A continuous short rate `z` in another convention (the `t → 0` limit of the zero rate). */
function shortRate(z: number, compounding: Compounding): number {
  if (compounding === "simple") return z;
  const periods =
    typeof compounding === "object"
      ? compounding.periodsPerYear
      : { annual: 1, semiannual: 2, quarterly: 4, monthly: 12 }[compounding as string]!;
  return periods * Math.expm1(z / periods);
}

/** The pillars, checked, sorted by `t`, a pillar repeated with the same rate kept once. */
function checkPillars(pillars: readonly Pillar[]): Pillar[] {
  if (pillars.length === 0)
    throw new CurveError("the curve has no pillars (data is empty): nothing to interpolate", "data");
  pillars.forEach((p, i) => {
    if (typeof p.t !== "number" || !Number.isFinite(p.t))
      throw new CurveError(
        `data[${i}].maturity must be a finite number of years, got ${String(p.t)}`,
        `data[${i}].maturity`,
      );
    if (!(p.t > 0)) throw new CurveError(`data[${i}].maturity must be > 0 years, got ${p.t}`, `data[${i}].maturity`);
    if (typeof p.rate !== "number" || !Number.isFinite(p.rate))
      throw new CurveError(`data[${i}].rate must be a finite number, got ${String(p.rate)}`, `data[${i}].rate`);
  });
  const order = [...pillars.keys()].sort((a, b) => pillars[a]!.t - pillars[b]!.t || a - b);
  const out: Pillar[] = [];
  let last = -1;
  for (const i of order) {
    const p = pillars[i]!;
    if (last >= 0 && pillars[last]!.t === p.t) {
      if (pillars[last]!.rate !== p.rate) {
        throw new CurveError(
          `data[${last}] and data[${i}] are both at maturity ${p.t} with different rates (${pillars[last]!.rate} and ${p.rate})`,
          `data[${i}].rate`,
        );
      }
      continue;
    }
    out.push({ ...p });
    last = i;
  }
  return out;
}

/**
 * A {@link Curve} from a `RateAsset` response (`rp.rateAsset.getCurve(...)`) or its `yield_curve_model`.
 *
 * @example
 * ```ts
 * const usd = curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
 * usd.zeroRate("2Y"); usd.discountFactor(7.5); usd.forwardRate("1Y", "2Y"); usd.parRate("10Y", { frequency: 2 });
 * ```
 */
export function fromResponse(response: RateAssetResponse | YieldCurveModel, options: CurveOptions = {}): Curve {
  const model = modelOf(response);
  const pillars = model.data.map((p) => ({
    t: p.maturity,
    rate: p.rate,
    expiry: dateOrNull(p.expiry),
    instrument: typeof p.fitted_instrument_name === "string" ? p.fitted_instrument_name : null,
  }));
  return new Curve(typeof model.currency === "string" ? model.currency : "", model.market_date, pillars, options);
}
