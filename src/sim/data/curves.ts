/**
 * Discount curves: for each currency a Nelson–Siegel zero curve whose three factors follow a
 * mean-reverting daily path over the window, so neighbouring days move plausibly (a few bp). Each curve
 * point is fitted to a named instrument — deposits, FRAs (USD: SOFR futures), swaps — whose quote is
 * derived from the same zero curve: deposits and FRAs as simple rates, swaps as annual par rates. So
 * `fitted_instrument_rate` is the instrument's market quote and `rate` the continuously compounded zero
 * rate at `maturity` (ACT/365 years to `expiry`).
 */
import { addDays, addMonths, businessDays, nextBusinessDay, wireDate, yearFraction } from "../calendar";
import { rng } from "../random";
import { round } from "../round";

export const CURRENCIES = ["USD", "EUR", "GBP", "JPY", "CHF"] as const;
export type Currency = (typeof CURRENCIES)[number];

interface CurrencyProfile {
  /** Long-end level, slope (short minus long) and curvature of the Nelson–Siegel curve, decimal. */
  level: number;
  slope: number;
  curvature: number;
  /** Daily standard deviation of the level factor (decimal). */
  dailyVol: number;
  /** Name of the overnight index the FRAs/futures reference. */
  index: string;
}

const PROFILES: Record<Currency, CurrencyProfile> = {
  USD: { level: 0.041, slope: 0.004, curvature: -0.006, dailyVol: 0.0006, index: "SOFR" },
  EUR: { level: 0.026, slope: -0.004, curvature: -0.004, dailyVol: 0.0005, index: "ESTR" },
  GBP: { level: 0.04, slope: 0.002, curvature: -0.005, dailyVol: 0.0006, index: "SONIA" },
  JPY: { level: 0.016, slope: -0.011, curvature: -0.002, dailyVol: 0.0003, index: "TONA" },
  CHF: { level: 0.009, slope: -0.006, curvature: -0.002, dailyVol: 0.0003, index: "SARON" },
};

/** Nelson–Siegel decay (years). */
const TAU = 1.8;

interface Instrument {
  name: string;
  kind: "deposit" | "fra" | "future" | "swap";
  /** Start and end in months from the market date (deposits start at 0). */
  startMonths: number;
  endMonths: number;
}

function instruments(ccy: Currency): Instrument[] {
  const { index } = PROFILES[ccy];
  const list: Instrument[] = [
    { name: `${ccy} DEPO 1W`, kind: "deposit", startMonths: 0, endMonths: 0.25 },
    { name: `${ccy} DEPO 1M`, kind: "deposit", startMonths: 0, endMonths: 1 },
    { name: `${ccy} DEPO 3M`, kind: "deposit", startMonths: 0, endMonths: 3 },
  ];
  if (ccy === "USD") {
    for (let q = 1; q <= 4; q++)
      list.push({ name: `${index} FUT ${q * 3}M`, kind: "future", startMonths: q * 3, endMonths: q * 3 + 3 });
  } else {
    for (const [s, e] of [
      [3, 6],
      [6, 9],
      [9, 12],
      [12, 18],
    ]) {
      list.push({ name: `${ccy} FRA ${s}X${e}`, kind: "fra", startMonths: s!, endMonths: e! });
    }
  }
  for (const years of [2, 3, 4, 5, 7, 10, 12, 15, 20, 25, 30])
    list.push({ name: `${ccy} SWAP ${years}Y`, kind: "swap", startMonths: 0, endMonths: years * 12 });
  return list;
}

/** Factor path of one currency over the window: one (level, slope, curvature) per business day. */
interface FactorPath {
  days: string[];
  index: Map<string, number>;
  level: Float64Array;
  slope: Float64Array;
  curvature: Float64Array;
}

export interface CurvePointOut {
  maturity: number;
  rate: number;
  fitted_instrument_name: string;
  expiry: string;
  fitted_instrument_rate: number;
}

export interface CurveOut {
  latest_market_date: string;
  currency: string;
  market_date: string;
  data: CurvePointOut[];
}

/** A point a bond upload adds (A19: only with `trigger_immediate_bootstrap`). */
export interface BondCurveOverride {
  currency: string;
  date: string;
  name: string;
  expiry: string;
  /** Yield to maturity, annual compounding. */
  yieldRate: number;
}

/**
 * The rule a bond point follows in a curve: it replaces every swap pillar whose maturity is within this
 * many years of its own (a swap and a bond of about the same maturity would bend the curve between them).
 */
export const BOND_REPLACES_SWAPS_WITHIN_YEARS = 0.5;

/** True when a bond maturing in `t` years replaces the pillar `point` (see {@link BOND_REPLACES_SWAPS_WITHIN_YEARS}). */
function replacedByBond(point: CurvePointOut, t: number): boolean {
  return (
    point.fitted_instrument_name.includes(" SWAP ") && Math.abs(point.maturity - t) < BOND_REPLACES_SWAPS_WITHIN_YEARS
  );
}

export class CurveBook {
  readonly #paths = new Map<Currency, FactorPath>();
  readonly #instruments = new Map<Currency, Instrument[]>();
  /** Curves are deterministic per (currency, day): built once, then served from here. */
  readonly #cache = new Map<string, CurvePointOut[]>();

  constructor(
    readonly seed: number,
    readonly windowStart: string,
    readonly windowEnd: string,
  ) {
    const days = businessDays(windowStart, windowEnd);
    for (const ccy of CURRENCIES) {
      this.#paths.set(ccy, factorPath(seed, ccy, days));
      this.#instruments.set(ccy, instruments(ccy));
    }
  }

  /** The latest business day with data. */
  get latestDate(): string {
    return this.#paths.get("USD")!.days.at(-1)!;
  }

  /** Business days with data for a currency. */
  days(): readonly string[] {
    return this.#paths.get("USD")!.days;
  }

  has(currency: string): currency is Currency {
    return this.#paths.has(currency as Currency);
  }

  /** Continuously compounded zero rate at `t` years for a currency on a day. */
  zero(currency: Currency, day: string, t: number): number {
    const path = this.#paths.get(currency)!;
    const i = path.index.get(day);
    if (i === undefined) throw new RangeError(`no curve for ${currency} on ${day}`);
    return nelsonSiegel(path.level[i]!, path.slope[i]!, path.curvature[i]!, t);
  }

  /**
   * The curve of `currency` on business day `day` (the caller maps a requested date to its business day),
   * with any bond points that were bootstrapped into it.
   */
  curve(currency: Currency, day: string, overrides: readonly BondCurveOverride[] = []): CurveOut {
    const points = this.#base(currency, day).map((p) => ({ ...p }));
    for (const bond of overrides) {
      if (bond.currency !== currency || bond.date !== day) continue;
      const t = yearFraction(day, bond.expiry);
      if (!(t > 0)) continue;
      // The bond's yield replaces the swap points within six months of its maturity.
      for (let i = points.length - 1; i >= 0; i--) if (replacedByBond(points[i]!, t)) points.splice(i, 1);
      points.push({
        maturity: round(t, 6),
        rate: round(Math.log(1 + bond.yieldRate), 8),
        fitted_instrument_name: bond.name,
        expiry: wireDate(bond.expiry),
        fitted_instrument_rate: round(bond.yieldRate, 8),
      });
    }
    points.sort((a, b) => a.maturity - b.maturity);
    return { latest_market_date: wireDate(this.latestDate), currency, market_date: wireDate(day), data: points };
  }

  /**
   * The pillars of the curve of `currency` on business day `day` that a bond maturing on `expiry` replaces
   * (by name, shortest first), or `undefined` when there is no curve that day.
   */
  replacedPillars(currency: Currency, day: string, expiry: string): string[] | undefined {
    if (!this.#paths.get(currency)!.index.has(day)) return undefined;
    const t = yearFraction(day, expiry);
    return this.#base(currency, day)
      .filter((p) => replacedByBond(p, t))
      .map((p) => p.fitted_instrument_name);
  }

  /** The curve without bond points, built once per currency and day. */
  #base(currency: Currency, day: string): CurvePointOut[] {
    const key = `${currency}/${day}`;
    let base = this.#cache.get(key);
    if (!base) {
      base = this.#build(currency, day);
      this.#cache.set(key, base);
    }
    return base;
  }

  #build(currency: Currency, day: string): CurvePointOut[] {
    const df = (t: number) => Math.exp(-this.zero(currency, day, t) * t);
    const points: CurvePointOut[] = [];
    for (const inst of this.#instruments.get(currency)!) {
      const start = inst.startMonths === 0 ? day : nextBusinessDay(addMonths(day, inst.startMonths));
      const expiry =
        inst.endMonths < 1
          ? nextBusinessDay(addDays(day, Math.round(inst.endMonths * 28)))
          : nextBusinessDay(addMonths(day, inst.endMonths));
      const t0 = yearFraction(day, start);
      const t1 = yearFraction(day, expiry);
      let quote: number;
      if (inst.kind === "swap") {
        // Annual fixed leg: par = (1 - DF(T)) / Σ DF(t_i), accrual 1 per year.
        const years = Math.round(inst.endMonths / 12);
        let annuity = 0;
        for (let y = 1; y <= years; y++) annuity += df(yearFraction(day, nextBusinessDay(addMonths(day, 12 * y))));
        quote = (1 - df(t1)) / annuity;
      } else {
        // Simple rate over [t0, t1] (deposits start today).
        quote = (df(t0) / df(t1) - 1) / (t1 - t0);
      }
      points.push({
        maturity: round(t1, 6),
        rate: round(this.zero(currency, day, t1), 8),
        fitted_instrument_name: inst.name,
        expiry: wireDate(expiry),
        fitted_instrument_rate: round(quote, 8),
      });
    }
    return points;
  }
}

function nelsonSiegel(level: number, slope: number, curvature: number, t: number): number {
  if (t <= 1e-9) return level + slope;
  const x = t / TAU;
  const f = (1 - Math.exp(-x)) / x;
  return level + slope * f + curvature * (f - Math.exp(-x));
}

/** Mean-reverting factors (Ornstein–Uhlenbeck, daily steps) around the currency's profile. */
function factorPath(seed: number, ccy: Currency, days: string[]): FactorPath {
  const p = PROFILES[ccy];
  const r = rng(seed, `curves/${ccy}`);
  const n = days.length;
  const level = new Float64Array(n);
  const slope = new Float64Array(n);
  const curvature = new Float64Array(n);
  const kappa = 0.01; // per day: half-life of about 70 business days
  let l = p.level + 0.004 * r.normal();
  let s = p.slope + 0.003 * r.normal();
  let c = p.curvature + 0.002 * r.normal();
  for (let i = 0; i < n; i++) {
    l += kappa * (p.level - l) + p.dailyVol * r.normal();
    s += kappa * (p.slope - s) + 0.8 * p.dailyVol * r.normal();
    c += kappa * (p.curvature - c) + 0.6 * p.dailyVol * r.normal();
    // Keep the short end above a floor a real curve would not cross.
    level[i] = Math.max(l, -0.005);
    slope[i] = Math.max(s, -0.005 - level[i]!);
    curvature[i] = c;
  }
  return { days, index: new Map(days.map((d, i) => [d, i])), level, slope, curvature };
}
