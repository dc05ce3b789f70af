/** plot.yieldCurve from the simulator's curves, as column tables, DataFrames and raw responses. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import { yieldCurve } from "../../src/plot";
import { AS_OF, simData, type SimData } from "./sim-data";

let d: SimData;
beforeAll(async () => {
  d = await simData();
});
afterAll(() => d.close());

describe("yieldCurve", () => {
  it("draws one line per currency: maturity in years against the zero rate, points in maturity order", async () => {
    const table = await d.curvesToday();
    const fig = yieldCurve(table);
    expect(fig.data.map((t) => t.name)).toEqual(["USD", "EUR", "GBP"]);
    for (const trace of fig.data) {
      expect(trace.type).toBe("scatter");
      const rows = table.data
        .currency!.map((c, i) => [c, i] as const)
        .filter(([c]) => c === trace.name)
        .map(([, i]) => i);
      expect(trace.x).toEqual(rows.map((i) => table.data.maturity![i]));
      expect(trace.y).toEqual(rows.map((i) => table.data.rate![i]));
      const x = trace.x as number[];
      expect(x.every((v, i) => i === 0 || v > x[i - 1]!)).toBe(true);
    }
    expect(fig.layout.xaxis?.title?.text).toBe("Maturity (years)");
    expect(fig.layout.yaxis?.title?.text).toBe("Zero rate (%, cont. comp.)");
    expect(fig.layout.yaxis?.tickformat).toBe(".2%");
    expect(fig.layout.title?.text).toBe(`Zero curves · ${AS_OF}`);
  });

  it("puts each point's fitted instrument, its expiry and its rate on hover", async () => {
    const table = await d.curvesToday();
    const usd = yieldCurve(table).data[0]!;
    const custom = usd.customdata as string[][];
    expect(custom).toHaveLength(usd.x!.length);
    expect(custom[0]![0]).toBe(table.data.fitted_instrument_name![0]);
    expect(custom[0]![0]).toMatch(/^USD /);
    expect(custom[0]![1]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(custom[0]![2]).toMatch(/^\d+\.\d{3}%$/);
    expect(usd.hovertemplate).toContain("<b>%{customdata[0]}</b>");
    expect(usd.hovertemplate).toContain("%{y:.3%}");
  });

  it("reads a RateAsset response, an array of them and a danfo DataFrame like the column table", async () => {
    const response = await d.rp.rateAsset.getCurve({ currency: "EUR", market_date: AS_OF });
    const fromTable = yieldCurve(frames.yieldCurveColumns(response));
    expect(yieldCurve(response).data).toEqual(fromTable.data);
    expect(yieldCurve([response]).data).toEqual(fromTable.data);
    expect(yieldCurve(frames.yieldCurve(response)).data).toEqual(fromTable.data);
    expect(fromTable.layout.title?.text).toBe(`EUR zero curve · ${AS_OF}`);
    expect(fromTable.layout.showlegend).toBe(false);
  });

  it("names curves by market date when one currency is drawn on several dates", async () => {
    const fig = yieldCurve(await d.usdHistory());
    expect(fig.data).toHaveLength(27);
    expect(fig.data[0]!.name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("draws derived columns and instrument-rate markers on request", async () => {
    const response = await d.rp.rateAsset.getCurve({ currency: "USD", market_date: AS_OF });
    const fig = yieldCurve(frames.yieldCurveColumns(response, { derived: true }), {
      value: "discount_factor",
      instrumentRates: true,
    });
    expect(fig.data).toHaveLength(2);
    expect(fig.layout.yaxis?.title?.text).toBe("Discount factor");
    expect((fig.data[0]!.y as number[]).every((v) => v > 0 && v <= 1)).toBe(true);
    expect(fig.data[1]!.marker).toMatchObject({ symbol: "circle-open" });
  });

  it("draws forwards between pillars as steps (constant over each interval), zero rates and discount factors as lines", async () => {
    const response = await d.rp.rateAsset.getCurve({ currency: "USD", market_date: AS_OF });
    const table = frames.yieldCurveColumns(response, { derived: true });
    const forward = yieldCurve(table, { value: "forward_rate" }).data[0]!;
    // The forward at a pillar holds from the previous pillar (0 for the first) up to it: vertical, then across.
    expect(forward.line).toMatchObject({ shape: "vh" });
    expect((forward.x as number[])[0]).toBe(0);
    expect((forward.y as number[])[0]).toBe((forward.y as number[])[1]);
    expect((forward.x as number[]).slice(1)).toEqual(table.data.maturity);
    expect(forward.mode).toBe("lines");
    expect((yieldCurve(table).data[0]!.line as { shape?: string }).shape ?? "linear").toBe("linear");
  });

  it("says which column is missing and which there are", () => {
    const table = frames.emptyTable("x", ["currency", "rate"]);
    expect(() => yieldCurve(table)).toThrow(
      /plot\.yieldCurve needs a "maturity" column; the table has "currency", "rate"/,
    );
    expect(() => yieldCurve(42 as never)).toThrow(TypeError);
  });

  it("returns a JSON-safe figure (no NaN, no Date)", async () => {
    const fig = yieldCurve(await d.curvesToday());
    expect(JSON.parse(JSON.stringify(fig))).toEqual(fig);
  });
});
