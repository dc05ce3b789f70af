/**
 * Curve.parRate's `dayCount`: each period accrues by the convention on its unadjusted dates, checked against
 * accruals counted by hand (ISDA 2006 §4.16: ACT/365F (d), ACT/360 (e), 30/360 Bond Basis (f), 30E/360 (g)).
 */
import { describe, expect, it } from "vitest";
import { CurveError, fromResponse, spread, type Curve } from "../../src/curves";

/** A flat 3% curve (one pillar: flat zero before it, flat forward after): DF(t) = exp(−0.03·t). */
const flat = (marketDate: string): Curve =>
  fromResponse({ currency: "USD", market_date: marketDate, data: [{ maturity: 1, rate: 0.03 }] });

/** Years from the market date as the curve measures them: days/365 to 6 decimals. */
const years = (days: number) => Math.round((days / 365) * 1e6) / 1e6;

/** (1 − DF(T)) / Σ α_k·DF(t_k) on the flat curve, from days after the market date and accruals. */
function par(days: number[], accruals: number[]): number {
  const df = (d: number) => Math.exp(-0.03 * years(d));
  const annuity = accruals.reduce((sum, a, k) => sum + a * df(days[k]!), 0);
  return (1 - df(days.at(-1)!)) / annuity;
}

describe("parRate(tenor, { dayCount }) on dates (3M monthly from 2025-12-31: pays 2026-01-31, 02-28, 03-31)", () => {
  const c = flat("2025-12-31");
  const days = [31, 59, 90];

  it.each([
    // Dec 31 → Jan 31: both 31 → 30: 30 days; Jan 31 → Feb 28: 30 → 28: 28; Feb 28 → Mar 31: D1 = 28 < 30 keeps D2 = 31: 33.
    ["30/360", [30 / 360, 28 / 360, 33 / 360]],
    // As Bond Basis, but D2 = 31 always becomes 30: Feb 28 → Mar 31 is 32.
    ["30E/360", [30 / 360, 28 / 360, 32 / 360]],
    ["ACT/360", [31 / 360, 28 / 360, 31 / 360]],
    ["ACT/365F", [31 / 365, 28 / 365, 31 / 365]],
  ] as const)("%s accrues its hand-counted fractions", (dayCount, accruals) => {
    expect(c.parRate("3M", { frequency: 12, dayCount })).toBeCloseTo(par(days, [...accruals]), 15);
  });

  it("without dayCount, accrues 1/12 a period whatever the dates (as documented), 3.23 bp above 30/360 here", () => {
    expect(c.parRate("3M", { frequency: 12 })).toBeCloseTo(par(days, [1 / 12, 1 / 12, 1 / 12]), 15);
    const gap = (c.parRate("3M", { frequency: 12 }) - c.parRate("3M", { frequency: 12, dayCount: "30/360" })) * 1e4;
    expect(gap).toBeCloseTo((par(days, [1 / 12, 1 / 12, 1 / 12]) - par(days, [30 / 360, 28 / 360, 33 / 360])) * 1e4, 9);
    expect(gap).toBeCloseTo(3.23, 2);
  });

  it("accrues a front stub by the day count too: 4M quarterly pays at 1M (stub, Dec 31 → Jan 31) and 4M (Jan 31 → Apr 30)", () => {
    expect(c.parRate("4M", { frequency: 4, dayCount: "30/360" })).toBeCloseTo(par([31, 120], [30 / 360, 90 / 360]), 15);
    expect(c.parRate("4M", { frequency: 4, dayCount: "ACT/360" })).toBeCloseTo(
      par([31, 120], [31 / 360, 89 / 360]),
      15,
    );
  });

  it("counts 30/360 across a year end and on 31st-to-30th dates: 2Y semiannual from 2026-08-31", () => {
    const d = flat("2026-08-31");
    // Pays 2027-02-28, 2027-08-31, 2028-02-29, 2028-08-31 (days 181, 365, 547, 731).
    // 30/360: Aug 31 → Feb 28: 180 + (28 − 30) = 178; Feb 28 → Aug 31: D1 = 28 keeps 31: 183; Aug 31 → Feb 29: 179; Feb 29 → Aug 31: 182.
    expect(d.parRate("2Y", { frequency: 2, dayCount: "30/360" })).toBeCloseTo(
      par([181, 365, 547, 731], [178 / 360, 183 / 360, 179 / 360, 182 / 360]),
      15,
    );
    // 30E/360: the same but every D2 = 31 is 30: 178, 182, 179, 181.
    expect(d.parRate("2Y", { frequency: 2, dayCount: "30E/360" })).toBeCloseTo(
      par([181, 365, 547, 731], [178 / 360, 182 / 360, 179 / 360, 181 / 360]),
      15,
    );
  });
});

describe("spread and butterfly pass dayCount to parRate", () => {
  it("measures a par spread under the day count asked for", () => {
    const c = flat("2025-12-31");
    const options = { measure: "par", frequency: 12, dayCount: "30/360", unit: "decimal" } as const;
    expect(spread(c, "1M", "3M", options)).toBe(c.parRate("3M", options) - c.parRate("1M", options));
  });
});

describe("parRate(years, { dayCount }) without dates", () => {
  const c = flat("2025-12-31");

  it("ACT/365F accrues the ACT/365 year fractions, ACT/360 them × 365/360", () => {
    const annual = (a: number) => (1 - Math.exp(-0.06)) / (a * (Math.exp(-0.03) + Math.exp(-0.06)));
    expect(c.parRate(2, { dayCount: "ACT/365F" })).toBeCloseTo(annual(1), 15);
    expect(c.parRate(2, { dayCount: "ACT/360" })).toBeCloseTo(annual(365 / 360), 15);
  });

  it("refuses a 30/360 count on a year fraction (it needs dates), naming options.dayCount", () => {
    for (const dayCount of ["30/360", "30E/360"] as const) {
      expect(() => c.parRate(2, { dayCount })).toThrow(CurveError);
      expect(() => c.parRate(2, { dayCount })).toThrow(
        /options.dayCount .* needs payment dates: give the tenor as a string such as "2Y"/,
      );
    }
  });

  it("refuses an unknown day count", () => {
    // @ts-expect-error: not a DayCount
    expect(() => c.parRate("1Y", { dayCount: "ACT/ACT" })).toThrow(
      /options.dayCount must be "ACT\/365F", "ACT\/360", "30\/360" or "30E\/360"; got "ACT\/ACT"/,
    );
  });
});
