/** One benchmark: the model's parameters ⇄ raw SVI, validity conditions, and the slice's derivatives. */
import { describe, expect, it } from "vitest";
import {
  VolModelError,
  butterflyG,
  minTotalVariance,
  rawSvi,
  sliceParams,
  sviW,
  sviW1,
  sviW2,
  type RawSvi,
} from "../../src/vol";
import { docRaw } from "./reference-model";

/** GJ Example 3.1 (Vogt), T = 1. */
const VOGT_RAW = { a: -0.041, b: 0.1331, m: 0.3586, rho: 0.306, s: 0.4153 };
/** GJ Example 5.1's jump-wings values of the Vogt smile, in this model's parameters (vol-model.md case 1). */
const VOGT = { vol: Math.sqrt(0.01742625), skew: -0.1752111, smile: 0.2937952, putWing: 0.6997381, callWing: 1.316798 };
/** GJ Example 5.1's repaired smile (vol-model.md case 2). */
const REPAIRED = { vol: 0.1320085, skew: -0.1752111, smile: 1.619064, putWing: 0.6997381, callWing: 0.3493158 };
const REPAIRED_RAW = { a: 0.0077409, b: 0.069242, m: 0.0420338, rho: -0.3340365, s: 0.118608 };

function expectRawClose(actual: RawSvi, expected: RawSvi, tol: number) {
  for (const key of ["a", "b", "rho", "m", "s"] as const)
    expect(Math.abs(actual[key] - expected[key]), key).toBeLessThan(tol);
}

describe("rawSvi", () => {
  it("turns the Vogt smile's published jump-wings values back into its raw SVI parameters to 1e-6", () => {
    const raw = rawSvi(VOGT, 1);
    expectRawClose(raw, VOGT_RAW, 1e-6);
  });

  it("turns the repaired Vogt smile into GJ's published raw parameters to 1e-6, with minimum variance 0.01548182", () => {
    const raw = rawSvi(REPAIRED, 1);
    expectRawClose(raw, REPAIRED_RAW, 1e-6);
    expect(minTotalVariance(raw)).toBeCloseTo(0.01548182, 7);
  });

  it("is the conversion of vol-model.md, term by term", () => {
    const raw = rawSvi({ vol: 0.23, skew: -0.2, smile: 0.7, putWing: 1.3, callWing: 0.4 }, 0.5);
    const doc = docRaw(0.23, -0.2, 0.7, 1.3, 0.4, 0.5);
    expectRawClose(raw, doc, 1e-15);
  });

  it("hits theta, 2·psi·sqrt(theta) and w2 at k = 0 by construction", () => {
    const p = { vol: 0.31, skew: 0.05, smile: 0.2, putWing: 0.9, callWing: 1.4 };
    const T = 2.5;
    const raw = rawSvi(p, T);
    const theta = p.vol ** 2 * T;
    expect(sviW(raw, 0)).toBeCloseTo(theta, 14);
    expect(sviW1(raw, 0)).toBeCloseTo(2 * p.skew * Math.sqrt(theta), 14);
    expect(sviW2(raw, 0)).toBeCloseTo(2 * (p.skew ** 2 + Math.sqrt(theta) * p.smile), 13);
  });

  it("has wing slopes -p·sqrt(theta) and c·sqrt(theta)", () => {
    const p = { vol: 0.2, skew: -0.1, smile: 0.5, putWing: 1.2, callWing: 0.7 };
    const raw = rawSvi(p, 1);
    expect(sviW1(raw, -1e6)).toBeCloseTo(-p.putWing * 0.2, 9);
    expect(sviW1(raw, 1e6)).toBeCloseTo(p.callWing * 0.2, 9);
  });

  it("names the benchmark and the failed condition", () => {
    const where = { benchmark: 2, maturityDays: 182 };
    const base = { vol: 0.2, skew: -0.1, smile: 0.5, putWing: 1, callWing: 1 };
    const cases: [Partial<typeof base>, string, RegExp][] = [
      [{ vol: 0 }, "v > 0", /benchmark 2 \(maturity 182 d\): vol must be > 0; got v = 0/],
      [{ putWing: -1 }, "p > 0", /put wing must be > 0/],
      [{ callWing: 0 }, "c > 0", /call wing must be > 0/],
      [
        { skew: 0.6 },
        "-p < 2·psi < c",
        /benchmark 2 \(maturity 182 d\): skew must satisfy -p < 2·psi < c; got 2·psi = 1\.2, p = 1, c = 1/,
      ],
      [{ skew: -0.5 }, "-p < 2·psi < c", /got 2·psi = -1, p = 1/],
      [{ smile: -1 }, "kappa > -psi²/sqrt(theta)", /smile must satisfy kappa > -psi²\/sqrt\(theta\)/],
      [
        { smile: -0.05 },
        "a + b·s·sqrt(1 - rho²) >= 0",
        /minimum total variance a \+ b·s·sqrt\(1 - rho²\) must be >= 0; got -/,
      ],
      [{ skew: NaN }, "finite", /skew must be a finite number; got NaN/],
      [{ vol: Infinity }, "finite", /vol must be a finite number; got Infinity/],
    ];
    for (const [change, condition, message] of cases) {
      let error: unknown;
      try {
        rawSvi({ ...base, ...change }, 0.5, where);
      } catch (e) {
        error = e;
      }
      expect(error, condition).toBeInstanceOf(VolModelError);
      expect((error as VolModelError).condition).toBe(condition);
      expect((error as VolModelError).benchmark).toBe(2);
      expect((error as VolModelError).message).toMatch(message);
    }
  });

  it("refuses parameters whose raw SVI would overflow", () => {
    expect(() => rawSvi({ vol: 1e200, skew: 0, smile: 1, putWing: 1, callWing: 1 }, 1)).toThrow(
      /overflow or underflow/,
    );
  });
});

describe("sliceParams", () => {
  it("gives the Vogt smile's jump-wings values of GJ Example 5.1", () => {
    const p = sliceParams(VOGT_RAW, 1);
    expect(p.vol ** 2).toBeCloseTo(0.01742625, 8);
    expect(p.skew).toBeCloseTo(-0.1752111, 7);
    expect(p.putWing).toBeCloseTo(0.6997381, 7);
    expect(p.callWing).toBeCloseTo(1.316798, 6);
    expect(p.smile).toBeCloseTo(0.2937952, 7);
    expect(minTotalVariance(VOGT_RAW)).toBeCloseTo(0.0116249, 7);
  });

  it("is the inverse of rawSvi to rounding", () => {
    const raw = rawSvi(sliceParams(VOGT_RAW, 1), 1);
    expectRawClose(raw, VOGT_RAW, 1e-14);
  });
});

describe("butterflyG", () => {
  it("is negative near k = 0.88 for the Vogt smile (GJ Example 3.1)", () => {
    let min = Infinity;
    let at = NaN;
    for (let k = -2; k <= 2; k += 0.001) {
      const g = butterflyG(VOGT_RAW, k);
      if (g < min) [min, at] = [g, k];
    }
    expect(min).toBeCloseTo(-0.0328635, 6);
    expect(at).toBeCloseTo(0.879, 3);
  });

  it("is 1 for a flat smile with no wings at all (w'' = w' = 0)", () => {
    // b → 0: the density factor of a flat smile is exactly 1.
    expect(butterflyG({ a: 0.04, b: 1e-300, rho: 0, m: 0, s: 1 }, 0.3)).toBeCloseTo(1, 15);
  });

  it("is undefined (NaN) where total variance is 0", () => {
    expect(butterflyG({ a: -0.1, b: 1, rho: 0, m: 0, s: 0.1 }, 0)).toBeNaN();
  });
});
