/**
 * A small Levenberg–Marquardt least-squares solver for the calibrator (a handful of parameters, at most a
 * few thousand residual rows): minimises `½·Σ r_j(x)²` with a central-difference Jacobian, Marquardt's
 * diagonal scaling and Nielsen's damping update (K. Madsen, H. B. Nielsen, O. Tingleff, "Methods for
 * non-linear least squares problems", 2nd ed., 2004, §3.2). Penalty rows `max(0, f_j)` (a constraint
 * written as a row that is zero while it holds) enter the linear model as `max(0, f_j + J_j·h)`: the step
 * takes in the rows it would switch on and leaves out those it would switch off (an active set), so the
 * solver neither runs into a constraint it is next to nor bounces off it.
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
  /** The starting damping μ. Default 1e-3; a run that continues an earlier one can pass on its `damping`. */
  damping?: number;
  /**
   * Marquardt's scaling D: `"max"` (default), the running maximum of diag(JᵀJ); `"current"`, diag(JᵀJ) at
   * the current point (floored), so that a direction whose curvature has fallen is damped as little as it
   * now needs.
   */
  scaling?: "max" | "current";
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
  /** The damping μ at the end. */
  damping: number;
}

/** Cost `½·Σ r²`, or Infinity when a residual is not finite. */
function costOf(r: Float64Array): number {
  let s = 0;
  for (let j = 0; j < r.length; j++) s += r[j]! * r[j]!;
  return Number.isFinite(s) ? s / 2 : Infinity;
}

/** `max |v_i|` */
function maxAbs(v: Float64Array): number {
  let m = 0;
  for (let i = 0; i < v.length; i++) m = Math.max(m, Math.abs(v[i]!));
  return m;
}

/** Euclidean norm (no overflow care needed: the parameters are a few numbers of order 1–100). */
function norm(v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
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
 * One Levenberg–Marquardt run (see {@link levenbergMarquardt}): the current point, its residuals, and the
 * linear model there. Penalty rows (`j ≥ always`) are `max(0, f_j)`: the model keeps every one of them,
 * with its unclamped value `u_j = f_j(x)` and slope, and counts it as `½·max(0, u_j + J_j·h)²`. The step
 * solves the damped normal equations of the data rows and the penalty rows that are non-zero at x, then
 * adds any zero row the step would make positive and solves again (an active set), so that a step does
 * not run blindly into a constraint it is next to, nor bounce off it.
 */
class LmRun {
  readonly x: Float64Array;
  cost: number;
  readonly r: Float64Array;
  readonly #problem: LeastSquaresProblem;
  readonly #n: number;
  readonly #rows: number;
  readonly #all: Int32Array;
  /** Unclamped values at x (data rows: the residuals). */
  readonly #u: Float64Array;
  readonly #J: Float64Array;
  readonly #rPlus: Float64Array;
  readonly #rMinus: Float64Array;
  /** JᵀJ and Jᵀu over the data rows and the non-zero penalty rows: the base of every step. */
  readonly A: Float64Array;
  readonly g: Float64Array;
  readonly #M: Float64Array;
  readonly #gs: Float64Array;
  readonly #active: Uint8Array;
  /** Rows in the linear model (see {@link linearise}), listed in `#which[0 … #count − 1]`. */
  readonly #near: Uint8Array;
  readonly #which: Int32Array;
  #count = 0;

  constructor(problem: LeastSquaresProblem, x0: ArrayLike<number>) {
    const n = problem.parameters;
    const rows = problem.rows;
    this.#problem = problem;
    this.#n = n;
    this.#rows = rows;
    this.x = Float64Array.from(x0);
    this.r = new Float64Array(rows);
    this.#all = Int32Array.from({ length: rows }, (_, j) => j);
    this.#u = new Float64Array(rows);
    this.#J = new Float64Array(rows * n);
    this.#rPlus = new Float64Array(rows);
    this.#rMinus = new Float64Array(rows);
    this.A = new Float64Array(n * n);
    this.g = new Float64Array(n);
    this.#M = new Float64Array(n * n);
    this.#gs = new Float64Array(n);
    this.#active = new Uint8Array(rows);
    this.#near = new Uint8Array(rows);
    this.#which = new Int32Array(rows);
    problem.residuals(this.x, this.r);
    this.cost = costOf(this.r);
  }

  /**
   * The unclamped values at x, and the Jacobian (central differences) of the rows that can matter to a
   * step: the data, the non-zero penalty rows, and the zero ones within `10·‖r‖` of switching on (a step
   * of the Gauss–Newton kind moves the residuals by about ‖r‖; the rest stay off). Then the base A, g.
   */
  linearise(): void {
    const { x, r } = this;
    const n = this.#n;
    const rows = this.#rows;
    const always = this.#problem.always;
    const J = this.#J;
    const u = this.#u;
    this.#problem.prepare?.(x);
    this.#problem.residualRows(x, this.#all, rows, u);
    const reach = -10 * Math.sqrt(2 * this.cost);
    let count = 0;
    for (let j = 0; j < rows; j++) {
      // The cost's own values where they are non-zero (the unclamped form may differ in the last digits).
      if (j < always || r[j] !== 0) u[j] = r[j]!;
      const near = j < always || r[j] !== 0 || u[j]! > reach;
      this.#near[j] = near ? 1 : 0;
      if (near) this.#which[count++] = j;
    }
    this.#count = count;
    const which = this.#which;
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      const step = 6e-6 * Math.max(1, Math.abs(xi));
      x[i] = xi + step;
      this.#problem.residualRows(x, which, count, this.#rPlus);
      x[i] = xi - step;
      this.#problem.residualRows(x, which, count, this.#rMinus);
      x[i] = xi;
      const inv = 1 / (2 * step);
      for (let q = 0; q < count; q++) {
        const d = (this.#rPlus[q]! - this.#rMinus[q]!) * inv;
        J[which[q]! * n + i] = Number.isFinite(d) ? d : 0;
      }
    }
    this.A.fill(0);
    this.g.fill(0);
    for (let j = 0; j < rows; j++) {
      const base = j < always || r[j] !== 0;
      this.#active[j] = base ? 1 : 0;
      if (base) this.#addRow(j, this.A, this.g);
    }
  }

  #addRow(j: number, A: Float64Array, g: Float64Array): void {
    const n = this.#n;
    const J = this.#J;
    const uj = this.#u[j]!;
    for (let i = 0; i < n; i++) {
      const Ji = J[j * n + i]!;
      g[i] = g[i]! + Ji * uj;
      for (let k = 0; k < n; k++) A[i * n + k] = A[i * n + k]! + Ji * J[j * n + k]!;
    }
  }

  /** `J_j·h` */
  #slope(j: number, h: Float64Array): number {
    let s = 0;
    for (let i = 0; i < this.#n; i++) s += this.#J[j * this.#n + i]! * h[i]!;
    return s;
  }

  /**
   * The step `h` of damping `mu` (scaling D) for the piecewise model: the penalty rows in it are those the
   * step leaves positive (`u_j + J_j·h > 0`), found by re-solving until that set settles (a few rounds).
   * Undefined when the damped matrix is not positive definite; else the decrease the model predicts.
   */
  step(mu: number, D: Float64Array, h: Float64Array): number | undefined {
    const n = this.#n;
    const always = this.#problem.always;
    const M = this.#M;
    const gs = this.#gs;
    const active = this.#active;
    const damped = new Float64Array(n * n);
    const negG = new Float64Array(n);
    for (let j = always; j < this.#rows; j++) active[j] = this.r[j] !== 0 ? 1 : 0;
    M.set(this.A);
    gs.set(this.g);
    for (let round = 0; ; round++) {
      damped.set(M);
      for (let i = 0; i < n; i++) {
        damped[i * n + i] = damped[i * n + i]! + mu * D[i]!;
        negG[i] = -gs[i]!;
      }
      if (!choleskySolve(damped, negG, n, h)) return undefined;
      let changed = false;
      for (let j = always; j < this.#rows; j++) {
        const on = this.#near[j] && this.#u[j]! + this.#slope(j, h) > 0 ? 1 : 0;
        if (on !== active[j]) changed = true;
        active[j] = on;
      }
      if (!changed || round >= 8) break;
      M.fill(0);
      gs.fill(0);
      for (let j = 0; j < this.#rows; j++) if (j < always || active[j]) this.#addRow(j, M, gs);
    }
    // L(0) − L(h) for the piecewise model: data rows (u + Jh)², penalty rows max(0, u + Jh)².
    let model = 0;
    for (let q = 0; q < this.#count; q++) {
      const j = this.#which[q]!;
      const v = this.#u[j]! + this.#slope(j, h);
      if (j < always || v > 0) model += v * v;
    }
    return this.cost - model / 2;
  }
}

/**
 * Minimises `½·Σ r_j(x)²` from `x0` by Levenberg–Marquardt. The Jacobian is taken by central differences
 * (step `6e−6·max(1, |x_i|)`, about the cube root of the machine epsilon) over every row; the damped
 * normal equations `(JᵀJ + μ·D)·h = −Jᵀr` use Marquardt's scaling `D` (the running maximum of
 * diag(JᵀJ)), so the parameters need not share a scale, and take in the penalty rows a step would switch
 * on ({@link LmRun}). A zero-residual problem converges quadratically to its exact solution; the stopping
 * rules are those of the options.
 */
export function levenbergMarquardt(
  problem: LeastSquaresProblem,
  x0: ArrayLike<number>,
  options: LevenbergMarquardtOptions = {},
): LevenbergMarquardtResult {
  const n = problem.parameters;
  const { maxIterations = 200, gradientTolerance = 1e-15, stepTolerance = 1e-12, costTolerance = 1e-30 } = options;
  const run = new LmRun(problem, x0);
  const { x, A, g } = run;
  let iterations = 0;
  let mu = options.damping ?? 1e-3;
  let nu = 2;
  const done = (reason: StopReason): LevenbergMarquardtResult => ({
    x,
    cost: run.cost,
    iterations,
    converged: reason !== "maxIterations" && reason !== "stalled",
    reason,
    damping: mu,
  });
  if (!Number.isFinite(run.cost)) return done("stalled");
  run.linearise();
  const D = Float64Array.from({ length: n }, (_, i) => A[i * n + i]!);
  const maxDiag = Math.max(...D);
  const floorDiag = () => {
    for (let i = 0; i < n; i++)
      D[i] = Math.max(options.scaling === "current" ? 0 : D[i]!, A[i * n + i]!, 1e-30 * maxDiag, 1e-300);
  };
  floorDiag();
  const h = new Float64Array(n);
  const xNew = new Float64Array(n);
  const rNew = new Float64Array(problem.rows);
  for (;;) {
    if (run.cost <= costTolerance) return done("cost");
    if (maxAbs(g) <= gradientTolerance) return done("gradient");
    if (iterations >= maxIterations) return done("maxIterations");
    iterations++;
    // Inner loop: raise the damping until a step lowers the cost.
    for (;;) {
      const predicted = run.step(mu, D, h);
      if (predicted !== undefined) {
        if (norm(h) <= stepTolerance * (norm(x) + stepTolerance)) return done("step");
        for (let i = 0; i < n; i++) xNew[i] = x[i]! + h[i]!;
        problem.residuals(xNew, rNew);
        const costNew = costOf(rNew);
        const gain = predicted > 0 ? (run.cost - costNew) / predicted : -1;
        if (costNew < run.cost && gain > 0) {
          x.set(xNew);
          run.r.set(rNew);
          run.cost = costNew;
          mu *= Math.max(1 / 3, 1 - (2 * gain - 1) ** 3);
          nu = 2;
          run.linearise();
          floorDiag();
          break;
        }
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
export function goldenSectionMin(
  f: (x: number) => number,
  a: number,
  b: number,
  relTol: number,
  maxIterations: number,
): [number, number] {
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
