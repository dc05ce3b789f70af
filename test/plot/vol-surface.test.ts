/** plot.volSurface: maturity × strike → vol, in 3D. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import { volSurface } from "../../src/plot";
import { simData, type SimData } from "./sim-data";

let d: SimData;
beforeAll(async () => {
  d = await simData();
});
afterAll(() => d.close());

describe("volSurface", () => {
  it("is one surface with strikes on x, maturities in days on y and the grid's vols as z rows", async () => {
    const grid = await d.grid();
    const fig = volSurface(grid);
    expect(fig.data).toHaveLength(1);
    const s = fig.data[0]!;
    expect(s.type).toBe("surface");
    expect(s.x).toEqual(Array.from(grid.strikes));
    expect(s.y).toEqual(Array.from(grid.maturities));
    const z = s.z as number[][];
    const k = grid.strikes.length;
    expect(z).toEqual(Array.from(grid.maturities, (_, i) => Array.from(grid.vols.subarray(i * k, (i + 1) * k))));
    const scene = fig.layout.scene as Record<string, { title: { text: string } }>;
    expect(scene.xaxis!.title.text).toBe("Strike (% of forward)");
    expect(scene.yaxis!.title.text).toBe("Maturity (days)");
    expect(scene.zaxis!.title.text).toBe("Implied vol (%)");
    expect(fig.layout.title?.text).toBe("Vol surface · 5 maturities × 17 strikes");
  });

  it("leaves the cells a long table lacks empty", async () => {
    const table = frames.volGridColumns(await d.grid());
    // Drop one row (maturity 30, strike 60): its cell is null, the rest stay.
    const keep = table.data.maturity!.map((_, i) => i !== 0);
    const cut = {
      ...table,
      rowCount: table.rowCount - 1,
      data: Object.fromEntries(table.columns.map((c) => [c, table.data[c]!.filter((_, i) => keep[i])])),
    };
    const z = volSurface(cut).data[0]!.z as (number | null)[][];
    expect(z[0]![0]).toBeNull();
    expect(z[0]![1]).toBe(table.data.vol![1]);
  });
});
