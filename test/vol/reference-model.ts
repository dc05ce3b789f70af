/**
 * vol-model.md transcribed line by line, with no rearrangement and no speed tricks: the yardstick the
 * tests hold the fast model against, and random valid surfaces for the property tests.
 */
import fc from "fast-check";
import { DAYS_PER_YEAR } from "../../src/api/assumptions";
import type { WireSurface } from "../../src/vol";
import { surface } from "../helpers/samples";

/** Raw SVI of one benchmark, exactly as vol-model.md writes the conversion. */
export function docRaw(v: number, psi: number, kappa: number, p: number, c: number, T: number) {
  const theta = v ** 2 * T;
  const b = (Math.sqrt(theta) * (p + c)) / 2;
  const rho = (c - p) / (c + p);
  const beta = (c - p - 4 * psi) / (c + p);
  const w2 = 2 * (psi ** 2 + Math.sqrt(theta) * kappa);
  const R = (b * (1 - beta ** 2)) / w2;
  const m = beta * R;
  const s = R * Math.sqrt(1 - beta ** 2);
  const a = theta - b * R * (1 - rho * beta);
  return { a, b, rho, m, s, theta };
}

const sviAt = (r: { a: number; b: number; rho: number; m: number; s: number }, k: number) =>
  r.a + r.b * (r.rho * (k - r.m) + Math.sqrt((k - r.m) ** 2 + r.s ** 2));

/** The doc's model of a whole surface: `forward(days)`, `w(days, k)`, `vol(days, K)` (absolute strike). */
export function docModel(s: WireSurface) {
  const Ts = s.benchmark_maturities.map((d) => d / DAYS_PER_YEAR);
  const lnFs = s.benchmark_fwd_factors.map((f) => Math.log(s.spot_ref * f));
  const raws = Ts.map((T, i) => docRaw(s.vols[i]!, s.skews[i]!, s.smiles[i]!, s.put_wings[i]!, s.call_wings[i]!, T));
  const n = Ts.length;
  const lnForward = (T: number): number => {
    const xs = [0, ...Ts];
    const ys = [Math.log(s.spot_ref), ...lnFs];
    let i = xs.length - 2;
    for (let j = 0; j + 1 < xs.length; j++) {
      if (T <= xs[j + 1]!) {
        i = j;
        break;
      }
    }
    return ys[i]! + ((ys[i + 1]! - ys[i]!) / (xs[i + 1]! - xs[i]!)) * (T - xs[i]!);
  };
  const w = (days: number, k: number): number => {
    const T = days / DAYS_PER_YEAR;
    if (T <= Ts[0]!) return (T / Ts[0]!) * sviAt(raws[0]!, k);
    if (T >= Ts[n - 1]!) return sviAt(raws[n - 1]!, k) + raws[n - 1]!.theta * (T / Ts[n - 1]! - 1);
    let i = 0;
    while (!(Ts[i]! <= T && T <= Ts[i + 1]!)) i++;
    const x = (T - Ts[i]!) / (Ts[i + 1]! - Ts[i]!);
    return sviAt(raws[i]!, k) + x * (sviAt(raws[i + 1]!, k) - sviAt(raws[i]!, k));
  };
  return {
    raws,
    forward: (days: number) => Math.exp(lnForward(days / DAYS_PER_YEAR)),
    w,
    vol: (days: number, K: number) =>
      Math.sqrt(w(days, Math.log(K / Math.exp(lnForward(days / DAYS_PER_YEAR)))) / (days / DAYS_PER_YEAR)),
  };
}

/** Raises kappa until the slice's minimum total variance is ≥ 0 (it tends to theta as kappa grows). */
function repairSmile(v: number, psi: number, kappa: number, p: number, c: number, T: number): number {
  for (let i = 0; i < 200; i++) {
    const r = docRaw(v, psi, kappa, p, c, T);
    if (r.a + r.b * r.s * Math.sqrt(1 - r.rho ** 2) >= 1e-6 * r.theta) return kappa;
    kappa += Math.abs(kappa) + 0.01;
  }
  throw new Error("could not repair the smile");
}

/** Options of {@link validSurface}. */
export interface SurfaceArbOptions {
  maxBenchmarks?: number;
  /** Keep `sqrt(theta)·max(p, c)` at most 1.5, well under Lee's bound 2 (so deltas down to 0.01 are reached at |k| < 700). */
  lee?: boolean;
}

/** Random surfaces that pass `fromSurface`: 1–6 benchmarks from 1 day to ~5 years, vols 2%–150%, any valid skew, smile and wings. */
export function validSurface(options: SurfaceArbOptions = {}): fc.Arbitrary<WireSurface> {
  const bench = fc.record({
    gap: fc.integer({ min: 1, max: 400 }),
    vol: fc.double({ min: 0.02, max: 1.5, noNaN: true }),
    fwd: fc.double({ min: -0.2, max: 0.2, noNaN: true }),
    p: fc.double({ min: 0.05, max: 3, noNaN: true }),
    c: fc.double({ min: 0.05, max: 3, noNaN: true }),
    u: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
    mu: fc.double({ min: 0.01, max: 3, noNaN: true }),
  });
  return fc
    .record({
      spot: fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
      benchmarks: fc.array(bench, { minLength: 1, maxLength: options.maxBenchmarks ?? 6 }),
    })
    .map(({ spot, benchmarks }) => {
      let day = 0;
      const s: WireSurface = {
        benchmark_fwd_factors: [],
        smiles: [],
        benchmark_maturities: [],
        vols: [],
        call_wings: [],
        put_wings: [],
        skews: [],
        reference_date: "2026-11-20T00:00:00Z",
        spot_ref: spot,
      };
      for (const b of benchmarks) {
        day += b.gap;
        const T = day / DAYS_PER_YEAR;
        const sqrtTheta = b.vol * Math.sqrt(T);
        let { p, c } = b;
        if (options.lee) {
          p = Math.min(p, 1.5 / sqrtTheta);
          c = Math.min(c, 1.5 / sqrtTheta);
        }
        const psi = (-p + b.u * (c + p)) / 2;
        const kappa = repairSmile(b.vol, psi, (-psi * psi + b.mu) / sqrtTheta, p, c, T);
        s.benchmark_maturities.push(day);
        s.benchmark_fwd_factors.push(Math.exp(b.fwd * T));
        s.vols.push(b.vol);
        s.skews.push(psi);
        s.smiles.push(kappa);
        s.put_wings.push(p);
        s.call_wings.push(c);
      }
      return s;
    });
}

/** A realistic 4-benchmark equity surface: the client tests' sample, its date as a date-time. */
export const SAMPLE: WireSurface = { ...surface, reference_date: "2026-11-20T00:00:00Z" };

/** One benchmark at `T = 1` year (365 days) with the model's parameters. */
export function oneYear(
  p: { vol: number; skew: number; smile: number; putWing: number; callWing: number },
  spot = 100,
  fwdFactor = 1,
): WireSurface {
  return {
    benchmark_fwd_factors: [fwdFactor],
    smiles: [p.smile],
    benchmark_maturities: [DAYS_PER_YEAR],
    vols: [p.vol],
    call_wings: [p.callWing],
    put_wings: [p.putWing],
    skews: [p.skew],
    reference_date: "2026-11-20T00:00:00Z",
    spot_ref: spot,
  };
}
