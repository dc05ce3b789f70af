/**
 * Tenors on business days (issue 45, item 2): `curves.Curve` / `fromResponse` and `frames.curveTenors` with
 * `{ calendar, roll, spotLag }`, and what follows them (parRate, plot.curveTenorHeatmap's hover,
 * frames.diff by tenor). TARGET around Christmas 2026 and Easter 2027: 2026-12-25 (Fri) and 2027-03-26/29
 * (Good Friday, Easter Monday) are closed; 2026-12-24 is a Thursday. The expected days are QuantLib 1.29's
 * (TARGET().advance(spot, Period(tenor), ModifiedFollowing, endOfMonth=False), spot = advance(date, 2, Days)).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient, type RateAssetResponse } from "../../src";
import { calendar, CurveError, fromResponse, type Curve, type CurveOptions } from "../../src/curves";
import * as frames from "../../src/frames";
import { curveTenorHeatmap } from "../../src/plot";
import { startSimulator, type Simulator } from "../../src/sim";

const DAY_MS = 86_400_000;
/** Days from `a` to `b` ("YYYY-MM-DD"). */
const days = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / DAY_MS;
/** Years as the curve measures them: ACT/365, 6 decimals. */
const years = (d: number) => Math.round((d / 365) * 1e6) / 1e6;

/** An upward curve of the market date (3% at 3M to 4% at 10Y): rates differ between days. */
function model(marketDate: string, currency = "EUR") {
  return {
    currency,
    market_date: marketDate,
    data: [
      { maturity: 0.25, rate: 0.03 },
      { maturity: 1, rate: 0.032 },
      { maturity: 2, rate: 0.034 },
      { maturity: 10, rate: 0.04 },
    ],
  };
}
const curve = (marketDate: string, options: CurveOptions = {}): Curve => fromResponse(model(marketDate), options);

describe("Curve with { calendar } rolls each tenor to a business day, its time ACT/365 to that day", () => {
  const plain = curve("2026-12-24");
  const target = curve("2026-12-24", { calendar: "TARGET" });

  it("lands ON on the next business day after Christmas: 2026-12-28 (Mon), 4 days, where unadjusted is 2026-12-25", () => {
    expect(plain.tenorDate("ON")).toBe("2026-12-25");
    expect(target.tenorDate("ON")).toBe("2026-12-28");
    expect(target.years("ON")).toBe(years(4));
    expect(plain.years("ON")).toBe(years(1));
    expect(target.tenorDate("2D")).toBe("2026-12-29"); // business days
    expect(target.years("2D")).toBe(years(5));
  });

  it("rolls 1M (2027-01-24, a Sunday) to Monday 2027-01-25 and reads the curve there", () => {
    expect(plain.tenorDate("1M")).toBe("2027-01-24");
    expect(target.tenorDate("1M")).toBe("2027-01-25");
    expect(target.years("1M")).toBe(years(32));
    expect(plain.years("1M")).toBe(years(31));
    expect(target.zeroRate("1M")).toBe(target.zeroRate(years(32)));
    expect(target.discountFactor("1M")).toBe(plain.discountFactor(years(32)));
    expect(target.discountFactor("1M")).toBeLessThan(plain.discountFactor("1M")); // a day longer at 3%
  });

  it("leaves a tenor on a business day where it is: 3M is 2027-03-24 (Wed) either way, the same figures", () => {
    expect(target.tenorDate("3M")).toBe("2027-03-24");
    expect(target.zeroRate("3M")).toBe(plain.zeroRate("3M"));
  });

  it("pays a 2Y quarterly leg on rolled days (QuantLib's TARGET advance): the last three move, and the par rate with them", () => {
    const paid = [
      "2027-03-24",
      "2027-06-24",
      "2027-09-24",
      "2027-12-24",
      "2028-03-24",
      "2028-06-26",
      "2028-09-25",
      "2028-12-27",
    ];
    expect([...target.paymentTimes("2Y", 4)]).toEqual(paid.map((d) => years(days("2026-12-24", d))));
    const accruals = paid.map((d, k) => days(k === 0 ? "2026-12-24" : paid[k - 1]!, d) / 360);
    const annuity = accruals.reduce(
      (sum, a, k) => sum + a * target.discountFactor(years(days("2026-12-24", paid[k]!))),
      0,
    );
    const par = (1 - target.discountFactor(years(days("2026-12-24", "2028-12-27")))) / annuity;
    expect(target.parRate("2Y", { frequency: 4, dayCount: "ACT/360" })).toBeCloseTo(par, 15);
    expect(par).not.toBeCloseTo(plain.parRate("2Y", { frequency: 4, dayCount: "ACT/360" }), 6);
  });

  it("with spotLag 2 starts at 2026-12-29 (Dec 25 is closed): 3M is Easter Monday 2027-03-29, rolled to 03-30", () => {
    const t2 = curve("2026-12-24", { calendar: "TARGET", spotLag: 2 });
    expect(t2.tenorDate("3M")).toBe("2027-03-30");
    expect(t2.years("3M")).toBe(years(days("2026-12-24", "2027-03-30"))); // 96 days, not 90
    expect(plain.years("3M")).toBe(years(90));
    expect(t2.zeroRate("3M")).toBe(plain.zeroRate(years(96)));
    // Overnight is today's deposit, whatever the spot lag: the next business day after the trade date.
    expect(t2.tenorDate("ON")).toBe("2026-12-28");
    expect(t2.tenorDate("1D")).toBe("2026-12-30");
    expect(t2.spotLag).toBe(2);
    expect(t2.calendar?.name).toBe("TARGET");
    expect(t2.roll).toBe("modified-following");
  });

  it("rolls modified-following back inside the month, following past it; no end-of-month rule", () => {
    // 2027-01-29 (Fri) + 1M = 2027-02-28 (Sun): following is 2027-03-01, modified following 2027-02-26
    expect(curve("2027-01-29", { calendar: "TARGET" }).tenorDate("1M")).toBe("2027-02-26");
    expect(curve("2027-01-29", { calendar: "TARGET", roll: "following" }).tenorDate("1M")).toBe("2027-03-01");
    expect(curve("2027-01-29", { calendar: "TARGET", roll: "unadjusted" }).tenorDate("1M")).toBe("2027-02-28");
    // 2027-07-30 (Fri) is July's last business day: + 1M is 2027-08-30 (with end-of-month it would be 08-31)
    expect(curve("2027-07-30", { calendar: "TARGET" }).tenorDate("1M")).toBe("2027-08-30");
  });

  it("takes a Calendar, a name or a currency alike", () => {
    for (const cal of [calendar("TARGET"), "TARGET", "EUR"]) {
      const c = curve("2026-12-24", { calendar: cal, spotLag: 2 });
      expect(c.calendar?.name).toBe("TARGET");
      expect(c.tenorDate("3M")).toBe("2027-03-30");
    }
  });

  it("pays a par leg on rolled days from spot: 1Y annual from spot 2026-12-29 pays 2027-12-29, (DF(spot) − DF(T)) / (α·DF(T))", () => {
    const t2 = curve("2026-12-24", { calendar: "TARGET", spotLag: 2 });
    const spot = years(5);
    const end = years(days("2026-12-24", "2027-12-29"));
    expect([...t2.paymentTimes("1Y")]).toEqual([end]);
    const df = (y: number) => t2.discountFactor(y);
    const alpha = days("2026-12-29", "2027-12-29") / 360;
    expect(t2.parRate("1Y", { dayCount: "ACT/360" })).toBeCloseTo((df(spot) - df(end)) / (alpha * df(end)), 15);
  });
});

describe("without a calendar every figure is as before", () => {
  it("measures tenors unadjusted from the market date, and has no calendar", () => {
    const c = curve("2026-12-24");
    expect(c.calendar).toBeNull();
    expect(c.roll).toBeNull();
    expect(c.spotLag).toBe(0);
    expect(c.years("ON")).toBe(years(1));
    expect(c.years("3M")).toBe(years(90));
    expect(c.tenorDate("1M")).toBe("2027-01-24");
    expect(c.parRate("1Y")).toBe(curve("2026-12-24", {}).parRate("1Y"));
  });
});

describe("bad calendar options are CurveErrors naming the option", () => {
  const refusal = (options: object) => {
    try {
      curve("2026-12-24", options);
    } catch (e) {
      expect(e).toBeInstanceOf(CurveError);
      return e as CurveError;
    }
    throw new Error("did not throw");
  };

  it("names an unknown calendar, saying it is neither a calendar nor a currency with one", () => {
    const e = refusal({ calendar: "TARGT" });
    expect(e.argument).toBe("options.calendar");
    expect(e.message).toMatch(/^options.calendar "TARGT" is neither a calendar nor a currency with one: .*TARGET/);
    expect(refusal({ calendar: 42 }).message).toContain("options.calendar must be a Calendar");
  });

  it("names a bad roll, listing the rolls", () => {
    const e = refusal({ calendar: "TARGET", roll: "nearest" });
    expect(e.argument).toBe("options.roll");
    expect(e.message).toBe(
      'options.roll must be "following", "modified-following", "preceding", "modified-preceding", "unadjusted"; got "nearest"',
    );
  });

  it("names a negative or fractional spotLag", () => {
    for (const spotLag of [-1, 1.5, NaN]) {
      const e = refusal({ calendar: "TARGET", spotLag });
      expect(e.argument).toBe("options.spotLag");
      expect(e.message).toContain(
        `options.spotLag must be a whole number of business days >= 0 (e.g. 2 for T+2), got ${spotLag}`,
      );
    }
  });

  it("refuses a roll or spotLag without a calendar (it would do nothing)", () => {
    expect(refusal({ spotLag: 2 }).message).toBe(
      'options.spotLag needs options.calendar (e.g. { calendar: "TARGET" } or the currency, "EUR"): without one, tenors are not rolled',
    );
    expect(refusal({ roll: "following" }).argument).toBe("options.roll");
  });

  it("names the tenor when the calendar's years do not reach it", () => {
    const c = curve("2070-06-01", { calendar: "TARGET" });
    expect(() => c.zeroRate("1Y")).toThrow(CurveError);
    try {
      c.zeroRate("1Y");
    } catch (e) {
      expect((e as CurveError).argument).toBe("t");
      expect((e as CurveError).message).toMatch(/^t: .*outside 1990-01-01\.\.2070-12-31/);
    }
  });
});

describe("frames.curveTenors(…, { calendar }) on the simulator's EUR curves", () => {
  let sim: Simulator;
  let eur: RateAssetResponse[];
  const TENORS = ["ON", "1M", "3M", "1Y"];

  beforeAll(async () => {
    sim = await startSimulator();
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
    eur = [];
    for (const market_date of ["2025-12-23", "2025-12-24"])
      eur.push(await rp.rateAsset.getCurve({ currency: "EUR", market_date }));
  });
  afterAll(() => sim?.close());

  it("rolls on the currency's calendar (EUR → TARGET) and shows each tenor's day in a date column", () => {
    const table = frames.curveTenorsColumns(eur, TENORS, { calendar: "EUR", spotLag: 2 });
    expect(table.columns).toEqual([
      "currency",
      "market_date",
      "tenor",
      "date",
      "t",
      "zero_rate",
      "discount_factor",
      "forward",
    ]);
    // spot of 12-23 is 12-29 (24th, then 29th: the 25th and 26th are closed); of 12-24, 12-30. ON runs from
    // the trade date whatever the spot lag: 12-23 → 12-24, 12-24 → 12-29
    expect(table.data.date).toEqual([
      "2025-12-24", "2026-01-29", "2026-03-30", "2026-12-29",
      "2025-12-29", "2026-01-30", "2026-03-30", "2026-12-30",
    ]); // prettier-ignore
    expect(table.data.t).toEqual(
      ["2025-12-24", "2026-01-29", "2026-03-30", "2026-12-29"]
        .map((d) => years(days("2025-12-23", d)))
        .concat(["2025-12-29", "2026-01-30", "2026-03-30", "2026-12-30"].map((d) => years(days("2025-12-24", d)))),
    );
    const c = fromResponse(eur[1]!, { calendar: "TARGET", spotLag: 2 });
    expect(table.data.zero_rate!.slice(4)).toEqual(TENORS.map((x) => c.zeroRate(x)));
    expect(table.meta.fields.calendar).toBe("TARGET, modified-following, spot lag 2");
  });

  it("is unchanged without one: no date column, the unadjusted times", () => {
    const table = frames.curveTenorsColumns(eur, TENORS);
    expect(table.columns).toEqual([...frames.CURVE_TENOR_COLUMNS]);
    expect(table.data.t!.slice(4, 6)).toEqual([years(1), years(31)]); // 2025-12-25, 2026-01-24: unadjusted
    expect(table.meta.fields.calendar).toBeUndefined();
  });

  it("keeps a Curve's own calendar, with a date column, and refuses options that differ from it", () => {
    const own = fromResponse(eur[1]!, { calendar: "TARGET" });
    expect(frames.curveTenorsColumns(own, TENORS).data.date).toEqual([
      "2025-12-29", "2026-01-26", "2026-03-24", "2026-12-24",
    ]); // prettier-ignore
    expect(() => frames.curveTenorsColumns(own, TENORS, { calendar: "EUR" })).not.toThrow();
    expect(() => frames.curveTenorsColumns(own, TENORS, { calendar: "TARGET", spotLag: 2 })).toThrow(
      /^options.spotLag 2 is not curves\[0\]'s \(0\): a Curve keeps the calendar, roll and spot lag it was built with/,
    );
    expect(() => frames.curveTenorsColumns(fromResponse(eur[1]!), TENORS, { calendar: "UK" })).toThrow(
      /^options.calendar "UK" is not curves\[0\]'s \(null\)/,
    );
  });

  it("lets frames.diff by tenor show the day each tenor moved to", () => {
    const [before, after] = eur.map((r) => frames.curveTenorsColumns(r, TENORS, { calendar: "EUR", spotLag: 2 }));
    const d = frames.diff(before!, after!, { key: ["currency", "tenor"] });
    expect(d.changed.columns).toContain("date_before");
    expect(d.changed.data.tenor).toContain("1Y");
    const i = d.changed.data.tenor!.indexOf("1Y");
    expect([d.changed.data.date_before![i], d.changed.data.date_after![i]]).toEqual(["2026-12-29", "2026-12-30"]);
  });

  it("names the rolled day in plot.curveTenorHeatmap's hover, and only with a calendar", () => {
    const rolled = curveTenorHeatmap(eur, { tenors: TENORS, calendar: "EUR", spotLag: 2 }).data[0]!;
    expect(rolled.hovertemplate).toBe("%{y} · %{x} (%{customdata}): %{z:.3f}%<extra></extra>");
    expect(rolled.customdata).toEqual([
      ["2025-12-24", "2026-01-29", "2026-03-30", "2026-12-29"],
      ["2025-12-29", "2026-01-30", "2026-03-30", "2026-12-30"],
    ]);
    const plain = curveTenorHeatmap(eur, { tenors: TENORS }).data[0]!;
    expect(plain.hovertemplate).toBe("%{y} · %{x}: %{z:.3f}%<extra></extra>");
    expect(plain.customdata).toBeUndefined();
  });
});
