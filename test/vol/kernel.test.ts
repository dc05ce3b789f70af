/** The hot loops: the folded two-slice form equals the centred form, nodes are exact, no NaN at zero variance. */
import { describe, expect, it } from "vitest";
import {
  evaluate,
  setSlice,
  sliceArrays,
  varianceAndSlope,
  volsFromStrikes,
  type MaturityPlan,
  type SliceArrays,
} from "../../src/vol/kernel";

const ROWS = [
  { T: 0.25, vv: 0.04, bb: 0.3, rho: -0.4, m: 0.05, s: 0.2 },
  { T: 1, vv: 0.05, bb: 0.2, rho: -0.3, m: 0.1, s: 0.3 },
];

/** Slices in implied variance, laid out the way the model lays them out (setSlice). */
function slices(rows: { T: number; vv: number; bb: number; rho: number; m: number; s: number }[]): SliceArrays {
  const sl = sliceArrays(rows.length);
  rows.forEach((r, i) => setSlice(sl, i, { T: r.T, lnF: 0, vv: r.vv, b: r.bb * r.T, rho: r.rho, m: r.m, s: r.s }));
  return sl;
}

const SL = slices(ROWS);
/** vol-model.md's form, term by term (fine for these well-scaled slices). */
const centred = (_: SliceArrays, i: number, k: number) => {
  const r = ROWS[i]!;
  return r.vv + r.bb * (r.rho * k + (Math.sqrt((k - r.m) ** 2 + r.s ** 2) - Math.sqrt(r.m ** 2 + r.s ** 2)));
};

describe("volsFromStrikes and evaluate", () => {
  const T = 0.6;
  const x = (T - 0.25) / 0.75;
  const plan: MaturityPlan = { T, lnF: 0, i: 0, j: 1, A: ((1 - x) * 0.25) / T, B: (x * 1) / T, C: 0, twoSlices: true };
  const ks = [-2, -0.5, -0.01, 0, 0.03, 0.4, 3];

  it("fold two slices into one expression equal to A·ŵ_i + B·ŵ_j to rounding", () => {
    const out = new Float64Array(ks.length);
    evaluate(out, 0, Float64Array.from(ks), ks.length, 0, SL, plan, false);
    ks.forEach((k, q) => expect(out[q]! / T).toBeCloseTo(plan.A * centred(SL, 0, k) + plan.B * centred(SL, 1, k), 15));
  });

  it("take strikes through ln(x) + shift, and log-moneyness as given", () => {
    const strikes = Float64Array.from(ks, (k) => 100 * Math.exp(k));
    const a = new Float64Array(ks.length);
    const b = new Float64Array(ks.length);
    expect(volsFromStrikes(a, strikes, ks.length, -Math.log(100), SL, plan)).toBe(-1);
    evaluate(b, 0, Float64Array.from(ks), ks.length, 0, SL, plan, true);
    ks.forEach((_, q) => expect(a[q]).toBeCloseTo(b[q]!, 14));
  });

  it("stop at the first strike that is not finite and > 0 and say which", () => {
    const out = new Float64Array(4);
    expect(volsFromStrikes(out, Float64Array.from([100, 90, -1, NaN]), 4, 0, SL, plan)).toBe(2);
    expect(volsFromStrikes(out, Float64Array.from([Infinity]), 1, 0, SL, plan)).toBe(0);
  });

  it("give v_i exactly at k = 0 on a node", () => {
    const node: MaturityPlan = { T: 1, lnF: 0, i: 1, j: 1, A: 1, B: 0, C: 0, twoSlices: false };
    const out = new Float64Array(1);
    volsFromStrikes(out, Float64Array.from([1]), 1, 0, SL, node);
    expect(out[0]).toBe(Math.sqrt(0.05));
  });

  it("floor implied variance at 0 rather than return NaN when rounding dips below it", () => {
    // A slice whose minimum is a hair below zero (as rounding can make an exactly-zero minimum).
    // Symmetric (m = rho = 0): the minimum is at k = 0 and equals vv.
    const dip = slices([{ T: 1, vv: -1e-18, bb: 1, rho: 0, m: 0, s: 0.01 }]);
    const plan1: MaturityPlan = { T: 1, lnF: 0, i: 0, j: 0, A: 1, B: 0, C: 0, twoSlices: false };
    const out = new Float64Array(2);
    volsFromStrikes(out, Float64Array.from([1, 1]), 2, 0, dip, plan1);
    expect(Array.from(out).every((v) => v >= 0 && !Number.isNaN(v))).toBe(true);
  });

  it("report NaN instead of flooring it to a vol of 0", () => {
    const broken = slices([{ T: 1, vv: NaN, bb: 1, rho: 0, m: 0, s: 0.01 }]);
    const plan1: MaturityPlan = { T: 1, lnF: 0, i: 0, j: 0, A: 1, B: 0, C: 0, twoSlices: false };
    const out = new Float64Array(2);
    expect(volsFromStrikes(out, Float64Array.from([1, 2]), 2, 0, broken, plan1)).toBe(-2);
    expect(evaluate(out, 0, Float64Array.from([0, 1]), 2, 0, broken, plan1, true)).toBe(false);
    expect(Array.from(out).some((v) => v === 0)).toBe(false);
    expect(evaluate(out, 0, Float64Array.from([0, 1]), 2, 0, SL, plan1, true)).toBe(true);
  });
});

describe("varianceAndSlope", () => {
  it("gives w and dw/dk consistent with a central difference", () => {
    const plan: MaturityPlan = { T: 0.6, lnF: 0, i: 0, j: 1, A: 0.3, B: 0.7, C: 0, twoSlices: true };
    const at = (k: number) => {
      const o = { w: 0, w1: 0 };
      varianceAndSlope(k, SL, plan, o);
      return o;
    };
    for (const k of [-1, 0, 0.2, 1.5]) {
      const h = 1e-6;
      expect(at(k).w1).toBeCloseTo((at(k + h).w - at(k - h).w) / (2 * h), 8);
    }
  });
});
