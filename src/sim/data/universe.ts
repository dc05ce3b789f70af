/**
 * The simulator's instruments: government bonds, equities with vol surfaces, and listed options. Each
 * tradable has a next trade event whose position effects make sense (a buy adds quantity and pays cash,
 * a coupon adds cash, a redemption removes the bond and returns par, …).
 */
import { DAYS_PER_YEAR } from "../../api/assumptions";
import { addDays, addMonths, daysBetween, nextBusinessDay, wireDate, yearFraction } from "../calendar";
import { rng } from "../random";
import { round } from "../round";

export interface Bond {
  kind: "bond";
  id: string;
  name: string;
  currency: string;
  mic: string;
  /** Annual coupon rate, decimal; paid `frequency` times a year. */
  coupon: number;
  frequency: 1 | 2;
  maturity: string;
  issuer: string;
}

export interface Equity {
  kind: "equity";
  id: string;
  code: string;
  mic: string;
  name: string;
  currency: string;
  spot: number;
  dividendYield: number;
  /** ATM vols at the surface's benchmarks (decimal). */
  atmVols: number[];
  skew: number;
  /** Next dividend per share and its ex-date offset in days. */
  dividend: number;
}

export interface Option {
  kind: "option";
  id: string;
  name: string;
  currency: string;
  underlying: string;
  strike: number;
  expiry: string;
  callPut: "C" | "P";
  multiplier: number;
}

export type Tradable = Bond | Equity | Option;

/** Benchmark maturities (days) of every equity surface. */
export const SURFACE_BENCHMARK_DAYS = [7, 30, 61, 91, 182, 273, 365, 547, 730];

const BOND_SPECS: Omit<Bond, "kind">[] = [
  {
    id: "US91282CJL54",
    name: "US Treasury 4.125% 15-Nov-2032",
    currency: "USD",
    mic: "XNYS",
    coupon: 0.04125,
    frequency: 2,
    maturity: "2032-11-15",
    issuer: "United States Treasury",
  },
  {
    id: "US912810TM09",
    name: "US Treasury 4.25% 15-Feb-2054",
    currency: "USD",
    mic: "XNYS",
    coupon: 0.0425,
    frequency: 2,
    maturity: "2054-02-15",
    issuer: "United States Treasury",
  },
  {
    id: "US91282CKZ38",
    name: "US Treasury 3.75% 30-Jun-2027",
    currency: "USD",
    mic: "XNYS",
    coupon: 0.0375,
    frequency: 2,
    maturity: "2027-06-30",
    issuer: "United States Treasury",
  },
  {
    id: "DE0001102580",
    name: "Bund 2.20% 15-Feb-2034",
    currency: "EUR",
    mic: "XETR",
    coupon: 0.022,
    frequency: 1,
    maturity: "2034-02-15",
    issuer: "Bundesrepublik Deutschland",
  },
  {
    id: "DE0001104875",
    name: "Schatz 2.50% 19-Mar-2027",
    currency: "EUR",
    mic: "XETR",
    coupon: 0.025,
    frequency: 1,
    maturity: "2027-03-19",
    issuer: "Bundesrepublik Deutschland",
  },
  {
    id: "FR0013508470",
    name: "OAT 0.50% 25-May-2029",
    currency: "EUR",
    mic: "XPAR",
    coupon: 0.005,
    frequency: 1,
    maturity: "2029-05-25",
    issuer: "République française",
  },
  {
    id: "GB00BMBL1G81",
    name: "Gilt 4.25% 07-Dec-2027",
    currency: "GBP",
    mic: "XLON",
    coupon: 0.0425,
    frequency: 2,
    maturity: "2027-12-07",
    issuer: "UK Debt Management Office",
  },
  {
    id: "GB00BL68HJ26",
    name: "Gilt 3.75% 22-Oct-2053",
    currency: "GBP",
    mic: "XLON",
    coupon: 0.0375,
    frequency: 2,
    maturity: "2053-10-22",
    issuer: "UK Debt Management Office",
  },
  {
    id: "JP1103721L69",
    name: "JGB 0.80% 20-Dec-2033",
    currency: "JPY",
    mic: "XTKS",
    coupon: 0.008,
    frequency: 2,
    maturity: "2033-12-20",
    issuer: "Japan Ministry of Finance",
  },
  {
    id: "CH0224397171",
    name: "Swiss Conf 1.25% 27-Jun-2037",
    currency: "CHF",
    mic: "XSWX",
    coupon: 0.0125,
    frequency: 1,
    maturity: "2037-06-27",
    issuer: "Swiss Confederation",
  },
  // Matures inside the window's last month, so its next event is the redemption.
  {
    id: "US91282CFX42",
    name: "US Treasury 4.50% 30-Nov-2026",
    currency: "USD",
    mic: "XNYS",
    coupon: 0.045,
    frequency: 2,
    maturity: "2026-11-30",
    issuer: "United States Treasury",
  },
];

const EQUITY_SPECS: {
  code: string;
  mic: string;
  name: string;
  currency: string;
  spot: number;
  q: number;
  atm: number;
  skew: number;
  dividend: number;
}[] = [
  {
    code: "SPX",
    mic: "XCBO",
    name: "S&P 500 Index",
    currency: "USD",
    spot: 5980.4,
    q: 0.013,
    atm: 0.165,
    skew: -0.18,
    dividend: 0,
  },
  {
    code: "AAPL",
    mic: "XNAS",
    name: "Apple Inc.",
    currency: "USD",
    spot: 228.1,
    q: 0.0045,
    atm: 0.245,
    skew: -0.12,
    dividend: 0.26,
  },
  {
    code: "MSFT",
    mic: "XNAS",
    name: "Microsoft Corp.",
    currency: "USD",
    spot: 417.5,
    q: 0.0078,
    atm: 0.235,
    skew: -0.11,
    dividend: 0.83,
  },
  {
    code: "SX5E",
    mic: "XEUR",
    name: "EURO STOXX 50",
    currency: "EUR",
    spot: 4795.2,
    q: 0.031,
    atm: 0.175,
    skew: -0.2,
    dividend: 0,
  },
  {
    code: "SAP",
    mic: "XETR",
    name: "SAP SE",
    currency: "EUR",
    spot: 231.6,
    q: 0.0095,
    atm: 0.26,
    skew: -0.1,
    dividend: 2.35,
  },
  {
    code: "NESN",
    mic: "XSWX",
    name: "Nestlé S.A.",
    currency: "CHF",
    spot: 79.3,
    q: 0.038,
    atm: 0.17,
    skew: -0.09,
    dividend: 3.05,
  },
  {
    code: "7203",
    mic: "XTKS",
    name: "Toyota Motor Corp.",
    currency: "JPY",
    spot: 2715,
    q: 0.028,
    atm: 0.29,
    skew: -0.1,
    dividend: 45,
  },
  {
    code: "ULVR",
    mic: "XLON",
    name: "Unilever PLC",
    currency: "GBP",
    spot: 47.1,
    q: 0.034,
    atm: 0.18,
    skew: -0.08,
    dividend: 0.3735,
  },
];

export class Universe {
  readonly tradables = new Map<string, Tradable>();
  readonly bonds: Bond[] = [];
  readonly equities: Equity[] = [];
  readonly options: Option[] = [];

  constructor(
    readonly seed: number,
    readonly asOf: string,
  ) {
    for (const spec of BOND_SPECS) this.#add({ kind: "bond", ...spec });
    for (const spec of EQUITY_SPECS) {
      const r = rng(seed, `equity/${spec.code}`);
      const atm = spec.atm * (1 + 0.08 * r.normal());
      // ATM term structure: short end a little above or below the long end, converging by two years.
      const hump = 0.03 * r.normal();
      const atmVols = SURFACE_BENCHMARK_DAYS.map((d) => round(Math.max(0.06, atm + hump * Math.exp(-d / 120)), 4));
      this.#add({
        kind: "equity",
        id: `${spec.code}.${spec.mic}`,
        code: spec.code,
        mic: spec.mic,
        name: spec.name,
        currency: spec.currency,
        spot: round(spec.spot * (1 + 0.02 * r.normal()), 2),
        dividendYield: spec.q,
        atmVols,
        skew: spec.skew,
        dividend: spec.dividend,
      });
    }
    for (const [underlying, moneyness, months, cp] of [
      ["SPX.XCBO", 1.0, 1, "C"],
      ["SPX.XCBO", 0.9, 3, "P"],
      ["AAPL.XNAS", 1.05, 2, "C"],
      ["SX5E.XEUR", 0.95, 6, "P"],
    ] as const) {
      const eq = this.tradables.get(underlying) as Equity;
      const strike = roundStrike(eq.spot * moneyness);
      const expiry = thirdFriday(addMonths(asOf, months));
      const id = `${eq.code}-${cp}-${strike}-${expiry.replaceAll("-", "")}`;
      this.#add({
        kind: "option",
        id,
        name: `${eq.name} ${cp === "C" ? "Call" : "Put"} ${strike} ${expiry}`,
        currency: eq.currency,
        underlying,
        strike,
        expiry,
        callPut: cp,
        multiplier: eq.code === "SPX" ? 100 : 100,
      });
    }
  }

  #add(t: Tradable): void {
    this.tradables.set(t.id, t);
    if (t.kind === "bond") this.bonds.push(t);
    else if (t.kind === "equity") this.equities.push(t);
    else this.options.push(t);
  }

  /** A bond by ISIN (its `code`), the way uploads identify it. */
  bond(code: string): Bond | undefined {
    const t = this.tradables.get(code);
    return t?.kind === "bond" ? t : undefined;
  }

  /** An equity by its identifier code (`AAPL`) and, optionally, MIC. */
  equity(code: string, mic?: string): Equity | undefined {
    return this.equities.find((e) => e.code === code && (!mic || e.mic === mic));
  }

  /** The wire `surface` of an equity as of `asOf`, with ATM vols from `atmVolsOverride` when uploaded. */
  surface(eq: Equity, rate: (t: number) => number, atmVolsOverride?: (days: number) => number | undefined) {
    const n = SURFACE_BENCHMARK_DAYS.length;
    const vols = SURFACE_BENCHMARK_DAYS.map((d, i) => atmVolsOverride?.(d) ?? eq.atmVols[i]!);
    return {
      benchmark_fwd_factors: SURFACE_BENCHMARK_DAYS.map((d) =>
        round(Math.exp((rate(d / DAYS_PER_YEAR) - eq.dividendYield) * (d / DAYS_PER_YEAR)), 8),
      ),
      // A fixed skew dσ/dk per asset (the model's psi is sqrt(T)·dσ/dk), a smile that grows with the skew,
      // and wings with -p < 2ψ < c: every slice passes the butterfly, calendar and Lee checks.
      smiles: Array(n).fill(round(0.35 + 2 * Math.abs(eq.skew), 4)) as number[],
      benchmark_maturities: [...SURFACE_BENCHMARK_DAYS],
      vols,
      call_wings: Array(n).fill(0.7) as number[],
      put_wings: Array(n).fill(1.1) as number[],
      skews: SURFACE_BENCHMARK_DAYS.map((d) => round(1.5 * eq.skew * Math.sqrt(d / DAYS_PER_YEAR), 6)),
      reference_date: wireDate(this.asOf),
      spot_ref: eq.spot,
    };
  }

  /** The next trade event of a tradable after `asOf`: `{ date, event }` with the event's wire fields. */
  nextEvent(t: Tradable): { date: string; event: Record<string, unknown> } {
    const r = rng(this.seed, `event/${t.id}`);
    if (t.kind === "bond") {
      const next = nextCouponDate(t, this.asOf);
      if (next >= t.maturity)
        return { date: t.maturity, event: { $type: "RedemptionEvent", redemption_price: 100, quantity: 1_000_000 } };
      return {
        date: next,
        event: { $type: "CouponEvent", amount_per_unit: round((t.coupon * 100) / t.frequency, 6), quantity: 1_000_000 },
      };
    }
    if (t.kind === "option") return { date: t.expiry, event: { $type: "ExpiryEvent", quantity: 10 + r.int(40) } };
    if (t.dividend > 0)
      return {
        date: nextBusinessDay(addDays(this.asOf, 5 + r.int(40))),
        event: { $type: "DividendEvent", amount_per_unit: t.dividend, quantity: 100 * (1 + r.int(50)) },
      };
    return {
      date: nextBusinessDay(addDays(this.asOf, 1)),
      event: { $type: "BuyEvent", unit_price: t.spot, quantity: 100 * (1 + r.int(20)) },
    };
  }

  /** A short text summary, as `GetTradableBrief` returns it. */
  brief(t: Tradable, extra: string[] = []): string {
    const { date, event } = this.nextEvent(t);
    const next = `Next event: ${String(event.$type)} on ${date}.`;
    let head: string;
    if (t.kind === "bond") {
      const years = yearFraction(this.asOf, t.maturity);
      head = `${t.id} — ${t.name}. Government bond, ${t.issuer}; ${t.currency}; ${(t.coupon * 100).toFixed(3)}% ${t.frequency === 2 ? "semi-annual" : "annual"} coupon; matures ${t.maturity} (${years.toFixed(1)}y).`;
    } else if (t.kind === "equity") {
      head = `${t.id} — ${t.name.replace(/\.$/, "")}. Equity; ${t.currency}; listed on ${t.mic}; spot ${t.spot.toFixed(2)}; dividend yield ${(t.dividendYield * 100).toFixed(2)}%; 3M ATM vol ${(t.atmVols[3]! * 100).toFixed(1)}%.`;
    } else {
      head = `${t.id} — ${t.name}. Listed ${t.callPut === "C" ? "call" : "put"} option on ${t.underlying}; ${t.currency}; strike ${t.strike}; expiry ${t.expiry} (${daysBetween(this.asOf, t.expiry)} days); multiplier ${t.multiplier}.`;
    }
    return [head, ...extra, next].join(" ");
  }
}

/** The next coupon date strictly after `after`, rolling back from maturity by the coupon period. */
export function nextCouponDate(bond: Bond, after: string): string {
  const step = 12 / bond.frequency;
  let date = bond.maturity;
  for (let k = 1; ; k++) {
    const prev = addMonths(bond.maturity, -step * k);
    if (prev <= after) return date;
    date = prev;
  }
}

/**
 * Accrued interest of a bond on `date`, in percent of par: the running coupon period's coupon times the
 * share of the period's days gone (actual/actual within the period, as government bonds accrue).
 */
export function accruedInterest(bond: Bond, date: string): number {
  const next = nextCouponDate(bond, date);
  const previous = addMonths(next, -12 / bond.frequency);
  const coupon = (bond.coupon * 100) / bond.frequency;
  return (coupon * daysBetween(previous, date)) / daysBetween(previous, next);
}

/**
 * Yield to maturity (annual compounding) of a bond quoted at `cleanPrice` percent of par on `date`:
 * `traded_price` is read as a clean price, the way bond markets quote (TRADED_PRICE in
 * `TRADED_PRICE`), so the accrued interest is added before the flows are discounted to it.
 * Bisection: robust and exact enough (1e-10) for any price a test sends.
 */
export function yieldToMaturity(bond: Bond, date: string, cleanPrice: number): number {
  const flows: { t: number; amount: number }[] = [];
  const step = 12 / bond.frequency;
  for (let k = 0; ; k++) {
    const pay = addMonths(bond.maturity, -step * k);
    if (pay <= date) break;
    flows.push({ t: yearFraction(date, pay), amount: (bond.coupon * 100) / bond.frequency + (k === 0 ? 100 : 0) });
  }
  const dirtyPrice = cleanPrice + accruedInterest(bond, date);
  const price = (y: number) => flows.reduce((sum, f) => sum + f.amount / (1 + y) ** f.t, 0);
  let lo = -0.5;
  let hi = 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    if (price(mid) > dirtyPrice) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The third Friday of the month of `isoDay` (listed option expiries). */
export function thirdFriday(isoDay: string): string {
  const d = new Date(`${isoDay.slice(0, 7)}-01T00:00:00Z`);
  const firstFriday = 1 + ((5 - d.getUTCDay() + 7) % 7);
  return `${isoDay.slice(0, 7)}-${String(firstFriday + 14).padStart(2, "0")}`;
}

function roundStrike(x: number): number {
  const step = x > 1000 ? 25 : x > 100 ? 5 : 1;
  return Math.round(x / step) * step;
}
