/**
 * Pricing from a surface: prices and greeks at the surface's vols, the implied density against a finite
 * difference of call prices (and its mass and mean), and local vol against a numerical Dupire in (K, T)
 * from call prices, on flat, term-structure-only and realistic surfaces.
 */
import { describe, expect, it } from "vitest";
import { DAYS_PER_YEAR, STRIKE_TYPE } from "../../src/api/assumptions";
import { VolModelError, buildSurface, butterflyG, fromSurface, type VolSurfaceModel } from "../../src/vol";
import { black76 } from "../../src/vol/black76";
import { impliedDensity, localVol, priceOptions, strikeDeltas } from "../../src/vol/pricing";
import { SAMPLE, oneYear } from "./reference-model";

const { Absolute, PercentForward } = STRIKE_TYPE;
const model = fromSurface(SAMPLE);
const VOGT = { vol: Math.sqrt(0.01742625), skew: -0.1752111, smile: 0.2937952, putWing: 0.6997381, callWing: 1.316798 };

/**
 * The undiscounted Black price at the model's own vol for an absolute strike. The tests difference the
 * out-of-the-money one (put below the forward, call above, chosen at the centre of the stencil): its
 * second strike-derivative is the call's, and differencing a small price keeps rounding far below the
 * density even deep in the wings.
 */
function otmPrice(m: VolSurfaceModel, days: number, K: number, kind: "call" | "put"): number {
  const vol = m.vols(days, [K], Absolute)[0]!;
  return black76({ forward: m.forward(days), strike: K, maturity: days / DAYS_PER_YEAR, vol, kind }).price;
}

function error(fn: () => unknown): VolModelError {
  try {
    fn();
  } catch (e) {
    return e as VolModelError;
  }
  throw new Error("expected a throw");
}

/** Composite Simpson's rule of samples f on an even number of equal intervals of width h. */
function simpson(f: Float64Array, h: number): number {
  let s = f[0]! + f[f.length - 1]!;
  for (let i = 1; i < f.length - 1; i++) s += (i % 2 ? 4 : 2) * f[i]!;
  return (s * h) / 3;
}

describe("priceOptions", () => {
  it("prices each strike with Black-76 at the surface's vol for it, on the model's forward", () => {
    const strikes = [70, 85, 100, 115, 140];
    for (const kind of ["call", "put"] as const) {
      const p = priceOptions(model, 120, strikes, PercentForward, { kind, discountFactor: 0.99 });
      const F = model.forward(120);
      expect(p.forward).toBe(F);
      expect(p.T).toBe(120 / DAYS_PER_YEAR);
      const vols = model.vols(120, strikes, PercentForward);
      strikes.forEach((x, q) => {
        expect(p.strikes[q]).toBeCloseTo((x / 100) * F, 9);
        expect(p.vols[q]).toBeCloseTo(vols[q]!, 15);
        const want = black76({
          forward: F,
          strike: p.strikes[q]!,
          maturity: p.T,
          vol: p.vols[q]!,
          discountFactor: 0.99,
          kind,
        });
        for (const key of ["price", "delta", "gamma", "vega", "theta"] as const) expect(p[key][q]).toBe(want[key]);
      });
    }
  });

  it("takes strikes in any convention, deltas included, and keeps Absolute strikes as given", () => {
    const K = [4800, 5300, 5900];
    expect(Array.from(priceOptions(model, 91, K, Absolute, { kind: "call" }).strikes)).toEqual(K);
    const byDelta = priceOptions(model, 91, [0.25, 0.5, 0.75], "delta", { kind: "call" });
    // The call delta of a strike picked by forward call delta is that delta (undiscounted here).
    [0.25, 0.5, 0.75].forEach((d, q) => expect(byDelta.delta[q]).toBeCloseTo(d, 12));
    const byPut = priceOptions(model, 91, [-0.25], { type: "delta", kind: "put" }, { kind: "put" });
    expect(byPut.delta[0]).toBeCloseTo(-0.25, 12);
  });

  it("satisfies put–call parity strike by strike", () => {
    const strikes = [50, 80, 100, 125, 200];
    const c = priceOptions(model, 300, strikes, PercentForward, { kind: "call", discountFactor: 0.97 });
    const p = priceOptions(model, 300, strikes, PercentForward, { kind: "put", discountFactor: 0.97 });
    strikes.forEach((_, q) => expect(c.price[q]! - p.price[q]!).toBeCloseTo(0.97 * (c.forward - c.strikes[q]!), 9));
  });

  it("names the field at fault", () => {
    expect(error(() => priceOptions(model, 91, [100], PercentForward, undefined as never)).field).toBe("options");
    expect(error(() => priceOptions(model, 91, [100], PercentForward, { kind: "straddle" as never })).field).toBe(
      "kind",
    );
    expect(
      error(() => priceOptions(model, 91, [100], PercentForward, { kind: "call", discountFactor: -1 })).field,
    ).toBe("discountFactor");
    expect(error(() => priceOptions(model, 0, [100], PercentForward, { kind: "call" })).field).toBe("maturity");
    expect(error(() => priceOptions(model, 91, [100, 0], PercentForward, { kind: "call" })).message).toMatch(
      /^strikes\[1\]/,
    );
  });
});

describe("strikeDeltas", () => {
  it("inverts the delta strike conventions", () => {
    const conventions = [
      "delta",
      { type: "delta", kind: "put" },
      { type: "delta", premiumAdjusted: true },
      { type: "delta", kind: "put", spot: { discountFactor: 0.97 } },
    ] as const;
    const deltas = {
      0: [0.1, 0.25, 0.5],
      1: [-0.1, -0.25, -0.5],
      2: [0.1, 0.25, 0.5],
      3: [-0.1, -0.25, -0.5],
    } as const;
    conventions.forEach((c, i) => {
      const d = deltas[i as 0 | 1 | 2 | 3];
      const K = model.absoluteStrikes(200, d, c);
      const back = strikeDeltas(model, 200, K, Absolute, c);
      d.forEach((x, q) => expect(back[q]).toBeCloseTo(x, 12));
    });
    expect(error(() => strikeDeltas(model, 200, [100], PercentForward, 0 as never))).toMatchObject({
      field: "convention",
    });
    expect(
      error(() => strikeDeltas(model, 200, [100], PercentForward, { type: "delta", kind: "both" as never })).field,
    ).toBe("strike_type");
  });
});

describe("impliedDensity", () => {
  it("is the second strike-derivative of the undiscounted call price (finite differences)", () => {
    for (const days of [20, 91, 120, 500]) {
      const F = model.forward(days);
      const strikes = Array.from({ length: 21 }, (_, q) => F * (0.6 + q * 0.05));
      const q = impliedDensity(model, days, strikes, Absolute);
      expect(q.negative).toEqual([]);
      strikes.forEach((K, j) => {
        const h = K * 1e-5;
        const kind = K < F ? "put" : "call";
        const fd =
          (otmPrice(model, days, K + h, kind) -
            2 * otmPrice(model, days, K, kind) +
            otmPrice(model, days, K - h, kind)) /
          (h * h);
        expect(Math.abs(q.density[j]! / fd - 1), `${days} d, K = ${K}`).toBeLessThan(1e-5);
      });
    }
  });

  it("integrates to 1 and has the forward as its mean", () => {
    const n = 80_000;
    const k = Float64Array.from({ length: n + 1 }, (_, i) => -40 + (80 * i) / n);
    for (const days of [20, 91, 120, 365, 500]) {
      const q = impliedDensity(model, days, k, "logMoneyness");
      // ∫ q(K) dK = ∫ q(K)·K dk, ∫ K·q(K) dK = ∫ q(K)·K² dk.
      const mass = simpson(
        q.density.map((d, i) => d * q.strikes[i]!),
        80 / n,
      );
      const mean = simpson(
        q.density.map((d, i) => d * q.strikes[i]! * q.strikes[i]!),
        80 / n,
      );
      expect(Math.abs(mass - 1), `mass at ${days} d`).toBeLessThan(1e-9);
      expect(Math.abs(mean / q.forward - 1), `mean at ${days} d`).toBeLessThan(1e-9);
    }
  });

  it("is the lognormal density on a flat smile", () => {
    const flat = fromSurface(oneYear({ vol: 0.2, skew: 0, smile: 1e-6, putWing: 1e-9, callWing: 1e-9 }, 100));
    const q = impliedDensity(flat, 365, [60, 80, 100, 120, 160], Absolute);
    q.strikes.forEach((K, j) => {
      const z = (Math.log(K / 100) + 0.02) / 0.2;
      expect(q.density[j]! / (Math.exp(-0.5 * z * z) / (K * 0.2 * Math.sqrt(2 * Math.PI)))).toBeCloseTo(1, 6);
    });
  });

  it("is negative where the Vogt smile has butterfly arbitrage (g < 0 near k = 0.9), and says where", () => {
    const vogt = fromSurface(oneYear(VOGT));
    const k = [0, 0.5, 0.8, 0.9, 1.0, 1.5];
    const q = impliedDensity(vogt, 365, k, "logMoneyness");
    // Exactly where the benchmark's own g (svi.ts) is negative: the density factor is the slice's g here (T = T_1).
    expect(q.negative).toEqual(k.flatMap((x, j) => (butterflyG(vogt.benchmarks[0]!, x) < 0 ? [j] : [])));
    expect(q.negative).toContain(3);
    expect(q.density[3]).toBeLessThan(0);
    expect(q.g[3]).toBeLessThan(0);
    expect(q.density[0]).toBeGreaterThan(0);
  });
});

describe("localVol", () => {
  /**
   * Dupire in (K, T) from undiscounted call prices C: σ² = 2·(C_T − μ·(C − K·C_K)) / (K²·C_KK), μ = d ln F/dT.
   * Put prices P = C − (F − K) give the same numerator (`C_T − μ(C − K·C_K) = P_T − μ(P − K·P_K)`), so the
   * out-of-the-money price is differenced, at a strike's side of the forward.
   */
  function dupireFD(m: VolSurfaceModel, days: number, K: number): number {
    const dd = 0.01;
    const dT = dd / DAYS_PER_YEAR;
    const h = K * 1e-5;
    const kind = K < m.forward(days) ? "put" : "call";
    const V = (d: number, x: number) => otmPrice(m, d, x, kind);
    const C = V(days, K);
    const CT = (V(days + dd, K) - V(days - dd, K)) / (2 * dT);
    const CK = (V(days, K + h) - V(days, K - h)) / (2 * h);
    const CKK = (V(days, K + h) - 2 * C + V(days, K - h)) / (h * h);
    const mu = (Math.log(m.forward(days + dd)) - Math.log(m.forward(days - dd))) / (2 * dT);
    return Math.sqrt((2 * (CT - mu * (C - K * CK))) / (K * K * CKK));
  }

  it("matches a numerical Dupire in (K, T) from call prices, before, between and after the benchmarks", () => {
    for (const days of [20, 60, 120, 300, 500]) {
      const F = model.forward(days);
      const strikes = Array.from({ length: 15 }, (_, q) => F * (0.7 + q * 0.05));
      const lv = localVol(model, days, strikes, Absolute);
      expect(lv.undefinedAt).toEqual([]);
      strikes.forEach((K, j) =>
        expect(Math.abs(lv.localVol[j]! / dupireFD(model, days, K) - 1), `${days} d, K = ${K}`).toBeLessThan(2e-5),
      );
    }
  });

  it("equals the implied vol on a flat surface, with either interpolation", () => {
    const flat = fromSurface(
      buildSurface({
        spot: 100,
        referenceDate: "2026-11-20",
        maturities: [30, 91, 182, 365],
        atmVols: 0.2,
        forwardRate: 0.03,
        smile: 1e-6,
        putWing: 1e-9,
        callWing: 1e-9,
      }),
    );
    for (const interpolation of ["linear", "c1"] as const) {
      for (const days of [10, 30, 60, 91, 250, 365, 800]) {
        const lv = localVol(flat, days, [50, 80, 100, 125, 200], PercentForward, { interpolation });
        for (const v of lv.localVol) expect(v).toBeCloseTo(0.2, 7);
      }
    }
  });

  it("is the forward vol between benchmarks on a term structure with flat smiles, and jumps at each benchmark", () => {
    const vols = [0.3, 0.25, 0.2, 0.22];
    const days = [30, 91, 182, 365];
    const ts = fromSurface(
      buildSurface({
        spot: 100,
        referenceDate: "2026-11-20",
        maturities: days,
        atmVols: vols,
        smile: 1e-6,
        putWing: 1e-9,
        callWing: 1e-9,
      }),
    );
    const theta = vols.map((v, i) => (v * v * days[i]!) / DAYS_PER_YEAR);
    const fwdVol = (i: number) => Math.sqrt(((theta[i + 1]! - theta[i]!) / (days[i + 1]! - days[i]!)) * DAYS_PER_YEAR);
    expect(localVol(ts, 15, [100], PercentForward).localVol[0]).toBeCloseTo(0.3, 7);
    expect(localVol(ts, 60, [100], PercentForward).localVol[0]).toBeCloseTo(fwdVol(0), 7);
    expect(localVol(ts, 91, [100], PercentForward).localVol[0]).toBeCloseTo(fwdVol(1), 7); // at a benchmark: the segment starting there
    expect(localVol(ts, 90.999, [100], PercentForward).localVol[0]).toBeCloseTo(fwdVol(0), 7);
    expect(localVol(ts, 300, [100], PercentForward).localVol[0]).toBeCloseTo(fwdVol(2), 7);
    expect(localVol(ts, 400, [100], PercentForward).localVol[0]).toBeCloseTo(0.22, 7);
  });

  it('with interpolation "c1" is continuous across benchmarks, monotone-preserving, and integrates back to the benchmarks', () => {
    const k = [-0.6, -0.2, 0, 0.2, 0.5];
    const jump = (interpolation: "linear" | "c1", d: number) =>
      Math.max(
        ...localVol(model, d + 1e-6, k, "logMoneyness", { interpolation }).localVol.map(
          (v, j) => Math.abs(v - localVol(model, d - 1e-6, k, "logMoneyness", { interpolation }).localVol[j]!) / v,
        ),
      );
    for (const d of [30, 91, 182]) {
      expect(jump("linear", d)).toBeGreaterThan(1e-3);
      expect(jump("c1", d)).toBeLessThan(1e-6);
    }
    // ∂w/∂T ≥ 0 everywhere on this calendar-free surface, and ∫ ∂w/∂T dT between benchmarks = w_(i+1)(k) − w_i(k).
    const knots = [0, 30, 91, 182, 365];
    for (let i = 0; i + 1 < knots.length; i++) {
      const n = 400;
      const h = (knots[i + 1]! - knots[i]!) / n;
      const slopes = Array.from(
        { length: n + 1 },
        (_, s) => localVol(model, Math.max(knots[i]! + s * h, 1e-9), k, "logMoneyness", { interpolation: "c1" }).dwdT,
      );
      k.forEach((_, j) => {
        const f = Float64Array.from(slopes, (row) => row[j]!);
        for (const v of f) expect(v).toBeGreaterThanOrEqual(0);
        const w0 = knots[i] === 0 ? 0 : model.totalVariance(knots[i]!, [k[j]!])[0]!;
        const w1 = model.totalVariance(knots[i + 1]!, [k[j]!])[0]!;
        expect(simpson(f, h / DAYS_PER_YEAR)).toBeCloseTo(w1 - w0, 9);
      });
    }
    // After the last benchmark both use the model's extrapolation.
    const after = localVol(model, 500, k, "logMoneyness", { interpolation: "c1" }).localVol;
    localVol(model, 500, k, "logMoneyness").localVol.forEach((v, j) => expect(after[j]).toBe(v));
  });

  it("lists the strikes where it is undefined (butterfly or calendar arbitrage) instead of a silent NaN, or throws when strict", () => {
    const vogt = fromSurface(oneYear(VOGT));
    const lv = localVol(vogt, 200, [0, 0.9, 1.5], "logMoneyness");
    expect(lv.undefinedAt).toHaveLength(1);
    expect(lv.undefinedAt[0]).toMatchObject({ index: 1, k: 0.9, reason: "butterfly" });
    expect(lv.undefinedAt[0]!.g).toBeLessThan(0);
    expect(Number.isNaN(lv.localVol[1])).toBe(true);
    expect(lv.localVol.filter(Number.isNaN)).toHaveLength(1);
    const e = error(() => localVol(vogt, 200, [0, 0.9], "logMoneyness", { strict: true }));
    expect(e).toBeInstanceOf(VolModelError);
    expect(e.message).toMatch(
      /^strikes\[1\] \(K = [\d.]+, k = 0.9\): local vol is undefined at 200 d: g\(k\) = -[\d.e-]+ <= 0 \(butterfly arbitrage\)$/,
    );

    // ATM total variance falling from 30 d to 91 d: calendar arbitrage.
    const cal = fromSurface(
      buildSurface({ spot: 100, referenceDate: "2026-11-20", maturities: [30, 91], atmVols: [0.4, 0.2] }),
    );
    const gap = localVol(cal, 60, [100], PercentForward).undefinedAt;
    expect(gap).toMatchObject([{ index: 0, reason: "calendar" }]);
    expect(gap[0]!.dwdT).toBeLessThan(0);
    expect(() => localVol(cal, 60, [100], PercentForward, { strict: true })).toThrow(/calendar arbitrage/);
    expect(error(() => localVol(model, 60, [100], PercentForward, { interpolation: "cubic" as never })).field).toBe(
      "interpolation",
    );
  });
});

describe("the model's own price, density and localVol", () => {
  it("are priceOptions, impliedDensity and localVol on that model", () => {
    const model = fromSurface(SAMPLE);
    const strikes = [80, 100, 120];
    expect(model.price(91, strikes, STRIKE_TYPE.PercentForward, { kind: "put" })).toEqual(
      priceOptions(model, 91, strikes, STRIKE_TYPE.PercentForward, { kind: "put" }),
    );
    expect(model.density(91, strikes, STRIKE_TYPE.PercentForward)).toEqual(
      impliedDensity(model, 91, strikes, STRIKE_TYPE.PercentForward),
    );
    expect(model.localVol(120, strikes, STRIKE_TYPE.PercentForward, { interpolation: "c1" })).toEqual(
      localVol(model, 120, strikes, STRIKE_TYPE.PercentForward, { interpolation: "c1" }),
    );
  });
});
