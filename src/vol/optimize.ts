/**
 * A small Levenberg–Marquardt least-squares solver for the calibrator (a handful of parameters, at most a
 * few thousand residual rows): minimises `½·Σ r_j(x)²` with a central-difference Jacobian, Marquardt's
 * diagonal scaling and Nielsen's damping update (K. Madsen, H. B. Nielsen, O. Tingleff, "Methods for
 * non-linear least squares problems", 2nd ed., 2004, §3.2). Penalty rows that are exactly zero (a
 * satisfied constraint written as `max(0, ·)`) have a zero gradient there and are left out of the
 * Jacobian, so a few thousand constraint points cost one evaluation each per step, not six.
 */

/** A least-squares problem `min ½·Σ r_j(x)²` over `x ∈ R^n`. */
export interface LeastSquaresProblem {
  /** Number of parameters `n`. */
  readonly parameters: number;
  /** Number of residual rows. */
  readonly rows: number;
  /**
   * Rows `0 … always − 1` (the data) always enter the Jacobian; the rows after them (penalties of the
   * form `λ·max(0, ·)`) only where they are non-zero at the current point.
   */
  readonly always: number;
  /** Every residual at `x` into `out` (length `rows`). A non-finite value marks `x` as unusable. */
  residuals(x: Float64Array, out: Float64Array): void;
  /**
   * The residuals of rows `which[0 … count − 1]` near `x`, for the Jacobian's central differences:
   * `out[q] = r_{which[q]}(x)`. A penalty row `max(0, f(x))` may give `f(x)` unclamped, so that a point
   * next to the kink gets f's slope rather than half of it.
   */
  residualRows(x: Float64Array, which: Int32Array, count: number, out: Float64Array): void;
  /**
   * Called with the current point before each Jacobian: `residualRows` around it may then hold internal
   * choices fixed (such as where a constraint's minimum over k lies, by the envelope theorem).
   */
  prepare?(x: Float64Array): void;
}

/** Options of {@link levenbergMarquardt}. */
export interface LevenbergMarquardtOptions {
  /** Most iterations (Jacobian evaluations). Default 200. */
  maxIterations?: number;
  /** Stop when `‖Jᵀr‖∞ ≤ gradientTolerance`. Default 1e-15. */
  gradientTolerance?: number;
  /** Stop when a step is below `stepTolerance·(‖x‖ + stepTolerance)`. Default 1e-12. */
  stepTolerance?: number;
  /** Stop when the cost `½·Σ r²` is at most this (an exact fit). Default 1e-30. */
  costTolerance?: number;
}

/** Why {@link levenbergMarquardt} stopped. */
export type StopReason = "cost" | "gradient" | "step" | "maxIterations" | "stalled";

/** What {@link levenbergMarquardt} returns. */
export interface LevenbergMarquardtResult {
  /** The parameters found (a new array). */
  x: Float64Array;
  /** `½·Σ r²` at `x`. */
  cost: number;
  /** Iterations taken (Jacobian evaluations). */
  iterations: number;
  /** True when a tolerance stopped it (not the iteration limit or a stall). */
  converged: boolean;
  reason: StopReason;
}

/** Cost `½·Σ r²`, or Infinity when a residual is not finite. */
function costOf(r: Float64Array): number {
  let s = 0;
  for (let j = 0; j < r.length; j++) s += r[j]! * r[j]!;
  return Number.isFinite(s) ? s / 2 : Infinity;
}

/** Solves the symmetric positive definite system `M·h = b` (n × n, row-major) by Cholesky; false when M is not positive definite. */
export function choleskySolve(M: Float64Array, b: Float64Array, n: number, h: Float64Array): boolean {
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = M[i * n + j]!;
      for (let q = 0; q < j; q++) s -= L[i * n + q]! * L[j * n + q]!;
      if (i === j) {
        if (!(s > 0)) return false;
        L[i * n + i] = Math.sqrt(s);
      } else {
        L[i * n + j] = s / L[j * n + j]!;
      }
    }
  }
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let q = 0; q < i; q++) s -= L[i * n + q]! * h[q]!;
    h[i] = s / L[i * n + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = h[i]!;
    for (let q = i + 1; q < n; q++) s -= L[q * n + i]! * h[q]!;
    h[i] = s / L[i * n + i]!;
  }
  return h.every(Number.isFinite);
}

/**
 * Minimises `½·Σ r_j(x)²` from `x0` by Levenberg–Marquardt. The Jacobian is taken by central differences
 * (step `6e−6·max(1, |x_i|)`, about the cube root of the machine epsilon) over the data rows and the
 * non-zero penalty rows; the damped normal equations `(JᵀJ + μ·D)·h = −Jᵀr` use Marquardt's scaling `D`
 * (the running maximum of diag(JᵀJ)), so the parameters need not share a scale. A zero-residual problem
 * converges quadratically to its exact solution; the stopping rules are those of the options.
 */
export function levenbergMarquardt(problem: LeastSquaresProblem, x0: ArrayLike<number>, options: LevenbergMarquardtOptions = {}): LevenbergMarquardtResult {
  const n = problem.parameters;
  const rowsN = problem.rows;
  const maxIterations = options.maxIterations ?? 200;
  const gradTol = options.gradientTolerance ?? 1e-15;
  const stepTol = options.stepTolerance ?? 1e-12;
  const costTol = options.costTolerance ?? 1e-30;

  const x = Float64Array.from(x0);
  const xNew = new Float64Array(n);
  const r = new Float64Array(rowsN);
  const rNew = new Float64Array(rowsN);
  const which = new Int32Array(rowsN);
  const rPlus = new Float64Array(rowsN);
  const rMinus = new Float64Array(rowsN);
  const J = new Float64Array(rowsN * n);
  const A = new Float64Array(n * n);
  const g = new Float64Array(n);
  const D = new Float64Array(n);
  const M = new Float64Array(n * n);
  const h = new Float64Array(n);
  const negG = new Float64Array(n);
  const xStep = new Float64Array(n);

  problem.residuals(x, r);
  let cost = costOf(r);
  if (!Number.isFinite(cost)) return { x, cost, iterations: 0, converged: false, reason: "stalled" };

  /** The Jacobian rows at x (data and active penalties) into J, A = JᵀJ, g = Jᵀr. */
  let count = 0;
  const linearise = (): void => {
    problem.prepare?.(x);
    count = 0;
    for (let j = 0; j < rowsN; j++) if (j < problem.always || r[j] !== 0) which[count++] = j;
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      const step = 6e-6 * Math.max(1, Math.abs(xi));
      xStep[i] = step;
      x[i] = xi + step;
      problem.residualRows(x, which, count, rPlus);
      x[i] = xi - step;
      problem.residualRows(x, which, count, rMinus);
      x[i] = xi;
      const inv = 1 / (2 * step);
      for (let q = 0; q < count; q++) J[q * n + i] = (rPlus[q]! - rMinus[q]!) * inv;
    }
    A.fill(0);
    g.fill(0);
    for (let q = 0; q < count; q++) {
      const rq = r[which[q]!]!;
      const row = q * n;
      for (let i = 0; i < n; i++) {
        const Ji = J[row + i]!;
        if (!Number.isFinite(Ji)) continue;
        g[i] = g[i]! + Ji * rq;
        for (let k = 0; k <= i; k++) A[i * n + k] = A[i * n + k]! + Ji * J[row + k]!;
      }
    }
    for (let i = 0; i < n; i++) for (let k = 0; k < i; k++) A[k * n + i] = A[i * n + k]!;
  };

  linearise();
  let maxDiag = 0;
  for (let i = 0; i < n; i++) {
    D[i] = A[i * n + i]!;
    maxDiag = Math.max(maxDiag, D[i]!);
  }
  const floorDiag = () => {
    for (let i = 0; i < n; i++) D[i] = Math.max(D[i]!, A[i * n + i]!, 1e-30 * maxDiag, 1e-300);
  };
  floorDiag();
  let mu = 1e-3;
  let nu = 2;
  let iterations = 0;
  const done = (reason: StopReason): LevenbergMarquardtResult => ({
    x,
    cost,
    iterations,
    converged: reason !== "maxIterations" && reason !== "stalled",
    reason,
  });

  for (;;) {
    if (cost <= costTol) return done("cost");
    let gMax = 0;
    for (let i = 0; i < n; i++) gMax = Math.max(gMax, Math.abs(g[i]!));
    if (gMax <= gradTol) return done("gradient");
    if (iterations >= maxIterations) return done("maxIterations");
    iterations++;
    // Inner loop: raise the damping until a step lowers the cost.
    for (;;) {
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < n; k++) M[i * n + k] = A[i * n + k]!;
        M[i * n + i] = M[i * n + i]! + mu * D[i]!;
        negG[i] = -g[i]!;
      }
      if (!choleskySolve(M, negG, n, h)) {
        mu *= nu;
        nu *= 2;
        if (!(mu < 1e300)) return done("stalled");
        continue;
      }
      let hNorm = 0;
      let xNorm = 0;
      for (let i = 0; i < n; i++) {
        hNorm += h[i]! * h[i]!;
        xNorm += x[i]! * x[i]!;
      }
      hNorm = Math.sqrt(hNorm);
      xNorm = Math.sqrt(xNorm);
      if (hNorm <= stepTol * (xNorm + stepTol)) return done("step");
      for (let i = 0; i < n; i++) xNew[i] = x[i]! + h[i]!;
      problem.residuals(xNew, rNew);
      const costNew = costOf(rNew);
      // Decrease predicted by the damped linear model: ½·hᵀ(μ·D·h − g).
      let predicted = 0;
      for (let i = 0; i < n; i++) predicted += h[i]! * (mu * D[i]! * h[i]! - g[i]!);
      predicted /= 2;
      const gain = predicted > 0 ? (cost - costNew) / predicted : -1;
      if (costNew < cost && gain > 0) {
        x.set(xNew);
        r.set(rNew);
        cost = costNew;
        mu *= Math.max(1 / 3, 1 - (2 * gain - 1) ** 3);
        nu = 2;
        linearise();
        floorDiag();
        break;
      }
      mu *= nu;
      nu *= 2;
      if (!(mu < 1e300)) return done("stalled");
    }
  }
}

const GOLD = (Math.sqrt(5) - 1) / 2;

/**
 * The minimum of `f` on `[a, b]` (unimodal there, e.g. a local minimum bracketed by grid neighbours) by
 * golden-section search, until the bracket is narrower than `relTol·max(1, |a|)` or after `maxIterations`:
 * `[x, f(x)]`. Used by `diagnose` to refine the minima of its checks and by `calibrate` for its constraints.
 */
export function goldenSectionMin(f: (x: number) => number, a: number, b: number, relTol: number, maxIterations: number): [number, number] {
  let x1 = b - GOLD * (b - a);
  let x2 = a + GOLD * (b - a);
  let f1 = f(x1);
  let f2 = f(x2);
  for (let i = 0; i < maxIterations && b - a > relTol * Math.max(1, Math.abs(a)); i++) {
    if (f1 <= f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - GOLD * (b - a);
      f1 = f(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + GOLD * (b - a);
      f2 = f(x2);
    }
  }
  return f1 <= f2 ? [x1, f1] : [x2, f2];
}
