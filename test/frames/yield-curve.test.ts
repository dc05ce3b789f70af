import { describe, expect, it } from "vitest";
import { frameInfo } from "../../src/frames/danfo";
import { YIELD_CURVE_COLUMNS, yieldCurve, yieldCurveColumns } from "../../src/frames/yield-curve";
import { fixture } from "./helpers/fixtures";

const curve = () => fixture<Parameters<typeof yieldCurveColumns>[0]>("rate-asset-eur.json");

describe("yieldCurveColumns(response)", () => {
  it("has the spec's columns in order, then extra point fields", () => {
    const t = yieldCurveColumns(curve());
    expect(t.columns).toEqual([...YIELD_CURVE_COLUMNS, "source"]);
    expect(t.rowCount).toBe(9);
    expect(t.kinds).toMatchObject({
      currency: "string",
      market_date: "date",
      maturity: "number",
      rate: "number",
      fitted_instrument_name: "string",
      expiry: "date",
      fitted_instrument_rate: "number",
    });
  });

  it("repeats the model's currency and market date (offset applied) on every point", () => {
    const t = yieldCurveColumns(curve());
    expect(new Set(t.data.currency)).toEqual(new Set(["EUR"]));
    expect((t.data.market_date![0] as Date).toISOString()).toBe("2026-11-19T23:00:00.000Z");
  });

  it("keeps missing instrument fields missing", () => {
    const t = yieldCurveColumns(curve());
    expect(t.data.fitted_instrument_name![8]).toBeNull();
    expect(t.data.expiry![8]).toBeNull();
    expect(t.data.fitted_instrument_rate![8]).toBeNaN();
  });

  it("puts $type and latest_market_date in meta.fields", () => {
    expect(yieldCurveColumns(curve()).meta.fields).toEqual({
      $type: "Service.Web.Core.MarketData.ApiGetDiscountCurveMktDataResponse, Service.Web.Core",
      latest_market_date: "2026-11-20T00:00:00+00:00",
    });
  });

  it("accepts the yield_curve_model alone", () => {
    const model = (curve() as { yield_curve_model: Parameters<typeof yieldCurveColumns>[0] }).yield_curve_model;
    expect(yieldCurveColumns(model).rowCount).toBe(9);
  });

  it("adds discount_factor and forward_rate on request, continuous by default", () => {
    const t = yieldCurveColumns(curve(), { derived: true });
    expect(t.columns.slice(-2)).toEqual(["discount_factor", "forward_rate"]);
    const [m, r] = [t.data.maturity as number[], t.data.rate as number[]];
    expect(t.data.discount_factor![3]).toBeCloseTo(Math.exp(-r[3]! * m[3]!), 15);
    expect(t.data.forward_rate![0]).toBeCloseTo(r[0]!, 12);
    expect(t.data.forward_rate![1]).toBeCloseTo((r[1]! * m[1]! - r[0]! * m[0]!) / (m[1]! - m[0]!), 12);
  });

  it("uses the compounding convention given", () => {
    const t = yieldCurveColumns(curve(), { derived: true, compounding: "annual" });
    const [m, r] = [t.data.maturity as number[], t.data.rate as number[]];
    expect(t.data.discount_factor![4]).toBeCloseTo((1 + r[4]!) ** -m[4]!, 15);
  });

  it("gives an empty table with the columns for a curve without points", () => {
    const t = yieldCurveColumns({ currency: "USD", market_date: "2026-11-20T00:00:00Z", data: [] }, { derived: true });
    expect(t.rowCount).toBe(0);
    expect(t.columns).toEqual([...YIELD_CURVE_COLUMNS, "discount_factor", "forward_rate"]);
  });
});

describe("yieldCurve(response)", () => {
  it("is a danfo DataFrame with dates as datetime and the fields attached", () => {
    const df = yieldCurve(curve(), { derived: true });
    expect(df.shape).toEqual([9, 10]);
    expect(df.dtypes.slice(0, 4)).toEqual(["string", "datetime", "float64", "float64"]);
    expect(frameInfo(df)!.fields.latest_market_date).toBe("2026-11-20T00:00:00+00:00");
  });
});
