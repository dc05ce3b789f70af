/**
 * Hagan & West (2006) monotone convex: pillar forwards from their formula, continuity, the regions'
 * g(x) integrating to zero, and positivity with their amendment.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromResponse, type Curve } from "../../src/curves";
import { gOf } from "../../src/curves/interpolation";

/** Hagan–West's example data set (their section 6): τ and zero rates. */
const HW_T = [0.1, 1, 4, 9, 20, 30];
const HW_Z = [0.081, 0.07, 0.044, 0.07, 0.04, 0.03];

const mc = (ts: readonly number[], zs: readonly number[], positivity = true): Curve =>
  fromResponse(
    { currency: "X", market_date: "2026-11-20", data: ts.map((t, i) => ({ maturity: t, rate: zs[i]! })) },
    { interpolation: "monotone-convex", positivity },
  );

/** Zero rates whose pillar-to-pillar forwards are `fd` (τ_0 = 0). */
const zerosFromForwards = (ts: readonly number[], fd: readonly number[]) => {
  let I = 0;
  return ts.map((t, i) => {
    I += fd[i]! * (t - (i === 0 ? 0 : ts[i - 1]!));
    return I / t;
  });
};

/** HW eq. (24)–(26): the forward at each pillar from the discrete forwards, with the positivity collar when asked. */
function pillarForwards(ts: readonly number[], zs: readonly number[], collar: boolean): number[] {
  const tau = [0, ...ts];
  const fd = ts.map((t, i) => (zs[i]! * t - (i === 0 ? 0 : zs[i - 1]! * ts[i - 1]!)) / (t - tau[i]!));
  const n = ts.length;
  const f: number[] = [];
  for (let i = 1; i < n; i++) {
    const w = (tau[i]! - tau[i - 1]!) / (tau[i + 1]! - tau[i - 1]!);
    f.push(w * fd[i]! + (1 - w) * fd[i - 1]!);
  }
  f.push(fd[n - 1]! - 0.5 * (f[n - 2]! - fd[n - 1]!));
  if (!collar) return f;
  return f.map((x, i) => Math.min(Math.max(0, x), 2 * (i < n - 1 ? Math.min(fd[i]!, fd[i + 1]!) : fd[i]!)));
}

const minForward = (c: Curve, end: number, steps: number) => {
  let min = Infinity;
  for (let k = 0; k <= steps; k++) min = Math.min(min, c.instantaneousForward((k * end) / steps));
  for (const p of c.pillars)
    min = Math.min(min, c.instantaneousForward(p.t), c.instantaneousForward(Math.max(0, p.t - 1e-9)));
  return min;
};

describe("monotone convex on Hagan–West's example curve", () => {
  const c = mc(HW_T, HW_Z);

  it("reprices every pillar exactly", () => {
    HW_T.forEach((t, i) => expect(c.zeroRate(t)).toBe(HW_Z[i]));
  });

  it("puts the forward at each pillar where their formula does (from the right), and is continuous across the pillars after the first", () => {
    const f = pillarForwards(HW_T, HW_Z, true);
    HW_T.forEach((t, i) => {
      if (i < HW_T.length - 1) expect(c.instantaneousForward(t)).toBeCloseTo(f[i]!, 13);
      if (i > 0) expect(c.instantaneousForward(t - 1e-10)).toBeCloseTo(f[i]!, 9);
    });
    // e.g. at τ = 1: (0.9·fd₃ + 3·fd₂) / 3.9
    expect(c.instantaneousForward(1)).toBeCloseTo(
      (0.9 * ((0.044 * 4 - 0.07) / 3) + 3 * ((0.07 - 0.0081) / 0.9)) / 3.9,
      14,
    );
  });

  it("keeps the flat-zero stub before the first pillar (forward 8.1%), then starts the quadratic at HW's pillar forward", () => {
    expect(c.instantaneousForward(0.05)).toBe(0.081);
    expect(c.instantaneousForward(0.1)).toBeCloseTo(0.1 * ((0.07 - 0.0081) / 0.9) + 0.9 * 0.081, 15);
  });

  it("has forwards whose averages over each interval are the discrete forwards (numerical integral)", () => {
    for (let i = 1; i < HW_T.length; i++) {
      const [a, b] = [HW_T[i - 1]!, HW_T[i]!];
      const steps = 4000;
      const h = (b - a) / steps;
      let sum = 0;
      for (let k = 0; k < steps; k++) sum += c.instantaneousForward(a + (k + 0.5) * h) * h;
      expect(sum / (b - a)).toBeCloseTo((HW_Z[i]! * b - HW_Z[i - 1]! * a) / (b - a), 8);
    }
  });

  it("stays positive (min about 0.87%, before the 30Y pillar)", () => {
    expect(minForward(c, 30, 30_000)).toBeGreaterThan(0.0087);
  });
});

describe("the positivity-preserving amendment", () => {
  // Discrete forwards 5%, 5%, 0.5%: the plain method's end forward is 0.5% − ½(2.75% − 0.5%) < 0.
  const ts = [1, 2, 3];
  const zs = zerosFromForwards(ts, [0.05, 0.05, 0.005]);

  it("is needed: the plain method's forward goes below zero on a curve whose discrete forwards are all positive", () => {
    expect(pillarForwards(ts, zs, false)[2]).toBeCloseTo(-0.00625, 15);
    expect(minForward(mc(ts, zs, false), 3, 3000)).toBeLessThan(-0.005);
  });

  it("collars the pillar forwards and keeps every forward >= 0, still repricing the pillars", () => {
    const c = mc(ts, zs);
    const f = pillarForwards(ts, zs, true);
    [0.05, 0.01, 0].forEach((x, i) => expect(f[i]).toBeCloseTo(x, 15));
    expect(c.instantaneousForward(1)).toBeCloseTo(0.05, 15);
    expect(c.instantaneousForward(2)).toBeCloseTo(0.01, 15);
    expect(minForward(c, 3, 3000)).toBeGreaterThanOrEqual(0);
    ts.forEach((t, i) => expect(c.zeroRate(t)).toBe(zs[i]));
  });

  it("keeps forwards >= 0 on random curves whose discrete forwards are all positive", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 40 * 365 }), { minLength: 2, maxLength: 10 }),
        fc.array(fc.double({ min: 0.0001, max: 0.15, noNaN: true }), { minLength: 10, maxLength: 10 }),
        (days, forwards) => {
          const ts = [...days].sort((a, b) => a - b).map((d) => d / 365);
          const zs = zerosFromForwards(ts, forwards);
          const c = mc(ts, zs);
          for (let i = 1; i < ts.length; i++) fc.pre(c.forwardRate(ts[i - 1]!, ts[i]!) > 0); // as floats, too
          expect(minForward(c, ts.at(-1)! + 5, 2000)).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("does not apply when a discrete forward is negative: the forwards follow the input's sign", () => {
    const negative = zerosFromForwards([1, 2, 3], [0.01, -0.004, 0.006]);
    const c = mc([1, 2, 3], negative);
    expect(c.forwardRate(1, 2)).toBeCloseTo(-0.004, 15);
    expect(c.instantaneousForward(1.5)).toBeLessThan(0);
    [1, 2, 3].forEach((t, i) => expect(c.zeroRate(t)).toBe(negative[i]));
  });
});

describe("gOf(g0, g1, x): Hagan–West's g on [0, 1]", () => {
  /** Forward differences from −5% to 5% in steps of 0.001 bp (zero included). */
  const diff = fc.integer({ min: -500_000, max: 500_000 }).map((k) => k * 1e-7);
  const g0g1 = fc.tuple(diff, diff);

  it("integrates to zero over [0, 1] (so the pillars are repriced) and starts at g0, ends at g1", () => {
    fc.assert(
      fc.property(g0g1, ([g0, g1]) => {
        const scale = Math.max(Math.abs(g0), Math.abs(g1));
        expect(Math.abs(gOf(g0, g1, 1).G)).toBeLessThanOrEqual(1e-14 * scale);
        // (g0 or g1 exactly 0 is region (iv)'s degenerate edge: g is 0 inside, as in the paper)
        if (g0 !== 0 && g1 !== 0) {
          expect(Math.abs(gOf(g0, g1, 0).g - g0)).toBeLessThanOrEqual(1e-12 * scale);
          expect(Math.abs(gOf(g0, g1, 1).g - g1)).toBeLessThanOrEqual(1e-12 * scale);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("has G' = g (G is g's integral in every region)", () => {
    fc.assert(
      fc.property(g0g1, fc.double({ min: 0.001, max: 0.999, noNaN: true }), ([g0, g1], x) => {
        const h = 1e-6;
        const slope = (gOf(g0, g1, x + h).G - gOf(g0, g1, x - h).G) / (2 * h);
        expect(Math.abs(slope - gOf(g0, g1, x).g)).toBeLessThan(1e-9);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ["(i) monotone quadratic", 0.01, -0.01],
    ["(ii) flat, then quadratic", 0.01, -0.05],
    ["(iii) quadratic, then flat", 0.01, -0.002],
    ["(iv) both positive", 0.01, 0.02],
    ["(iv) both negative", -0.01, -0.002],
  ])("region %s: g is continuous from g0 to g1", (_name, g0, g1) => {
    let previous = gOf(g0, g1, 0).g;
    expect(previous).toBeCloseTo(g0, 15);
    for (let k = 1; k <= 1000; k++) {
      const g = gOf(g0, g1, k / 1000).g;
      expect(Math.abs(g - previous)).toBeLessThan(Math.max(Math.abs(g0), Math.abs(g1)) * 0.02);
      previous = g;
    }
    expect(previous).toBeCloseTo(g1, 15);
  });
});

/**
 * Where the forward is continuous, and exactly where it is not (issue 28). Interval j = (t_{j−1}, t_j] has
 * `g0 = f_{j−1} − fd_j`, `g1 = f_j − fd_j`. When one of them is 0 and the other is not, Hagan–West's g is region
 * (iv) with η = 1 (g0 = 0) or η = 0 (g1 = 0) and A = 0: g ≡ 0 on the interval, so the forward is flat at fd_j
 * and jumps to the pillar forward at the end whose g is not 0. That is the construction's limit, not a slip:
 * g0 → 0 from either side (region (ii) below, (iv) above) squeezes the quadratic that climbs to g1 into a
 * ramp 3|g0|/|g1|·h wide against the pillar, and the zero rates converge to the flat ones.
 */
describe("monotone convex: continuity of the forward at the pillars", () => {
  /** Pillars 1Y/2Y/3Y at 3%, 5Y/10Y at 3.6%: discrete forwards 3%, 3%, 3%, 4.5%, 3.6%. */
  const ts = [1, 2, 3, 5, 10];
  const zs = [0.03, 0.03, 0.03, 0.036, 0.036];

  it("jumps 50 bp at 3Y, where the interval (2, 3] has g0 = f(2) − 3% = 0 and g1 = f(3) − 3% = 0.5%", () => {
    const c = mc(ts, zs);
    expect(c.instantaneousForward(2.5)).toBeCloseTo(0.03, 15);
    expect(c.instantaneousForward(3 - 1e-9)).toBeCloseTo(0.03, 15);
    expect(c.instantaneousForward(3)).toBeCloseTo(0.035, 15); // (1/3)·4.5% + (2/3)·3%
    expect(c.instantaneousForward(3 + 1e-9)).toBeCloseTo(0.035, 8);
    ts.forEach((t, i) => expect(c.zeroRate(t)).toBe(zs[i]));
  });

  it("is the limit of the curves around it: moving the 2Y rate by ε narrows a ramp against 3Y, the zero rates converge", () => {
    const flat = mc(ts, zs);
    for (const sign of [1, -1]) {
      let previousWidth = Infinity;
      for (const eps of [1e-5, 1e-7, 1e-9]) {
        const c = mc(ts, [0.03, 0.03 + sign * eps, 0.03, 0.036, 0.036]);
        // g0 = f(2) − fd(2, 3] = 2ε·sign: the forward reaches 3.5% at 3Y, stays near 3% until a ramp of width ~3·2ε/0.5%.
        expect(c.instantaneousForward(3 - 1e-12)).toBeCloseTo(0.035, 4);
        expect(c.instantaneousForward(2.9)).toBeCloseTo(0.03, 3);
        let width = 0;
        for (let k = 1; k <= 4000; k++)
          if (Math.abs(c.instantaneousForward(3 - k / 4000) - 0.03) > 0.001) width = k / 4000;
        expect(width).toBeLessThanOrEqual(previousWidth);
        previousWidth = width;
        for (const t of [2.25, 2.5, 2.75, 2.999])
          expect(Math.abs(c.zeroRate(t) - flat.zeroRate(t))).toBeLessThan(10 * eps);
      }
      expect(previousWidth).toBeLessThan(1e-3);
    }
  });

  /**
   * The rule, from HW's formulas (pillarForwards above): the forward from the left at pillar p and at p itself
   * (from the right). At t_0 it steps from the flat stub (z_0); after t_{n−1} it is flat at fd_{n−1}.
   */
  function expectedAtPillars(ts: readonly number[], zs: readonly number[], collar = true) {
    const n = ts.length;
    const f = pillarForwards(ts, zs, collar);
    const fd = ts.map(
      (t, i) => (zs[i]! * t - (i === 0 ? 0 : zs[i - 1]! * ts[i - 1]!)) / (t - (i === 0 ? 0 : ts[i - 1]!)),
    );
    const zero = (x: number) => Math.abs(x) <= 1e-12;
    const g0 = (j: number) => f[j - 1]! - fd[j]!;
    const g1 = (j: number) => f[j]! - fd[j]!;
    return ts.map((_, p) => ({
      left: p === 0 ? zs[0]! : zero(g0(p)) && !zero(g1(p)) ? fd[p]! : f[p]!,
      right: p === n - 1 ? fd[n - 1]! : zero(g1(p + 1)) && !zero(g0(p + 1)) ? fd[p + 1]! : f[p]!,
    }));
  }

  it("on random curves: continuous at every interior pillar except exactly where the rule says, by the rule's amount", () => {
    const forwards = fc.constantFrom(0.01, 0.02, 0.03, 0.045, 0.06); // few values: equal neighbours are common
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 480 }), { minLength: 2, maxLength: 8 }),
        fc.array(forwards, { minLength: 8, maxLength: 8 }),
        (months, fds) => {
          const ts = [...months].sort((a, b) => a - b).map((m) => m / 12);
          const zs = zerosFromForwards(ts, fds);
          const c = mc(ts, zs);
          const expected = expectedAtPillars(ts, zs);
          ts.forEach((t, p) => {
            const { left, right } = expected[p]!;
            expect(Math.abs(c.instantaneousForward(t - 1e-11) - left)).toBeLessThanOrEqual(1e-6);
            expect(Math.abs(c.instantaneousForward(t) - right)).toBeLessThanOrEqual(1e-12);
            if (p > 0 && p < ts.length - 1 && Math.abs(left - right) <= 1e-12) {
              expect(Math.abs(c.instantaneousForward(t - 1e-11) - c.instantaneousForward(t))).toBeLessThanOrEqual(1e-6);
            }
          });
        },
      ),
      { seed: 28, numRuns: 500 },
    );
  });

  it("on random curves with negative and zero forwards (no collar): the same rule holds", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 480 }), { minLength: 2, maxLength: 8 }),
        fc.array(fc.constantFrom(-0.005, 0, 0.01, 0.03), { minLength: 8, maxLength: 8 }),
        (months, fds) => {
          const ts = [...months].sort((a, b) => a - b).map((m) => m / 12);
          const zs = zerosFromForwards(ts, fds);
          const c = mc(ts, zs, false);
          const expected = expectedAtPillars(ts, zs, false);
          ts.forEach((t, p) => {
            expect(Math.abs(c.instantaneousForward(t - 1e-11) - expected[p]!.left)).toBeLessThanOrEqual(1e-6);
            expect(Math.abs(c.instantaneousForward(t) - expected[p]!.right)).toBeLessThanOrEqual(1e-12);
          });
        },
      ),
      { seed: 28, numRuns: 500 },
    );
  });

  it("on random curves with distinct discrete forwards: continuous at every interior pillar", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 480 }), { minLength: 3, maxLength: 8 }),
        fc.uniqueArray(fc.integer({ min: 10, max: 1000 }), { minLength: 8, maxLength: 8 }),
        (months, bps) => {
          const ts = [...months].sort((a, b) => a - b).map((m) => m / 12);
          const zs = zerosFromForwards(
            ts,
            bps.map((b) => b * 1e-4),
          );
          const c = mc(ts, zs);
          const expected = expectedAtPillars(ts, zs);
          for (let p = 1; p < ts.length - 1; p++) {
            if (Math.abs(expected[p]!.left - expected[p]!.right) > 1e-12) continue; // the collar can make an end degenerate
            expect(
              Math.abs(c.instantaneousForward(ts[p]! - 1e-11) - c.instantaneousForward(ts[p]!)),
            ).toBeLessThanOrEqual(1e-6);
          }
        },
      ),
      { seed: 28, numRuns: 500 },
    );
  });
});
