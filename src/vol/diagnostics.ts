/**
 * Static-arbitrage diagnostics of a surface's benchmarks (vol-model.md): butterfly (Gatheral–Jacquier's
 * g(k) ≥ 0), calendar (`w_{i+1}(k) ≥ w_i(k)`) and Lee's moment bound on the wings; and marks outside the
 * model's range (a skew or wing it cannot take). Reported, never thrown.
 */
import { VolModelError, fmt } from "./errors";
import { fromSurface, type VolSurfaceModel } from "./surface";
import { toFloat64, type SurfaceLike } from "./surface-input";
import { butterflyG, sviW } from "./svi";

/** One failed check: where (benchmarks, maturities, log-moneyness) and by how much. */
export interface Violation {
  check: "butterfly" | "calendar" | "lee";
  /** Benchmark index (butterfly, Lee) or the consecutive pair `[i, i + 1]` (calendar). */
  benchmarks: number[];
  /** Their maturities in days. */
  maturities: number[];
  /**
   * Log-forward-moneyness of the worst grid point of a failing run (butterfly, calendar); for Lee, the
   * wing (`-Infinity` put wing, `Infinity` call wing, which JSON writes as null: see `wing`).
   */
  k: number;
  /** First and last grid points of the contiguous failing run (`[k, k]` for Lee). */
  kRange: [number, number];
  /** Lee: which wing. */
  wing?: "put" | "call";
  /**
   * The checked quantity at `k`: `g(k)` (butterfly, must be ≥ 0), `w_{i+1}(k) − w_i(k)` (calendar, ≥ 0),
   * or the wing slope of total variance `b(1 ± rho)` (Lee, ≤ 2).
   */
  value: number;
  /** By how much the check fails (> 0): `−g`, `w_i − w_{i+1}`, or `b(1 ± rho) − 2`. */
  amount: number;
  /** One line for people. */
  message: string;
}

/** A mark the model cannot take (a skew, wing or vol outside its range): the surface cannot be evaluated. */
export interface InvalidMark {
  /** 0-based benchmark index, when the mark belongs to one. */
  benchmark?: number;
  /** Its maturity in days. */
  maturity?: number;
  /** The wire field (`skews`, `vols`, …). */
  field?: string;
  /** The condition it breaks, in the notation of vol-model.md. */
  condition: string;
  message: string;
}

/** The report of {@link diagnose}. `ok` when no check fails and every mark is in the model's range. */
export interface ArbitrageReport {
  ok: boolean;
  /** False when a mark is outside the model's range (see `invalid`): the checks could not run. */
  evaluated: boolean;
  /** Marks the model cannot take; empty when the surface is valid. */
  invalid: InvalidMark[];
  butterfly: Violation[];
  calendar: Violation[];
  lee: Violation[];
  /** The log-moneyness grid the butterfly and calendar checks ran on. */
  k: Float64Array;
}

/** Options of {@link diagnose}. */
export interface DiagnoseOptions {
  /** Log-forward-moneyness grid for butterfly and calendar. Default: −3 to 3 in steps of 0.01 (601 points). */
  k?: ArrayLike<number>;
  /**
   * Slack: a check fails only beyond it (`g < −tolerance`, `w_{i+1} − w_i < −tolerance`,
   * `b(1 ± rho) > 2 + tolerance`). Default 1e−12, which keeps rounding noise out of the report.
   */
  tolerance?: number;
}

/** Default butterfly/calendar grid: k from −3 to 3, step 0.01. */
export const DEFAULT_K_GRID = Object.freeze(Array.from({ length: 601 }, (_, i) => (i - 300) / 100));

/** Lee's bound on the slope of total variance in either wing (Lee 2004, moment formula). */
const LEE_BOUND = 2;

/** Contiguous runs of failing grid points of one quantity, each reported at its worst point. */
function runs(
  k: ArrayLike<number>,
  value: (q: number) => number,
  tolerance: number,
  make: (worst: number, value: number, from: number, to: number) => Violation,
): Violation[] {
  const out: Violation[] = [];
  let start = -1;
  let worst = -1;
  const close = (end: number) => {
    out.push(make(k[worst]!, value(worst), k[start]!, k[end]!));
    start = -1;
  };
  for (let q = 0; q < k.length; q++) {
    const v = value(q);
    if (v < -tolerance) {
      if (start < 0) {
        start = q;
        worst = q;
      } else if (v < value(worst)) {
        worst = q;
      }
    } else if (start >= 0) {
      close(q - 1);
    }
  }
  if (start >= 0) close(k.length - 1);
  return out;
}

/**
 * Checks a surface's benchmarks for static arbitrage and reports where and by how much each check fails:
 * - butterfly: `g(k) ≥ 0` (GJ eq. 2.1) for each benchmark on the k grid;
 * - calendar: `w_{i+1}(k) ≥ w_i(k)` for consecutive benchmarks on the same grid (with total-variance
 *   interpolation in T this is exactly what keeps `w(k, T)` non-decreasing in T);
 * - Lee: `b(1 + rho) = sqrt(theta)·c ≤ 2` and `b(1 − rho) = sqrt(theta)·p ≤ 2` for each benchmark.
 * Each failing stretch of the grid is one violation, reported at its worst point. Takes a model or a
 * surface (validated with `fromSurface`, which throws on a surface the model cannot evaluate at all).
 */
export function diagnose(model: VolSurfaceModel | SurfaceLike, options: DiagnoseOptions = {}): ArbitrageReport {
  const k = toFloat64(options.k ?? DEFAULT_K_GRID, "k").slice();
  const tolerance = options.tolerance ?? 1e-12;
  if (!(tolerance >= 0)) throw new VolModelError(`tolerance must be a number >= 0; got ${tolerance}`, { field: "tolerance", condition: "tolerance >= 0" });
  let bms: VolSurfaceModel["benchmarks"];
  try {
    bms = fromSurface(model).benchmarks;
  } catch (error) {
    if (!(error instanceof VolModelError)) throw error;
    return { ok: false, evaluated: false, invalid: [invalidMark(model, error)], butterfly: [], calendar: [], lee: [], k };
  }
  const butterfly: Violation[] = [];
  const calendar: Violation[] = [];
  const lee: Violation[] = [];
  const w: Float64Array[] = bms.map((b) => k.map((kq) => sviW(b, kq)));

  for (const b of bms) {
    const g = k.map((kq) => butterflyG(b, kq));
    butterfly.push(
      ...runs(
        k,
        (q) => g[q]!,
        tolerance,
        (kw, value, from, to) => ({
          check: "butterfly",
          benchmarks: [b.index],
          maturities: [b.maturity],
          k: kw,
          kRange: [from, to],
          value,
          amount: -value,
          message: `benchmark ${b.index} (maturity ${fmt(b.maturity)} d): butterfly g(k) < 0 for k in [${fmt(from)}, ${fmt(to)}], worst g(${fmt(kw)}) = ${fmt(value)}`,
        }),
      ),
    );
    for (const [wing, slope] of [
      ["put", b.b * (1 - b.rho)],
      ["call", b.b * (1 + b.rho)],
    ] as const) {
      if (slope > LEE_BOUND + tolerance) {
        const kw = wing === "put" ? -Infinity : Infinity;
        lee.push({
          check: "lee",
          benchmarks: [b.index],
          maturities: [b.maturity],
          k: kw,
          kRange: [kw, kw],
          wing,
          value: slope,
          amount: slope - LEE_BOUND,
          message: `benchmark ${b.index} (maturity ${fmt(b.maturity)} d): ${wing} wing slope of total variance ${fmt(slope)} exceeds Lee's bound ${LEE_BOUND} by ${fmt(slope - LEE_BOUND)}`,
        });
      }
    }
  }
  for (let i = 0; i + 1 < bms.length; i++) {
    const lo = w[i]!;
    const hi = w[i + 1]!;
    const [a, b] = [bms[i]!, bms[i + 1]!];
    calendar.push(
      ...runs(
        k,
        (q) => hi[q]! - lo[q]!,
        tolerance,
        (kw, value, from, to) => ({
          check: "calendar",
          benchmarks: [i, i + 1],
          maturities: [a.maturity, b.maturity],
          k: kw,
          kRange: [from, to],
          value,
          amount: -value,
          message: `benchmarks ${i} and ${i + 1} (${fmt(a.maturity)} d, ${fmt(b.maturity)} d): total variance falls with maturity for k in [${fmt(from)}, ${fmt(to)}], worst w_${i + 1} − w_${i} = ${fmt(value)} at k = ${fmt(kw)}`,
        }),
      ),
    );
  }
  return { ok: butterfly.length + calendar.length + lee.length === 0, evaluated: true, invalid: [], butterfly, calendar, lee, k };
}

/** The finding for a mark {@link fromSurface} refused. */
function invalidMark(input: VolSurfaceModel | SurfaceLike, error: VolModelError): InvalidMark {
  const maturities = (input as { benchmark_maturities?: unknown }).benchmark_maturities;
  const maturity = error.benchmark !== undefined && Array.isArray(maturities) ? maturities[error.benchmark] : undefined;
  return {
    ...(error.benchmark !== undefined ? { benchmark: error.benchmark } : {}),
    ...(typeof maturity === "number" ? { maturity } : {}),
    ...(error.field !== undefined ? { field: error.field } : {}),
    condition: error.condition,
    message: error.message,
  };
}
