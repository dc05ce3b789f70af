/** calibrate: arbitrage-free surfaces fitted to quoted vols — exact recovery, noise, the Vogt smile, calendar, errors. */
import { describe, expect, it } from "vitest";
import { DAYS_PER_YEAR, STRIKE_TYPE } from "../../src/api/assumptions";
import { buildSurface, butterflyG, diagnose, fromSurface, sviW, VolModelError, type WireSurface } from "../../src/vol";
import { calibrate, type CalibrateOptions, type SmileQuotes } from "../../src/vol/calibrate";
import { rng } from "../../src/sim/random";
import { DiagnoseCache } from "../../src/vol/diagnostics";
import { choleskySolve, levenbergMarquardt, type LeastSquaresProblem } from "../../src/vol/optimize";
import type { ModelStrikeType } from "../../src/vol/strikes";

const REF = "2026-11-20";

/** Quotes as the tests build them: plain arrays. */
type Quotes = SmileQuotes & { strikes: number[]; vols: number[] };

/** Seeded draws (the simulator's generator), so every run draws the same surfaces and noise. */
const draws = (seed: number) => rng(seed, "test/vol/calibrate");

/**
 * Quotes of a surface at its own benchmarks: strikes at `sqrt(theta)·z` in log-moneyness for z evenly from
 * `zFrom` to `zTo`, given in the strike convention of `types[i]` (cycled), vols from the model itself.
 */
function quotesOf(
  surface: WireSurface,
  n = 21,
  zFrom = -3.5,
  zTo = 3,
  types: ModelStrikeType[] = [STRIKE_TYPE.PercentForward],
): Quotes[] {
  const model = fromSurface(surface);
  return surface.benchmark_maturities.map((d, i) => {
    const sqrtTheta = surface.vols[i]! * Math.sqrt(d / DAYS_PER_YEAR);
    const k = Array.from({ length: n }, (_, j) => sqrtTheta * (zFrom + ((zTo - zFrom) * j) / (n - 1)));
    const strikeType = types[i % types.length]!;
    const forward = model.forward(d);
    const vols = Array.from(model.vols(d, k, "logMoneyness"));
    let strikes: number[];
    if (strikeType === STRIKE_TYPE.Absolute) strikes = k.map((x) => forward * Math.exp(x));
    else if (strikeType === STRIKE_TYPE.PercentForward) strikes = k.map((x) => 100 * Math.exp(x));
    else if (strikeType === STRIKE_TYPE.PercentSpot)
      strikes = k.map((x) => (100 * forward * Math.exp(x)) / surface.spot_ref);
    else if (strikeType === "logMoneyness") strikes = k;
    else strikes = Array.from(model.callDelta(d, k, "logMoneyness"));
    return { maturity: d, forward, strikes, strikeType, vols };
  });
}

/** Largest |model vol − quote| of a fitted surface over every quote, in the quotes' own conventions. */
function maxQuoteError(surface: WireSurface, smiles: SmileQuotes[]): number {
  const model = fromSurface(surface);
  let worst = 0;
  for (const q of smiles) {
    const v = model.vols(q.maturity, q.strikes, q.strikeType);
    for (let j = 0; j < v.length; j++) worst = Math.max(worst, Math.abs(v[j]! - q.vols[j]!));
  }
  return worst;
}

/**
 * How far inside the no-arbitrage conditions a surface is: the smallest g over each benchmark, the
 * smallest w_{i+1} − w_i (relative to theta_i), on grids out to |k| = 1e4, and the smallest increase of
 * the wing slopes. Random truths must be clearly inside, so that the fit's margins never bind.
 */
function margins(surface: WireSurface): { g: number; calendar: number; slopes: number } {
  const bms = fromSurface(surface).benchmarks;
  const ks: number[] = [];
  for (let t = -12; t <= 12; t += 0.01) ks.push(Math.sign(t) * 1e-3 * Math.expm1(Math.abs(t)));
  let g = Infinity;
  let calendar = Infinity;
  let slopes = Infinity;
  bms.forEach((b, i) => {
    for (const k of ks) g = Math.min(g, butterflyG(b, k));
    if (i === 0) return;
    const a = bms[i - 1]!;
    for (const k of ks) calendar = Math.min(calendar, (sviW(b, k) - sviW(a, k)) / a.theta);
    slopes = Math.min(slopes, b.b * (1 - b.rho) - a.b * (1 - a.rho), b.b * (1 + b.rho) - a.b * (1 + a.rho));
  });
  return { g, calendar, slopes };
}

/** An equity-like surface, arbitrage-free with room to spare, with skew, smile and wings varying by maturity. */
const EQUITY = buildSurface({
  spot: 5321.5,
  referenceDate: REF,
  maturities: [7, 30, 91, 182, 365, 730],
  atmVols: [0.28, 0.25, 0.23, 0.22, 0.21, 0.2],
  forwardRate: 0.03,
  skew: [-0.12, -0.12, -0.11, -0.1, -0.1, -0.09],
  smile: [0.9, 0.8, 0.7, 0.6, 0.5, 0.45],
  putWing: [1.2, 1.2, 1.15, 1.1, 1.1, 1.05],
  callWing: [0.8, 0.78, 0.76, 0.74, 0.72, 0.7],
});

const base = (smiles: SmileQuotes[], extra: Partial<CalibrateOptions> = {}): CalibrateOptions => ({
  spot: 5321.5,
  referenceDate: REF,
  smiles,
  ...extra,
});

describe("calibrate: exact quotes from an arbitrage-free surface", () => {
  it("the equity surface is a fair test: it passes diagnose with room to spare", () => {
    expect(diagnose(EQUITY).ok).toBe(true);
    const m = margins(EQUITY);
    expect(m.g).toBeGreaterThan(1e-3);
    expect(m.calendar).toBeGreaterThan(1e-3);
    expect(m.slopes).toBeGreaterThan(1e-3);
  });

  it("recovers the quotes to 1e-8 in vol and the parameters closely, in every strike convention, with no constraint active", () => {
    const smiles = quotesOf(EQUITY, 21, -3.5, 3, [
      STRIKE_TYPE.Absolute,
      STRIKE_TYPE.PercentForward,
      STRIKE_TYPE.PercentSpot,
      "logMoneyness",
      "delta",
    ]);
    const { surface, fit, diagnostics } = calibrate(base(smiles));
    expect(maxQuoteError(surface, smiles)).toBeLessThanOrEqual(1e-8);
    expect(surface.benchmark_maturities).toEqual(EQUITY.benchmark_maturities);
    expect(surface.spot_ref).toBe(EQUITY.spot_ref);
    expect(surface.reference_date).toBe(EQUITY.reference_date);
    surface.benchmark_fwd_factors.forEach((f, i) => expect(f).toBeCloseTo(EQUITY.benchmark_fwd_factors[i]!, 14));
    EQUITY.benchmark_maturities.forEach((_, i) => {
      expect(surface.vols[i]).toBeCloseTo(EQUITY.vols[i]!, 11);
      expect(surface.skews[i]).toBeCloseTo(EQUITY.skews[i]!, 9);
      expect(surface.smiles[i]).toBeCloseTo(EQUITY.smiles[i]!, 8);
      expect(surface.put_wings[i]).toBeCloseTo(EQUITY.put_wings[i]!, 7);
      expect(surface.call_wings[i]).toBeCloseTo(EQUITY.call_wings[i]!, 7);
    });
    expect(diagnostics.ok).toBe(true);
    expect(diagnostics).toEqual(diagnose(fromSurface(surface)));
    for (const [i, f] of fit.entries()) {
      expect(f).toMatchObject({ maturity: EQUITY.benchmark_maturities[i], activeConstraints: [], converged: true });
      expect(f.rmseBp).toBeLessThan(1e-4);
      expect(f.maxErrorBp).toBeLessThan(1e-4);
      expect(f.residualsBp).toHaveLength(21);
      expect(f.k).toHaveLength(21);
      expect(f.forward).toBeCloseTo(fromSurface(EQUITY).forward(f.maturity), 9);
    }
  });

  it("recovers random arbitrage-free surfaces (seeded), whatever their number of maturities and quotes", () => {
    const rand = draws(20261120).next;
    const u = (a: number, b: number) => a + (b - a) * rand();
    let accepted = 0;
    let worst = 0;
    for (let trial = 0; trial < 60 && accepted < 6; trial++) {
      const maturities = [7, 14, 30, 60, 91, 182, 365, 730, 1095].filter(() => rand() < 0.55);
      if (maturities.length < 2) continue;
      const [v0, v1, skew, smile, p, c] = [
        u(0.12, 0.4),
        u(-0.08, 0.1),
        u(-0.3, 0.05),
        u(0.3, 1.2),
        u(0.6, 1.6),
        u(0.3, 1.2),
      ];
      let s: WireSurface;
      try {
        s = buildSurface({
          spot: 100,
          referenceDate: REF,
          maturities,
          atmVols: maturities.map((d) => v0 + v1 * Math.exp(-d / 120)),
          forwardRate: u(-0.01, 0.05),
          skew: maturities.map(() => skew * u(0.85, 1.15)),
          smile: maturities.map(() => smile * u(0.85, 1.15)),
          putWing: maturities.map(() => p * u(0.9, 1.1)),
          callWing: maturities.map(() => c * u(0.9, 1.1)),
        });
      } catch {
        continue;
      }
      const m = margins(s);
      if (!diagnose(s).ok || !(m.g > 1e-4 && m.calendar > 1e-4 && m.slopes > 1e-5)) continue;
      accepted++;
      const smiles = quotesOf(s, 15 + Math.floor(rand() * 15), u(-5, -2.5), u(2, 4.5), [
        STRIKE_TYPE.PercentForward,
        "logMoneyness",
      ]);
      const { surface, fit, diagnostics } = calibrate({ spot: 100, referenceDate: REF, smiles });
      const error = maxQuoteError(surface, smiles);
      worst = Math.max(worst, error);
      expect(error, `trial ${trial}`).toBeLessThanOrEqual(1e-8);
      expect(diagnostics.ok, `trial ${trial}`).toBe(true);
      for (const [i, f] of fit.entries()) {
        expect(f.activeConstraints, `trial ${trial}, benchmark ${i}`).toEqual([]);
        expect(Math.abs(f.params.vol - s.vols[i]!)).toBeLessThan(1e-9);
        expect(Math.abs(f.params.skew - s.skews[i]!)).toBeLessThan(1e-7);
        expect(Math.abs(f.params.putWing / s.put_wings[i]! - 1)).toBeLessThan(1e-5);
        expect(Math.abs(f.params.callWing / s.call_wings[i]! - 1)).toBeLessThan(1e-5);
      }
    }
    expect(accepted).toBe(6);
    expect(worst).toBeLessThanOrEqual(1e-8);
  });
});

describe("calibrate: noisy quotes", () => {
  it("fits seeded noise of 2 vol bp with an RMSE of the order of the noise, and stays arbitrage-free", () => {
    const noise = 2e-4;
    const normal = draws(7).normal;
    const smiles = quotesOf(EQUITY).map((q) => ({ ...q, vols: q.vols.map((v) => v + noise * normal()) }));
    const { fit, diagnostics } = calibrate(base(smiles));
    expect(diagnostics).toMatchObject({ ok: true, butterfly: [], calendar: [], lee: [] });
    for (const f of fit) {
      // 21 quotes, 5 parameters: about sqrt(16/21) ≈ 0.87 of the noise is left.
      expect(f.rmseBp).toBeGreaterThan(0.4 * 2);
      expect(f.rmseBp).toBeLessThan(1.5 * 2);
      expect(f.maxErrorBp).toBeLessThan(5 * 2);
      expect(f.converged).toBe(true);
      const mean = f.residualsBp.reduce((a, b) => a + b, 0) / f.residualsBp.length;
      expect(Math.abs(mean)).toBeLessThan(1);
    }
  });
});

describe("calibrate: quotes with arbitrage", () => {
  // GJ Example 3.1 (vol-model.md reference case 1): raw SVI at T = 1 year, with butterfly arbitrage near k = 0.9.
  const VOGT = { a: -0.041, b: 0.1331, m: 0.3586, rho: 0.306, s: 0.4153 };
  const vogtK = Array.from({ length: 29 }, (_, j) => -1.2 + (2.8 * j) / 28);
  const vogtVols = vogtK.map((k) => Math.sqrt(sviW(VOGT, k)));
  const vogtSmile: SmileQuotes = { maturity: 365, strikes: vogtK, strikeType: "logMoneyness", vols: vogtVols };

  it("fits the Vogt smile without butterfly arbitrage, reports the constraint and a nonzero error, and beats GJ's closed-form repair", () => {
    expect(diagnose(buildVogt()).ok).toBe(false);
    const { surface, fit, diagnostics } = calibrate(base([vogtSmile]));
    expect(diagnostics.ok).toBe(true);
    expect(fit[0]!.activeConstraints).toContain("butterfly");
    expect(fit[0]!.converged).toBe(true);
    expect(fit[0]!.rmseBp).toBeGreaterThan(1);
    // g touches 0 where the quotes had it negative.
    const b = fromSurface(surface).benchmarks[0]!;
    const gMin = Math.min(...Array.from({ length: 201 }, (_, i) => butterflyG(b, 0.5 + i * 0.005)));
    expect(gMin).toBeGreaterThanOrEqual(0);
    expect(gMin).toBeLessThan(1e-4);
    // GJ's repaired Vogt smile (reference case 2) is arbitrage-free too: the fit must do at least as well.
    const repaired = fromSurface({
      ...buildVogt(),
      vols: [0.1320085],
      skews: [-0.1752111],
      smiles: [1.619064],
      put_wings: [0.6997381],
      call_wings: [0.3493158],
    }).vols(365, vogtK, "logMoneyness");
    const repairedRmseBp =
      Math.sqrt(vogtVols.reduce((acc, v, j) => acc + (repaired[j]! - v) ** 2, 0) / vogtVols.length) * 1e4;
    expect(fit[0]!.rmseBp).toBeLessThan(repairedRmseBp);
  });

  it("honours weights: a heavily weighted quote is fitted more closely", () => {
    const j = 20; // k = 0.8, in the stretch the constraint bends
    const plain = calibrate(base([vogtSmile])).fit[0]!;
    const weights = vogtK.map((_, q) => (q === j ? 1000 : 1));
    const weighted = calibrate(base([{ ...vogtSmile, weights }])).fit[0]!;
    expect(Math.abs(weighted.residualsBp[j]!)).toBeLessThan(Math.abs(plain.residualsBp[j]!) / 10);
    expect(weighted.rmseBp).toBeGreaterThanOrEqual(plain.rmseBp);
  });

  it("keeps the later smile above the earlier one where independent fits would cross (the earlier gives way), and says so", () => {
    // Steep wings at 30 days, flat ones at 60: alone each is arbitrage-free; together the wings cross.
    const early = buildSurface({
      spot: 100,
      referenceDate: REF,
      maturities: [30],
      atmVols: 0.3,
      skew: -0.1,
      smile: 0.6,
      putWing: 1.8,
      callWing: 1.4,
    });
    const late = buildSurface({
      spot: 100,
      referenceDate: REF,
      maturities: [60],
      atmVols: 0.3,
      skew: -0.1,
      smile: 0.6,
      putWing: 0.6,
      callWing: 0.4,
    });
    const smiles = [...quotesOf(early, 21, -4, 4), ...quotesOf(late, 21, -4, 4)];
    const alone = smiles.map((q) => calibrate({ spot: 100, referenceDate: REF, smiles: [q] }));
    for (const r of alone) expect(r.fit[0]!.rmseBp).toBeLessThan(1e-4);
    const independent: WireSurface = {
      ...alone[0]!.surface,
      benchmark_maturities: [30, 60],
      ...Object.fromEntries(
        (["benchmark_fwd_factors", "vols", "skews", "smiles", "put_wings", "call_wings"] as const).map((f) => [
          f,
          [alone[0]!.surface[f][0]!, alone[1]!.surface[f][0]!],
        ]),
      ),
    };
    expect(diagnose(independent).calendar.length).toBeGreaterThan(0);

    const { fit, diagnostics } = calibrate({ spot: 100, referenceDate: REF, smiles });
    expect(diagnostics).toMatchObject({ ok: true, calendar: [] });
    // The shorter smile gives way (issue 41: a short slice must not spoil the longer ones through the
    // calendar bound): the later one is fitted exactly, the earlier one bends below it.
    expect(fit[1]!.rmseBp).toBeLessThan(1e-4);
    expect(fit[1]!.activeConstraints).toEqual([]);
    expect(fit[0]!.activeConstraints).toContain("calendar");
    expect(fit[0]!.rmseBp).toBeGreaterThan(0.1);
  });

  function buildVogt(): WireSurface {
    return { ...buildSurface({ spot: 100, referenceDate: REF, maturities: [365], atmVols: 0.2 }), ...vogtWire() };
  }
  function vogtWire() {
    return {
      vols: [Math.sqrt(0.01742625)],
      skews: [-0.1752111],
      smiles: [0.2937952],
      put_wings: [0.6997381],
      call_wings: [1.316798],
    };
  }
});

describe("calibrate: options and progress", () => {
  it("reports progress once per maturity, and takes a forward rate for smiles without a forward", () => {
    const smiles = quotesOf(EQUITY).slice(0, 3);
    const calls: [number, number][] = [];
    const withForwards = calibrate(base(smiles, { onProgress: (done, total) => calls.push([done, total]) }));
    expect(calls).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    const noForwards = calibrate(
      base(
        smiles.map(({ forward: _, ...q }) => q),
        { forwardRate: 0.03 },
      ),
    );
    noForwards.surface.benchmark_fwd_factors.forEach((f, i) => {
      expect(f).toBeCloseTo(Math.exp((0.03 * smiles[i]!.maturity) / DAYS_PER_YEAR), 14);
      expect(f).toBeCloseTo(withForwards.surface.benchmark_fwd_factors[i]!, 12);
    });
    expect(calibrate(base(smiles.map(({ forward: _, ...q }) => q))).surface.benchmark_fwd_factors).toEqual([1, 1, 1]);
  });

  it("weights by vega on request, which fits the money closer than the wings", () => {
    const normal = draws(11).normal;
    const smiles = quotesOf(EQUITY, 21, -5, 4).map((q) => ({ ...q, vols: q.vols.map((v) => v + 5e-4 * normal()) }));
    const plain = calibrate(base(smiles)).fit;
    const vega = calibrate(base(smiles, { weighting: "vega" })).fit;
    const central = (f: (typeof plain)[number]) =>
      Math.sqrt(f.residualsBp.slice(7, 15).reduce((a, r) => a + r * r, 0) / 8);
    const centralPlain = plain.reduce((a, f) => a + central(f), 0);
    const centralVega = vega.reduce((a, f) => a + central(f), 0);
    expect(centralVega).toBeLessThan(centralPlain);
  });
});

describe("calibrate: errors name the field and the reason", () => {
  const good = quotesOf(EQUITY).slice(0, 3);
  const withSmile = (i: number, patch: Partial<Quotes>) => base(good.map((q, j) => (j === i ? { ...q, ...patch } : q)));
  const fails = (options: unknown, field: string, message: RegExp | string) => {
    let error: unknown;
    try {
      calibrate(options as CalibrateOptions);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(VolModelError);
    expect((error as VolModelError).field).toBe(field);
    expect((error as VolModelError).message).toMatch(message);
  };

  it("smiles with too few quotes, or too few distinct strikes", () => {
    const q = good[1]!;
    fails(
      withSmile(1, { strikes: q.strikes.slice(0, 4), vols: q.vols.slice(0, 4) }),
      "smiles[1].strikes",
      /^smiles\[1\] has 4 quotes; .*needs at least 5 quotes/,
    );
    fails(
      withSmile(1, { strikes: [90, 90, 100, 100, 110, 110], vols: [0.2, 0.2, 0.2, 0.2, 0.2, 0.2] }),
      "smiles[1].strikes",
      /^smiles\[1\] has 3 distinct strikes among 6 quotes; .*at least 5/,
    );
  });

  it("vols and strikes that are not finite and > 0, deltas outside (0, 1)", () => {
    const vols = [...good[2]!.vols];
    vols[5] = NaN;
    fails(withSmile(2, { vols }), "smiles[2].vols[5]", "smiles[2].vols[5] must be a finite number; got NaN");
    vols[5] = 0;
    fails(withSmile(2, { vols }), "smiles[2].vols[5]", "smiles[2].vols[5] must be a decimal vol > 0; got 0");
    const strikes = [...good[0]!.strikes];
    strikes[3] = -5;
    fails(
      withSmile(0, { strikes }),
      "smiles[0].strikes[3]",
      "smiles[0].strikes[3] must be a finite number > 0; got -5",
    );
    fails(
      withSmile(0, {
        strikes: good[0]!.strikes.map(() => 0.5).map((d, j) => (j === 2 ? 1 : d - j * 0.01)),
        strikeType: "delta",
      }),
      "smiles[0].strikes[2]",
      /forward call delta in \(0, 1\); got 1/,
    );
    fails(withSmile(0, { strikes: "100" as unknown as number[] }), "smiles[0].strikes", /must be an array of numbers/);
  });

  it("maturities not strictly increasing", () => {
    fails(
      withSmile(1, { maturity: 7 }),
      "smiles[1].maturity",
      "smiles[1].maturity (7 d) repeats smiles[0].maturity: smiles go shortest maturity first, one per maturity",
    );
    fails(
      withSmile(2, { maturity: 10 }),
      "smiles[2].maturity",
      /^smiles\[2\]\.maturity \(10 d\) comes before smiles\[1\]\.maturity \(30 d\)/,
    );
    fails(withSmile(0, { maturity: 0 }), "smiles[0].maturity", /must be a finite number of days > 0; got 0/);
  });

  it("arrays of different lengths, weights <= 0, a bad forward", () => {
    fails(
      withSmile(1, { vols: good[1]!.vols.slice(1) }),
      "smiles[1].vols",
      "smiles[1].vols has 20 values but smiles[1].strikes has 21; give one vol per strike",
    );
    fails(withSmile(1, { weights: [1, 2, 3] }), "smiles[1].weights", /^smiles\[1\]\.weights has 3 values/);
    const weights = good[1]!.vols.map(() => 1);
    weights[4] = 0;
    fails(withSmile(1, { weights }), "smiles[1].weights[4]", /^smiles\[1\]\.weights\[4\] must be > 0; got 0/);
    fails(withSmile(1, { forward: -1 }), "smiles[1].forward", /must be a finite price > 0; got -1/);
  });

  it("the options themselves", () => {
    fails(undefined, "options", /options are required/);
    fails({ ...base(good), spot: 0 }, "spot", /spot must be a finite number > 0; got 0/);
    fails({ ...base(good), referenceDate: "soon" }, "referenceDate", /referenceDate must be a Date or an ISO 8601/);
    fails(base([]), "smiles", /smiles must be a non-empty array/);
    fails(
      withSmile(0, { strikeType: 7 as unknown as ModelStrikeType }),
      "smiles[0].strikeType",
      /strike_type must be one of/,
    );
    fails({ ...base(good), weighting: "delta" }, "weighting", /weighting must be "uniform" or "vega"/);
    fails({ ...base(good), forwardRate: NaN }, "forwardRate", /forwardRate must be a finite number/);
    fails({ ...base(good), maxIterations: 0 }, "maxIterations", /maxIterations must be a whole number > 0/);
    fails(base([good[0]!, null as unknown as SmileQuotes]), "smiles[1]", /smiles\[1\] must be an object/);
  });
});

describe("levenbergMarquardt (optimize.ts)", () => {
  /** A problem from a residual function; `always` data rows, the rest penalties (`jacobianRows`: their unclamped form). */
  const problem = (
    rows: number,
    always: number,
    f: (x: Float64Array) => number[],
    jacobianRows = f,
  ): LeastSquaresProblem => ({
    parameters: 2,
    rows,
    always,
    residuals: (x, out) => out.set(f(x)),
    residualRows: (x, which, count, out) => {
      const r = jacobianRows(x);
      for (let q = 0; q < count; q++) out[q] = r[which[q]!]!;
    },
  });

  it("solves Rosenbrock's valley (a zero-residual problem) to full precision from the classic start", () => {
    const result = levenbergMarquardt(
      problem(2, 2, (x) => [10 * (x[1]! - x[0]! ** 2), 1 - x[0]!]),
      [-1.2, 1],
    );
    expect(result.converged).toBe(true);
    expect(result.x[0]).toBeCloseTo(1, 10);
    expect(result.x[1]).toBeCloseTo(1, 10);
    expect(result.cost).toBeLessThan(1e-20);
    expect(result.iterations).toBeLessThan(100);
  });

  it("stops at the iteration limit and says so, and treats a non-finite residual as a step to refuse", () => {
    const limited = levenbergMarquardt(
      problem(2, 2, (x) => [10 * (x[1]! - x[0]! ** 2), 1 - x[0]!]),
      [-1.2, 1],
      { maxIterations: 2 },
    );
    expect(limited).toMatchObject({ converged: false, reason: "maxIterations", iterations: 2 });
    // sqrt(x0) is NaN below 0: the first full step lands there and must be refused; the solver still gets to (1, 2).
    const guarded = levenbergMarquardt(
      problem(2, 2, (x) => [Math.sqrt(x[0]!) - 1, x[1]! - 2]),
      [9, 0],
    );
    expect(guarded.converged).toBe(true);
    expect(guarded.x[0]).toBeCloseTo(1, 10);
    expect(guarded.x[1]).toBeCloseTo(2, 12);
  });

  it("takes penalty rows into the Jacobian only where they are non-zero, and they bind", () => {
    // min (x0 − 2)² + (x1 − 1)² with a penalty 1e4·max(0, x0 − 1): x0 ends a hair above 1 (1 + 1e−8). The
    // kink slows the solver down (it damps every parameter alike), hence the loose tolerances.
    const result = levenbergMarquardt(
      problem(
        3,
        2,
        (x) => [x[0]! - 2, x[1]! - 1, 1e4 * Math.max(0, x[0]! - 1)],
        (x) => [x[0]! - 2, x[1]! - 1, 1e4 * (x[0]! - 1)],
      ),
      [0, 0],
    );
    expect(result.converged).toBe(true);
    expect(result.x[0]).toBeCloseTo(1, 7);
    expect(result.x[1]).toBeCloseTo(1, 7);
    expect(result.cost).toBeCloseTo(0.5, 7);
  });

  it("choleskySolve solves positive definite systems and refuses the rest", () => {
    const h = new Float64Array(2);
    expect(choleskySolve(Float64Array.of(4, 2, 2, 3), Float64Array.of(2, 1), 2, h)).toBe(true);
    expect(Array.from(h)).toEqual([0.5, 0]);
    expect(choleskySolve(Float64Array.of(1, 2, 2, 1), Float64Array.of(1, 1), 2, h)).toBe(false);
  });
});

describe("DiagnoseCache: calibrate's checks of its slices, reused by its final report", () => {
  /** EQUITY with its 30-day smile re-marked (steeper skew, more vol, far too little curvature): butterfly and calendar fail. */
  const remarked = (volBump: number): WireSurface => {
    const s = structuredClone(EQUITY);
    s.skews[1] = -0.3;
    s.smiles[1] = 0.3;
    s.vols[1] = s.vols[1]! + volBump;
    return s;
  };

  it("gives diagnose's report, violations and all, and computes afresh every part kept for other slices", () => {
    const model = fromSurface(remarked(0.01));
    const bms = model.benchmarks;
    const cache = new DiagnoseCache();
    const seen = new Set<string>();
    bms.forEach((b, i) => cache.check(b, bms[i - 1], i === bms.length - 1, (kind) => seen.add(kind)));
    expect([...seen].sort()).toEqual(["butterfly", "calendar"]);
    const fresh = diagnose(model);
    expect(fresh.ok).toBe(false);
    expect(fresh.butterfly.length + fresh.calendar.length).toBeGreaterThan(1);
    expect(cache.report(model)).toEqual(fresh);
    // Benchmark 1 moved: the parts kept for the old one (its butterfly, both its pairs) must not stand in.
    const moved = fromSurface(remarked(0.02));
    const movedFresh = diagnose(moved);
    expect(movedFresh).not.toEqual(fresh);
    expect(cache.report(moved)).toEqual(movedFresh);
  });
});
