/**
 * Overlays with more series than the palette has colours (issue 41): past the tenth series the dash and
 * the marker change, so no two series of one chart look the same.
 */
import { describe, expect, it } from "vitest";
import { concentration, curveHistory, spreadHistory, yieldCurve, type Trace } from "../../src/plot";
import { PALETTE } from "../../src/plot/theme";
import { TableBuilder } from "../../src/table/column-table";

const DAY = 86_400_000;
const MATURITIES = [1, 2, 5, 10, 30];

/** `currencies × dates` curves of five maturities each. */
function curves(currencies: string[], dates: number): ReturnType<TableBuilder["build"]> {
  const c: Record<string, unknown[]> = { currency: [], market_date: [], maturity: [], rate: [] };
  for (let d = 0; d < dates; d++)
    currencies.forEach((ccy, k) => {
      for (const m of MATURITIES) {
        c.currency!.push(ccy);
        c.market_date!.push(new Date(Date.UTC(2026, 10, 20) - (dates - 1 - d) * DAY));
        c.maturity!.push(m);
        c.rate!.push(0.02 + k / 1000 + d / 10_000 + m / 1000);
      }
    });
  const b = new TableBuilder(c.rate!.length, "RateAsset");
  for (const [name, values] of Object.entries(c)) b.add(name, values, { owned: true });
  return b.build();
}

/** What tells a series apart on screen: its colour, its dash and its marker. */
function look(t: Trace): string {
  const line = (t.line ?? {}) as { color?: string; dash?: string };
  const marker = (t.marker ?? {}) as { color?: string; symbol?: string };
  return `${line.color ?? marker.color} ${line.dash ?? "solid"} ${marker.symbol ?? "circle"}`;
}

function expectAllDistinct(traces: Trace[], n: number): void {
  expect(traces).toHaveLength(n);
  expect(new Set(traces.map(look)).size).toBe(n);
}

const CCYS = Array.from({ length: 15 }, (_, i) => `C${String.fromCharCode(65 + i)}${String.fromCharCode(65 + i)}`);

describe("overlays with more series than colours", () => {
  it("yieldCurve: 15 market dates are 15 different looks, the first ten plain palette lines", () => {
    const fig = yieldCurve(curves(["USD"], 15));
    expectAllDistinct(fig.data, 15);
    expect(fig.data.slice(0, 10).map(look)).toEqual(PALETTE.map((c) => `${c} solid circle`));
    expect(look(fig.data[10]!)).toBe(`${PALETTE[0]} dash square`);
  });

  it("spreadHistory: 15 currencies", () => {
    expectAllDistinct(
      spreadHistory(curves(CCYS, 3)).data.filter((t) => t.showlegend !== false && t.name !== "0"),
      15,
    );
  });

  it("concentration: 15 series", () => {
    const n = 45;
    const t = new TableBuilder(n, "hand")
      .add(
        "book",
        Array.from({ length: n }, (_, i) => `B${i % 15}`),
        { hint: "string" },
      )
      .add(
        "party",
        Array.from({ length: n }, (_, i) => `P${i % 4}`),
        { hint: "string" },
      )
      .add(
        "notional",
        Array.from({ length: n }, (_, i) => 10 + i),
      )
      .build();
    expectAllDistinct(concentration(t, { by: "party", series: "book" }).data.slice(1), 15);
  });

  it("curveHistory: 12 currencies × 3 tenors, and one currency's 8 tenors × 2 currencies", () => {
    expectAllDistinct(curveHistory(curves(CCYS.slice(0, 12), 3), { tenors: [2, 5, 10] }).data, 36);
    expectAllDistinct(curveHistory(curves(CCYS.slice(0, 2), 3), { tenors: [1, 2, 3, 4, 5, 6, 7, 8] }).data, 16);
  });
});
