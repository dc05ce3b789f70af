/** plot.crossCheckHeatmap from a real cross-check against the simulator, and from edited rows. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import { crossCheckHeatmap } from "../../src/plot";
import type { CrossCheckResult } from "../../src/vol";
import { simData, type SimData } from "./sim-data";

let d: SimData;
beforeAll(async () => {
  d = await simData();
});
afterAll(() => d.close());

/** The check with the service's vol at (maturity, strike) moved by `bump`, and one maturity failed. */
function edited(check: CrossCheckResult, bumps: [number, number, number][], failed?: number): CrossCheckResult {
  const rows = check.rows.map((r) => {
    if (r.maturity === failed)
      return {
        ...r,
        service_vol: null,
        difference: null,
        flagged: true,
        error: "GetVol failed (400): maturity out of range",
      };
    const bump = bumps.find(([m, k]) => m === r.maturity && k === r.strike)?.[2] ?? 0;
    const service = r.service_vol! + bump;
    const difference = service - r.local_vol;
    return { ...r, service_vol: service, difference, flagged: Math.abs(difference) > check.tolerance };
  });
  return { ...check, rows };
}

describe("crossCheckHeatmap", () => {
  it("is a maturity × strike heatmap of service − local in vol bp, with breach and no-vol traces", async () => {
    const check = await d.check();
    const fig = crossCheckHeatmap(check);
    expect(fig.data.map((t) => t.type)).toEqual(["heatmap", "scatter", "scatter"]);
    const heat = fig.data[0]!;
    expect(heat.y).toEqual(["30d", "91d", "182d", "365d"]);
    expect(heat.x).toEqual(["80", "90", "100", "110", "120"]);
    const z = heat.z as number[][];
    check.rows.forEach((r, n) => expect(z[Math.floor(n / 5)]![n % 5]).toBe(r.difference! * 1e4));
    expect(heat.zmid).toBe(0);
    expect(heat.zmax).toBeCloseTo(1e-4, 15); // ± the tolerance (1e−8 = 1e−4 vol bp): a clean check is white
    expect(fig.data[1]!.x).toEqual([]);
    expect(fig.data[1]!.name).toBe("beyond ±0.0001 vol bp (0)");
    expect(fig.data[2]!.name).toBe("no service vol (0 maturities)");
    expect(fig.layout.xaxis).toMatchObject({ type: "category", title: { text: "Strike (% of forward)" } });
    expect(fig.layout.yaxis).toMatchObject({ type: "category", title: { text: "Maturity" } });
    // The simulator answers with the local model itself: every residual is exactly 0, and the chart says so.
    expect(fig.layout.title?.text).toContain("all 20 residuals are 0");
    expect(heat.hovertemplate).toContain("service %{customdata[0]}");
  });

  it("marks the cells beyond tolerance and names the largest difference", async () => {
    const fig = crossCheckHeatmap(
      edited(await d.check(), [
        [91, 120, 3e-8],
        [365, 80, -2e-8],
        [182, 100, 5e-9],
      ]),
    );
    const breaches = fig.data[1]!;
    expect(breaches.x).toEqual(["120", "80"]);
    expect(breaches.y).toEqual(["91d", "365d"]);
    expect(breaches.name).toBe("beyond ±0.0001 vol bp (2)");
    expect(fig.layout.title?.text).toContain("max |Δ| 0.0003 vol bp at 91d / 120 · 2 of 20 beyond");
    const heat = fig.data[0]!;
    expect(heat.zmax).toBeCloseTo(3e-4, 12);
    expect(heat.zmin).toBeCloseTo(-3e-4, 12);
    expect((heat.customdata as string[][][])[1]![4]![2]).toBe("BEYOND TOLERANCE");
    expect((heat.customdata as string[][][])[2]![2]![2]).toBe("within tolerance");
  });

  it("says so when every residual is 0 instead of drawing a blank grid, and writes every difference and tolerance in vol bp alike", async () => {
    const check = await d.check();
    const zero = {
      ...check,
      rows: check.rows.map((r) => ({ ...r, service_vol: r.local_vol, difference: 0, flagged: false })),
    };
    const fig = crossCheckHeatmap(zero);
    expect(fig.layout.title?.text).toContain("all 20 residuals are 0: the service and the local model agree exactly");
    expect(fig.layout.annotations).toContainEqual(
      expect.objectContaining({ text: "all 20 residuals are 0", xref: "paper", yref: "paper" }),
    );
    const bumped = crossCheckHeatmap(edited(check, [[91, 120, 3e-8]]));
    expect(bumped.layout.annotations ?? []).toEqual([]);
    const heat = bumped.data[0]!;
    expect((heat.customdata as string[][][])[1]![4]![3]).toBe("0.0003 vol bp");
    expect((heat.customdata as string[][][])[0]![0]![3]).toBe("0 vol bp");
    expect(heat.hovertemplate).toContain("Δ %{customdata[3]}");
    expect(heat.hovertemplate).not.toContain(":.3e");
    expect((heat.colorbar as { exponentformat?: string }).exponentformat).toBe("none");
  });

  it("shows a maturity the service did not answer as grey cells with the error on hover", async () => {
    const fig = crossCheckHeatmap(edited(await d.check(), [], 182));
    const failed = fig.data[2]!;
    expect(failed.y).toEqual(["182d", "182d", "182d", "182d", "182d"]);
    expect((failed.text as string[])[0]).toBe("182d: GetVol failed (400): maturity out of range");
    expect(failed.name).toBe("no service vol (1 maturity)");
    expect((fig.data[0]!.z as (number | null)[][])[2]).toEqual([null, null, null, null, null]);
    expect(fig.layout.title?.text).toContain("1 maturity failed");
  });

  it("reads the rows alone, or as a table, with the tolerance given", async () => {
    const check = edited(await d.check(), [[30, 90, 2e-9]]);
    const fromRows = crossCheckHeatmap(check.rows, { tolerance: 1e-9, strikeType: 1 });
    expect(fromRows.data[1]!.x).toEqual(["90"]);
    const table = frames.toDataFrame({
      columns: ["maturity", "strike", "service_vol", "local_vol", "difference"],
      data: {
        maturity: check.rows.map((r) => r.maturity),
        strike: check.rows.map((r) => r.strike),
        service_vol: check.rows.map((r) => r.service_vol),
        local_vol: check.rows.map((r) => r.local_vol),
        difference: check.rows.map((r) => r.difference),
      },
      kinds: { maturity: "number", strike: "number", service_vol: "number", local_vol: "number", difference: "number" },
      rowCount: check.rows.length,
      meta: { source: "rows", categories: {}, missing: {}, warnings: [], fields: {}, provenance: [] },
    });
    expect(crossCheckHeatmap(table, { tolerance: 1e-9 }).data[1]!.x).toEqual(["90"]);
    expect(() => crossCheckHeatmap(check, { tolerance: -1 })).toThrow(/tolerance must be >= 0/);
  });
});
