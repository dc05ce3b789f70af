/**
 * A fitted slice checked as the surface will hold it, by diagnose's own checks, and what the fit
 * keeps of a solve.
 */
import type { CheckedSlice, DiagnoseCache } from "../diagnostics";
import { VolModelError } from "../errors";
import type { LevenbergMarquardtResult } from "../optimize";
import { rawSvi, type SliceParams } from "../svi";
import { FAR_K } from "./constraints";
import { CALIBRATION_MARGINS, type CalibrationConstraint } from "./options";
import type { ParsedSmile } from "./quotes";
import { addPressed, asymptote, decode, totalVariance, type Slice, type SliceSpace } from "./slice";

/**
 * A fitted slice as the surface will hold it: its wire parameters read back as `fromSurface` reads them
 * (raw SVI from `rawSvi`, `theta = v²·T`), which is what diagnose checks. Undefined when the model refuses
 * them (rounding at the edge of its range).
 */
export function checkedSlice(sl: Slice, index: number, maturity: number): CheckedSlice | undefined {
  const params: SliceParams = {
    vol: sl.vol,
    skew: sl.skew,
    smile: sl.smile,
    putWing: sl.putWing,
    callWing: sl.callWing,
  };
  try {
    const { b, rho, m, s } = rawSvi(params, sl.T);
    return { index, maturity, theta: sl.vol * sl.vol * sl.T, b, rho, m, s };
  } catch (error) {
    if (error instanceof VolModelError) return undefined;
    throw error;
  }
}

/**
 * Where a slice is checked: the smile, its neighbour fitted before it as the surface holds it (`prev` the
 * shorter maturity in the shortest-first pass, `next` the longer in the longest-first one), whether it is
 * the last, and the checks kept for the final report.
 */
export interface CheckContext {
  q: ParsedSmile;
  prev: CheckedSlice | undefined;
  next?: CheckedSlice | undefined;
  last: boolean;
  cache: DiagnoseCache;
}

/**
 * The check of a fitted slice: diagnose's own checks of it, as the surface will hold it (its butterfly;
 * calendar and the interpolated smiles' butterfly against the previous slice; the smiles past the last),
 * on diagnose's grids with every local minimum refined; they are kept for the final report. `failed` when
 * a true condition (`g ≥ 0`, `w_i ≥ w_{i−1}`) fails anywhere; `points`: where a constraint is below its
 * margin (the failures and the refined minima), for the constraint grid.
 */
export function check(sl: Slice, at: CheckContext): { failed: boolean; points: number[]; clear: boolean } {
  const cur = checkedSlice(sl, at.q.index, at.q.maturity);
  if (!cur) return { failed: true, points: [], clear: false };
  const points: number[] = [];
  let failed = false;
  let clear = true;
  const shorter = at.prev ?? (at.next ? cur : undefined);
  const calMargin = shorter
    ? CALIBRATION_MARGINS.calendarRelative * shorter.theta + CALIBRATION_MARGINS.calendarAbsolute
    : 0;
  at.cache.check(
    cur,
    at.prev,
    at.last,
    (kind, grid, values, extraK, extraV) => {
      const margin = kind === "calendar" ? calMargin : CALIBRATION_MARGINS.butterfly;
      const clearOf = CLEAR * margin;
      for (let j = 0; j < grid.length; j++) {
        const v = values[j]!;
        if (!(v >= clearOf)) clear = false;
        if (v >= 0) continue;
        failed = true;
        points.push(grid[j]!);
      }
      for (let j = 0; j < extraK.length; j++) {
        const v = extraV[j]!;
        if (!(v >= clearOf)) clear = false;
        if (!(v >= 0)) failed = true;
        if (!(v >= margin)) points.push(extraK[j]!);
      }
    },
    at.next,
  );
  return { failed, points, clear: clear && !failed };
}

/**
 * How far clear of its margin each constraint must be, on diagnose's checks, for the unconstrained fit to
 * be taken as the constrained one (its penalty rows would all be 0 there, so the constrained solve would
 * not move it).
 */
const CLEAR = 10;

/** Weighted sum of squared vol errors of a slice. */
export function dataCost(q: ParsedSmile, sl: Slice): number {
  let cost = 0;
  for (let j = 0; j < q.k.length; j++)
    cost += (q.sw[j]! * (Math.sqrt(totalVariance(sl, q.k[j]!) / q.T) - q.vols[j]!)) ** 2;
  return cost;
}

/**
 * The unconstrained fit as the constrained one, when it converged and diagnose's checks find every
 * constraint (butterfly, calendar, the interpolated smiles, and the wing asymptotes against the previous
 * slice) at least {@link CLEAR} times its margin inside: there the constrained problem's penalty rows are
 * all 0 and its solve would stop where it starts. Undefined otherwise (the constrained solve runs).
 */
export function clearFit(at: CheckContext, space: SliceSpace, prev: Slice | undefined, free: LevenbergMarquardtResult) {
  if (!free.converged) return undefined;
  const sl = decode(free.x, space);
  if (!sl.valid) return undefined;
  if (prev) {
    for (const wing of ["put", "call"] as const) {
      const [a, b] = [asymptote(prev, wing), asymptote(sl, wing)];
      if (!(space.dir * ((b.S - a.S) * FAR_K + (b.I - a.I)) >= CLEAR * CALIBRATION_MARGINS.asymptote)) return undefined;
    }
  }
  if (!check(sl, at).clear) return undefined;
  const active = new Set<CalibrationConstraint>();
  addPressed(sl, space, active);
  const solve: SliceSolve = {
    x: free.x,
    iterations: 0,
    converged: true,
    passed: true,
    active,
    dataCost: dataCost(at.q, sl),
  };
  return solve;
}

/** The outcome of one constrained solve of a slice. */
export interface SliceSolve {
  x: Float64Array;
  iterations: number;
  /** The solver stopped on a tolerance and the slice passed the fine-grid check. */
  converged: boolean;
  /** The slice passed the fine-grid check. */
  passed: boolean;
  active: Set<CalibrationConstraint>;
  /** Weighted sum of squared vol errors. */
  dataCost: number;
}
