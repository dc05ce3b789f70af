/**
 * frames.curveTenors, curves.spread / butterfly and plot.curveTenorHeatmap on the simulator's curves
 * (fetched over HTTP), checked against the Curve they are read from.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient, type RateAssetResponse } from "../../src";
import { butterfly, CurveError, fromResponse, spread } from "../../src/curves";
import * as frames from "../../src/frames";
import { frameInfo } from "../../src/frames/danfo";
import { curveTenorHeatmap, DEFAULT_HEATMAP_TENORS } from "../../src/plot";
import { startSimulator, type Simulator } from "../../src/sim";

const DATES = ["2026-10-30", "2026-11-06", "2026-11-13", "2026-11-20"];
const TENORS = ["3M", "1Y", "2Y", "5Y", "10Y", "30Y"];

let sim: Simulator;
let rp: RiskPortalClient;
let usd: RateAssetResponse[];
let eur: RateAssetResponse;

beforeAll(async () => {
  sim = await startSimulator();
  rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
  usd = [];
  for (const market_date of DATES) usd.push(await rp.rateAsset.getCurve({ currency: "USD", market_date }));
  eur = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
});
afterAll(() => sim?.close());

describe("frames.curveTenorsColumns(curves, tenors)", () => {
  it("is one tidy row per curve × tenor, curves then tenors in the order given", () => {
    const table = frames.curveTenorsColumns([...usd, eur], TENORS);
    expect(table.columns).toEqual(["currency", "market_date", "tenor", "t", "zero_rate", "discount_factor", "forward"]);
    expect(table.columns).toEqual([...frames.CURVE_TENOR_COLUMNS]);
    expect(table.rowCount).toBe(5 * 6);
    expect(table.kinds).toEqual({
      currency: "string",
      market_date: "date",
      tenor: "category",
      t: "number",
      zero_rate: "number",
      discount_factor: "number",
      forward: "number",
    });
    expect(table.data.currency!.slice(0, 7)).toEqual(["USD", "USD", "USD", "USD", "USD", "USD", "USD"]);
    expect(table.data.currency!.at(-1)).toBe("EUR");
    expect(table.data.tenor!.slice(0, 6)).toEqual(TENORS);
    expect((table.data.market_date![6] as Date).toISOString()).toBe("2026-11-06T00:00:00.000Z");
    expect(table.meta.categories.tenor).toEqual(TENORS);
    expect(table.meta.fields).toEqual({ interpolation: "linear-zero", compounding: "continuous" });
    expect(table.meta.provenance).toHaveLength(5);
    expect(table.meta.provenance[0]!.operation).toBe("RateAsset");
  });

  it("reads every value off that date's curve: t from its own market date, zero rate, DF, forward from the previous tenor", () => {
    const table = frames.curveTenorsColumns(usd, TENORS, { interpolation: "monotone-convex" });
    usd.forEach((r, c) => {
      const curve = fromResponse(r, { interpolation: "monotone-convex" });
      TENORS.forEach((tenor, j) => {
        const row = c * TENORS.length + j;
        expect(table.data.t![row]).toBe(curve.years(tenor));
        expect(table.data.zero_rate![row]).toBe(curve.zeroRate(tenor));
        expect(table.data.discount_factor![row]).toBe(curve.discountFactor(tenor));
        const forward = j === 0 ? curve.zeroRate(tenor) : curve.forwardRate(TENORS[j - 1]!, tenor);
        expect(table.data.forward![row]).toBeCloseTo(forward, 15);
        // and the forward is the one implied by the row's own discount factors
        if (j > 0)
          expect(table.data.forward![row]).toBeCloseTo(
            Math.log((table.data.discount_factor![row - 1] as number) / (table.data.discount_factor![row] as number)) /
              ((table.data.t![row] as number) - (table.data.t![row - 1] as number)),
            12,
          );
      });
    });
    // "1M" is a different year fraction on different dates (30 Oct + 1M: 31 days; 6 Nov + 1M: 30 days)
    expect(frames.curveTenorsColumns(usd, ["1M"]).data.t).toEqual(
      [31, 30, 30, 30].map((d) => Math.round((d / 365) * 1e6) / 1e6),
    );
  });

  it("puts zero rate and forward in the compounding asked for", () => {
    const table = frames.curveTenorsColumns(eur, ["1Y", "2Y"], { compounding: "annual" });
    const curve = fromResponse(eur);
    expect(table.data.zero_rate).toEqual([
      curve.zeroRate("1Y", { compounding: "annual" }),
      curve.zeroRate("2Y", { compounding: "annual" }),
    ]);
    expect(table.data.forward![1]).toBeCloseTo(curve.forwardRate("1Y", "2Y", { compounding: "annual" }), 15);
    expect(table.meta.fields.compounding).toBe("annual");
  });

  it("takes Curves (keeping their interpolation), year fractions, and a single response", () => {
    const curve = fromResponse(eur, { interpolation: "log-linear-df" });
    const table = frames.curveTenorsColumns(curve, [0.5, "2Y", 7.25]);
    expect(table.data.tenor).toEqual(["0.5Y", "2Y", "7.25Y"]);
    expect(table.data.zero_rate![2]).toBe(curve.zeroRate(7.25));
    expect(table.meta.fields.interpolation).toBe("log-linear-df");
  });

  it("refuses tenors that do not increase, an empty list, and unknown tenors, naming them", () => {
    expect(() => frames.curveTenorsColumns(eur, ["2Y", "1Y"])).toThrow(CurveError);
    expect(() => frames.curveTenorsColumns(eur, ["2Y", "1Y"])).toThrow(
      /tenors must increase: tenors\[1\] 1Y \(1 years\) is not after 2Y \(2.00274 years\) on the EUR curve of 2026-11-20/,
    );
    expect(() => frames.curveTenorsColumns(eur, ["1Y", "12M"])).toThrow(/tenors\[1\] 12M/);
    expect(() => frames.curveTenorsColumns(eur, [])).toThrow(/tenors must be a non-empty array/);
    expect(() => frames.curveTenorsColumns(eur, ["3X"])).toThrow(/tenors\[0\] "3X" is not a tenor/);
    expect(() => frames.curveTenorsColumns(eur, [0, 1])).toThrow(/tenors\[0\] must be after the market date/);
  });

  it("frames.curveTenors is the same as a danfo DataFrame", () => {
    const df = frames.curveTenors(usd, TENORS);
    const table = frames.curveTenorsColumns(usd, TENORS);
    expect(df.columns).toEqual(table.columns);
    expect(df.shape).toEqual([24, 7]);
    expect(df.column("zero_rate").values).toEqual(table.data.zero_rate);
    expect(frameInfo(df)!.source).toBe("curve tenors");
  });
});

describe("curves.spread and curves.butterfly", () => {
  const curve = () => fromResponse(usd.at(-1)!);

  it("spread(curve, '2Y', '10Y') is the 2s10s of zero rates in bp: (z10 − z2)·1e4", () => {
    const c = curve();
    expect(spread(c, "2Y", "10Y")).toBe((c.zeroRate("10Y") - c.zeroRate("2Y")) * 1e4);
    expect(spread(c, "2Y", "10Y", { unit: "decimal" })).toBe(c.zeroRate("10Y") - c.zeroRate("2Y"));
    expect(spread(c, "10Y", "2Y")).toBe(-spread(c, "2Y", "10Y"));
  });

  it("measures par rates or other compoundings when asked", () => {
    const c = curve();
    expect(spread(c, "2Y", "10Y", { measure: "par", frequency: 2 })).toBe(
      (c.parRate("10Y", { frequency: 2 }) - c.parRate("2Y", { frequency: 2 })) * 1e4,
    );
    expect(spread(c, "2Y", "10Y", { compounding: "annual" })).toBe(
      (c.zeroRate("10Y", { compounding: "annual" }) - c.zeroRate("2Y", { compounding: "annual" })) * 1e4,
    );
  });

  it("butterfly(curve, '2Y', '5Y', '10Y') is 2·z5 − z2 − z10, in bp", () => {
    const c = curve();
    expect(butterfly(c, "2Y", "5Y", "10Y")).toBe((2 * c.zeroRate("5Y") - c.zeroRate("2Y") - c.zeroRate("10Y")) * 1e4);
    expect(butterfly(c, "2Y", "5Y", "10Y", { unit: "decimal", measure: "par" })).toBe(
      2 * c.parRate("5Y") - c.parRate("2Y") - c.parRate("10Y"),
    );
    // a straight line has no butterfly
    const line = fromResponse({
      currency: "X",
      market_date: "2026-11-20",
      data: [1, 2, 3].map((t) => ({ maturity: t, rate: 0.01 * t })),
    });
    expect(butterfly(line, 1, 2, 3)).toBeCloseTo(0, 10);
  });

  it("refuses an unknown unit or measure", () => {
    expect(() => spread(curve(), "2Y", "10Y", { unit: "pct" as never })).toThrow(
      /options.unit must be "bp" or "decimal", got "pct"/,
    );
    expect(() => butterfly(curve(), "2Y", "5Y", "10Y", { measure: "swap" as never })).toThrow(
      /options.measure must be "zero" or "par", got "swap"/,
    );
  });
});

describe("plot.curveTenorHeatmap(history, { tenors })", () => {
  it("is a market date × tenor heatmap of zero rates in %, dates ascending, tenors in order", () => {
    const fig = curveTenorHeatmap(usd, { tenors: TENORS });
    expect(fig.data).toHaveLength(1);
    const heat = fig.data[0]!;
    expect(heat.type).toBe("heatmap");
    expect(heat.x).toEqual(TENORS);
    expect(heat.y).toEqual(DATES);
    const z = heat.z as number[][];
    usd.forEach((r, i) =>
      TENORS.forEach((tenor, j) => expect(z[i]![j]).toBeCloseTo(fromResponse(r).zeroRate(tenor) * 100, 12)),
    );
    expect(heat.zmin).toBe(Math.min(...z.flat()));
    expect(heat.zmax).toBe(Math.max(...z.flat()));
    expect(fig.layout.title!.text).toBe("USD zero rates by tenor · 2026-10-30 to 2026-11-20");
    expect(fig.layout.xaxis).toMatchObject({ type: "category", title: { text: "Tenor" } });
    expect(fig.layout.yaxis).toMatchObject({ type: "date", title: { text: "Market date" } });
    expect(JSON.parse(JSON.stringify(fig))).toEqual(fig);
  });

  it("draws the same cells from frames.curveTenors (table or DataFrame), responses in any order, and Curves", () => {
    const expected = curveTenorHeatmap(usd, { tenors: TENORS }).data[0]!.z;
    expect(curveTenorHeatmap(frames.curveTenorsColumns(usd, TENORS)).data[0]!.z).toEqual(expected);
    expect(curveTenorHeatmap(frames.curveTenors([...usd].reverse(), TENORS)).data[0]!.z).toEqual(expected);
    expect(
      curveTenorHeatmap(
        usd.map((r) => fromResponse(r)),
        { tenors: TENORS },
      ).data[0]!.z,
    ).toEqual(expected);
    // a tidy table read at a subset of its tenors
    expect(curveTenorHeatmap(frames.curveTenorsColumns(usd, TENORS), { tenors: ["2Y", "10Y"] }).data[0]!.x).toEqual([
      "2Y",
      "10Y",
    ]);
  });

  it("reads a long yield-curve table (frames.fetchYieldCurves) by building each date's curve", async () => {
    const { table } = await frames.fetchYieldCurvesColumns(rp, {
      currencies: ["USD", "EUR"],
      marketDates: DATES,
      progress: "none",
    });
    const fig = curveTenorHeatmap(table, { tenors: TENORS, currency: "USD" });
    const z = fig.data[0]!.z as number[][];
    const want = curveTenorHeatmap(usd, { tenors: TENORS }).data[0]!.z as number[][];
    z.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(want[i]![j]!, 12)));
    // Without { currency }: one panel per currency (test/plot/curve-tenor-panels.test.ts draws them).
    const both = curveTenorHeatmap(table, { tenors: TENORS });
    expect(both.data.map((t) => t.name)).toEqual(["USD zero rate", "EUR zero rate"]);
    expect(both.data[0]!.z).toEqual(fig.data[0]!.z);
  });

  it("uses the default tenors when none are given", () => {
    expect(curveTenorHeatmap(usd).data[0]!.x).toEqual([...DEFAULT_HEATMAP_TENORS]);
  });

  it("refuses input it cannot read", () => {
    expect(() => curveTenorHeatmap(42 as never)).toThrow(/plot.curveTenorHeatmap expects frames.curveTenors/);
    expect(() => curveTenorHeatmap(usd, { currency: "GBP" })).toThrow(/no curve in GBP; the input has USD/);
  });
});
