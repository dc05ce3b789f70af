/** The normal distribution: cdf and quantile. */
import { describe, expect, it } from "vitest";
import { normCdf, normInv } from "../../src/vol";

describe("normCdf", () => {
  it("matches reference values to 1e-15 absolute", () => {
    expect(normCdf(0)).toBe(0.5);
    expect(normCdf(-1)).toBeCloseTo(0.15865525393145707, 15);
    expect(normCdf(1.96)).toBeCloseTo(0.9750021048517795, 15);
    expect(normCdf(-5) / 2.866515718791939e-7).toBeCloseTo(1, 9);
  });
  it("is exactly 0 and 1 far out and at ±∞", () => {
    expect(normCdf(-40)).toBe(0);
    expect(normCdf(40)).toBe(1);
    expect(normCdf(-Infinity)).toBe(0);
    expect(normCdf(Infinity)).toBe(1);
  });
});

describe("normInv", () => {
  it("matches reference quantiles", () => {
    expect(normInv(0.5)).toBe(0);
    expect(normInv(0.975)).toBeCloseTo(1.959963984540054, 15);
    expect(normInv(0.025)).toBeCloseTo(-1.959963984540054, 15);
    expect(normInv(1e-10)).toBeCloseTo(-6.361340902404056, 13);
  });
  it("inverts normCdf to 1e-15 in probability", () => {
    for (let p = 1e-6; p < 1; p += 0.0137) expect(normCdf(normInv(p))).toBeCloseTo(p, 15);
  });
  it("gives ±∞ at 0 and 1 and NaN outside [0, 1]", () => {
    expect(normInv(0)).toBe(-Infinity);
    expect(normInv(1)).toBe(Infinity);
    expect(normInv(1.5)).toBeNaN();
    expect(normInv(NaN)).toBeNaN();
  });
});
