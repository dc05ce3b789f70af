/** diagnose: butterfly, calendar and Lee checks, reported (never thrown) with where and by how much. */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_K_GRID,
  buildSurface,
  butterflyG,
  densityFactor,
  diagnose,
  fromSurface,
  sliceParams,
  sviW,
} from "../../src/vol";
import { SAMPLE, oneYear } from "./reference-model";

const VOGT = { vol: Math.sqrt(0.01742625), skew: -0.1752111, smile: 0.2937952, putWing: 0.6997381, callWing: 1.316798 };
const REPAIRED = { vol: 0.1320085, skew: -0.1752111, smile: 1.619064, putWing: 0.6997381, callWing: 0.3493158 };

describe("diagnose", () => {
  it("fails the Vogt smile's butterfly check near k = 0.88, by about 0.0329 (public reference case 1)", () => {
    const report = diagnose(fromSurface(oneYear(VOGT)));
    expect(report.ok).toBe(false);
    expect(report.butterfly).toHaveLength(1);
    const [v] = report.butterfly;
    expect(v).toMatchObject({ check: "butterfly", benchmarks: [0], maturities: [365] });
    // The refined minimum: g is flat there, so k is known to ~1e-7 and g to ~1e-14.
    expect(v!.k).toBeCloseTo(0.8792627, 6);
    expect(v!.kRange[0]).toBeCloseTo(0.6442, 3);
    expect(v!.kRange[1]).toBeCloseTo(1.2567, 3);
    expect(v!.value).toBeCloseTo(-0.0328635455, 9);
    expect(v!.amount).toBe(-v!.value);
    expect(v!.message).toMatch(
      /^benchmark 0 \(maturity 365 d\): butterfly g\(k\) < 0 for k in \[0\.644\d+, 1\.256\d+\], worst g\(0\.879\d+\) = -0\.03286/,
    );
    expect(report.calendar).toEqual([]);
    expect(report.lee).toEqual([]);
  });

  it("passes the repaired Vogt smile (public reference case 2), on the default grid and on a wide fine one", () => {
    expect(diagnose(fromSurface(oneYear(REPAIRED))).ok).toBe(true);
    const wide = Array.from({ length: 20001 }, (_, i) => (i - 10000) / 1000);
    expect(diagnose(fromSurface(oneYear(REPAIRED)), { k: wide }).ok).toBe(true);
  });

  it("finds the one defect of the client tests' sample surface: butterfly far out in the 30-day call wing", () => {
    const report = diagnose(fromSurface(SAMPLE));
    expect(report.ok).toBe(false);
    expect(report.calendar).toEqual([]);
    expect(report.lee).toEqual([]);
    expect(report.butterfly).toHaveLength(1);
    expect(report.butterfly[0]).toMatchObject({ benchmarks: [0], maturities: [30] });
    expect(report.butterfly[0]!.k).toBeCloseTo(0.94456, 4);
    expect(report.butterfly[0]!.kRange[0]).toBeCloseTo(0.8057, 3);
    expect(report.butterfly[0]!.kRange[1]).toBeCloseTo(1.0569, 3);
    expect(report.butterfly[0]!.value).toBeCloseTo(-0.0020617, 6);
  });

  it("passes a clean equity surface on adaptive grids, and checks only the given points when told", () => {
    const report = diagnose(fromSurface({ ...SAMPLE, smiles: [0.6, 0.5, 0.4, 0.3] }));
    expect(report).toMatchObject({ ok: true, butterfly: [], calendar: [], lee: [], grid: "adaptive" });
    expect(report.k).toHaveLength(0);
    expect(report.points).toBeGreaterThan(10_000);
    const fixed = diagnose(fromSurface({ ...SAMPLE, smiles: [0.6, 0.5, 0.4, 0.3] }), { k: DEFAULT_K_GRID });
    expect(fixed).toMatchObject({ ok: true, grid: "given" });
    expect(fixed.k).toHaveLength(601);
    expect([fixed.k[0], fixed.k[300], fixed.k[600]]).toEqual([-3, 0, 3]);
    // 4 slices and 3 pairs, each on the 601 points.
    expect(fixed.points).toBe(7 * 601);
  });

  it("finds total variance falling with maturity, names both benchmarks, and says by how much", () => {
    // ATM total variance 0.0441·(91/365) = 0.0110 at 91 d, then 0.01·(182/365) = 0.0050 at 182 d.
    const s = fromSurface({ ...SAMPLE, vols: [0.24, 0.21, 0.1, 0.205] });
    const report = diagnose(s);
    expect(report.ok).toBe(false);
    const cal = report.calendar.find((v) => v.benchmarks[0] === 1)!;
    expect(cal).toMatchObject({ check: "calendar", benchmarks: [1, 2], maturities: [91, 182] });
    const w = (d: number, k: number) => s.totalVariance(d, [k])[0]!;
    expect(Math.abs(cal.value - (w(182, cal.k) - w(91, cal.k)))).toBeLessThanOrEqual(1e-14 * Math.abs(cal.value));
    expect(cal.amount).toBeGreaterThan(w(91, 0) - w(182, 0) - 1e-15);
    expect(cal.kRange[0]).toBe(-Infinity);
    expect(cal.kRange[1]).toBeGreaterThanOrEqual(0);
    expect(cal.message).toMatch(
      /^benchmarks 1 and 2 \(91 d, 182 d\): total variance falls with maturity for k in \[-10000, 10000\], .* and on out to k = -Infinity \(the later slice's put wing slope of total variance is lower by 0\.0429/,
    );
  });

  it("reports Lee's moment bound per wing with the excess slope", () => {
    // sqrt(theta) = 1 at T = 1, v = 1: wing slopes are p and c.
    const report = diagnose(fromSurface(oneYear({ vol: 1, skew: 0, smile: 1, putWing: 2.5, callWing: 1.5 })));
    expect(report.lee).toHaveLength(1);
    expect(report.lee[0]).toMatchObject({
      check: "lee",
      wing: "put",
      benchmarks: [0],
      maturities: [365],
      k: -Infinity,
    });
    expect(report.lee[0]!.value).toBeCloseTo(2.5, 14);
    expect(report.lee[0]!.amount).toBeCloseTo(0.5, 14);
    expect(report.lee[0]!.message).toBe(
      "benchmark 0 (maturity 365 d): put wing slope of total variance 2.5 exceeds Lee's bound 2 by 0.5",
    );
  });

  it("splits separate failing stretches into separate violations, each at its worst point", () => {
    // A symmetric smile too steep for its level fails in both wings.
    const report = diagnose(fromSurface(oneYear({ vol: 1.5, skew: 0, smile: 0.5, putWing: 1.6, callWing: 1.6 })), {
      k: Array.from({ length: 801 }, (_, i) => (i - 400) / 40),
    });
    expect(report.butterfly.length).toBe(2);
    const [left, right] = report.butterfly;
    expect(left!.kRange[1]).toBeLessThan(0);
    expect(right!.kRange[0]).toBeGreaterThan(0);
    expect(left!.value).toBeCloseTo(right!.value, 12);
  });

  it("passes surfaces built with the default shape while v·sqrt(T) <= 1.5", () => {
    const maturities = [1, 7, 30, 91, 182, 365, 730, 1095, 1825];
    for (const atm of [0.05, 0.2, 0.5, 1]) {
      const days = maturities.filter((d) => atm * Math.sqrt(d / 365) <= 1.5);
      const s = fromSurface(buildSurface({ spot: 100, referenceDate: "2026-11-20", maturities: days, atmVols: atm }));
      const report = diagnose(s, { k: Array.from({ length: 4001 }, (_, i) => (i - 2000) / 200) });
      expect(
        report.ok,
        `${atm}: ${[...report.butterfly, ...report.calendar, ...report.lee].map((v) => v.message).join("; ")}`,
      ).toBe(true);
    }
  });

  it("takes a surface as well as a model, and refuses a grid or tolerance it cannot use", () => {
    expect(diagnose(oneYear(REPAIRED)).ok).toBe(true);
    expect(() => diagnose(SAMPLE, { k: [0, NaN] })).toThrow("k[1] must be a finite number; got NaN");
    expect(() => diagnose(SAMPLE, { tolerance: -1 })).toThrow("tolerance must be a number >= 0; got -1");
  });

  it("reports a mark outside the model's range as a finding, instead of throwing", () => {
    const surface = buildSurface({
      spot: 5000,
      referenceDate: "2026-11-20",
      maturities: [30, 91, 365],
      atmVols: [0.18, 0.17, 0.16],
      skew: -0.1,
    });
    const bad = { ...surface, skews: surface.skews.map((x, i) => (i === 1 ? 5 : x)) };
    const report = diagnose(bad);
    expect(report.ok).toBe(false);
    expect(report.evaluated).toBe(false);
    expect(report.invalid).toEqual([
      {
        benchmark: 1,
        maturity: 91,
        field: "skews",
        condition: "-p < 2·psi < c",
        message: "benchmark 1 (maturity 91 d): skew must satisfy -p < 2·psi < c; got 2·psi = 10, p = 1, c = 1",
      },
    ]);
    expect([report.butterfly, report.calendar, report.lee]).toEqual([[], [], []]);
    const good = diagnose(surface);
    expect([good.ok, good.evaluated, good.invalid]).toEqual([true, true, []]);
  });

  it("keeps rounding noise out with a tolerance", () => {
    const flat = fromSurface({
      ...SAMPLE,
      vols: [0.2, 0.2, 0.2, 0.2],
      skews: [0, 0, 0, 0],
      smiles: [1, 1, 1, 1],
      put_wings: [1, 1, 1, 1],
      call_wings: [1, 1, 1, 1],
    });
    expect(diagnose(flat).calendar).toEqual([]);
  });

  describe("finds what a fixed k grid from -3 to 3 in steps of 0.01 misses", () => {
    /** g of the benchmark, at 10^6 points between a and b: the yardstick, independent of the grid. */
    const denseMinG = (model: ReturnType<typeof fromSurface>, a: number, b: number) => {
      let min = Infinity;
      for (let i = 0; i <= 1e6; i++) min = Math.min(min, butterflyG(model.benchmarks[0]!, a + ((b - a) * i) / 1e6));
      return min;
    };
    it.each([
      [
        2,
        {
          vol: 0.18416479825236126,
          skew: -0.6985731029469175,
          smile: 101.17057231841551,
          putWing: 2.4925474247860473,
          callWing: 1.4445683791044022,
        },
      ],
      [
        1,
        {
          vol: 0.11155419410744412,
          skew: -1.1754583848689193,
          smile: 0.06904328600417686,
          putWing: 2.6044678793775233,
          callWing: 1.491648698035464,
        },
      ],
    ])("butterfly arbitrage between grid points on a %s-day slice", (days, params) => {
      const model = fromSurface({ ...oneYear(params), benchmark_maturities: [days] });
      expect(diagnose(model, { k: DEFAULT_K_GRID }).ok).toBe(true);
      const report = diagnose(model);
      const own = report.butterfly.filter((v) => v.benchmarks.length === 1 && v.maturities[0] === days);
      expect(own).toHaveLength(1);
      const [v] = own;
      expect(v!.kRange[1] - v!.kRange[0]).toBeLessThan(0.01);
      expect(Math.abs(v!.k)).toBeLessThan(0.02);
      // The refined minimum is the true one to 1e-9, and it is negative.
      const dense = denseMinG(model, v!.kRange[0] - 0.005, v!.kRange[1] + 0.005);
      expect(dense).toBeLessThan(0);
      expect(Math.abs(v!.value - dense)).toBeLessThan(1e-9);
    });

    it("a calendar crossing out in the call wing, and one beyond |k| = 1e4 from the asymptotes", () => {
      const surface = (c2: number) =>
        fromSurface(
          buildSurface({
            spot: 100,
            referenceDate: "2026-11-20",
            maturities: [30, 60],
            atmVols: [0.2, 0.2],
            callWing: [1, c2],
          }),
        );
      const near = surface(0.7);
      expect(diagnose(near, { k: DEFAULT_K_GRID }).ok).toBe(true);
      const [v] = diagnose(near).calendar;
      expect(v).toMatchObject({ check: "calendar", benchmarks: [0, 1], wing: "call" });
      expect(v!.kRange[0]).toBeGreaterThan(3);
      expect(v!.kRange[1]).toBe(Infinity);
      const w = (d: number, k: number) => near.totalVariance(d, [k])[0]!;
      // kRange starts at the first failing grid point; the crossing lies within a grid step (~0.04·k) before it.
      expect(w(60, v!.kRange[0]) - w(30, v!.kRange[0])).toBeLessThan(0);
      expect(w(60, v!.kRange[0] * 0.95) - w(30, v!.kRange[0] * 0.95)).toBeGreaterThan(0);
      expect(w(60, 1e4) - w(30, 1e4)).toBeLessThan(0);

      const far = surface(0.7071);
      const report = diagnose(far);
      expect(report.calendar).toHaveLength(1);
      const [u] = report.calendar;
      expect(u).toMatchObject({ k: Infinity, wing: "call" });
      expect(u!.kRange[0]).toBeGreaterThan(1e4);
      expect(u!.value).toBeLessThan(0);
      expect(u!.message).toMatch(
        /in the call wing, for k > .*: the later slice's call wing slope of total variance is lower by/,
      );
      const kx = u!.kRange[0] * 1.5;
      expect(sviW(far.benchmarks[1]!, kx) - sviW(far.benchmarks[0]!, kx)).toBeLessThan(0);
      expect(sviW(far.benchmarks[1]!, 1e4) - sviW(far.benchmarks[0]!, 1e4)).toBeGreaterThan(0);
    });
  });

  it("counts a point where g is undefined (total variance 0) as a failure, not a pass", () => {
    // Raw SVI with rho = 0, m = 0.75, s = 1, b = 0.5 and a chosen so that w(m) = 0 exactly in double precision.
    const [m, s, b] = [0.75, 1, 0.5];
    const R = Math.hypot(m, s);
    const model = fromSurface(oneYear(sliceParams({ a: (b * m * m) / (s + R) - b * R, b, rho: 0, m, s }, 1)));
    expect(model.totalVariance(365, [m])[0]).toBe(0);
    expect(butterflyG(model.benchmarks[0]!, m)).toBeNaN();
    const report = diagnose(model, { k: [0, m, 1] });
    expect(report.ok).toBe(false);
    expect(report.butterfly).toHaveLength(1);
    expect(report.butterfly[0]!.kRange).toEqual([m, m]);
    expect(report.butterfly[0]!.message).toMatch(/worst g\(0\.75\) = undefined \(total variance 0\)/);
  });

  it("checks the smiles the model interpolates between benchmarks and extrapolates past the last", () => {
    // Two Vogt-like benchmarks (30 d and 60 d, both failing near the same k): the smiles between them fail too.
    const vogt = { ...oneYear(VOGT), benchmark_maturities: [30, 60], benchmark_fwd_factors: [1, 1] };
    const surface = {
      ...vogt,
      vols: [VOGT.vol, VOGT.vol * 1.01],
      skews: [VOGT.skew, VOGT.skew],
      smiles: [VOGT.smile, VOGT.smile],
    };
    for (const key of ["put_wings", "call_wings"] as const) surface[key] = [vogt[key][0]!, vogt[key][0]!];
    const report = diagnose(fromSurface(surface));
    const between = report.butterfly.filter((v) => v.message.startsWith("between benchmarks 0 and 1"));
    expect(between.map((v) => v.maturities[0])).toEqual([37.5, 45, 52.5]);
    between.forEach((v) => expect(v.benchmarks).toEqual([0, 1]));
    const past = report.butterfly.filter((v) => v.message.startsWith("past the last benchmark"));
    // 1.5 times the last maturity still fails; at 2 and 4 times the added ATM variance lifts g above 0.
    expect(past.map((v) => v.maturities[0])).toEqual([90]);
    // Each value is g of that maturity's smile, computed here from the model's own total variance.
    const model = fromSurface(surface);
    for (const v of [...between, ...past]) {
      const h = 1e-4;
      const [wm, w0, wp] = model.totalVariance(v.maturities[0]!, [v.k - h, v.k, v.k + h]);
      const g = densityFactor(v.k, w0!, (wp! - wm!) / (2 * h), (wp! - 2 * w0! + wm!) / (h * h));
      expect(v.value).toBeCloseTo(g, 5);
    }
    expect(diagnose(fromSurface({ ...SAMPLE, smiles: [0.6, 0.5, 0.4, 0.3] })).ok).toBe(true);
  });
});
