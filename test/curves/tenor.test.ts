/** Tenor strings and calendar arithmetic: parseTenor, addMonths, Curve.years. */
import { describe, expect, it } from "vitest";
import { RiskPortalError } from "../../src";
import { addMonths, CurveError, fromResponse, parseTenor } from "../../src/curves";

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const curveOn = (market_date: string) =>
  fromResponse({ currency: "USD", market_date: `${market_date}T00:00:00+00:00`, data: [{ maturity: 1, rate: 0.03 }] });
const days = (n: number) => Math.round((n / 365) * 1e6) / 1e6;

describe("parseTenor(text)", () => {
  it("reads ON, D, W, M and Y tenors in any case, a year as 12 months and a week as 7 days", () => {
    expect(parseTenor("ON")).toEqual({ days: 1, months: 0 });
    expect(parseTenor("on")).toEqual({ days: 1, months: 0 });
    expect(parseTenor("1D")).toEqual({ days: 1, months: 0 });
    expect(parseTenor("1w")).toEqual({ days: 7, months: 0 });
    expect(parseTenor("3M")).toEqual({ days: 0, months: 3 });
    expect(parseTenor("18m")).toEqual({ days: 0, months: 18 });
    expect(parseTenor("2Y")).toEqual({ days: 0, months: 24 });
    expect(parseTenor(" 10y ")).toEqual({ days: 0, months: 120 });
  });

  it.each(["3X", "", "Y", "M3", "1.5Y", "-1Y", "2YY", "1Y6M", "TN"])(
    "refuses %j, naming the tenor and what a tenor looks like",
    (text) => {
      expect(() => parseTenor(text)).toThrow(CurveError);
      expect(() => parseTenor(text)).toThrow(
        /tenor .*not a tenor: expected "ON" or a whole number followed by D, W, M or Y/,
      );
    },
  );

  it("refuses a zero-length tenor", () => {
    expect(() => parseTenor("0M")).toThrow(/"0M" must be longer than 0/);
  });
});

describe("addMonths(day, months) clamps to the end of the month", () => {
  it.each([
    ["2026-01-31", 1, "2026-02-28"],
    ["2028-01-31", 1, "2028-02-29"],
    ["2026-03-31", 1, "2026-04-30"],
    ["2026-01-31", 3, "2026-04-30"],
    ["2028-02-29", 12, "2029-02-28"],
    ["2028-02-29", 48, "2032-02-29"],
    ["2026-11-20", 18, "2028-05-20"],
    ["2026-12-31", 2, "2027-02-28"],
    ["2026-02-28", 1, "2026-03-28"], // clamping only: no end-of-month rule
  ] as const)("%s + %iM = %s", (from, months, to) => {
    expect(iso(addMonths(day(from), months))).toBe(to);
  });
});

describe("Curve.years(t): tenors from the market date, ACT/365", () => {
  it("takes 2026-01-31 + 1M to 28 February: 28 days", () => {
    expect(curveOn("2026-01-31").years("1M")).toBe(days(28));
  });

  it("counts the leap day: 1Y from 2027-11-20 is 366 days, from 2026-11-20 is 365", () => {
    expect(curveOn("2027-11-20").years("1Y")).toBe(days(366));
    expect(curveOn("2026-11-20").years("1Y")).toBe(1);
    expect(curveOn("2028-02-29").years("1Y")).toBe(days(365)); // to 2029-02-28
    expect(curveOn("2028-01-31").years("1M")).toBe(days(29));
  });

  it("makes 1M a different year fraction on different dates", () => {
    expect(curveOn("2026-02-02").years("1M")).toBe(days(28));
    expect(curveOn("2026-03-02").years("1M")).toBe(days(31));
    expect(curveOn("2026-04-02").years("1M")).toBe(days(30));
  });

  it("measures ON, 1D, 1W and 18M in days", () => {
    const c = curveOn("2026-11-20");
    expect(c.years("ON")).toBe(days(1));
    expect(c.years("1d")).toBe(days(1));
    expect(c.years("1W")).toBe(days(7));
    expect(c.years("18M")).toBe(days(547)); // 2028-05-20
    expect(c.years("10Y")).toBe(days(3653)); // 2036-11-20, three leap days
  });

  it("uses the market date as written, whatever its offset", () => {
    const c = fromResponse({
      currency: "USD",
      market_date: "2026-01-31T00:00:00-05:00",
      data: [{ maturity: 1, rate: 0.03 }],
    });
    expect(c.years("1M")).toBe(days(28));
    expect(c.marketDate.toISOString()).toBe("2026-01-31T05:00:00.000Z");
  });

  it("passes a year fraction through, and refuses NaN, negative, infinite and non-numbers naming t", () => {
    const c = curveOn("2026-11-20");
    expect(c.years(2.5)).toBe(2.5);
    expect(c.years(0)).toBe(0);
    for (const [bad, why] of [
      [NaN, /t is NaN/],
      [-0.5, /t must be >= 0 years .* got -0.5/],
      [Infinity, /t must be finite years, got Infinity/],
      [null, /t must be years \(a number\) or a tenor string .* got null/],
      ["3X", /t "3X" is not a tenor/],
    ] as const) {
      let caught: unknown;
      try {
        c.years(bad as never);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(CurveError);
      expect(caught).toBeInstanceOf(RiskPortalError);
      expect((caught as CurveError).argument).toBe("t");
      expect((caught as Error).message).toMatch(why);
    }
  });
});
