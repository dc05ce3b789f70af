/** plot.volSmiles from the local model's grid of the simulator's SPX surface, and from vol tables. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STRIKE_TYPE } from "../../src/api/assumptions";
import * as frames from "../../src/frames";
import { volSmiles } from "../../src/plot";
import { simData, type SimData } from "./sim-data";

let d: SimData;
beforeAll(async () => {
  d = await simData();
});
afterAll(() => d.close());

describe("volSmiles", () => {
  it("draws one smile per maturity: the grid's strikes against its vols", async () => {
    const grid = await d.grid();
    const fig = volSmiles(grid);
    expect(fig.data.map((t) => t.name)).toEqual(["30d", "91d", "182d", "365d", "730d"]);
    const k = grid.strikes.length;
    fig.data.forEach((trace, i) => {
      expect(trace.x).toEqual(Array.from(grid.strikes));
      expect(trace.y).toEqual(Array.from(grid.vols.subarray(i * k, (i + 1) * k)));
      expect(trace.hovertemplate).toBe(`${trace.name}, strike %{x}<br>vol %{y:.2%}<extra></extra>`);
    });
    expect(fig.layout.xaxis?.title?.text).toBe("Strike (% of forward)");
    expect(fig.layout.yaxis).toMatchObject({ title: { text: "Implied vol (%)" }, tickformat: ".0%" });
    expect(fig.layout.title?.text).toBe("Vol smiles · 5 maturities");
  });

  it("marks at-the-money with a dotted line at 100 for percent strikes", async () => {
    const shapes = volSmiles(await d.grid()).layout.shapes as { x0: number; line: { dash: string } }[];
    expect(shapes).toHaveLength(1);
    expect(shapes[0]).toMatchObject({ x0: 100, x1: 100, line: { dash: "dot" } });
  });

  it("colours the smiles from light (short) to dark (long)", async () => {
    const colors = volSmiles(await d.grid()).data.map((t) => (t.line as { color: string }).color);
    const lightness = colors.map((c) => [1, 3, 5].reduce((s, i) => s + parseInt(c.slice(i, i + 2), 16), 0));
    expect(lightness[0]!).toBeGreaterThan(lightness.at(-1)!);
  });

  it("reads the long vol table and its DataFrame like the grid, strike convention from the table", async () => {
    const grid = await d.grid();
    const expected = volSmiles(grid).data;
    expect(volSmiles(frames.volGridColumns(grid)).data).toEqual(expected);
    const df = volSmiles(frames.volGrid(grid));
    expect(df.data).toEqual(expected);
    expect(df.layout.xaxis?.title?.text).toBe("Strike (% of forward)");
  });

  it("reads the service's GetVol results, and their strike_type column names the axis", async () => {
    const surface = await d.surface();
    const request = {
      surface,
      maturity: 91,
      strikes: [4500, 5500, 6000, 6500, 7000],
      strike_type: STRIKE_TYPE.Absolute,
    };
    const response = await d.rp.tradable.getVol(request);
    const fig = volSmiles(frames.volResultsColumns(response, request));
    expect(fig.data).toHaveLength(1);
    expect(fig.data[0]!.y).toEqual(response.vols);
    expect(fig.layout.xaxis?.title?.text).toBe("Strike (price)");
    expect(fig.layout.shapes).toEqual([]);
  });

  it("draws only the maturities asked for, and takes a strike convention override", async () => {
    const fig = volSmiles(await d.grid(), { maturities: [91, 365], strikeType: "delta" });
    expect(fig.data.map((t) => t.name)).toEqual(["91d", "365d"]);
    expect(fig.layout.xaxis?.title?.text).toBe("Forward call delta");
  });

  it("rejects a grid whose vols do not fill maturities × strikes", () => {
    expect(() => volSmiles({ maturities: [30, 60], strikes: [90, 100], strikeType: 1, vols: [0.2, 0.2, 0.2] })).toThrow(
      /3 vols for 2 maturities × 2 strikes/,
    );
  });
});
