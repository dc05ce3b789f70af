/**
 * The fast Black-76 kernel ({@link fillBlack76}) against the previous one, kept as the reference
 * ({@link fillBlack76Reference}), and its arithmetic ({@link expFast}, {@link logRatio}, {@link erfcxFast})
 * against `Math` and 40-digit decimals (mathjs).
 *
 * Tolerance: the two kernels round differently (their `ln(F/K)`, `exp` and the choice between the small-t
 * series and the difference of Mills ratios), and the price's own conditioning multiplies an ulp of
 * `h = ln(F/K)/(σ√T)` by about h² (φ(h)), and in the small-t series by the cancellation of `1 + h·Y(h)`.
 * So: relative difference ≤ 1e-14 wherever |h| ≤ 3, and ≤ 1e-14·h²/6 beyond (on the grid below the worst
 * is 8.4e-15 for |h| ≤ 3, 2.9e-14 on prices and 3.6e-14 on greeks at |h| ≈ 6–10). Theta is compared on the
 * scale |r·price| + |r·price − theta| (its two terms cancel where it crosses 0), as in black76.test.ts.
 */
import { all, create } from "mathjs";
import { describe, expect, it } from "vitest";
import { black76, black76Strikes } from "../../src/vol/black76";
import { fillBlack76 } from "../../src/vol/black76/kernel";
import { erfcxFast, expFast, logRatio } from "../../src/vol/black76/math";
import { fillBlack76Reference } from "../../src/vol/black76/reference";
import type { Black76Arrays } from "../../src/vol/black76/series";
import { erfcx } from "../../src/vol/normal";

const KEYS = ["price", "delta", "gamma", "vega", "theta"] as const;
const arrays = (n: number): Black76Arrays => ({
  price: new Float64Array(n),
  delta: new Float64Array(n),
  gamma: new Float64Array(n),
  vega: new Float64Array(n),
  theta: new Float64Array(n),
});
const ULP1 = 2 ** -52;

interface Market {
  F: number;
  T: number;
  vol: number;
  call: boolean;
  DF: number;
}

/** Both kernels on one market over log-moneyness `xs` (K = F·e^−x). */
function both(m: Market, xs: readonly number[]) {
  const n = xs.length;
  const K = Float64Array.from(xs, (x) => m.F * Math.exp(-x));
  const V = new Float64Array(n).fill(m.vol);
  const sqrtT = Math.sqrt(m.T);
  const r = m.T > 0 ? -Math.log(m.DF) / m.T : 0;
  const fast = arrays(n);
  const ref = arrays(n);
  fillBlack76(m.F, K, V, 1, sqrtT, m.DF, r, m.call, fast, n);
  fillBlack76Reference(m.F, K, V, 1, sqrtT, m.DF, r, m.call, ref, n);
  return { K, r, fast, ref, h: (q: number) => Math.log(m.F / K[q]!) / (m.vol * sqrtT) };
}

describe("the fast Black-76 kernel against the previous one (the reference)", () => {
  it("agrees within 1e-14·max(1, h²/6) on price and greeks over a wide grid: deep ITM/OTM, tiny T, huge vol", () => {
    const xs: number[] = [0, 1e-12, -1e-12, 1e-6, -1e-6];
    for (let i = -120; i <= 120; i++) xs.push(i / 20);
    let worstNear = 0; // |h| ≤ 3, price > 1e-12·F
    let worst = 0;
    let compared = 0;
    for (const F of [1e-3, 100, 5321.5, 1e5])
      for (const T of [1e-6, 1 / 365, 0.1, 0.55, 30])
        for (const vol of [1e-4, 0.05, 0.2, 1, 3, 10])
          for (const call of [true, false]) {
            const m = { F, T, vol, call, DF: Math.exp(-0.04 * T) };
            const { fast, ref, r, h } = both(m, xs);
            for (let q = 0; q < xs.length; q++) {
              const hq = h(q);
              for (const key of KEYS) {
                const want = ref[key][q]!;
                const got = fast[key][q]!;
                if (Object.is(got, want)) continue;
                const rp = r * ref.price[q]!;
                const scale = key === "theta" ? Math.abs(rp) + Math.abs(rp - want) : Math.abs(want);
                const e = Math.abs(got - want) / scale;
                compared++;
                worst = Math.max(worst, e);
                if (Math.abs(hq) <= 3 && ref.price[q]! > 1e-12 * F) worstNear = Math.max(worstNear, e);
                const tol = 1e-14 * Math.max(1, (hq * hq) / 6);
                if (!(e <= tol))
                  expect.fail(`${key} at ${JSON.stringify({ ...m, x: xs[q], h: hq })}: ${got} vs ${want} (${e})`);
              }
            }
          }
    if (process.env.BLACK76_REPORT) console.log({ compared, worstNear, worst });
    expect(compared).toBeGreaterThan(10_000); // not everything bit-identical: the grid reaches the fast passes
    expect(worstNear).toBeLessThanOrEqual(1e-14);
  });

  it("leaves the limits, the far tails and the extremes to the reference: bit for bit", () => {
    const cases: [Market, number[]][] = [
      [{ F: 100, T: 0, vol: 0.2, call: true, DF: 0.9 }, [-0.1, 0, 0.1]], // σ√T = 0
      [{ F: 100, T: 1, vol: 0, call: false, DF: 0.9 }, [-0.1, 0, 0.1]],
      [{ F: 100, T: 0.25, vol: 0.05, call: true, DF: 1 }, [-0.69, -2, 3]], // h + t ≤ −10
      [{ F: 1e-305, T: 1, vol: 0.3, call: true, DF: 1 }, [-0.5, 0, 0.5]], // F below 1e-300
      [{ F: 1e5, T: 1, vol: 80, call: false, DF: 1 }, [-40, 40]], // φ(h)·e^(−t²/2) below e^−600
      [{ F: 1, T: 1, vol: 1e-300, call: true, DF: 1 }, [0.1, -0.1]], // |h| overflows
    ];
    for (const [m, xs] of cases) {
      const { fast, ref } = both(m, xs);
      for (const key of KEYS)
        expect(Array.from(fast[key]), `${key} of ${JSON.stringify(m)}`).toEqual(Array.from(ref[key]));
    }
    // F/K beyond 1e300: the strikes themselves, not through exp.
    const K = Float64Array.of(1e-290, 1e300);
    const fast = arrays(2);
    const ref = arrays(2);
    fillBlack76(10, K, Float64Array.of(0.2), 0, 1, 1, 0, true, fast, 2);
    fillBlack76Reference(10, K, Float64Array.of(0.2), 0, 1, 1, 0, true, ref, 2);
    for (const key of KEYS) expect(Array.from(fast[key])).toEqual(Array.from(ref[key]));
  });

  it("keeps put–call parity: C − P = DF·(F − K) and delta_C − delta_P = DF", () => {
    const xs: number[] = [];
    for (let i = -60; i <= 60; i++) xs.push(i / 20);
    for (const T of [1 / 365, 0.55, 10])
      for (const vol of [0.05, 0.3, 2]) {
        const DF = Math.exp(-0.03 * T);
        const c = both({ F: 5321.5, T, vol, call: true, DF }, xs);
        const p = both({ F: 5321.5, T, vol, call: false, DF }, xs);
        for (let q = 0; q < xs.length; q++) {
          const K = c.K[q]!;
          const C = c.fast.price[q]!;
          const P = p.fast.price[q]!;
          expect(Math.abs(C - P - DF * (5321.5 - K))).toBeLessThanOrEqual(4 * ULP1 * (C + P));
          expect(Math.abs(c.fast.delta[q]! - p.fast.delta[q]! - DF)).toBeLessThanOrEqual(4 * ULP1);
          expect(c.fast.gamma[q]).toBe(p.fast.gamma[q]);
          expect(c.fast.vega[q]).toBe(p.fast.vega[q]);
        }
      }
  });

  it("gives the same results for plain arrays, one vol for all, and the scalar API", () => {
    const strikes = [60, 80, 99.99, 100, 100.01, 125, 250];
    const vols = [0.4, 0.3, 0.21, 0.2, 0.2, 0.25, 0.5];
    const market = { forward: 100, maturity: 0.75, discountFactor: 0.97, kind: "put" as const };
    const typed = black76Strikes(market, Float64Array.from(strikes), Float64Array.from(vols));
    const plain = black76Strikes(market, strikes, vols);
    for (const key of KEYS) expect(Array.from(plain[key])).toEqual(Array.from(typed[key]));
    strikes.forEach((strike, q) => {
      const one = black76({ ...market, strike, vol: vols[q]! });
      for (const key of KEYS) expect(one[key]).toBe(typed[key][q]);
    });
    const flat = black76Strikes(market, strikes, 0.2);
    expect(flat.price[3]).toBe(black76({ ...market, strike: 100, vol: 0.2 }).price);
  });
});

describe("the kernel's arithmetic", () => {
  const M = create(all!, { precision: 40 });
  const exact = (x: number) => M.bignumber(x.toPrecision(60));

  it("expFast is within 1 ulp of e^x (40 digits) on [−708, 709]", () => {
    let worst = 0;
    for (let i = 0; i <= 1500; i++) {
      const x = -708 + (1417 * i) / 1500 + (i % 7) * 1e-9;
      if (!(x < 709)) continue;
      const want = M.exp(exact(x));
      const got = expFast(x);
      const e = M.abs(M.subtract(exact(got), want))
        .div(want)
        .toNumber();
      worst = Math.max(worst, e);
    }
    for (const x of [0, 1e-300, -1e-300, 1e-10, -1e-10, 0.5, -0.5, Math.LN2 / 128, -Math.LN2 / 128]) {
      const want = M.exp(exact(x));
      const e = M.abs(M.subtract(exact(expFast(x)), want))
        .div(want)
        .toNumber();
      worst = Math.max(worst, e);
    }
    expect(worst).toBeLessThanOrEqual(ULP1);
  });

  it("logRatio is within 1.5 ulp of ln(F/K) (40 digits), with no loss of digits when F ≈ K", () => {
    let worst = 0;
    const F = 5321.5;
    const check = (K: number) => {
      const want = M.log(M.divide(exact(F), exact(K)) as never) as unknown as ReturnType<typeof exact>;
      const got = logRatio(F, K, F / K);
      if (M.isZero(want)) return expect(got).toBe(0);
      const e = M.abs(M.subtract(exact(got), want))
        .div(M.abs(want))
        .toNumber();
      worst = Math.max(worst, e);
    };
    for (let i = 0; i <= 800; i++) check(F * Math.exp(-8 + (16 * i) / 800));
    for (const d of [1e-15, 1e-12, 1e-9, 1e-6, 1e-3]) {
      check(F * (1 + d));
      check(F * (1 - d));
    }
    check(F);
    check(F * 2);
    check(F / 2);
    expect(worst).toBeLessThanOrEqual(1.5 * ULP1);
  });

  it("erfcxFast equals normal.ts's erfcx on Cody's middle range and is within 2 ulp of it elsewhere from −0.61", () => {
    for (let i = 0; i <= 2000; i++) {
      const x = -0.61 + (10.61 * i) / 2000;
      const want = erfcx(x);
      const got = erfcxFast(x);
      if (x > 0.46875 && x <= 4) expect(got).toBe(want);
      else expect(Math.abs(got - want) / want).toBeLessThanOrEqual(2 * ULP1);
    }
  });
});
