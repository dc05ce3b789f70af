/** surfaceFromEquityVolCurve: an UploadEquityVolCurves curve (ATM vols by maturity) to a GetVol surface. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DAYS_PER_YEAR, STRIKE_TYPE } from "../../src/api/assumptions";
import { equityVolCurve } from "../../src/api/market-data";
import { equityVolCurveRecords } from "../../src/uploads/equity-vol-curves";
import { ATM_CALENDAR_TOLERANCE, surfaceFromEquityVolCurve, type EquityVolCurveLike } from "../../src/vol/atm-bridge";
import { BUILD_DEFAULTS, buildSurface } from "../../src/vol/build-surface";
import { diagnose } from "../../src/vol/diagnostics";
import { fromSurface } from "../../src/vol/surface";
import { fixturePath } from "../frames/helpers/fixtures";
import { errorOf } from "./vol-error";

/** The rows test/frames reads (fixtures/frames/equity-vol-curves.csv): AAPL and SPX, unsorted rows, spot_ref on some. */
const frameCurves = () => equityVolCurveRecords({ csvFile: fixturePath("equity-vol-curves.csv") }).curves;
/** The notebook's upload file (fixtures/equity-vol-curves.csv): SAP has no spot_ref, NESN a bad row. */
const notebookCurves = () =>
  equityVolCurveRecords({ csvFile: path.resolve(__dirname, "../../fixtures/equity-vol-curves.csv") }).curves;

describe("surfaceFromEquityVolCurve(curve, options)", () => {
  it("builds the surface of a curve read from rows: its maturities, vols, spot_ref and date, BUILD_DEFAULTS for the rest", () => {
    const [aapl] = frameCurves();
    expect(aapl).toMatchObject({ maturities: [30, 91, 365], vols: [0.2412, 0.2301, 0.2104], spot_ref: 189.5 });
    const surface = surfaceFromEquityVolCurve(aapl!);
    expect(surface).toEqual(
      buildSurface({
        spot: 189.5,
        referenceDate: "2026-11-20T00:00:00Z",
        maturities: [30, 91, 365],
        atmVols: [0.2412, 0.2301, 0.2104],
        ...BUILD_DEFAULTS,
      }),
    );
    expect(surface).toMatchObject({
      spot_ref: 189.5,
      reference_date: "2026-11-20T00:00:00Z",
      benchmark_fwd_factors: [1, 1, 1],
      skews: [0, 0, 0],
      smiles: [0.5, 0.5, 0.5],
    });
  });

  it("gives a surface whose ATM-forward vols are the curve's at its maturities, free of static arbitrage with the defaults", () => {
    for (const curve of frameCurves()) {
      const surface = surfaceFromEquityVolCurve(curve, { forwardRate: 0.03 });
      const model = fromSurface(surface);
      curve.maturities.forEach((d, i) =>
        expect(model.vols(d, [100], STRIKE_TYPE.PercentForward)[0]).toBe(curve.vols[i]),
      );
      expect(diagnose(surface).ok).toBe(true);
    }
  });

  it("passes the forward and shape options through, scalars or one value per maturity", () => {
    const [, spx] = frameCurves();
    const surface = surfaceFromEquityVolCurve(spx!, {
      fwdFactors: [1.002, 1.011, 1.04],
      skew: -0.15,
      smile: [0.6, 0.4, 0.3],
      putWing: 1.3,
      callWing: 0.6,
    });
    expect(surface).toMatchObject({
      benchmark_maturities: [30, 182, 730],
      benchmark_fwd_factors: [1.002, 1.011, 1.04],
      skews: [-0.15, -0.15, -0.15],
      smiles: [0.6, 0.4, 0.3],
      put_wings: [1.3, 1.3, 1.3],
      call_wings: [0.6, 0.6, 0.6],
      spot_ref: 5321.5,
    });
    expect(surfaceFromEquityVolCurve(spx!, { forwardRate: 0.04 }).benchmark_fwd_factors[2]).toBeCloseTo(
      Math.exp((0.04 * 730) / DAYS_PER_YEAR),
      15,
    );
    expect(() => surfaceFromEquityVolCurve(spx!, { forwardRate: 0.01, fwdFactors: 1 })).toThrow(
      "give forwardRate or fwdFactors, not both",
    );
    expect(() => surfaceFromEquityVolCurve(spx!, { skew: 0.6 })).toThrow(
      /benchmark 0 \(maturity 30 d\): skew must satisfy -p < 2·psi < c/,
    );
  });

  it("takes the wire shape of an upload (asset_id, Date or ISO reference_date, Float64Array) as well", () => {
    const wire = equityVolCurve.parse({
      asset_id: { code: "SX5E", market_identification_code: "XEUR" },
      reference_date: "2026-11-20T00:00:00+01:00",
      maturities: [7, 30, 91],
      vols: [0.19, 0.185, 0.18],
      spot_ref: 4950,
    });
    expect(surfaceFromEquityVolCurve(wire).reference_date).toBe("2026-11-20T00:00:00+01:00");
    const input: EquityVolCurveLike = {
      reference_date: new Date("2026-11-20T00:00:00Z"),
      maturities: Float64Array.from([30, 60]),
      vols: [0.2, 0.2],
      spot_ref: 100,
    };
    expect(surfaceFromEquityVolCurve(input)).toMatchObject({
      benchmark_maturities: [30, 60],
      reference_date: "2026-11-20T00:00:00.000Z",
    });
  });

  it("takes the spot from spot_ref or options.spot (which wins), and names spot_ref when there is neither", () => {
    const curves = notebookCurves();
    const sap = curves.find((c) => c.asset_id.code === "SAP")!;
    expect(sap.spot_ref).toBeUndefined();
    const e = errorOf(() => surfaceFromEquityVolCurve(sap));
    expect(e).toMatchObject({ field: "spot_ref", condition: "spot_ref or options.spot" });
    expect(e.message).toBe("curve SAP/XETR: the curve has no spot_ref; give options.spot");
    expect(surfaceFromEquityVolCurve(sap, { spot: 118.4 }).spot_ref).toBe(118.4);
    const aapl = curves.find((c) => c.asset_id.code === "AAPL")!;
    expect(surfaceFromEquityVolCurve(aapl).spot_ref).toBe(228.1);
    expect(surfaceFromEquityVolCurve(aapl, { spot: 230 }).spot_ref).toBe(230);
    expect(errorOf(() => surfaceFromEquityVolCurve(aapl, { spot: -1 }))).toMatchObject({
      field: "spot",
      condition: "spot > 0",
    });
    expect(errorOf(() => surfaceFromEquityVolCurve({ ...aapl, spot_ref: null }))).toMatchObject({ field: "spot_ref" });
  });

  it("refuses unsorted and repeated maturities, naming the index", () => {
    const base = { asset_id: { code: "SPX" }, reference_date: "2026-11-20", spot_ref: 5321.5 };
    const unsorted = errorOf(() =>
      surfaceFromEquityVolCurve({ ...base, maturities: [30, 182, 91], vols: [0.16, 0.17, 0.165] }),
    );
    expect(unsorted).toMatchObject({ field: "maturities", condition: "strictly increasing", benchmark: 2 });
    expect(unsorted.message).toBe(
      "curve SPX: maturities[2] = 91 d comes before maturities[1] = 182 d; sort the curve by maturity",
    );
    const repeated = errorOf(() =>
      surfaceFromEquityVolCurve({ ...base, maturities: [30, 91, 91], vols: [0.16, 0.17, 0.17] }),
    );
    expect(repeated).toMatchObject({ field: "maturities", condition: "strictly increasing", benchmark: 2 });
    expect(repeated.message).toBe("curve SPX: maturities[2] = 91 d repeats maturities[1]; one vol per maturity");
  });

  it("refuses maturities and vols that are not a curve: length, sign, type", () => {
    const base = { reference_date: "2026-11-20", spot_ref: 100, maturities: [30, 91], vols: [0.2, 0.21] };
    const cases: [Partial<EquityVolCurveLike>, string, string, RegExp][] = [
      [{ vols: [0.2] }, "vols", "same length", /^vols has 1 values but maturities has 2; give one vol per maturity$/],
      [
        { maturities: [0, 91] },
        "maturities",
        "maturity > 0",
        /^maturities\[0\] must be > 0 days after reference_date; got 0$/,
      ],
      [{ vols: [0.2, -0.21] }, "vols", "vol > 0", /^vols\[1\] must be > 0 \(decimal, 0.2 = 20%\); got -0.21$/],
      [{ vols: [0.2, NaN] }, "vols", "finite", /vols\[1\] must be a finite number; got NaN/],
      [{ maturities: [] }, "maturities", "non-empty", /maturities must hold at least one number/],
      [
        { maturities: ["30", 91] as unknown as number[] },
        "maturities",
        "number",
        /maturities\[0\] must be a number; got "30"/,
      ],
    ];
    for (const [change, field, condition, message] of cases) {
      const e = errorOf(() => surfaceFromEquityVolCurve({ ...base, ...change }));
      expect([e.field, e.condition], message.source).toEqual([field, condition]);
      expect(e.message).toMatch(message);
    }
    expect(errorOf(() => surfaceFromEquityVolCurve(null as unknown as EquityVolCurveLike))).toMatchObject({
      field: "curve",
    });
  });

  it("throws on calendar arbitrage at the money, naming both maturities and total variances", () => {
    const curve = {
      asset_id: { code: "TSLA", market_identification_code: "XNAS" },
      reference_date: "2026-11-20",
      spot_ref: 250,
      maturities: [30, 91, 182],
      vols: [0.55, 0.3, 0.29],
    };
    const e = errorOf(() => surfaceFromEquityVolCurve(curve));
    expect(e).toMatchObject({ field: "vols", condition: "vols[i]²·T_i >= vols[i-1]²·T_(i-1)", benchmark: 1 });
    // 0.55²·30/365 = 0.0248630137, 0.3²·91/365 = 0.02243835616
    expect(e.message).toContain(
      "curve TSLA/XNAS: calendar arbitrage at the money: the ATM total variance falls from 0.0248630137 at 30 d (vols[0] = 0.55) to 0.02243835616 at 91 d (vols[1] = 0.3)",
    );
    expect(e.message).toMatch(
      /vols\[1\] must be >= 0\.3157\d+\)\. To build the surface anyway, call buildSurface directly$/,
    );
    // the escape hatch: buildSurface builds it, and diagnose reports the calendar violation at k = 0
    const surface = buildSurface({
      spot: 250,
      referenceDate: "2026-11-20",
      maturities: curve.maturities,
      atmVols: curve.vols,
    });
    expect(diagnose(surface).calendar[0]).toMatchObject({ benchmarks: [0, 1] });
  });

  it("accepts a flat ATM total variance (zero forward variance) up to rounding", () => {
    const vols = [0.3, 0.3 * Math.sqrt(30 / 91), 0.3 * Math.sqrt(30 / 182)];
    const thetas = vols.map((v, i) => (v * v * [30, 91, 182][i]!) / DAYS_PER_YEAR);
    expect(Math.max(...thetas) - Math.min(...thetas)).toBeLessThan(ATM_CALENDAR_TOLERANCE);
    expect(() =>
      surfaceFromEquityVolCurve({ reference_date: "2026-11-20", spot_ref: 100, maturities: [30, 91, 182], vols }),
    ).not.toThrow();
    expect(() =>
      surfaceFromEquityVolCurve({
        reference_date: "2026-11-20",
        spot_ref: 100,
        maturities: [30, 91],
        vols: [0.3, vols[1]! * (1 - 1e-6)],
      }),
    ).toThrow(/calendar arbitrage at the money/);
  });
});
