/** plot.curveSurface: market date × maturity → rate. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import { curveSurface } from "../../src/plot";
import { simData, type SimData } from "./sim-data";

let d: SimData;
beforeAll(async () => {
  d = await simData();
});
afterAll(() => d.close());

describe("curveSurface", () => {
  it("is one surface: a row per market date, a column per maturity of the latest curve", async () => {
    const table = await d.usdHistory();
    const fig = curveSurface(table);
    expect(fig.data).toHaveLength(1);
    const s = fig.data[0]!;
    expect(s.type).toBe("surface");
    const y = s.y as string[];
    const x = s.x as number[];
    const z = s.z as (number | null)[][];
    expect(y).toHaveLength(27);
    expect([...y].sort()).toEqual(y);
    expect(z).toHaveLength(27);
    expect(z.every((row) => row.length === x.length)).toBe(true);
    // The latest row is that curve, read at its own pillars.
    const lastDate = y.at(-1)!;
    const rows = table.data
      .market_date!.map((v, i) => [(v as Date).toISOString().slice(0, 10), i] as const)
      .filter(([t]) => t === lastDate)
      .map(([, i]) => i);
    expect(x).toEqual(rows.map((i) => table.data.maturity![i]));
    expect(z.at(-1)).toEqual(rows.map((i) => table.data.rate![i]));
  });

  it("titles the scene's axes with their units", async () => {
    const scene = curveSurface(await d.usdHistory()).layout.scene as Record<
      string,
      { title: { text: string }; type?: string }
    >;
    expect(scene.xaxis!.title.text).toBe("Maturity (years)");
    expect(scene.yaxis!).toMatchObject({ title: { text: "Market date" }, type: "date" });
    expect(scene.zaxis!.title.text).toBe("Zero rate (%, cont. comp.)");
  });

  it("draws the chosen currency of a multi-currency table on a chosen grid, and names a missing one", async () => {
    const table = await d.curvesToday();
    const fig = curveSurface(frames.toDataFrame(table), { currency: "GBP", maturities: [10, 1, 5] });
    expect(fig.data[0]!.name).toBe("GBP");
    expect(fig.data[0]!.x).toEqual([1, 5, 10]);
    expect(() => curveSurface(table, { currency: "NOK" })).toThrow(
      /no curve for currency "NOK"; the table has "USD", "EUR", "GBP"/,
    );
  });
});
