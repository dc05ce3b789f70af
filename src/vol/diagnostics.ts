/**
 * Static-arbitrage diagnostics of a surface's benchmarks (vol-model.md): butterfly (Gatheral–Jacquier's
 * g(k) ≥ 0), calendar (`w_{i+1}(k) ≥ w_i(k)`) and Lee's moment bound on the wings; and marks outside the
 * model's range (a skew or wing it cannot take). Reported, never thrown.
 */
import { VolModelError, fmt } from "./errors";
import { LOG_MONEYNESS_LIMIT, fromSurface, type VolSurfaceModel } from "./surface";
import { toFloat64, type SurfaceLike } from "./surface-input";
import { goldenSectionMin } from "./optimize";
import { densityFactor, sviW, sviW1, sviW2, type SviSlice } from "./svi";

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
  /** Lee, and a calendar violation out in a wing: which wing. */
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
  /** `"adaptive"`: per-slice grids, refined at each minimum, with the wings checked analytically (the default); `"given"`: only the points of `options.k`. */
  grid: "adaptive" | "given";
  /** How many points g and the calendar differences were evaluated at, refinements included. */
  points: number;
  /** The given grid (`options.k`); empty for the adaptive grid, which differs per slice. */
  k: Float64Array;
}

/** Options of {@link diagnose}. */
export interface DiagnoseOptions {
  /**
   * Check butterfly and calendar only at these log-forward-moneyness points (no refinement, no wings, no
   * interpolated maturities). Default: adaptive grids, see {@link diagnose}.
   */
  k?: ArrayLike<number>;
  /**
   * Slack: a check fails only beyond it (`g < −tolerance`, `w_{i+1} − w_i < −tolerance`,
   * `b(1 ± rho) > 2 + tolerance`). Default 1e−12, which keeps rounding noise out of the report.
   */
  tolerance?: number;
}

/** A conventional fixed grid, k from −3 to 3 in steps of 0.01 (601 points), for `options.k`; the default is adaptive. */
export const DEFAULT_K_GRID = Object.freeze(Array.from({ length: 601 }, (_, i) => (i - 300) / 100));

/** Lee's bound on the slope of total variance in either wing (Lee 2004, moment formula). */
const LEE_BOUND = 2;

/** The adaptive grid: k = sqrt(theta)·z for |z| ≤ Z_MAX in steps of Z_STEP, and k = m + s·sinh(u) in steps of U_STEP out to |k| = LOG_MONEYNESS_LIMIT. */
const Z_MAX = 10;
const Z_STEP = 0.02;
const U_STEP = 0.04;
/**
 * Where the smiles the model interpolates are checked for butterfly arbitrage: between benchmarks
 * (fractions of the gap) and past the last (multiples of its maturity). `calibrate` holds its fits to the same points.
 */
export const INTERPOLATED_CHECKS = Object.freeze({ between: Object.freeze([0.25, 0.5, 0.75]), pastLast: Object.freeze([1.5, 2, 4]) });
const BETWEEN = INTERPOLATED_CHECKS.between;
const PAST_LAST = INTERPOLATED_CHECKS.pastLast;

/** A slice's total variance and its first two k-derivatives. */
type Smile = (k: number, out: Float64Array) => void;

function sliceSmile(sl: SviSlice): Smile {
  return (k, out) => {
    out[0] = sviW(sl, k);
    out[1] = sviW1(sl, k);
    out[2] = sviW2(sl, k);
  };
}

/** The adaptive grid of one slice, sorted, within |k| ≤ LOG_MONEYNESS_LIMIT. */
function sliceGrid(sl: SviSlice): number[] {
  const out: number[] = [];
  const st = Math.sqrt(sl.theta);
  const nz = Math.round(Z_MAX / Z_STEP);
  for (let i = -nz; i <= nz; i++) out.push(st * i * Z_STEP);
  const U = Math.asinh((LOG_MONEYNESS_LIMIT + Math.abs(sl.m)) / sl.s);
  const nu = Math.ceil(U / U_STEP);
  for (let i = -nu; i <= nu; i++) {
    const k = sl.m + sl.s * Math.sinh((i / nu) * U);
    if (Math.abs(k) <= LOG_MONEYNESS_LIMIT) out.push(k);
  }
  out.push(-LOG_MONEYNESS_LIMIT, LOG_MONEYNESS_LIMIT);
  return sortedUnique(out);
}

function sortedUnique(xs: number[]): number[] {
  xs.sort((a, b) => a - b);
  const out: number[] = [];
  for (const x of xs) if (out.length === 0 || x !== out[out.length - 1]) out.push(x);
  return out;
}

/**
 * `f` on the grid (or `values`, f already evaluated there), plus each interior local minimum refined by golden-section search between its
 * neighbours (so a dip between grid points is found), merged in order. NaN stays NaN.
 */
function sample(grid: readonly number[], f: (k: number) => number, refine: boolean, values?: ArrayLike<number>): { k: number[]; v: number[] } {
  const v = values ? Array.from(values) : grid.map(f);
  if (!refine) return { k: [...grid], v };
  const extra: [number, number][] = [];
  for (let q = 1; q + 1 < grid.length; q++) {
    const c = v[q]!;
    if (c < v[q - 1]! && c <= v[q + 1]!) extra.push(goldenMin(f, grid[q - 1]!, grid[q + 1]!));
  }
  if (extra.length === 0) return { k: [...grid], v };
  const pts = grid.map((k, q) => [k, v[q]!] as [number, number]).concat(extra);
  pts.sort((a, b) => a[0] - b[0]);
  return { k: pts.map((p) => p[0]), v: pts.map((p) => p[1]) };
}

/** The minimum of `f` on [a, b] by golden-section search, to 1e−14 relative: `[k, f(k)]`. */
function goldenMin(f: (k: number) => number, a: number, b: number): [number, number] {
  return goldenSectionMin(f, a, b, 1e-14, 100);
}

/** Contiguous runs of failing points (value < −tolerance, or NaN: undefined counts as failed), each reported at its worst point. */
function runs(
  k: readonly number[],
  value: readonly number[],
  tolerance: number,
  make: (worst: number, value: number, from: number, to: number) => Violation,
): Violation[] {
  const out: Violation[] = [];
  let start = -1;
  let worst = -1;
  const worse = (q: number, than: number) => Number.isNaN(value[q]!) || (!Number.isNaN(value[than]!) && value[q]! < value[than]!);
  for (let q = 0; q <= k.length; q++) {
    const failing = q < k.length && !(value[q]! >= -tolerance);
    if (failing) {
      if (start < 0) {
        start = q;
        worst = q;
      } else if (worse(q, worst)) {
        worst = q;
      }
    } else if (start >= 0) {
      out.push(make(k[worst]!, value[worst]!, k[start]!, k[q - 1]!));
      start = -1;
    }
  }
  return out;
}

/**
 * Checks a surface's benchmarks for static arbitrage and reports where and by how much each check fails:
 * - butterfly: `g(k) ≥ 0` (GJ eq. 2.1) for each benchmark, and for the interpolated smiles at 1/4, 1/2
 *   and 3/4 of the way between consecutive benchmarks and at 1.5, 2 and 4 times the last maturity (the
 *   model interpolates total variance, which does not carry g ≥ 0 over by itself; before the first
 *   benchmark `w = (T/T_1)·w_1`, and g is concave in that factor, so benchmark 0 passing covers it).
 *   A point where g is undefined (total variance 0) fails;
 * - calendar: `w_{i+1}(k) ≥ w_i(k)` for consecutive benchmarks (with total-variance interpolation in T this
 *   is exactly what keeps `w(k, T)` non-decreasing in T), and in each wing beyond the grid from the
 *   asymptotes `w ≈ b(1 ± rho)·|k| + theta − b·(R ± m)`;
 * - Lee: `b(1 + rho) = sqrt(theta)·c ≤ 2` and `b(1 − rho) = sqrt(theta)·p ≤ 2` for each benchmark (this is
 *   also the butterfly condition as |k| → ∞, where g → 1/4 − (b(1 ± rho))²/16).
 *
 * By default every slice gets its own grid, scaled to it: `k = sqrt(theta)·z` for |z| ≤ 10 (step 0.02),
 * and `k = m + s·sinh(u)` out to |k| = 1e4 (step 0.04 in u), so a 1-day slice is sampled as finely as a
 * 5-year one and the wings are covered; each local minimum of g or of a calendar difference is then
 * refined by golden-section search between its neighbours. With `options.k`, only those points are
 * checked. Each failing stretch is one violation, reported at its worst point. Takes a model or a surface
 * (a surface the model cannot evaluate is reported under `invalid`).
 */
export function diagnose(model: VolSurfaceModel | SurfaceLike, options: DiagnoseOptions = {}): ArbitrageReport {
  const given = options.k === undefined ? undefined : Array.from(toFloat64(options.k, "k"));
  const tolerance = options.tolerance ?? 1e-12;
  if (!(tolerance >= 0)) throw new VolModelError(`tolerance must be a number >= 0; got ${tolerance}`, { field: "tolerance", condition: "tolerance >= 0" });
  const k = Float64Array.from(given ?? []);
  const grid = given ? "given" : "adaptive";
  let bms: VolSurfaceModel["benchmarks"];
  try {
    bms = fromSurface(model).benchmarks;
  } catch (error) {
    if (!(error instanceof VolModelError)) throw error;
    return { ok: false, evaluated: false, invalid: [invalidMark(model, error)], butterfly: [], calendar: [], lee: [], grid, points: 0, k };
  }
  const butterfly: Violation[] = [];
  const calendar: Violation[] = [];
  const lee: Violation[] = [];
  let points = 0;
  const grids = bms.map((b) => given ?? sliceGrid(b));
  const tmp = new Float64Array(3);
  const tmp2 = new Float64Array(3);

  /** Butterfly runs of one smile (a benchmark or an interpolated one). */
  const checkButterfly = (
    smile: Smile,
    gridK: readonly number[],
    where: { benchmarks: number[]; maturity: number; label: string },
    values?: ArrayLike<number>,
  ) => {
    const g = (kq: number) => {
      smile(kq, tmp);
      return densityFactor(kq, tmp[0]!, tmp[1]!, tmp[2]!);
    };
    const sampled = sample(gridK, g, !given, values);
    points += sampled.k.length;
    butterfly.push(
      ...runs(sampled.k, sampled.v, tolerance, (kw, value, from, to) => ({
        check: "butterfly",
        benchmarks: where.benchmarks,
        maturities: [where.maturity],
        k: kw,
        kRange: [from, to],
        value,
        amount: -value,
        message: `${where.label}: butterfly g(k) < 0 for k in [${fmt(from)}, ${fmt(to)}], worst g(${fmt(kw)}) = ${Number.isNaN(value) ? "undefined (total variance 0)" : fmt(value)}`,
      })),
    );
  };

  for (const b of bms) {
    checkButterfly(sliceSmile(b), grids[b.index]!, {
      benchmarks: [b.index],
      maturity: b.maturity,
      label: `benchmark ${b.index} (maturity ${fmt(b.maturity)} d)`,
    });
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
    const [lo, hi] = [bms[i]!, bms[i + 1]!];
    const gridK = given ?? sortedUnique([...grids[i]!, ...grids[i + 1]!]);
    // Both smiles and their k-derivatives on the pair's grid, once: the calendar difference and the
    // interpolated smiles below are combinations of these (only refinements evaluate afresh).
    const [wl, wh] = [sliceSmile(lo), sliceSmile(hi)];
    const nk = gridK.length;
    const L = [new Float64Array(nk), new Float64Array(nk), new Float64Array(nk)];
    const H = [new Float64Array(nk), new Float64Array(nk), new Float64Array(nk)];
    for (let q = 0; q < nk; q++) {
      wl(gridK[q]!, tmp);
      wh(gridK[q]!, tmp2);
      for (let d = 0; d < 3; d++) {
        L[d]![q] = tmp[d]!;
        H[d]![q] = tmp2[d]!;
      }
    }
    const diff = H[0]!.map((h, q) => h - L[0]![q]!);
    const sampled = sample(gridK, (kq) => sviW(hi, kq) - sviW(lo, kq), !given, diff);
    points += sampled.k.length;
    const found = runs(sampled.k, sampled.v, tolerance, (kw, value, from, to) => ({
      check: "calendar",
      benchmarks: [i, i + 1],
      maturities: [lo.maturity, hi.maturity],
      k: kw,
      kRange: [from, to],
      value,
      amount: -value,
      message: `benchmarks ${i} and ${i + 1} (${fmt(lo.maturity)} d, ${fmt(hi.maturity)} d): total variance falls with maturity for k in [${fmt(from)}, ${fmt(to)}], worst w_${i + 1} − w_${i} = ${fmt(value)} at k = ${fmt(kw)}`,
    }));
    if (!given) {
      for (const wing of ["put", "call"] as const) {
        const v = wingCalendar(lo, hi, wing, tolerance, i);
        if (!v) continue;
        const edge = wing === "call" ? LOG_MONEYNESS_LIMIT : -LOG_MONEYNESS_LIMIT;
        const touching = found.find((f) => f.kRange[wing === "call" ? 1 : 0] === edge);
        if (touching) {
          touching.kRange[wing === "call" ? 1 : 0] = wing === "call" ? Infinity : -Infinity;
          touching.wing = wing;
          touching.message += `, and on out to k = ${wing === "call" ? "+" : "-"}Infinity (${v.why})`;
        } else {
          found.push(v.violation);
        }
      }
    }
    calendar.push(...found);

    if (!given) {
      const tmp3 = new Float64Array(3);
      for (const x of BETWEEN) {
        const days = lo.maturity + x * (hi.maturity - lo.maturity);
        const smile: Smile = (kq, out) => {
          wl(kq, tmp3);
          wh(kq, out);
          for (let d = 0; d < 3; d++) out[d] = (1 - x) * tmp3[d]! + x * out[d]!;
        };
        const values = new Float64Array(nk);
        for (let q = 0; q < nk; q++) {
          const c = (d: number) => (1 - x) * L[d]![q]! + x * H[d]![q]!;
          values[q] = densityFactor(gridK[q]!, c(0), c(1), c(2));
        }
        checkButterfly(
          smile,
          gridK,
          {
            benchmarks: [i, i + 1],
            maturity: days,
            label: `between benchmarks ${i} and ${i + 1}, at the interpolated maturity ${fmt(days)} d`,
          },
          values,
        );
      }
    }
  }
  if (!given && bms.length > 0) {
    const last = bms[bms.length - 1]!;
    const wl = sliceSmile(last);
    for (const r of PAST_LAST) {
      const add = last.theta * (r - 1);
      const smile: Smile = (kq, out) => {
        wl(kq, out);
        out[0] = out[0]! + add;
      };
      checkButterfly(smile, grids[last.index]!, {
        benchmarks: [last.index],
        maturity: last.maturity * r,
        label: `past the last benchmark, at maturity ${fmt(last.maturity * r)} d`,
      });
    }
  }
  return { ok: butterfly.length + calendar.length + lee.length === 0, evaluated: true, invalid: [], butterfly, calendar, lee, grid, points, k };
}

/**
 * Calendar arbitrage in one wing beyond any grid, from the asymptotes `w(k) ≈ S·|k| + I` with
 * `S = b(1 ± rho)`, `I = theta − b·(R ± m)` (call +, put −): it fails when the later slice's slope is lower
 * (beyond rounding) or, with equal slopes, its intercept is.
 */
function wingCalendar(lo: SviSlice & { maturity: number }, hi: SviSlice & { maturity: number }, wing: "put" | "call", tolerance: number, i: number) {
  const sign = wing === "call" ? 1 : -1;
  const asym = (sl: SviSlice) => {
    const R = Math.hypot(sl.m, sl.s);
    return { S: sl.b * (1 + sign * sl.rho), I: sl.theta - sl.b * (R + sign * sl.m) };
  };
  const [a, b] = [asym(lo), asym(hi)];
  const dS = b.S - a.S;
  const dI = b.I - a.I;
  const slack = tolerance + 1e-12 * Math.max(a.S, b.S);
  let why: string;
  let value: number;
  let from: number;
  if (dS < -slack) {
    // w_hi − w_lo ≈ dS·|k| + dI: negative beyond |k| = dI/(−dS) (or everywhere out there if dI < 0).
    from = sign * Math.max(0, dI / -dS);
    value = dS;
    why = `the later slice's ${wing} wing slope of total variance is lower by ${fmt(-dS)}`;
  } else if (dS <= slack && dI < -tolerance) {
    from = sign * LOG_MONEYNESS_LIMIT;
    value = dI;
    why = `equal ${wing} wing slopes, and the later slice's asymptote lies ${fmt(-dI)} lower`;
  } else {
    return undefined;
  }
  const kw = sign * Infinity;
  const violation: Violation = {
    check: "calendar",
    benchmarks: [i, i + 1],
    maturities: [lo.maturity, hi.maturity],
    k: kw,
    kRange: wing === "call" ? [from, Infinity] : [-Infinity, from],
    wing,
    value,
    amount: -value,
    message: `benchmarks ${i} and ${i + 1} (${fmt(lo.maturity)} d, ${fmt(hi.maturity)} d): total variance falls with maturity in the ${wing} wing, for ${wing === "call" ? "k >" : "k <"} ${fmt(from)}: ${why}`,
  };
  return { violation, why };
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
