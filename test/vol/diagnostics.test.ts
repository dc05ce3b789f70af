/** diagnose: butterfly, calendar and Lee checks, reported (never thrown) with where and by how much. */
import { describe, expect, it } from "vitest";
import { DEFAULT_K_GRID, buildSurface, diagnose, fromSurface } from "../../src/vol";
import { SAMPLE, oneYear } from "./reference-model";

const VOGT = { vol: Math.sqrt(0.01742625), skew: -0.1752111, smile: 0.2937952, putWing: 0.6997381, callWing: 1.316798 };
const REPAIRED = { vol: 0.1320085, skew: -0.1752111, smile: 1.619064, putWing: 0.6997381, callWing: 0.3493158 };

describe("diagnose", () => {
  it("fails the Vogt smile's butterfly check near k = 0.88, by about 0.0329 (public reference case 1)", () => {
    const report = diagnose(fromSurface(oneYear(VOGT)));
    expect(report.ok).toBe(false);
    expect(report.butterfly).toHaveLength(1);
    const [v] = report.butterfly;
    expect(v).toMatchObject({ check: "butterfly", benchmarks: [0], maturities: [365], k: 0.88, kRange: [0.65, 1.25] });
    expect(v!.value).toBeCloseTo(-0.032863, 5);
    expect(v!.amount).toBe(-v!.value);
    expect(v!.message).toMatch(/^benchmark 0 \(maturity 365 d\): butterfly g\(k\) < 0 for k in \[0\.65, 1\.25\], worst g\(0\.88\) = -0\.03286/);
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
    expect(report.butterfly[0]).toMatchObject({ benchmarks: [0], maturities: [30], k: 0.94, kRange: [0.79, 1.11] });
    expect(report.butterfly[0]!.value).toBeCloseTo(-0.00206, 5);
  });

  it("passes a clean equity surface, and grids from -3 to 3 by default", () => {
    const report = diagnose(fromSurface({ ...SAMPLE, smiles: [0.6, 0.5, 0.4, 0.3] }));
    expect(report).toMatchObject({ ok: true, butterfly: [], calendar: [], lee: [] });
    expect(report.k).toHaveLength(601);
    expect(report.k[0]).toBe(-3);
    expect(report.k[300]).toBe(0);
    expect(report.k[600]).toBe(3);
    expect(DEFAULT_K_GRID).toHaveLength(601);
  });

  it("finds total variance falling with maturity, names both benchmarks, and says by how much", () => {
    // ATM total variance 0.0441·(91/365) = 0.0110 at 91 d, then 0.01·(182/365) = 0.0050 at 182 d.
    const s = fromSurface({ ...SAMPLE, vols: [0.24, 0.21, 0.1, 0.205] });
    const report = diagnose(s);
    expect(report.ok).toBe(false);
    const cal = report.calendar.find((v) => v.benchmarks[0] === 1)!;
    expect(cal).toMatchObject({ check: "calendar", benchmarks: [1, 2], maturities: [91, 182] });
    const w = (d: number, k: number) => s.totalVariance(d, [k])[0]!;
    expect(cal.value).toBeCloseTo(w(182, cal.k) - w(91, cal.k), 15);
    expect(cal.amount).toBeGreaterThan(w(91, 0) - w(182, 0) - 1e-15);
    expect(cal.kRange[0]).toBeLessThanOrEqual(0);
    expect(cal.kRange[1]).toBeGreaterThanOrEqual(0);
    expect(cal.message).toMatch(/^benchmarks 1 and 2 \(91 d, 182 d\): total variance falls with maturity for k in \[/);
  });

  it("reports Lee's moment bound per wing with the excess slope", () => {
    // sqrt(theta) = 1 at T = 1, v = 1: wing slopes are p and c.
    const report = diagnose(fromSurface(oneYear({ vol: 1, skew: 0, smile: 1, putWing: 2.5, callWing: 1.5 })));
    expect(report.lee).toHaveLength(1);
    expect(report.lee[0]).toMatchObject({ check: "lee", wing: "put", benchmarks: [0], maturities: [365], k: -Infinity });
    expect(report.lee[0]!.value).toBeCloseTo(2.5, 14);
    expect(report.lee[0]!.amount).toBeCloseTo(0.5, 14);
    expect(report.lee[0]!.message).toBe("benchmark 0 (maturity 365 d): put wing slope of total variance 2.5 exceeds Lee's bound 2 by 0.5");
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
      expect(report.ok, `${atm}: ${[...report.butterfly, ...report.calendar, ...report.lee].map((v) => v.message).join("; ")}`).toBe(true);
    }
  });

  it("takes a surface as well as a model, and refuses a grid or tolerance it cannot use", () => {
    expect(diagnose(oneYear(REPAIRED)).ok).toBe(true);
    expect(() => diagnose(SAMPLE, { k: [0, NaN] })).toThrow("k[1] must be a finite number; got NaN");
    expect(() => diagnose(SAMPLE, { tolerance: -1 })).toThrow("tolerance must be a number >= 0; got -1");
  });

  it("reports a mark outside the model's range as a finding, instead of throwing", () => {
    const surface = buildSurface({ spot: 5000, referenceDate: "2026-11-20", maturities: [30, 91, 365], atmVols: [0.18, 0.17, 0.16], skew: -0.1 });
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
});
