/** The normal distribution (cdf and quantile) and the complementary error function, plain and scaled. */
import { describe, expect, it } from "vitest";
import { normCdf, normInv } from "../../src/vol";
import { erfc, erfcx } from "../../src/vol/normal";

describe("normCdf", () => {
  it("matches reference values to 1e-15 absolute", () => {
    expect(normCdf(0)).toBe(0.5);
    expect(normCdf(-1)).toBeCloseTo(0.15865525393145707, 15);
    expect(normCdf(1.96)).toBeCloseTo(0.9750021048517795, 15);
    expect(normCdf(-5) / 2.866515718791939e-7).toBeCloseTo(1, 9);
  });
  it("keeps its relative accuracy deep in the lower tail (values from mpmath)", () => {
    // To ~x²·1e-16 (the rounding of x/√2 alone moves N(x) by that much), not to 1e-14 absolute.
    expect(Math.abs(normCdf(-20) / 2.7536241186062337e-89 - 1)).toBeLessThan(1e-13);
    expect(Math.abs(normCdf(-37) / 5.725571222524577e-300 - 1)).toBeLessThan(1e-12);
    // Below x ≈ −37.5 N is subnormal: 0 from there on.
    expect(normCdf(-38)).toBe(0);
    expect(Number.isNaN(normCdf(NaN))).toBe(true);
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

describe("erfc and erfcx (Cody 1969)", () => {
  // [x, erfc(x), erfcx(x)] from mpmath at 40 digits (at the doubles x, not the decimals), across Cody's three intervals and both signs.
  const cases: [number, number, number][] = [
    [-3, 1.9999779095030015, 16205.988853999586],
    [-0.3, 1.3286267594591274, 1.4537492328427655],
    [0, 1, 1],
    [0.2, 0.7772974107895215, 0.8090195199015807],
    [0.46875, 0.507386526782062, 0.6320696892495561],
    [0.5, 0.4795001221869535, 0.6156903441929259],
    [1, 0.15729920705028513, 0.427583576155807],
    [3.9, 3.4792248597231765e-8, 0.14031418160068973],
    [4, 1.541725790028002e-8, 0.13699945762506138],
    [4.1, 6.700027654084918e-9, 0.133834116418652],
    [10, 2.088487583762545e-45, 0.05614099274382259],
    [26, 5.663192408856143e-296, 0.021683584850562907],
    [30, 0, 0.01879588886141675],
  ];
  it("match reference values to about 1e-15 relative", () => {
    for (const [x, ec, ecx] of cases) {
      if (ec === 0) expect(erfc(x)).toBe(0);
      else expect(Math.abs(erfc(x) / ec - 1), `erfc(${x})`).toBeLessThan(1e-15);
      expect(Math.abs(erfcx(x) / ecx - 1), `erfcx(${x})`).toBeLessThan(1e-15);
    }
  });
  it("have the right limits and never turn NaN into a number", () => {
    expect(erfc(Infinity)).toBe(0);
    expect(erfc(-Infinity)).toBe(2);
    expect(erfcx(Infinity)).toBe(0);
    expect(erfcx(-30)).toBe(Infinity);
    expect(erfcx(1e10) * 1e10 * Math.sqrt(Math.PI)).toBeCloseTo(1, 15);
    expect(Number.isNaN(erfc(NaN))).toBe(true);
    expect(Number.isNaN(erfcx(NaN))).toBe(true);
  });
});
