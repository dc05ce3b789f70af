/**
 * Black-76 where a double's range ends: forwards near 1e±154 (where F·F leaves the range), a subnormal
 * maturity with a discount factor ≠ 1 (where r = −ln(DF)/T overflows), and erfcx at the boundary between
 * Cody's ranges. Each case is scale-free in exact arithmetic, so the answer is known: gamma·F is the same at
 * F = 1 and F = 1e200 for the same moneyness, vol and time.
 */
import { describe, expect, it } from "vitest";
import { black76, black76Strikes } from "../../src/vol/black76";
import { erfcxFast } from "../../src/vol/black76/math";
import { erfcx } from "../../src/vol/normal";

const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

describe("Black-76 gamma at huge and tiny forwards", () => {
  // gamma = DF·φ(d1)/(F·σ√T): F·gamma depends on F/K only, so it must not change with the scale.
  const unit = black76({ forward: 1, strike: 1.1, maturity: 0.5, vol: 0.3, discountFactor: 0.98, kind: "call" });
  for (const F of [1e150, 1.3e154, 2e154, 1e200, 1e299, 8e-155, 7e-155, 1e-160, 1e-299]) {
    it(`F·gamma at F = ${F} equals its value at F = 1 (F·F out of range is not 0 nor ∞)`, () => {
      const g = black76({ forward: F, strike: 1.1 * F, maturity: 0.5, vol: 0.3, discountFactor: 0.98, kind: "call" });
      expect(Number.isFinite(g.gamma) && g.gamma > 0).toBe(true);
      expect(rel(g.gamma * F, unit.gamma)).toBeLessThan(1e-13);
      const many = black76Strikes({ forward: F, maturity: 0.5, discountFactor: 0.98, kind: "put" }, [1.1 * F], 0.3);
      expect(rel(many.gamma[0]! * F, unit.gamma)).toBeLessThan(1e-13);
    });
  }
});

describe("Black-76 theta at a subnormal maturity", () => {
  for (const T of [5e-324, 1e-310, 2.2e-308]) {
    for (const strike of [90, 100, 110]) {
      it(`theta is a number at T = ${T}, K = ${strike}, DF = 0.99 (r = −ln(DF)/T overflows)`, () => {
        const g = black76({ forward: 100, strike, maturity: T, vol: 0.2, discountFactor: 0.99, kind: "call" });
        expect(Number.isNaN(g.theta)).toBe(false);
        expect(Number.isNaN(g.price)).toBe(false);
      });
    }
  }
  it("an out-of-the-money option whose price is 0 has theta −DF·F·φ(d1)·σ/(2√T), not NaN", () => {
    const T = 1e-310;
    const g = black76({ forward: 100, strike: 110, maturity: T, vol: 0.2, discountFactor: 0.99, kind: "call" });
    expect(g.price).toBe(0);
    expect(g.theta === 0).toBe(true);
  });
});

describe("erfcx at Cody's range boundary", () => {
  it("erfcxFast(0.46875) equals erfcx(0.46875), and is continuous on both sides", () => {
    const x = 0.46875;
    expect(erfcxFast(x)).toBeGreaterThan(0.6);
    expect(rel(erfcxFast(x), erfcx(x))).toBeLessThan(4e-16);
    for (const y of [x - 2 ** -52, x + 2 ** -52, -x, -x - 2 ** -52])
      expect(rel(erfcxFast(y), erfcx(y))).toBeLessThan(4e-16);
  });
});
