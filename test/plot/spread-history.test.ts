/** plot.spreadHistory over the simulator's curves, and plot.concentration over hand-made and real trades. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as curves from "../../src/curves";
import * as frames from "../../src/frames";
import { TableBuilder } from "../../src/table/column-table";
import { concentration, concentrationStats, spreadHistory } from "../../src/plot";
import { AS_OF, datesBack, simData, type SimData } from "./sim-data";

let d: SimData;
beforeAll(async () => {
  d = await simData();
});
afterAll(() => d.close());

describe("spreadHistory", () => {
  it("draws each currency's 2s10s over market dates, each value the curve's own spread, in bp", async () => {
    const marketDates = datesBack(AS_OF, 4, 7);
    const table = (
      await frames.fetchYieldCurvesColumns(d.rp, { currencies: ["USD", "EUR"], marketDates, progress: "none" })
    ).table;
    const fig = spreadHistory(table);
    expect(fig.data.map((t) => t.name)).toEqual(["USD", "EUR"]);
    const usd = fig.data[0]!;
    expect(usd.x).toEqual([...marketDates].sort());
    for (const [i, day] of (usd.x as string[]).entries()) {
      const curve = curves.fromResponse(await d.rp.rateAsset.getCurve({ currency: "USD", market_date: day }));
      expect((usd.y as number[])[i]).toBeCloseTo(curves.spread(curve, "2Y", "10Y"), 9);
    }
    expect(fig.layout.yaxis?.title?.text).toBe("10Y − 2Y (bp)");
    expect(fig.layout.title?.text).toMatch(/^2s10s \(10Y − 2Y, zero rates\) · /);
  });

  it("draws a butterfly from three legs, from responses too, and refuses other leg counts", async () => {
    const responses = await Promise.all(
      ["2026-11-19", "2026-11-20"].map((day) => d.rp.rateAsset.getCurve({ currency: "GBP", market_date: day })),
    );
    const fig = spreadHistory(responses, { legs: ["2Y", "5Y", "10Y"], measure: "par" });
    const want = responses.map((r) => curves.butterfly(curves.fromResponse(r), "2Y", "5Y", "10Y", { measure: "par" }));
    (fig.data[0]!.y as number[]).forEach((y, i) => expect(y).toBeCloseTo(want[i]!, 9));
    expect(fig.layout.yaxis?.title?.text).toBe("2·5Y − 2Y − 10Y (bp)");
    expect(() => spreadHistory(responses, { legs: ["10Y"] })).toThrow(/legs are two tenors .* or three/);
  });
});

describe("concentration", () => {
  it("ranks names by their gross, and gives top-N share, HHI and the effective number", () => {
    const s = concentrationStats(["A", "B", "C", "A", "B"], [30, -20, 20, 20, 10], 1);
    expect(s.names).toEqual(["A", "B", "C"]);
    expect(s.cumulative).toEqual([0.5, 0.8, 1]);
    expect(s.topShare).toBe(0.5);
    expect(s.hhi).toBeCloseTo(0.25 + 0.09 + 0.04, 15);
    expect(s.effective).toBeCloseTo(1 / 0.38, 12);
  });

  it("draws one curve per series against the diagonal of equal shares", async () => {
    const n = 6;
    const t = new TableBuilder(n, "hand")
      .add("book", ["X", "X", "X", "Y", "Y", "Y"], { hint: "string" })
      .add("party", ["A", "B", "C", "A", "B", "C"], { hint: "string" })
      .add("notional", [80, 10, -10, 10, 10, 10])
      .build();
    const fig = concentration(t, { by: "party", series: "book", top: 1 });
    expect(fig.data.map((tr) => tr.name)).toEqual([
      "equal shares",
      "X: top 1 80.0% · HHI 0.660 · ≈1.5 names",
      "Y: top 1 33.3% · HHI 0.333 · ≈3.0 names",
    ]);
    expect(fig.data[1]!.y).toEqual([0, 80, 90, 100]);
    expect(fig.data[1]!.customdata).toEqual(["", "A", "B", "C"]);
    const trades = await d.trades();
    const real = concentration(trades, { by: "counterparty" });
    expect((real.data[1]!.y as number[]).at(-1)).toBeCloseTo(100, 9);
    expect(() => concentration(t, { by: "party", top: 0 })).toThrow(/top must be a whole number > 0/);
  });
});
