/** buildSurface: valid wire surfaces from an ATM term structure plus shape parameters. */
import { describe, expect, it } from "vitest";
import { DAYS_PER_YEAR, STRIKE_TYPE } from "../../src/api/assumptions";
import { BUILD_DEFAULTS, VolModelError, buildSurface, fromSurface } from "../../src/vol";

describe("buildSurface", () => {
  it("broadcasts scalars, keeps arrays, and fills the defaults", () => {
    const s = buildSurface({
      spot: 100,
      referenceDate: "2026-11-20",
      maturities: [30, 91, 365],
      atmVols: [0.25, 0.22, 0.2],
      skew: -0.1,
    });
    expect(s).toEqual({
      benchmark_fwd_factors: [1, 1, 1],
      smiles: [0.5, 0.5, 0.5],
      benchmark_maturities: [30, 91, 365],
      vols: [0.25, 0.22, 0.2],
      call_wings: [1, 1, 1],
      put_wings: [1, 1, 1],
      skews: [-0.1, -0.1, -0.1],
      reference_date: "2026-11-20T00:00:00Z",
      spot_ref: 100,
    });
    expect(BUILD_DEFAULTS).toEqual({ forwardRate: 0, skew: 0, smile: 0.5, putWing: 1, callWing: 1 });
  });

  it("turns a forward rate into factors exp(r·T), or takes the factors as given", () => {
    const s = buildSurface({
      spot: 50,
      referenceDate: new Date("2026-11-20T00:00:00Z"),
      maturities: [182, 365],
      atmVols: 0.3,
      forwardRate: 0.04,
    });
    expect(s.benchmark_fwd_factors[1]).toBeCloseTo(Math.exp(0.04), 15);
    expect(s.benchmark_fwd_factors[0]).toBeCloseTo(Math.exp((0.04 * 182) / DAYS_PER_YEAR), 15);
    expect(s.reference_date).toBe("2026-11-20T00:00:00.000Z");
    const given = buildSurface({
      spot: 50,
      referenceDate: "2026-11-20",
      maturities: [182, 365],
      atmVols: 0.3,
      fwdFactors: [1.01, 1.02],
    });
    expect(given.benchmark_fwd_factors).toEqual([1.01, 1.02]);
  });

  it("builds surfaces the model reproduces at the nodes: ATM vol and forward", () => {
    const s = buildSurface({
      spot: 4000,
      referenceDate: "2026-11-20",
      maturities: new Float64Array([7, 30, 365]),
      atmVols: [0.3, 0.25, 0.2],
      forwardRate: 0.02,
      skew: -0.2,
      smile: 0.6,
      putWing: 1.4,
      callWing: 0.5,
    });
    const m = fromSurface(s);
    s.benchmark_maturities.forEach((d, i) => {
      expect(m.vols(d, [100], STRIKE_TYPE.PercentForward)[0]).toBe(s.vols[i]);
      expect(m.forward(d)).toBe(4000 * s.benchmark_fwd_factors[i]!);
    });
  });

  it("refuses what fromSurface would refuse, and its own contradictions", () => {
    const base = { spot: 100, referenceDate: "2026-11-20", maturities: [30, 91], atmVols: 0.2 };
    expect(() => buildSurface({ ...base, skew: 0.6 })).toThrow(
      /benchmark 0 \(maturity 30 d\): skew must satisfy -p < 2·psi < c/,
    );
    expect(() => buildSurface({ ...base, maturities: [91, 30] })).toThrow(/strictly increasing/);
    expect(() => buildSurface({ ...base, atmVols: [0.2] })).toThrow(
      "atmVols has 1 values but maturities has 2; give one per benchmark or a single number",
    );
    expect(() => buildSurface({ ...base, forwardRate: 0.01, fwdFactors: 1 })).toThrow(
      "give forwardRate or fwdFactors, not both",
    );
    expect(() => buildSurface({ ...base, spot: 0 })).toThrow(/spot_ref must be a finite number > 0/);
    expect(() => buildSurface({ ...base, referenceDate: "soon" })).toThrow(VolModelError);
    expect(() => buildSurface({ ...base, putWing: NaN })).toThrow("putWing must be a finite number; got NaN");
  });
});
