/**
 * The audit's reproductions (issue 18): near-degenerate slices, overflow, NaN handling, strikes beyond
 * double precision, numbers at the edge of printing. Each failed before its fix.
 */
import { describe, expect, it } from "vitest";
import { STRIKE_TYPE } from "../../src/api/assumptions";
import {
  VolModelError,
  diagnose,
  forwardWithinDoublePrecision,
  fromSurface,
  minTotalVariance,
  rawSvi,
  sliceParams,
  type WireSurface,
} from "../../src/vol";
import { fmt } from "../../src/vol/errors";
import { oneYear } from "./reference-model";

const { PercentForward } = STRIKE_TYPE;

/** Total variance of a symmetric slice (psi = 0, p = c: rho = m = 0) in the stable form, at T = 1. */
function symmetricW(v: number, kappa: number, wing: number, k: number): number {
  const theta = v * v;
  const b = v * wing;
  const s = b / (2 * v * kappa); // R = b(1 − beta²)/w2 with beta = 0, w2 = 2·sqrt(theta)·kappa
  return theta + (b * k * k) / (Math.hypot(k, s) + s);
}

describe("near-degenerate slices (skew 0, a tiny smile)", () => {
  const smiles = [1e-6, 1e-12, 1e-40, 1e-133, 1e-160, 1e-300];
  it.each(smiles)("smile %s: the ATM node is exact, the smile is right, and the slice is valid", (kappa) => {
    const s = fromSurface(oneYear({ vol: 0.2, skew: 0, smile: kappa, putWing: 1, callWing: 1 }));
    expect(s.benchmarks[0]!.minTotalVariance).toBeCloseTo(0.04, 15);
    expect(s.vols(365, [100], PercentForward)[0]).toBe(0.2);
    const ks = [-2, -0.3, -1e-3, 0, 1e-3, 0.3, 2];
    const w = s.totalVariance(365, ks);
    ks.forEach((k, q) =>
      expect(Math.abs(w[q]! - symmetricW(0.2, kappa, 1, k))).toBeLessThanOrEqual(1e-15 * symmetricW(0.2, kappa, 1, k)),
    );
    expect(diagnose(s).ok).toBe(true);
  });

  it("keeps a tiny skew's slope when the smile is tiny: w'(0) = 2·psi·sqrt(theta) to 1e-12", () => {
    const s = fromSurface(oneYear({ vol: 0.2, skew: 1e-3, smile: 1e-200, putWing: 1, callWing: 1 }));
    const h = 1e-4;
    const [wm, w0, wp] = s.totalVariance(365, [-h, 0, h]);
    expect(w0).toBe(0.2 * 0.2);
    expect(Math.abs((wp! - wm!) / (2 * h) - 2 * 1e-3 * 0.2)).toBeLessThan(1e-12);
  });

  it("interpolates two such slices between their maturities without losing the ATM level", () => {
    const surface: WireSurface = {
      ...oneYear({ vol: 0.2, skew: 0, smile: 1e-150, putWing: 1, callWing: 1 }),
      benchmark_maturities: [182, 365],
      benchmark_fwd_factors: [1, 1],
      vols: [0.25, 0.2],
      skews: [0, 1e-12],
      smiles: [1e-150, 1e-300],
      put_wings: [1, 1],
      call_wings: [1, 1],
    };
    const s = fromSurface(surface);
    const T = 300 / 365;
    const x = (300 - 182) / (365 - 182);
    const expected = (1 - x) * 0.25 ** 2 * (182 / 365) + x * 0.2 ** 2;
    const [w] = s.totalVariance(300, [0]);
    expect(Math.abs(w! - expected)).toBeLessThanOrEqual(1e-16);
    expect(s.vols(300, [100], PercentForward)[0]).toBeCloseTo(Math.sqrt(expected / T), 15);
  });

  it("is accepted by rawSvi, with the minimum variance computed without cancellation", () => {
    const raw = rawSvi({ vol: 0.2, skew: 0, smile: 1e-133, putWing: 1, callWing: 1 }, 1);
    expect(raw.s).toBeGreaterThan(1e130);
    expect(minTotalVariance({ theta: 0.04, ...raw })).toBeCloseTo(0.04, 15);
  });
});

describe("sliceParams", () => {
  it("refuses a raw slice whose ATM total variance is not positive, instead of returning NaN", () => {
    expect(() => sliceParams({ a: -1, b: 0.1, rho: 0, m: 0, s: 0.1 }, 1)).toThrow(VolModelError);
    expect(() => sliceParams({ a: -1, b: 0.1, rho: 0, m: 0, s: 0.1 }, 1)).toThrow(/w\(0\) .* must be > 0/);
  });
  it.each([
    ["b", { a: 0.04, b: -0.1, rho: 0, m: 0, s: 0.1 }, /b must be > 0/],
    ["rho", { a: 0.04, b: 0.1, rho: 1, m: 0, s: 0.1 }, /rho must be in \(-1, 1\)/],
    ["s", { a: 0.04, b: 0.1, rho: 0, m: 0, s: 0 }, /s must be > 0/],
    ["a", { a: NaN, b: 0.1, rho: 0, m: 0, s: 0.1 }, /a must be a finite number/],
  ])("names %s when it is out of range", (field, raw, message) => {
    try {
      sliceParams(raw, 1);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(VolModelError);
      expect((error as VolModelError).field).toBe(field);
      expect((error as Error).message).toMatch(message);
    }
  });
  it("refuses a maturity that is not > 0", () => {
    expect(() => sliceParams({ a: 0.04, b: 0.1, rho: 0, m: 0, s: 0.1 }, 0)).toThrow(/T must be a finite number > 0/);
  });
});

describe("strikes beyond double precision", () => {
  const s = fromSurface(oneYear({ vol: 0.2, skew: -0.1, smile: 0.5, putWing: 1, callWing: 1 }));
  it("absoluteStrikes refuses a log-moneyness whose strike overflows, instead of returning Infinity", () => {
    expect(() => s.absoluteStrikes(365, [800], "logMoneyness")).toThrow(VolModelError);
    expect(() => s.absoluteStrikes(365, [0, 800], "logMoneyness")).toThrow(
      /strikes\[1\]: log-moneyness 800 gives a strike outside double precision/,
    );
    expect(() => s.absoluteStrikes(365, [-800], "logMoneyness")).toThrow(/strikes\[0\]/);
    expect(Array.from(s.absoluteStrikes(365, [0, 700], "logMoneyness")).every(Number.isFinite)).toBe(true);
  });
});

describe("fmt at the edges of double precision", () => {
  it("prints the largest and smallest doubles as themselves, not Infinity or 0", () => {
    expect(fmt(Number.MAX_VALUE)).toBe("1.797693135e+308");
    expect(fmt(-Number.MAX_VALUE)).toBe("-1.797693135e+308");
    expect(fmt(Number.MIN_VALUE)).toBe("5e-324");
    expect(fmt(1.7976931348e308)).not.toMatch(/Infinity/);
  });
});

describe("one predicate for a forward within double precision", () => {
  it("holds for normal finite forwards and fails for subnormal or overflowing ones", () => {
    expect([705, 709.78, -708.39].map(forwardWithinDoublePrecision)).toEqual([true, true, true]);
    expect([709.79, -708.4, -745, NaN].map(forwardWithinDoublePrecision)).toEqual([false, false, false, false]);
  });

  it("is what the model refuses maturities by: a subnormal forward is refused, |ln F| = 705 is not", () => {
    const up = fromSurface({ ...oneYear({ vol: 0.2, skew: 0, smile: 0.5, putWing: 1, callWing: 1 }, 1, Math.exp(10)) });
    const down = fromSurface({
      ...oneYear({ vol: 0.2, skew: 0, smile: 0.5, putWing: 1, callWing: 1 }, 1, Math.exp(-10)),
    });
    expect(Math.log(up.forward(70.5 * 365))).toBeCloseTo(705, 9);
    expect(up.vols(70.5 * 365, [100], PercentForward)[0]).toBeCloseTo(0.2, 12);
    expect(Math.log(down.forward(70.5 * 365))).toBeCloseTo(-705, 9);
    expect(() => down.vols(70.85 * 365, [100], PercentForward)).toThrow(/outside double precision/);
    expect(() => up.vols(71 * 365, [100], PercentForward)).toThrow(/outside double precision/);
  });
});

describe("a skew-free slice with unequal wings and a tiny smile (m and s near 1e149)", () => {
  // psi = 0 makes beta = rho exactly, so the minimum total variance is theta (at k = 0) and, to double precision,
  // w(k) = theta + sqrt(theta)·kappa·k² (+ O(k³/R)): 0.04 at every k below. Recomputing beta as m/sqrt(m² + s²)
  // from the rounded m and s put rho − beta at ~1e-16 and the minimum at −1e116 (issue 28).
  const smiles = [1e-140, 1e-145, 1e-150, 1e-155, 1e-160, 1e-162, 1e-165, 1e-170, 1e-300];
  const wings: [number, number][] = [
    [1, 0.5],
    [0.5, 1],
    [0.7, 1.3],
  ];
  const cases = smiles.flatMap((kappa) => wings.map(([p, c]) => [kappa, p, c] as const));

  it.each(cases)(
    "smile %s, put wing %s, call wing %s: accepted, minimum 0.04, w(k) = 0.04 and the vol 0.2 at every k",
    (kappa, p, c) => {
      const raw = rawSvi({ vol: 0.2, skew: 0, smile: kappa, putWing: p, callWing: c }, 1);
      expect(Math.abs(raw.m)).toBeGreaterThan(1e138);
      const s = fromSurface(oneYear({ vol: 0.2, skew: 0, smile: kappa, putWing: p, callWing: c }));
      expect(s.benchmarks[0]!.minTotalVariance).toBe(0.2 * 0.2); // theta, as the model computes it (0.04000000000000001)
      const ks = [-5, -2, -0.3, -1e-3, 0, 1e-3, 0.3, 2, 5];
      const w = s.totalVariance(365, ks);
      // To 1e-15·(1 + |k|) relative: m and s hold beta = m/R to an ulp, which tilts w by b·k·1e-16 at most.
      ks.forEach((k, q) =>
        expect(Math.abs(w[q]! - (0.2 * 0.2 + 0.2 * kappa * k * k))).toBeLessThanOrEqual(0.04e-15 * (1 + Math.abs(k))),
      );
      expect(s.vols(365, [100], PercentForward)[0]).toBe(0.2);
      expect(diagnose(s).ok).toBe(true);
    },
  );

  it("refuses a smile so small that R = b(1 − beta²)/w''(0) leaves double precision, saying so (1e-320: w''(0) is subnormal)", () => {
    expect(() => rawSvi({ vol: 0.2, skew: 0, smile: 1e-320, putWing: 1, callWing: 0.5 }, 1)).toThrow(
      /overflow or underflow in double precision/,
    );
  });

  it("still refuses a slice whose minimum is truly negative, with that minimum (Vogt's p, c with skew 0.1: −0.00151)", () => {
    expect(() => rawSvi({ vol: 0.2, skew: 0.1, smile: 1e-150, putWing: 0.5, callWing: 1 }, 1)).toThrow(
      /got -0\.001514144572 /,
    );
  });
});
