/** plot.curveHistory and the interpolation behind it. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ColumnTable } from "../../src/frames";
import { TableBuilder } from "../../src/table/column-table";
import type { Trace } from "../../src/plot";
import { curveHistory, DEFAULT_TENORS } from "../../src/plot";
import { interpolate } from "../../src/plot/curves";
import { simData, type SimData } from "./sim-data";

let d: SimData;
beforeAll(async () => {
  d = await simData();
});
afterAll(() => d.close());

describe("interpolate(xs, ys, x)", () => {
  it("is exact at the points, linear between them, and NaN outside (no extrapolation)", () => {
    const xs = [1, 2, 5];
    const ys = [0.01, 0.02, 0.05];
    expect(interpolate(xs, ys, 1)).toBe(0.01);
    expect(interpolate(xs, ys, 5)).toBe(0.05);
    expect(interpolate(xs, ys, 3.5)).toBeCloseTo(0.035, 15);
    expect(interpolate(xs, ys, 0.5)).toBeNaN();
    expect(interpolate(xs, ys, 6)).toBeNaN();
    expect(interpolate([], [], 1)).toBeNaN();
  });
});

describe("curveHistory", () => {
  it("draws one line per tenor over the market dates, in date order", async () => {
    const table = await d.usdHistory();
    const fig = curveHistory(table, { tenors: [2, 10, 30] });
    expect(fig.data.map((t) => t.name)).toEqual(["2Y", "10Y", "30Y"]);
    const dates = fig.data[0]!.x as string[];
    expect(dates).toHaveLength(27);
    expect([...dates].sort()).toEqual(dates);
    expect(dates.every((x) => /^\d{4}-\d{2}-\d{2}$/.test(x))).toBe(true);
    expect(fig.layout.xaxis).toMatchObject({ type: "date", title: { text: "Market date" } });
    expect(fig.layout.yaxis?.title?.text).toBe("Zero rate (%, cont. comp.)");
    expect(fig.layout.hovermode).toBe("x unified");
    expect(fig.data[0]!.hovertemplate).toBe("2Y: %{y:.3%}<extra></extra>");
  });

  it("reads each value off that date's curve, interpolating linearly in maturity", async () => {
    const table = await d.usdHistory();
    const lastDate = Math.max(...(table.data.market_date as Date[]).map((x) => x.getTime()));
    const rows = table.data
      .market_date!.map((x, i) => [(x as Date).getTime(), i] as const)
      .filter(([t]) => t === lastDate)
      .map(([, i]) => i);
    const pillar = table.data.maturity![rows[5]!] as number;
    const fig = curveHistory(table, { tenors: [pillar, 7] });
    const last = (trace: number) => (fig.data[trace]!.y as number[]).at(-1)!;
    expect(last(0)).toBe(table.data.rate![rows[5]!]);
    const m = rows.map((i) => table.data.maturity![i] as number);
    const r = rows.map((i) => table.data.rate![i] as number);
    const j = m.findIndex((x) => x > 7);
    expect(last(1)).toBeCloseTo(r[j - 1]! + ((7 - m[j - 1]!) / (m[j]! - m[j - 1]!)) * (r[j]! - r[j - 1]!), 14);
  });

  it("by default draws the standard tenors the curves reach, and leaves a gap beyond them", async () => {
    const table = await d.usdHistory();
    const fig = curveHistory(table);
    expect(fig.data.map((t) => t.name)).toEqual(DEFAULT_TENORS.map((t) => (t < 1 ? `${t * 12}M` : `${t}Y`)));
    const beyond = curveHistory(table, { tenors: [40] });
    expect((beyond.data[0]!.y as unknown[]).every((v) => v === null)).toBe(true);
  });

  it("draws currency × tenor lines when the table holds several currencies", async () => {
    const fig = curveHistory(await d.curvesToday(), { tenors: [5] });
    expect(fig.data.map((t) => t.name)).toEqual(["USD 5Y", "EUR 5Y", "GBP 5Y"]);
    expect(fig.data[0]!.mode).toBe("markers");
  });

  it("gives every series its own look: a colour per currency, a dash per tenor, legend grouped by currency", () => {
    const currencies = ["USD", "EUR", "GBP", "JPY", "CHF"];
    const rows: { currency: string; market_date: Date; maturity: number; rate: number }[] = [];
    currencies.forEach((currency, c) =>
      ["2026-11-18", "2026-11-19", "2026-11-20"].forEach((day, d) =>
        [1, 2, 5, 10].forEach((maturity) =>
          rows.push({
            currency,
            market_date: new Date(`${day}T00:00:00Z`),
            maturity,
            rate: 0.01 * (c + 1) + 0.001 * d + 0.0001 * maturity,
          }),
        ),
      ),
    );
    const table = new TableBuilder(rows.length, "RateAsset")
      .add(
        "currency",
        rows.map((r) => r.currency),
        { hint: "string" },
      )
      .add(
        "market_date",
        rows.map((r) => r.market_date),
        { hint: "date" },
      )
      .add(
        "maturity",
        rows.map((r) => r.maturity),
      )
      .add(
        "rate",
        rows.map((r) => r.rate),
      )
      .build();
    const line = (t: Trace) => (t.line ?? {}) as { color?: string; dash?: string };
    const look = (t: Trace) => `${line(t).color} ${line(t).dash}`;
    // One tenor, five currencies: five distinct colours (USD and CHF were both the first colour, solid).
    const one = curveHistory(table, { tenors: [5] });
    expect(new Set(one.data.map((t) => line(t).color)).size).toBe(5);
    // Two dimensions: colour by currency, dash by tenor, every (colour, dash) pair different.
    const both = curveHistory(table, { tenors: [2, 5, 10] });
    expect(both.data).toHaveLength(15);
    expect(new Set(both.data.map(look)).size).toBe(15);
    for (const ccy of currencies) {
      const mine = both.data.filter((t) => String(t.name).startsWith(ccy));
      expect(new Set(mine.map((t) => line(t).color)).size).toBe(1);
      expect(mine.map((t) => line(t).dash)).toEqual(["solid", "dash", "dot"]);
      expect(new Set(mine.map((t) => t.legendgroup))).toEqual(new Set([ccy]));
    }
  });

  it("rejects tenors that are not years > 0", async () => {
    expect(() => curveHistory(frames0(), { tenors: [0] })).toThrow(/tenors are years > 0/);
  });
});

function frames0(): ColumnTable {
  return {
    columns: ["maturity", "rate"],
    data: { maturity: [1], rate: [0.01] },
    kinds: { maturity: "number", rate: "number" },
    rowCount: 1,
    meta: { source: "t", categories: {}, missing: {}, warnings: [], fields: {}, provenance: [] },
  };
}
