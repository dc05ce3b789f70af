import { describe, expect, it } from "vitest";
import { curveMeasures, discountFactor, forwardRate } from "../../src/curves/compounding";

describe("discountFactor(rate, t, compounding)", () => {
  it("is exp(-r t) by default (continuous)", () => {
    expect(discountFactor(0.03, 2)).toBeCloseTo(Math.exp(-0.06), 15);
  });

  it("follows the convention given", () => {
    expect(discountFactor(0.03, 2, "annual")).toBeCloseTo(1 / 1.03 ** 2, 15);
    expect(discountFactor(0.03, 2, "semiannual")).toBeCloseTo(1 / 1.015 ** 4, 15);
    expect(discountFactor(0.03, 2, "quarterly")).toBeCloseTo(1 / 1.0075 ** 8, 15);
    expect(discountFactor(0.03, 2, "monthly")).toBeCloseTo(1 / (1 + 0.03 / 12) ** 24, 15);
    expect(discountFactor(0.03, 2, { periodsPerYear: 3 })).toBeCloseTo(1 / 1.01 ** 6, 15);
    expect(discountFactor(0.03, 0.5, "simple")).toBeCloseTo(1 / 1.015, 15);
  });

  it("is exactly 1 at t = 0 and NaN for a negative or non-finite input", () => {
    expect(discountFactor(0.05, 0, "annual")).toBe(1);
    expect(discountFactor(0.05, -1)).toBeNaN();
    expect(discountFactor(NaN, 1)).toBeNaN();
  });

  it("rejects an unknown convention naming the known ones", () => {
    expect(() => discountFactor(0.03, 1, "daily" as never)).toThrow(
      /compounding must be "continuous", "simple", "annual"/,
    );
    expect(() => discountFactor(0.03, 1, { periodsPerYear: 0 })).toThrow(RangeError);
  });
});

describe("forwardRate(t1, df1, t2, df2, compounding)", () => {
  it("recovers a flat curve's rate in every convention", () => {
    for (const c of ["continuous", "annual", "semiannual", "quarterly", "monthly"] as const) {
      expect(forwardRate(1, discountFactor(0.04, 1, c), 2, discountFactor(0.04, 2, c), c), c).toBeCloseTo(0.04, 12);
    }
    // Simple rates are flat only from 0: the forward from 0 is the rate itself.
    expect(forwardRate(0, 1, 0.5, discountFactor(0.04, 0.5, "simple"), "simple")).toBeCloseTo(0.04, 12);
  });

  it("is (r2 t2 - r1 t1)/(t2 - t1) for continuous rates", () => {
    const f = forwardRate(1, Math.exp(-0.02), 2, Math.exp(-0.05));
    expect(f).toBeCloseTo((0.05 - 0.02) / 1, 12);
  });

  it("is NaN over an empty or backwards period", () => {
    expect(forwardRate(1, 0.9, 1, 0.9)).toBeNaN();
    expect(forwardRate(2, 0.9, 1, 0.95)).toBeNaN();
  });
});

describe("curveMeasures(maturities, rates, compounding)", () => {
  it("gives the shortest point's forward from 0 (its zero rate) and the others between neighbours", () => {
    const m = curveMeasures([0.5, 1, 2], [0.02, 0.025, 0.03]);
    expect(m.forwardRates[0]).toBeCloseTo(0.02, 12);
    expect(m.forwardRates[1]).toBeCloseTo((0.025 - 0.01) / 0.5, 12);
    expect(m.forwardRates[2]).toBeCloseTo(0.06 - 0.025, 12);
    expect(m.discountFactors[2]).toBeCloseTo(Math.exp(-0.06), 15);
    expect(m.problems).toEqual([]);
  });

  it("works in maturity order but answers in the points' order", () => {
    const m = curveMeasures([2, 0.5, 1], [0.03, 0.02, 0.025]);
    expect(m.forwardRates[1]).toBeCloseTo(0.02, 12);
    expect(m.forwardRates[0]).toBeCloseTo(0.035, 12);
  });

  it("leaves the forward of a repeated maturity missing and says why", () => {
    const m = curveMeasures([1, 1], [0.02, 0.021]);
    expect(m.forwardRates[1]).toBeNaN();
    expect(m.problems[0]).toMatch(/maturity 1 repeats at point 1/);
  });
});
