/**
 * Static-arbitrage diagnostics of a surface's benchmarks (vol-model.md): butterfly (Gatheral–Jacquier's
 * g(k) ≥ 0), calendar (`w_{i+1}(k) ≥ w_i(k)`) and Lee's moment bound on the wings; and marks outside the
 * model's range (a skew or wing it cannot take). Reported, never thrown.
 */
import { VolModelError, fmt } from "./errors";
import { LOG_MONEYNESS_LIMIT, fromSurface, type Benchmark, type VolSurfaceModel } from "./surface";
import { toFloat64, type SurfaceLike } from "./surface-input";
import { goldenSectionMin } from "./optimize";
import { densityFactor, type SviSlice } from "./svi";

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
export const INTERPOLATED_CHECKS = Object.freeze({
  between: Object.freeze([0.25, 0.5, 0.75]),
  pastLast: Object.freeze([1.5, 2, 4]),
});
const BETWEEN = INTERPOLATED_CHECKS.between;
const PAST_LAST = INTERPOLATED_CHECKS.pastLast;

/**
 * `sqrt(x² + y²)` as V8's `Math.hypot` computes it for two finite arguments (both scaled by the larger
 * magnitude, then `sqrt(p² + q²)·max`), so the same double, without the builtin call.
 */
function hypot2(x: number, y: number): number {
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  const max = ax > ay ? ax : ay;
  if (!(max > 0 && max < Infinity)) return Math.hypot(x, y);
  const p = ax / max;
  const q = ay / max;
  return Math.sqrt(p * p + q * q) * max;
}

/**
 * A slice's total variance `w` and its first two k-derivatives, evaluated with exactly the operations of
 * `sviW`, `sviW1` and `sviW2` (so the same doubles), sharing `sqrt((k − m)² + s²)` between them and
 * `sqrt(m² + s²)` across points: the hot loop of {@link diagnose}.
 */
class SliceSmile {
  readonly #theta: number;
  readonly #b: number;
  readonly #rho: number;
  readonly #m: number;
  readonly #s: number;
  readonly #alpha: number;
  readonly #M: number;
  readonly #sAlpha: number;
  readonly #rAlpha: number;
  readonly #bOverS: number;

  constructor(sl: SviSlice) {
    this.#theta = sl.theta;
    this.#b = sl.b;
    this.#rho = sl.rho;
    this.#m = sl.m;
    this.#s = sl.s;
    const R = Math.hypot(sl.m, sl.s);
    this.#alpha = R > 1 ? 1 / R : 1;
    this.#M = sl.m * this.#alpha;
    this.#sAlpha = sl.s * this.#alpha;
    this.#rAlpha = R * this.#alpha;
    this.#bOverS = sl.b / sl.s;
  }

  /** `w(k)` as `sviW` computes it; `h` is `hypot(k − m, s)` when known (it is the centred term's root when alpha = 1). */
  w(k: number, h?: number): number {
    const alpha = this.#alpha;
    const ka = k * alpha;
    const root = h !== undefined && alpha === 1 ? h : hypot2(ka - this.#M, this.#sAlpha);
    return this.#theta + this.#b * (this.#rho * k + (k * (ka - 2 * this.#M)) / (root + this.#rAlpha));
  }

  /** w, w', w'' at k into out[0..2]. */
  at(k: number, out: Float64Array): void {
    const d = k - this.#m;
    const h = hypot2(d, this.#s);
    out[0] = this.w(k, h);
    out[1] = this.#b * (this.#rho + d / h);
    const r = this.#s / h;
    out[2] = this.#bOverS * r * r * r;
  }
}

/** w, w', w'' of a smile at each grid point: three arrays. */
type SmileValues = [Float64Array, Float64Array, Float64Array];

function evaluateOn(smile: SliceSmile, grid: Float64Array): SmileValues {
  const n = grid.length;
  const out: SmileValues = [new Float64Array(n), new Float64Array(n), new Float64Array(n)];
  const tmp = new Float64Array(3);
  for (let q = 0; q < n; q++) {
    smile.at(grid[q]!, tmp);
    out[0][q] = tmp[0]!;
    out[1][q] = tmp[1]!;
    out[2][q] = tmp[2]!;
  }
  return out;
}

/** The adaptive grid of one slice, sorted, within |k| ≤ LOG_MONEYNESS_LIMIT. */
function sliceGrid(sl: SviSlice): Float64Array {
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
  return sortedUnique(Float64Array.from(out));
}

/** The values sorted ascending, each once. (No grid here holds −0 or NaN, so the typed sort orders them as a comparison sort would.) */
function sortedUnique(xs: Float64Array): Float64Array {
  xs.sort();
  let n = 0;
  for (let j = 0; j < xs.length; j++) if (n === 0 || xs[j] !== xs[n - 1]) xs[n++] = xs[j]!;
  return xs.slice(0, n);
}

/** Work arrays of the pair checks, reused from pair to pair (at least `n` long). */
class PairScratch {
  n = 0;
  grid = new Float64Array(0);
  fromA = new Int32Array(0);
  fromB = new Int32Array(0);
  L: SmileValues = [new Float64Array(0), new Float64Array(0), new Float64Array(0)];
  H: SmileValues = [new Float64Array(0), new Float64Array(0), new Float64Array(0)];
  diff = new Float64Array(0);
  g = new Float64Array(0);

  reserve(n: number): void {
    if (this.n >= n) return;
    const f = () => new Float64Array(n);
    Object.assign(this, {
      n,
      grid: f(),
      fromA: new Int32Array(n),
      fromB: new Int32Array(n),
      L: [f(), f(), f()],
      H: [f(), f(), f()],
      diff: f(),
      g: f(),
    });
  }
}

/**
 * The union of two sorted grids into `out.grid`, each value once, and where each point came from
 * (`fromA[q]`: index in `a` or −1; likewise `fromB`), so that values already computed on either grid are
 * reused. Returns the number of points.
 */
function mergeGrids(a: Float64Array, b: Float64Array, out: PairScratch): number {
  out.reserve(a.length + b.length);
  const { grid, fromA, fromB } = out;
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    fromA[n] = -1;
    fromB[n] = -1;
    if (i < a.length && (j >= b.length || x <= y)) {
      grid[n] = x;
      fromA[n] = i++;
      if (j < b.length && y === x) fromB[n] = j++;
    } else {
      grid[n] = y;
      fromB[n] = j++;
    }
    n++;
  }
  return n;
}

/** A smile's values on the first `n` points of a merged grid into `out`: copied from its own grid where the point is one of its own, computed elsewhere. */
function valuesOnMerged(
  smile: SliceSmile,
  grid: Float64Array,
  n: number,
  own: SmileValues,
  from: Int32Array,
  out: SmileValues,
): void {
  const tmp = new Float64Array(3);
  for (let q = 0; q < n; q++) {
    const i = from[q]!;
    if (i >= 0) {
      out[0][q] = own[0][i]!;
      out[1][q] = own[1][i]!;
      out[2][q] = own[2][i]!;
    } else {
      smile.at(grid[q]!, tmp);
      out[0][q] = tmp[0]!;
      out[1][q] = tmp[1]!;
      out[2][q] = tmp[2]!;
    }
  }
}

/**
 * `values` (f on the grid) plus each interior local minimum refined by golden-section search between its
 * neighbours (so a dip between grid points is found), merged in order (a refined point after a grid point
 * at the same k). NaN stays NaN.
 */
function sample(
  grid: Float64Array,
  values: Float64Array,
  f: (k: number) => number,
  refine: boolean,
): { k: Float64Array; v: Float64Array } {
  if (!refine) return { k: grid, v: values };
  const extraK: number[] = [];
  const extraV: number[] = [];
  for (let q = 1; q + 1 < grid.length; q++) {
    const c = values[q]!;
    if (c < values[q - 1]! && c <= values[q + 1]!) {
      const [km, vm] = goldenMin(f, grid[q - 1]!, grid[q + 1]!);
      extraK.push(km);
      extraV.push(vm);
    }
  }
  if (extraK.length === 0) return { k: grid, v: values };
  const n = grid.length + extraK.length;
  const k = new Float64Array(n);
  const v = new Float64Array(n);
  // Both are in order (local minima are at least two points apart, each refined between its neighbours).
  for (let i = 0, j = 0, o = 0; o < n; o++) {
    if (j >= extraK.length || (i < grid.length && grid[i]! <= extraK[j]!)) {
      k[o] = grid[i]!;
      v[o] = values[i++]!;
    } else {
      k[o] = extraK[j]!;
      v[o] = extraV[j++]!;
    }
  }
  return { k, v };
}

/** The minimum of `f` on [a, b] by golden-section search, to 1e−14 relative: `[k, f(k)]`. */
function goldenMin(f: (k: number) => number, a: number, b: number): [number, number] {
  return goldenSectionMin(f, a, b, 1e-14, 100);
}

/** Contiguous runs of failing points (value < −tolerance, or NaN: undefined counts as failed), each reported at its worst point. */
function runs(
  k: ArrayLike<number>,
  value: ArrayLike<number>,
  tolerance: number,
  make: (worst: number, value: number, from: number, to: number) => Violation,
): Violation[] {
  const out: Violation[] = [];
  let start = -1;
  let worst = -1;
  const worse = (q: number, than: number) =>
    Number.isNaN(value[q]!) || (!Number.isNaN(value[than]!) && value[q]! < value[than]!);
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

/** What one {@link diagnose} run collects. */
interface Findings {
  butterfly: Violation[];
  calendar: Violation[];
  lee: Violation[];
  points: number;
  /** True for the adaptive grid (refinement, wings, interpolated smiles). */
  adaptive: boolean;
  tolerance: number;
  scratch: PairScratch;
}

/** Where a butterfly check is: for the messages. */
interface Where {
  benchmarks: number[];
  maturity: number;
  label: string;
}

/** g at each grid point from w, w', w'' there (into `out`). */
function gOn(
  grid: Float64Array,
  w0: Float64Array,
  w1: Float64Array,
  w2: Float64Array,
  add: number,
  out: Float64Array,
): Float64Array {
  for (let q = 0; q < grid.length; q++)
    out[q] = densityFactor(grid[q]!, add === 0 ? w0[q]! : w0[q]! + add, w1[q]!, w2[q]!);
  return out;
}

/**
 * Butterfly runs of one smile (a benchmark or an interpolated one): `g` its values on the grid, and
 * `smileAt` (the same smile at any k) for the refinements.
 */
function checkButterfly(
  found: Findings,
  grid: Float64Array,
  g: Float64Array,
  smileAt: (k: number, out: Float64Array) => void,
  where: Where,
): void {
  const tmp = new Float64Array(3);
  const gAt = (kq: number) => {
    smileAt(kq, tmp);
    return densityFactor(kq, tmp[0]!, tmp[1]!, tmp[2]!);
  };
  const sampled = sample(grid, g, gAt, found.adaptive);
  found.points += sampled.k.length;
  found.butterfly.push(
    ...runs(sampled.k, sampled.v, found.tolerance, (kw, value, from, to) => ({
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
}

/** Lee's bound on both wings of one benchmark. */
function checkLee(found: Findings, b: Benchmark): void {
  for (const [wing, slope] of [
    ["put", b.b * (1 - b.rho)],
    ["call", b.b * (1 + b.rho)],
  ] as const) {
    if (!(slope > LEE_BOUND + found.tolerance)) continue;
    const kw = wing === "put" ? -Infinity : Infinity;
    found.lee.push({
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

/** One benchmark, smile and grid, with its values there. */
interface Evaluated {
  b: Benchmark;
  smile: SliceSmile;
  grid: Float64Array;
  values: SmileValues;
}

/** Calendar between consecutive benchmarks on their merged grid (and in the wings), and the butterfly of the smiles interpolated between them. */
function checkPair(found: Findings, i: number, lo: Evaluated, hi: Evaluated): void {
  const scratch = found.scratch;
  let nk: number;
  if (found.adaptive) {
    nk = mergeGrids(lo.grid, hi.grid, scratch);
  } else {
    nk = lo.grid.length;
    scratch.reserve(nk);
    scratch.grid.set(lo.grid);
    for (let q = 0; q < nk; q++) scratch.fromA[q] = scratch.fromB[q] = q;
  }
  const grid = scratch.grid.subarray(0, nk);
  const { L, H, diff: diffAll, g: gAll } = scratch;
  valuesOnMerged(lo.smile, grid, nk, lo.values, scratch.fromA, L);
  valuesOnMerged(hi.smile, grid, nk, hi.values, scratch.fromB, H);
  const diff = diffAll.subarray(0, nk);
  for (let q = 0; q < nk; q++) diff[q] = H[0][q]! - L[0][q]!;
  const sampled = sample(grid, diff, (kq) => hi.smile.w(kq) - lo.smile.w(kq), found.adaptive);
  found.points += sampled.k.length;
  const [a, b] = [lo.b, hi.b];
  const violations = runs(sampled.k, sampled.v, found.tolerance, (kw, value, from, to) => ({
    check: "calendar",
    benchmarks: [i, i + 1],
    maturities: [a.maturity, b.maturity],
    k: kw,
    kRange: [from, to],
    value,
    amount: -value,
    message: `benchmarks ${i} and ${i + 1} (${fmt(a.maturity)} d, ${fmt(b.maturity)} d): total variance falls with maturity for k in [${fmt(from)}, ${fmt(to)}], worst w_${i + 1} − w_${i} = ${fmt(value)} at k = ${fmt(kw)}`,
  }));
  if (found.adaptive) addWingCalendar(violations, a, b, found.tolerance, i);
  found.calendar.push(...violations);
  if (!found.adaptive) return;
  const tmp3 = new Float64Array(3);
  const g = gAll.subarray(0, nk);
  for (const x of BETWEEN) {
    const days = a.maturity + x * (b.maturity - a.maturity);
    const smileAt = (kq: number, out: Float64Array) => {
      lo.smile.at(kq, tmp3);
      hi.smile.at(kq, out);
      for (let d = 0; d < 3; d++) out[d] = (1 - x) * tmp3[d]! + x * out[d]!;
    };
    const y = 1 - x;
    for (let q = 0; q < nk; q++)
      g[q] = densityFactor(
        grid[q]!,
        y * L[0][q]! + x * H[0][q]!,
        y * L[1][q]! + x * H[1][q]!,
        y * L[2][q]! + x * H[2][q]!,
      );
    checkButterfly(found, grid, g, smileAt, {
      benchmarks: [i, i + 1],
      maturity: days,
      label: `between benchmarks ${i} and ${i + 1}, at the interpolated maturity ${fmt(days)} d`,
    });
  }
}

/** The calendar check in each wing beyond the grid, joined to a failing run that reaches the grid's end. */
function addWingCalendar(found: Violation[], lo: Benchmark, hi: Benchmark, tolerance: number, i: number): void {
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

/** The butterfly of the smiles past the last benchmark (`w_n + theta_n·(r − 1)`). */
function checkPastLast(found: Findings, last: Evaluated): void {
  const n = last.grid.length;
  for (const r of PAST_LAST) {
    const add = last.b.theta * (r - 1);
    const g = gOn(last.grid, last.values[0], last.values[1], last.values[2], add, new Float64Array(n));
    const smileAt = (kq: number, out: Float64Array) => {
      last.smile.at(kq, out);
      out[0] = out[0]! + add;
    };
    checkButterfly(found, last.grid, g, smileAt, {
      benchmarks: [last.b.index],
      maturity: last.b.maturity * r,
      label: `past the last benchmark, at maturity ${fmt(last.b.maturity * r)} d`,
    });
  }
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
  const given = options.k === undefined ? undefined : toFloat64(options.k, "k");
  const tolerance = options.tolerance ?? 1e-12;
  if (!(tolerance >= 0))
    throw new VolModelError(`tolerance must be a number >= 0; got ${tolerance}`, {
      field: "tolerance",
      condition: "tolerance >= 0",
    });
  const k = Float64Array.from(given ?? []);
  const grid = given ? "given" : "adaptive";
  let bms: VolSurfaceModel["benchmarks"];
  try {
    bms = fromSurface(model).benchmarks;
  } catch (error) {
    if (!(error instanceof VolModelError)) throw error;
    return {
      ok: false,
      evaluated: false,
      invalid: [invalidMark(model, error)],
      butterfly: [],
      calendar: [],
      lee: [],
      grid,
      points: 0,
      k,
    };
  }
  const found: Findings = {
    butterfly: [],
    calendar: [],
    lee: [],
    points: 0,
    adaptive: !given,
    tolerance,
    scratch: new PairScratch(),
  };
  const slices: Evaluated[] = bms.map((b) => {
    const smile = new SliceSmile(b);
    const g = given ? Float64Array.from(given) : sliceGrid(b);
    return { b, smile, grid: g, values: evaluateOn(smile, g) };
  });
  for (const s of slices) {
    const [w0, w1, w2] = s.values;
    checkButterfly(
      found,
      s.grid,
      gOn(s.grid, w0, w1, w2, 0, new Float64Array(s.grid.length)),
      (kq, out) => s.smile.at(kq, out),
      {
        benchmarks: [s.b.index],
        maturity: s.b.maturity,
        label: `benchmark ${s.b.index} (maturity ${fmt(s.b.maturity)} d)`,
      },
    );
    checkLee(found, s.b);
  }
  for (let i = 0; i + 1 < slices.length; i++) checkPair(found, i, slices[i]!, slices[i + 1]!);
  if (found.adaptive && slices.length > 0) checkPastLast(found, slices[slices.length - 1]!);
  const { butterfly, calendar, lee, points } = found;
  return {
    ok: butterfly.length + calendar.length + lee.length === 0,
    evaluated: true,
    invalid: [],
    butterfly,
    calendar,
    lee,
    grid,
    points,
    k,
  };
}

/**
 * Calendar arbitrage in one wing beyond any grid, from the asymptotes `w(k) ≈ S·|k| + I` with
 * `S = b(1 ± rho)`, `I = theta − b·(R ± m)` (call +, put −): it fails when the later slice's slope is lower
 * (beyond rounding) or, with equal slopes, its intercept is.
 */
function wingCalendar(
  lo: SviSlice & { maturity: number },
  hi: SviSlice & { maturity: number },
  wing: "put" | "call",
  tolerance: number,
  i: number,
) {
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
