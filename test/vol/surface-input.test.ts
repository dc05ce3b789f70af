/** Reading a surface: every bad input is a VolModelError naming the field (and benchmark), never NaN output. */
import { describe, expect, it } from "vitest";
import { VolModelError, fromSurface, type WireSurface } from "../../src/vol";
import { SAMPLE } from "./reference-model";

function rejection(surface: unknown): VolModelError {
  try {
    fromSurface(surface as WireSurface);
  } catch (e) {
    expect(e).toBeInstanceOf(VolModelError);
    return e as VolModelError;
  }
  throw new Error("fromSurface accepted the surface");
}

const with_ = (change: Partial<Record<keyof WireSurface, unknown>>) => ({ ...SAMPLE, ...change });

describe("fromSurface refuses", () => {
  it("arrays of different lengths, naming the field and both lengths", () => {
    const e = rejection(with_({ skews: [-0.1, -0.1, -0.1] }));
    expect(e.field).toBe("skews");
    expect(e.message).toBe(
      "skews has 3 values but benchmark_maturities has 4; every surface array needs one value per benchmark",
    );
  });

  it("repeated maturities, naming both benchmarks", () => {
    const e = rejection(with_({ benchmark_maturities: [30, 91, 91, 365] }));
    expect(e).toMatchObject({ field: "benchmark_maturities", benchmark: 2, condition: "strictly increasing" });
    expect(e.message).toBe(
      "benchmark 2: benchmark_maturities must be strictly increasing; benchmark 2 repeats the maturity of benchmark 1 (91 d)",
    );
  });

  it("decreasing maturities", () => {
    expect(rejection(with_({ benchmark_maturities: [30, 182, 91, 365] })).message).toBe(
      "benchmark 2: benchmark_maturities must be strictly increasing; benchmark 2 91 d comes after 182 d (benchmark 1)",
    );
  });

  it("zero or negative maturities", () => {
    expect(rejection(with_({ benchmark_maturities: [0, 91, 182, 365] })).message).toBe(
      "benchmark 0: benchmark_maturities[0] must be > 0 days; got 0",
    );
    expect(rejection(with_({ benchmark_maturities: [-30, 91, 182, 365] })).benchmark).toBe(0);
  });

  it("a zero, negative, NaN or missing spot", () => {
    for (const spot of [0, -5321.5, NaN, Infinity, "5321.5"]) {
      const e = rejection(with_({ spot_ref: spot }));
      expect(e.field).toBe("spot_ref");
      expect(e.message).toMatch(/^spot_ref must be a finite number > 0; got /);
    }
    const { spot_ref: _, ...noSpot } = SAMPLE;
    expect(rejection(noSpot).message).toBe("surface.spot_ref is missing");
  });

  it("NaN or infinite values anywhere, naming the benchmark", () => {
    for (const field of [
      "benchmark_fwd_factors",
      "smiles",
      "benchmark_maturities",
      "vols",
      "call_wings",
      "put_wings",
      "skews",
    ] as const) {
      const values = [...SAMPLE[field]];
      values[1] = NaN;
      const e = rejection(with_({ [field]: values }));
      expect(e).toMatchObject({ field, benchmark: 1, condition: "finite" });
      expect(e.message).toBe(`benchmark 1: ${field}[1] must be a finite number; got NaN`);
    }
    expect(rejection(with_({ vols: [0.2, Infinity, 0.2, 0.2] })).message).toMatch(
      /vols\[1\] must be a finite number; got Infinity/,
    );
  });

  it("wings <= 0", () => {
    expect(rejection(with_({ put_wings: [1.2, 0, 1.1, 1.05] })).message).toBe(
      "benchmark 1 (maturity 91 d): put wing must be > 0; got p = 0",
    );
    expect(rejection(with_({ call_wings: [0.9, 0.85, -0.8, 0.75] })).message).toBe(
      "benchmark 2 (maturity 182 d): call wing must be > 0; got c = -0.8",
    );
  });

  it("a skew outside (-p/2, c/2)", () => {
    const e = rejection(with_({ skews: [-0.12, -0.11, 0.5, -0.09] }));
    expect(e).toMatchObject({ field: "skews", benchmark: 2, condition: "-p < 2·psi < c" });
    expect(e.message).toBe(
      "benchmark 2 (maturity 182 d): skew must satisfy -p < 2·psi < c; got 2·psi = 1, p = 1.1, c = 0.8",
    );
    expect(rejection(with_({ skews: [-0.6, -0.11, -0.1, -0.09] })).message).toMatch(
      /benchmark 0 \(maturity 30 d\): skew must satisfy -p < 2·psi < c; got 2·psi = -1\.2, p = 1\.2/,
    );
    // The bounds themselves are outside too (strict inequalities).
    expect(rejection(with_({ skews: [-0.6 + 0, -0.11, -0.1, 0.375] })).benchmark).toBe(0);
    expect(rejection(with_({ skews: [-0.12, -0.11, -0.1, 0.375] })).benchmark).toBe(3);
  });

  it("a smile below -psi²/sqrt(theta) or one that makes total variance negative", () => {
    expect(rejection(with_({ smiles: [0.35, -1, 0.25, 0.2] }))).toMatchObject({
      benchmark: 1,
      condition: "kappa > -psi²/sqrt(theta)",
    });
    expect(rejection(with_({ smiles: [0.35, 0.3, 0.25, -0.02] }))).toMatchObject({
      benchmark: 3,
      condition: "a + b·s·sqrt(1 - rho²) >= 0",
    });
  });

  it("vols and forward factors <= 0", () => {
    expect(rejection(with_({ vols: [0.24, 0, 0.215, 0.205] }))).toMatchObject({
      benchmark: 1,
      field: "vols",
      condition: "v > 0",
    });
    expect(rejection(with_({ benchmark_fwd_factors: [1.002, 1.006, 0, 1.027] }))).toMatchObject({
      benchmark: 2,
      field: "benchmark_fwd_factors",
      condition: "F > 0",
    });
    expect(rejection(with_({ benchmark_fwd_factors: [1.002, 1.006, 1e308, 1.027] })).message).toMatch(
      /forward F = spot_ref·benchmark_fwd_factors\[2\] must be finite and > 0/,
    );
  });

  it("empty arrays, non-arrays, non-numbers, unknown and missing fields", () => {
    const empty = {
      ...SAMPLE,
      benchmark_fwd_factors: [],
      smiles: [],
      benchmark_maturities: [],
      vols: [],
      call_wings: [],
      put_wings: [],
      skews: [],
    };
    expect(rejection(empty).message).toBe("benchmark_maturities must hold at least one number");
    expect(rejection(with_({ vols: "0.2" })).message).toBe(
      "vols must be an array of numbers (or a Float64Array); got string",
    );
    expect(rejection(with_({ vols: [0.24, "0.2", 0.215, 0.205] })).message).toBe('vols[1] must be a number; got "0.2"');
    expect(rejection({ ...SAMPLE, skew: [0] }).message).toMatch(
      /^surface has an unknown field "skew"; the fields are /,
    );
    const { smiles: _, ...noSmiles } = SAMPLE;
    expect(rejection(noSmiles).message).toBe("surface.smiles is missing");
    expect(rejection(null).message).toMatch(/^surface must be an object/);
    expect(rejection([SAMPLE]).message).toMatch(/got an array/);
  });

  it("a reference date that is not a date-time", () => {
    for (const date of ["next Friday", "2026-11-20T10:00:00", new Date(NaN), 20261120]) {
      expect(rejection(with_({ reference_date: date })).field).toBe("reference_date");
    }
  });
});
