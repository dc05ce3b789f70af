/** Properties of fromSurface over random valid surfaces (fast-check). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DAYS_PER_YEAR, STRIKE_TYPE } from "../../src/api/assumptions";
import { VolModelError, diagnose, forwardWithinDoublePrecision, fromSurface } from "../../src/vol";
import { docModel, validSurface } from "./reference-model";

const { Absolute, PercentForward, PercentSpot } = STRIKE_TYPE;
const RUNS = { numRuns: 300 };

/**
 * Seeds to sweep: `VOL_PROPERTY_SEEDS=1-2000` (or `39,69,100-200`) runs every property once per seed (300 cases each) and
 * fails listing the seeds that failed (`scripts/vol-seed-sweep.sh`). Unset, fast-check draws one seed per
 * run and prints it on a failure.
 */
const SWEEP = (() => {
  const spec = process.env.VOL_PROPERTY_SEEDS;
  if (!spec) return undefined;
  return spec.split(",").flatMap((part) => {
    const [from, to = from] = part.split("-").map(Number);
    if (!Number.isInteger(from) || !Number.isInteger(to))
      throw new Error(`VOL_PROPERTY_SEEDS must look like 1-2000 or 39,69,100-200; got ${spec}`);
    return Array.from({ length: to! - from! + 1 }, (_, i) => from! + i);
  });
})();

/** `fc.assert`, once, or once per seed of the sweep, collecting every failing seed. */
function check<T>(property: fc.IProperty<T>, params: fc.Parameters<T> = RUNS): void {
  if (!SWEEP) {
    fc.assert(property, params);
    return;
  }
  const failed: string[] = [];
  for (const seed of SWEEP) {
    try {
      fc.assert(property, { ...params, seed });
    } catch (error) {
      failed.push(`seed ${seed}: ${String(error)} ${String((error as Error).cause ?? "")}`);
    }
  }
  expect(failed, `${failed.length} of ${SWEEP.length} seeds failed`).toEqual([]);
}

/** ln F(T) from the model's benchmarks, as vol-model.md defines it (for deciding which maturities exist). */
function lnForward(s: ReturnType<typeof fromSurface>, days: number): number {
  const T = days / DAYS_PER_YEAR;
  const xs = [0, ...s.benchmarks.map((b) => b.T)];
  const ys = [Math.log(s.spotRef), ...s.benchmarks.map((b) => Math.log(b.forward))];
  let i = xs.findIndex((x, j) => j > 0 && T <= x) - 1;
  if (i < 0) i = xs.length - 2;
  return ys[i]! + ((ys[i + 1]! - ys[i]!) / (xs[i + 1]! - xs[i]!)) * (T - xs[i]!);
}

/** True unless the maturity is so far out that F(T) leaves double precision: the model's own predicate, on ln F computed here. */
const forwardInRange = (s: ReturnType<typeof fromSurface>, days: number) =>
  forwardWithinDoublePrecision(lnForward(s, days));

/** Any strike in (0, ∞) a double can hold, from the smallest subnormal to the largest finite. */
const strike = fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true });
/** Maturities from a millisecond to far beyond any benchmark (days). */
const maturity = fc.oneof(
  fc.double({ min: 1e-8, max: 1e5, noNaN: true }),
  fc.double({ min: Number.MIN_VALUE, max: 1e300, noNaN: true }),
);

describe("fromSurface on random valid surfaces", () => {
  it("never gives NaN, a negative vol or a negative total variance, for any strike in (0, ∞) and maturity > 0", () => {
    check(
      fc.property(
        validSurface(),
        maturity,
        fc.array(strike, { minLength: 1, maxLength: 20 }),
        (surface, d, strikes) => {
          const s = fromSurface(surface);
          // Only a forward outside double precision (absurd maturity × steep forward curve) may refuse a maturity.
          if (!forwardInRange(s, d)) {
            expect(() => s.vols(d, strikes, PercentForward)).toThrow(
              /forward F\(T\) = exp\(.*\) is outside double precision/,
            );
            return;
          }
          for (const type of [Absolute, PercentForward, PercentSpot]) {
            for (const v of s.vols(d, strikes, type))
              expect(v >= 0 && Number.isFinite(v), `vol ${v} at ${d} d`).toBe(true);
          }
          const k = s.logMoneyness(d, strikes, Absolute);
          for (const w of s.totalVariance(d, k)) expect(w >= 0 && Number.isFinite(w)).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it("agrees with vol-model.md transcribed literally, to 1e-12 relative", () => {
    check(
      fc.property(
        validSurface(),
        fc.double({ min: 0.5, max: 3000, noNaN: true }),
        fc.array(fc.double({ min: -1.5, max: 1.5, noNaN: true }), { minLength: 1, maxLength: 10 }),
        (surface, d, ks) => {
          const s = fromSurface(surface);
          fc.pre(forwardInRange(s, d));
          const doc = docModel(surface);
          const w = s.totalVariance(d, ks);
          ks.forEach((k, j) => expect(Math.abs(w[j]! - doc.w(d, k))).toBeLessThanOrEqual(1e-12 * doc.w(d, k) + 1e-300));
        },
      ),
      RUNS,
    );
  });

  it("is continuous across benchmark maturities: w(k, T) moves no faster than its neighbouring segments", () => {
    check(
      fc.property(
        validSurface(),
        fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 1, maxLength: 10 }),
        (surface, ks) => {
          const s = fromSurface(surface);
          const days = surface.benchmark_maturities;
          fc.pre(forwardInRange(s, days.at(-1)! * (1 + 1e-9) + DAYS_PER_YEAR));
          // Rounding of near − d and of the interpolation weight is ~1e−7 relative to the step: hence 1 + 1e−4.
          // Total variance at the benchmarks, with (0, 0) in front and one year past the last behind.
          const knots = [0, ...days, days.at(-1)! + DAYS_PER_YEAR];
          const w = knots.map((d) => (d === 0 ? ks.map(() => 0) : Array.from(s.totalVariance(d, ks))));
          days.forEach((d, b) => {
            const i = b + 1;
            for (const near of [d * (1 - 1e-9), d * (1 + 1e-9)]) {
              const v = s.totalVariance(near, ks);
              ks.forEach((_, j) => {
                const slope = Math.max(
                  Math.abs(w[i]![j]! - w[i - 1]![j]!) / (knots[i]! - knots[i - 1]!),
                  Math.abs(w[i + 1]![j]! - w[i]![j]!) / (knots[i + 1]! - knots[i]!),
                );
                // Rounding scales with the terms summed (theta and b·|k|), not with w, which can be 70 times smaller.
                const bm = s.benchmarks[b]!;
                const scale = w[i]![j]! + bm.theta + bm.b * Math.abs(ks[j]!);
                expect(Math.abs(v[j]! - w[i]![j]!)).toBeLessThanOrEqual(
                  slope * Math.abs(near - d) * (1 + 1e-4) + 1e-14 * scale,
                );
              });
            }
          });
          // ln F is piecewise linear in T: same Lipschitz argument.
          const lnF = knots.map((d) => (d === 0 ? Math.log(surface.spot_ref) : Math.log(s.forward(d))));
          days.forEach((d, b) => {
            const i = b + 1;
            const slope = Math.max(
              Math.abs(lnF[i]! - lnF[i - 1]!) / (knots[i]! - knots[i - 1]!),
              Math.abs(lnF[i + 1]! - lnF[i]!) / (knots[i + 1]! - knots[i]!),
            );
            for (const near of [d * (1 - 1e-9), d * (1 + 1e-9)]) {
              expect(Math.abs(Math.log(s.forward(near)) - lnF[i]!)).toBeLessThanOrEqual(
                slope * Math.abs(near - d) * (1 + 1e-4) + 1e-15 * (1 + Math.abs(lnF[i]!)),
              );
            }
          });
        },
      ),
      RUNS,
    );
  });

  it("keeps total variance non-decreasing in maturity at fixed k whenever the benchmarks pass the calendar check there", () => {
    let checked = 0;
    check(
      fc.property(
        validSurface(),
        fc.double({ min: -2, max: 2, noNaN: true }),
        fc.array(fc.double({ min: 1e-3, max: 4000, noNaN: true }), { minLength: 2, maxLength: 30 }),
        (surface, k, days) => {
          const s = fromSurface(surface);
          fc.pre(diagnose(s, { k: [k], tolerance: 0 }).calendar.length === 0);
          checked++;
          const sorted = [...days.filter((d) => forwardInRange(s, d)), ...surface.benchmark_maturities].sort(
            (a, b) => a - b,
          );
          const w = sorted.map((d) => s.totalVariance(d, [k])[0]!);
          for (let i = 1; i < w.length; i++) expect(w[i]! - w[i - 1]!).toBeGreaterThanOrEqual(-1e-15 * w[i]!);
        },
      ),
      RUNS,
    );
    expect(checked).toBeGreaterThan(RUNS.numRuns / 2);
  });

  it("prices PercentForward 100 like Absolute at F(T), and PercentSpot 100·F/S likewise", () => {
    check(
      fc.property(validSurface(), maturity, (surface, d) => {
        const s = fromSurface(surface);
        fc.pre(forwardInRange(s, d));
        const F = s.forward(d);
        fc.pre(Number.isFinite((100 * F) / surface.spot_ref) && (100 * F) / surface.spot_ref > 0);
        const pf = s.vols(d, [100], PercentForward)[0]!;
        // Equal up to the rounding of ln(exp(ln F)) (a few 1e-16 in k), times the smile's slope.
        expect(Math.abs(s.vols(d, [F], Absolute)[0]! - pf)).toBeLessThanOrEqual(1e-12 * pf + 1e-13);
        expect(Math.abs(s.vols(d, [(100 * F) / surface.spot_ref], PercentSpot)[0]! - pf)).toBeLessThanOrEqual(
          1e-12 * pf + 1e-13,
        );
      }),
      RUNS,
    );
  });

  it("round-trips delta → strike → delta", () => {
    check(
      fc.property(
        validSurface({ lee: true }),
        fc.double({ min: 0.5, max: 3000, noNaN: true }),
        fc.array(fc.double({ min: 0.01, max: 0.99, noNaN: true }), { minLength: 1, maxLength: 8 }),
        (surface, d, deltas) => {
          const s = fromSurface(surface);
          fc.pre(forwardInRange(s, d));
          for (const delta of deltas) {
            // Through log-moneyness: at a far maturity the strike itself (F·e^k) may leave double precision.
            let k: Float64Array;
            try {
              k = s.logMoneyness(d, [delta], "delta");
            } catch (error) {
              // Past the last benchmark the ATM variance keeps growing while the wing slope stays: a small
              // delta may need |k| > 700. The model may say so only when it is true.
              expect((error as VolModelError).condition, String(error)).toBe("delta reachable");
              const edge = s.callDelta(d, [delta < 0.5 ? 700 : -700], "logMoneyness")[0]!;
              expect(delta < 0.5 ? edge > delta : edge < delta, `delta at the edge ${edge}, wanted ${delta}`).toBe(
                true,
              );
              continue;
            }
            const back = s.callDelta(d, k, "logMoneyness");
            expect(Math.abs(back[0]! - delta), `delta ${delta} at ${d} d`).toBeLessThan(1e-10);
          }
        },
      ),
      RUNS,
    );
  });

  it("evaluates a grid exactly as row-by-row vols()", () => {
    check(
      fc.property(
        validSurface(),
        fc.array(fc.double({ min: 0.01, max: 5 * DAYS_PER_YEAR, noNaN: true }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.double({ min: 1, max: 400, noNaN: true }), { minLength: 1, maxLength: 8 }),
        (surface, mats, strikes) => {
          const s = fromSurface(surface);
          fc.pre(mats.every((d) => forwardInRange(s, d)));
          const g = s.grid(mats, strikes, PercentSpot);
          mats.forEach((d, i) => {
            const row = s.vols(d, strikes, PercentSpot);
            strikes.forEach((_, j) =>
              expect(Math.abs(g.vols[i * strikes.length + j]! - row[j]!)).toBeLessThanOrEqual(1e-14 * row[j]!),
            );
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});
