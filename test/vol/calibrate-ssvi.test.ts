/**
 * calibrate on its hard case: quotes from an SSVI surface (Gatheral–Jacquier's power-law φ) with seeded
 * noise of 20 vol bp, 12 maturities × 21 strikes. The noise pushes most slices against the calendar and
 * butterfly constraints, where a constrained solve can stall (half-slope Jacobian rows at the penalty's
 * kink, one row for two competing minima): every slice must converge, free of arbitrage, but for a short
 * one whose call wing runs off beyond the quotes, which is not called converged (issue 41).
 */
import { describe, expect, it } from "vitest";
import { DAYS_PER_YEAR, STRIKE_TYPE } from "../../src/api/assumptions";
import { calibrate, type SmileQuotes } from "../../src/vol/calibrate";
import { diagnose, fromSurface } from "../../src/vol";
import { rng } from "../../src/sim/random";

const MATURITIES = [7, 14, 30, 60, 91, 122, 182, 273, 365, 547, 730, 1095];

/**
 * SSVI: `w(k) = θ/2·(1 + ρφk + sqrt((φk + ρ)² + 1 − ρ²))`, `φ(θ) = η/(θ^γ·(1 + θ)^(1−γ))`, ATM vol falling
 * from 26% to 19%; arbitrage-free for these parameters (η(1 + |ρ|) ≤ 2, γ ≤ 1/2). 21 PercentForward
 * strikes per maturity at `sqrt(θ)·z`, z from −3.5 to 3, vols plus N(0, noise²) from the seeded generator.
 */
function ssviQuotes(seed: number, noise = 20e-4, rho = -0.7, eta = 1, gamma = 0.3): SmileQuotes[] {
  const draws = rng(seed, "bench/calibrate/ssvi");
  return MATURITIES.map((d) => {
    const T = d / DAYS_PER_YEAR;
    const atm = 0.19 + 0.07 * Math.exp(-d / 90);
    const theta = atm * atm * T;
    const phi = eta / (theta ** gamma * (1 + theta) ** (1 - gamma));
    const strikes: number[] = [];
    const vols: number[] = [];
    for (let j = 0; j < 21; j++) {
      const k = Math.sqrt(theta) * (-3.5 + (6.5 * j) / 20);
      const w = (theta / 2) * (1 + rho * phi * k + Math.sqrt((phi * k + rho) ** 2 + 1 - rho * rho));
      strikes.push(100 * Math.exp(k));
      vols.push(Math.sqrt(w / T) + noise * draws.normal());
    }
    return {
      maturity: d,
      forward: 5321.5 * Math.exp(0.025 * T),
      strikes,
      strikeType: STRIKE_TYPE.PercentForward,
      vols,
    };
  });
}

describe("calibrate: SSVI quotes with 20 bp of noise (the worst case of bench/calibrate.mjs)", () => {
  it.each([6, 2])(
    "converges on every slice, arbitrage-free, with an RMSE of the order of the noise (seed %i)",
    (seed) => {
      const smiles = ssviQuotes(seed);
      const { surface, fit, diagnostics } = calibrate({ spot: 5321.5, referenceDate: "2026-11-20", smiles });
      // Every slice converges but the shortest ones whose call wing, which the quotes (out to 3·sqrt(θ)) do
      // not pin, ran towards 0 (1e-11, where the surface has 0.04): those say so (issue 41).
      for (const f of fit) {
        if (f.converged) continue;
        expect(f.maturity).toBeLessThanOrEqual(14);
        expect(f.reasons).toEqual([
          expect.stringMatching(/^callWing [\d.e-]+ ran towards 0 \(below 1e-6\): the quotes do not pin that wing$/),
        ]);
      }
      expect(fit.filter((f) => f.converged).length).toBeGreaterThanOrEqual(MATURITIES.length - 2);
      expect(diagnostics.ok).toBe(true);
      expect(diagnostics).toEqual(diagnose(fromSurface(surface)));
      // 21 quotes, 5 parameters, some constraints binding: about 0.9 of the noise is left, never much more.
      for (const f of fit) {
        expect(f.rmseBp).toBeGreaterThan(0.4 * 20);
        expect(f.rmseBp).toBeLessThan(1.5 * 20);
      }
    },
  );
});
