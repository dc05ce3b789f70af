/**
 * `curves.dayCountFraction(start, end, convention)` against QuantLib 1.29 on 3,042 date pairs
 * (scripts/reference/quantlib-daycounts.py writes test/curves/fixtures/quantlib-daycounts.json), and
 * Curve.parRate's `dayCount`: each period accrues by the convention on its unadjusted dates, checked against
 * accruals counted by hand (ISDA 2006 §4.16: ACT/365F (d), ACT/360 (e), 30/360 Bond Basis (f), 30E/360 (g)).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { curves } from "../../src";
import * as subpath from "../../src/subpath/curves";
import { CurveError, fromResponse, spread, type Curve, type DayCount } from "../../src/curves";

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
    // 2026 is a common year: the days / 365, as ACT/365F (the Dec 31 → Jan 31 period: 1/365 in 2025, 30/365 in 2026).
    ["ACT/ACT ISDA", [1 / 365 + 30 / 365, 28 / 365, 31 / 365]],
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

  it("refuses a 30/360 or ACT/ACT count on a year fraction (it needs dates), naming options.dayCount", () => {
    for (const dayCount of ["30/360", "30E/360", "ACT/ACT ISDA"] as const) {
      expect(() => c.parRate(2, { dayCount })).toThrow(CurveError);
      expect(() => c.parRate(2, { dayCount })).toThrow(
        /options.dayCount .* needs payment dates: give the tenor as a string such as "2Y"/,
      );
    }
  });

  it("refuses an unknown day count, listing the five", () => {
    // @ts-expect-error: not a DayCount
    expect(() => c.parRate("1Y", { dayCount: "ACT/ACT" })).toThrow(
      /options.dayCount must be "ACT\/365F", "ACT\/360", "30\/360", "30E\/360" or "ACT\/ACT ISDA"; got "ACT\/ACT"/,
    );
  });
});

/** QuantLib 1.29's counts (scripts/reference/quantlib-daycounts.py): day numbers, day counts, ACT/ACT ISDA fractions. */
const ql = JSON.parse(readFileSync(path.join(__dirname, "fixtures", "quantlib-daycounts.json"), "utf8")) as {
  quantlib: string;
  start: number[];
  days: number[];
  counts: Record<"30/360" | "30E/360" | "30/360 US", number[]>;
  "ACT/ACT ISDA": number[];
};
const DAY_MS = 86_400_000;
const iso = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** QuantLib's year fraction of pair `i` under `convention`: its day count / 365 or / 360, or its ACT/ACT ISDA. */
function quantlib(convention: DayCount, i: number): number {
  if (convention === "ACT/365F") return ql.days[i]! / 365;
  if (convention === "ACT/360") return ql.days[i]! / 360;
  if (convention === "ACT/ACT ISDA") return ql["ACT/ACT ISDA"][i]!;
  return ql.counts[convention][i]! / 360;
}

describe("curves.dayCountFraction(start, end, convention) equals QuantLib 1.29's year fraction", () => {
  const n = ql.start.length;

  it("has a few thousand pairs, a tenth of them with the start after the end, some on the same day", () => {
    expect(ql.quantlib).toBe("1.29");
    expect(n).toBeGreaterThan(3000);
    expect(ql.days.filter((d) => d < 0).length).toBeGreaterThan(n / 3);
    expect(ql.days.filter((d) => d === 0).length).toBeGreaterThan(10);
    expect(Math.max(...ql.days)).toBeGreaterThan(365 * 39);
  });

  it.each(["ACT/365F", "ACT/360", "30/360", "30E/360", "ACT/ACT ISDA"] as const)(
    "%s: on every pair, to the last bit, in both forms (ISO strings at the root, ms on the old form)",
    (convention) => {
      const wrong: string[] = [];
      for (let i = 0; i < n; i++) {
        const [a, b] = [ql.start[i]!, ql.start[i]! + ql.days[i]!];
        const expected = quantlib(convention, i);
        const root = curves.dayCountFraction(iso(a), iso(b), convention);
        const old = subpath.dayCountFraction(convention, a * DAY_MS, b * DAY_MS);
        if (root !== expected || old !== expected)
          wrong.push(`${iso(a)} → ${iso(b)}: ${root} / ${old}, QuantLib ${expected}`);
      }
      expect(wrong.slice(0, 5), `${wrong.length} pairs differ`).toEqual([]);
    },
  );

  it("30/360 is QuantLib's Bond Basis, not its 30/360 (US), which differs on end-of-February starts", () => {
    const differ: number[] = [];
    for (let i = 0; i < n; i++) if (ql.counts["30/360"][i] !== ql.counts["30/360 US"][i]) differ.push(i);
    // every difference starts or ends on the last day of February
    const lastOfFeb = (day: number) => {
      const d = new Date(day * DAY_MS);
      return d.getUTCMonth() === 1 && new Date((day + 1) * DAY_MS).getUTCMonth() === 2;
    };
    expect(differ.length).toBe(46);
    expect(differ.every((i) => lastOfFeb(ql.start[i]!) || lastOfFeb(ql.start[i]! + ql.days[i]!))).toBe(true);
    // Feb 28 → Mar 31, 2026: Bond Basis 33 days (ours), US 31 (Feb 28 counted as the 30th)
    expect(curves.dayCountFraction("2026-02-28", "2026-03-31", "30/360")).toBe(33 / 360);
  });

  it("gives a negative fraction when the start is after the end, as QuantLib does", () => {
    expect(curves.dayCountFraction("2026-03-31", "2026-02-28", "ACT/365F")).toBe(-31 / 365);
    // the 30/360 formula on the dates as given: D1 = 31 → 30, D2 = 28: −30 − 2 = −32 (not −33, the reverse's)
    expect(curves.dayCountFraction("2026-03-31", "2026-02-28", "30/360")).toBe(-32 / 360);
    expect(curves.dayCountFraction("2026-03-31", "2026-02-28", "30E/360")).toBe(-32 / 360);
    expect(curves.dayCountFraction("2029-01-01", "2027-07-01", "ACT/ACT ISDA")).toBe(
      -curves.dayCountFraction("2027-07-01", "2029-01-01", "ACT/ACT ISDA"),
    );
    expect(curves.dayCountFraction("2026-05-05", "2026-05-05", "ACT/ACT ISDA")).toBe(0);
  });

  it("counts ACT/ACT ISDA by calendar year: 2027-07-01 → 2028-07-01 is 184/365 + 182/366", () => {
    expect(curves.dayCountFraction("2027-07-01", "2028-07-01", "ACT/ACT ISDA")).toBeCloseTo(184 / 365 + 182 / 366, 15);
    expect(
      fromResponse({ currency: "USD", market_date: "2027-07-01", data: [{ maturity: 1, rate: 0.03 }] }).parRate("1Y", {
        dayCount: "ACT/ACT ISDA",
      }),
    ).toBeCloseTo((1 - Math.exp(-0.03 * years(366))) / ((184 / 365 + 182 / 366) * Math.exp(-0.03 * years(366))), 15);
  });

  it("takes a Date at 00:00 UTC as its day", () => {
    expect(curves.dayCountFraction(new Date("2026-02-28"), new Date(Date.UTC(2026, 2, 31)), "30/360")).toBe(33 / 360);
  });
});

describe("curves.dayCountFraction refuses what is not a day or a convention, naming the argument and the value", () => {
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(CurveError);
      return e as CurveError;
    }
    throw new Error("did not throw");
  };

  it.each([
    ["2026-02-30", "start", 'start "2026-02-30" does not exist: 2026-02 has days 01–28'],
    ["2026-13-01", "start", 'start "2026-13-01" has no month 13: months run 01–12'],
    ["2026-1-5", "start", 'start "2026-1-5" is not a date: expected "YYYY-MM-DD" or a Date at 00:00 UTC'],
    [
      "2026-01-05T00:00:00Z",
      "start",
      'start "2026-01-05T00:00:00Z" is not a date: expected "YYYY-MM-DD" or a Date at 00:00 UTC',
    ],
  ])("%s", (start, argument, message) => {
    const e = refusal(() => curves.dayCountFraction(start, "2026-06-30", "ACT/360"));
    expect(e.argument).toBe(argument);
    expect(e.message).toContain(message);
  });

  it("names the end, a Date not at midnight UTC and an Invalid Date", () => {
    const e = refusal(() => curves.dayCountFraction("2026-01-05", new Date("2026-06-30T12:00:00Z"), "ACT/360"));
    expect(e.argument).toBe("end");
    expect(e.message).toContain("end 2026-06-30T12:00:00.000Z is not at 00:00 UTC");
    expect(refusal(() => curves.dayCountFraction(new Date("x"), "2026-06-30", "ACT/360")).message).toContain(
      "start is an invalid Date",
    );
  });

  it("lists the conventions, in both forms", () => {
    // @ts-expect-error: not a DayCount
    const e = refusal(() => curves.dayCountFraction("2026-01-05", "2026-06-30", "ACT/ACT"));
    expect(e.argument).toBe("convention");
    expect(e.message).toBe(
      'convention must be "ACT/365F", "ACT/360", "30/360", "30E/360" or "ACT/ACT ISDA"; got "ACT/ACT"',
    );
    // @ts-expect-error: not a DayCount
    expect(refusal(() => subpath.dayCountFraction("30/365", 0, DAY_MS)).argument).toBe("dayCount");
    expect(refusal(() => subpath.dayCountFraction("ACT/360", 0, NaN)).argument).toBe("toMs");
  });

  it("is the root's guarded function on the subpath too, and refuses a Promise", () => {
    expect(subpath.dayCountFraction).toBe(curves.dayCountFraction);
    // @ts-expect-error: a Promise is not a day
    expect(() => curves.dayCountFraction(Promise.resolve("2026-01-05"), "2026-06-30", "ACT/360")).toThrow(
      "curves.dayCountFraction got a Promise: did you forget `await`?",
    );
  });
});
