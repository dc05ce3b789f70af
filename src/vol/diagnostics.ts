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

/**
 * The adaptive grid of one slice, sorted, within |k| ≤ LOG_MONEYNESS_LIMIT: the z points and the sinh
 * points are each ascending already, so they are merged; should rounding ever break their order, they are
 * sorted instead (the same points either way).
 */
function sliceGrid(sl: SviSlice): Float64Array {
  const st = Math.sqrt(sl.theta);
  const nz = Math.round(Z_MAX / Z_STEP);
  const z = new Float64Array(2 * nz + 1);
  for (let i = -nz; i <= nz; i++) z[i + nz] = st * i * Z_STEP;
  const U = Math.asinh((LOG_MONEYNESS_LIMIT + Math.abs(sl.m)) / sl.s);
  const nu = Math.ceil(U / U_STEP);
  const u = new Float64Array(2 * nu + 3);
  let n = 0;
  u[n++] = -LOG_MONEYNESS_LIMIT;
  for (let i = -nu; i <= nu; i++) {
    const k = sl.m + sl.s * Math.sinh((i / nu) * U);
    if (Math.abs(k) <= LOG_MONEYNESS_LIMIT) u[n++] = k;
  }
  u[n++] = LOG_MONEYNESS_LIMIT;
  const sinh = u.subarray(0, n);
  if (!ascending(z) || !ascending(sinh)) {
    const all = new Float64Array(z.length + n);
    all.set(z);
    all.set(sinh, z.length);
    return sortedUnique(all);
  }
  return mergeUnique(z, sinh);
}

/** True when `xs` never descends (and holds no NaN, no −0: the merge then orders as the typed sort would). */
function ascending(xs: Float64Array): boolean {
  for (let j = 0; j < xs.length; j++) {
    const x = xs[j]!;
    if (!(j === 0 || x >= xs[j - 1]!) || Object.is(x, -0)) return false;
  }
  return true;
}

/** The union of two ascending arrays, ascending, each value once. */
function mergeUnique(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    const x = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
    if (n === 0 || x !== out[n - 1]) out[n++] = x;
  }
  return out.slice(0, n);
}

/** The values sorted ascending, each once. (No grid here holds −0 or NaN, so the typed sort orders them as a comparison sort would.) */
function sortedUnique(xs: Float64Array): Float64Array {
  xs.sort();
  let n = 0;
  for (let j = 0; j < xs.length; j++) if (n === 0 || xs[j] !== xs[n - 1]) xs[n++] = xs[j]!;
  return xs.slice(0, n);
}

/** Work arrays of the checks, reused from part to part (at least `n` long). */
class PairScratch {
  n = 0;
  grid = new Float64Array(0);
  fromA = new Int32Array(0);
  fromB = new Int32Array(0);
  L: SmileValues = [new Float64Array(0), new Float64Array(0), new Float64Array(0)];
  H: SmileValues = [new Float64Array(0), new Float64Array(0), new Float64Array(0)];
  diff = new Float64Array(0);
  /** g of up to three smiles on the grid. */
  g: SmileValues = [new Float64Array(0), new Float64Array(0), new Float64Array(0)];

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
      g: [f(), f(), f()],
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
  const [w0, w1, w2] = out;
  const [o0, o1, o2] = own;
  for (let q = 0; q < n; q++) {
    const i = from[q]!;
    if (i >= 0) {
      w0[q] = o0[i]!;
      w1[q] = o1[i]!;
      w2[q] = o2[i]!;
    } else {
      smile.at(grid[q]!, tmp);
      w0[q] = tmp[0]!;
      w1[q] = tmp[1]!;
      w2[q] = tmp[2]!;
    }
  }
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

/** The grid's samples and the refined ones merged in order (a refined point after a grid point at the same k: both are in order, local minima at least two points apart, each refined between its neighbours). */
function merged(
  grid: Float64Array,
  values: Float64Array,
  extraK: number[],
  extraV: number[],
): { k: Float64Array; v: Float64Array } {
  const n = grid.length + extraK.length;
  const k = new Float64Array(n);
  const v = new Float64Array(n);
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

/**
 * Sees the values of the checks as they are sampled (for `calibrate`, which holds its fits to the same
 * checks): g of a smile (`"butterfly"`) or `w_{i+1} − w_i` (`"calendar"`) at the grid points, and at the
 * refined local minima (`extraK`, `extraV`).
 */
export type SampleObserver = (
  kind: "butterfly" | "calendar",
  grid: Float64Array,
  values: Float64Array,
  extraK: readonly number[],
  extraV: readonly number[],
) => void;

/** How the checks run: on adaptive grids (refined, wings, interpolated smiles) or given ones; their tolerance; work arrays; an observer. */
interface Checks {
  adaptive: boolean;
  tolerance: number;
  scratch: PairScratch;
  observe?: SampleObserver | undefined;
}

/** What the checks of one part of a surface found: a benchmark (butterfly, Lee), a pair (calendar, the smiles between), or the smiles past the last. */
interface Part {
  butterfly: Violation[];
  calendar: Violation[];
  lee: Violation[];
  /** Points g and the calendar differences were evaluated at, refinements included. */
  points: number;
}

const newPart = (): Part => ({ butterfly: [], calendar: [], lee: [], points: 0 });

/**
 * The failing runs of one check: `values` (f on the grid) plus, on adaptive grids, each interior local
 * minimum refined by golden-section search between its neighbours (so a dip between grid points is
 * found), in order. NaN stays NaN. The merged samples are built only when something fails.
 */
function sampled(
  checks: Checks,
  part: Part,
  kind: "butterfly" | "calendar",
  grid: Float64Array,
  values: Float64Array,
  f: (k: number) => number,
  make: (worst: number, value: number, from: number, to: number) => Violation,
): Violation[] {
  const n = grid.length;
  const { tolerance, adaptive } = checks;
  const extraK: number[] = [];
  const extraV: number[] = [];
  let failing = false;
  for (let q = 0; q < n; q++) {
    const c = values[q]!;
    if (!(c >= -tolerance)) failing = true;
    if (adaptive && q > 0 && q + 1 < n && c < values[q - 1]! && c <= values[q + 1]!) {
      const [km, vm] = goldenMin(f, grid[q - 1]!, grid[q + 1]!);
      extraK.push(km);
      extraV.push(vm);
      if (!(vm >= -tolerance)) failing = true;
    }
  }
  part.points += n + extraK.length;
  checks.observe?.(kind, grid, values, extraK, extraV);
  if (!failing) return [];
  if (extraK.length === 0) return runs(grid, values, tolerance, make);
  const all = merged(grid, values, extraK, extraV);
  return runs(all.k, all.v, tolerance, make);
}

/** Where a butterfly check is: for the messages. */
interface Where {
  benchmarks: number[];
  maturity: number;
  label: string;
}

/**
 * Butterfly runs of one smile (a benchmark or an interpolated one) into `part`: `g` its values on the
 * grid, and `smileAt` (the same smile at any k) for the refinements.
 */
function checkButterfly(
  checks: Checks,
  part: Part,
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
  const found = sampled(checks, part, "butterfly", grid, g, gAt, (kw, value, from, to) => ({
    check: "butterfly",
    benchmarks: where.benchmarks,
    maturities: [where.maturity],
    k: kw,
    kRange: [from, to],
    value,
    amount: -value,
    message: `${where.label}: butterfly g(k) < 0 for k in [${fmt(from)}, ${fmt(to)}], worst g(${fmt(kw)}) = ${Number.isNaN(value) ? "undefined (total variance 0)" : fmt(value)}`,
  }));
  for (const v of found) part.butterfly.push(v);
}

/** Lee's bound on both wings of one benchmark. */
function checkLee(part: Part, tolerance: number, b: CheckedSlice): void {
  for (const [wing, slope] of [
    ["put", b.b * (1 - b.rho)],
    ["call", b.b * (1 + b.rho)],
  ] as const) {
    if (!(slope > LEE_BOUND + tolerance)) continue;
    const kw = wing === "put" ? -Infinity : Infinity;
    part.lee.push({
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

/** A benchmark as the checks read it: its centred slice, index and maturity (a model's `Benchmark` is one). */
export interface CheckedSlice extends SviSlice {
  readonly index: number;
  readonly maturity: number;
}

/** One benchmark, smile and grid, with its values there. */
interface Evaluated {
  b: CheckedSlice;
  smile: SliceSmile;
  grid: Float64Array;
  values: SmileValues;
}

/** A benchmark's smile on its adaptive grid (or on the given one). */
function evaluate(b: CheckedSlice, given?: Float64Array): Evaluated {
  const smile = new SliceSmile(b);
  const grid = given ? Float64Array.from(given) : sliceGrid(b);
  return { b, smile, grid, values: evaluateOn(smile, grid) };
}

/** The checks of one benchmark: its butterfly on its grid, and Lee. */
function benchmarkPart(checks: Checks, s: Evaluated): Part {
  const part = newPart();
  const [w0, w1, w2] = s.values;
  const n = s.grid.length;
  checks.scratch.reserve(n);
  const g = checks.scratch.g[0].subarray(0, n);
  for (let q = 0; q < n; q++) g[q] = densityFactor(s.grid[q]!, w0[q]!, w1[q]!, w2[q]!);
  checkButterfly(checks, part, s.grid, g, (kq, out) => s.smile.at(kq, out), {
    benchmarks: [s.b.index],
    maturity: s.b.maturity,
    label: `benchmark ${s.b.index} (maturity ${fmt(s.b.maturity)} d)`,
  });
  checkLee(part, checks.tolerance, s.b);
  return part;
}

/** The merged grid of a pair (or the given grid) in the scratch, with both smiles' values on it: its length. */
function pairGrid(checks: Checks, lo: Evaluated, hi: Evaluated): number {
  const scratch = checks.scratch;
  let nk: number;
  if (checks.adaptive) {
    nk = mergeGrids(lo.grid, hi.grid, scratch);
  } else {
    nk = lo.grid.length;
    scratch.reserve(nk);
    scratch.grid.set(lo.grid);
    for (let q = 0; q < nk; q++) scratch.fromA[q] = scratch.fromB[q] = q;
  }
  valuesOnMerged(lo.smile, scratch.grid, nk, lo.values, scratch.fromA, scratch.L);
  valuesOnMerged(hi.smile, scratch.grid, nk, hi.values, scratch.fromB, scratch.H);
  return nk;
}

/** The checks of consecutive benchmarks: calendar on their merged grid (and in the wings), and the butterfly of the smiles interpolated between them. */
function pairPart(checks: Checks, i: number, lo: Evaluated, hi: Evaluated): Part {
  const part = newPart();
  const nk = pairGrid(checks, lo, hi);
  const { L, H, scratch } = { L: checks.scratch.L, H: checks.scratch.H, scratch: checks.scratch };
  const grid = scratch.grid.subarray(0, nk);
  const diff = scratch.diff.subarray(0, nk);
  for (let q = 0; q < nk; q++) diff[q] = H[0][q]! - L[0][q]!;
  const [a, b] = [lo.b, hi.b];
  const violations = sampled(
    checks,
    part,
    "calendar",
    grid,
    diff,
    (kq) => hi.smile.w(kq) - lo.smile.w(kq),
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
  );
  if (checks.adaptive) addWingCalendar(violations, a, b, checks.tolerance, i);
  for (const v of violations) part.calendar.push(v);
  if (checks.adaptive) checkBetween(checks, part, i, lo, hi, grid);
  return part;
}

/** The butterfly of the smiles interpolated between a pair (at {@link BETWEEN} of the way), on the pair's grid and values in the scratch. */
function checkBetween(checks: Checks, part: Part, i: number, lo: Evaluated, hi: Evaluated, grid: Float64Array): void {
  const { L, H, g: gs } = checks.scratch;
  const nk = grid.length;
  // g of all three smiles in one pass (each value as the smile's own loop would compute it).
  const [x0, x1, x2] = BETWEEN as readonly [number, number, number];
  const [y0, y1, y2] = [1 - x0, 1 - x1, 1 - x2];
  const [g0, g1, g2] = gs;
  const [L0, L1, L2] = L;
  const [H0, H1, H2] = H;
  for (let q = 0; q < nk; q++) {
    const k = grid[q]!;
    const [l0, l1, l2, h0, h1, h2] = [L0[q]!, L1[q]!, L2[q]!, H0[q]!, H1[q]!, H2[q]!];
    g0[q] = densityFactor(k, y0 * l0 + x0 * h0, y0 * l1 + x0 * h1, y0 * l2 + x0 * h2);
    g1[q] = densityFactor(k, y1 * l0 + x1 * h0, y1 * l1 + x1 * h1, y1 * l2 + x1 * h2);
    g2[q] = densityFactor(k, y2 * l0 + x2 * h0, y2 * l1 + x2 * h1, y2 * l2 + x2 * h2);
  }
  const tmp3 = new Float64Array(3);
  const [a, b] = [lo.b, hi.b];
  BETWEEN.forEach((x, j) => {
    const days = a.maturity + x * (b.maturity - a.maturity);
    const smileAt = (kq: number, out: Float64Array) => {
      lo.smile.at(kq, tmp3);
      hi.smile.at(kq, out);
      for (let d = 0; d < 3; d++) out[d] = (1 - x) * tmp3[d]! + x * out[d]!;
    };
    checkButterfly(checks, part, grid, gs[j]!.subarray(0, nk), smileAt, {
      benchmarks: [i, i + 1],
      maturity: days,
      label: `between benchmarks ${i} and ${i + 1}, at the interpolated maturity ${fmt(days)} d`,
    });
  });
}

/** The calendar check in each wing beyond the grid, joined to a failing run that reaches the grid's end. */
function addWingCalendar(found: Violation[], lo: CheckedSlice, hi: CheckedSlice, tolerance: number, i: number): void {
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
function pastLastPart(checks: Checks, last: Evaluated): Part {
  const part = newPart();
  const n = last.grid.length;
  const [w0, w1, w2] = last.values;
  checks.scratch.reserve(n);
  const g = checks.scratch.g[0].subarray(0, n);
  for (const r of PAST_LAST) {
    const add = last.b.theta * (r - 1);
    for (let q = 0; q < n; q++) g[q] = densityFactor(last.grid[q]!, w0[q]! + add, w1[q]!, w2[q]!);
    const smileAt = (kq: number, out: Float64Array) => {
      last.smile.at(kq, out);
      out[0] = out[0]! + add;
    };
    checkButterfly(checks, part, last.grid, g, smileAt, {
      benchmarks: [last.b.index],
      maturity: last.b.maturity * r,
      label: `past the last benchmark, at maturity ${fmt(last.b.maturity * r)} d`,
    });
  }
  return part;
}

/** True when two slices are the same benchmark with the same parameters (every number the checks read, bit for bit). */
function sameSlice(a: CheckedSlice, b: CheckedSlice): boolean {
  return (
    a.index === b.index &&
    Object.is(a.maturity, b.maturity) &&
    Object.is(a.theta, b.theta) &&
    Object.is(a.b, b.b) &&
    Object.is(a.rho, b.rho) &&
    Object.is(a.m, b.m) &&
    Object.is(a.s, b.s)
  );
}

/** diagnose's work arrays, kept from call to call (a call does not run inside another). */
const SCRATCH = new PairScratch();

/** The default tolerance of {@link diagnose}. */
const DEFAULT_TOLERANCE = 1e-12;

/** Slices whose values on their grid a {@link DiagnoseCache} keeps (the latest ones checked). */
const KEEP_EVALUATED = 4;

/**
 * The parts of diagnose's report, kept by the exact slices they were computed for: `calibrate` checks
 * each fitted slice with diagnose's own checks ({@link DiagnoseCache.check}) as it goes, and its final
 * report ({@link DiagnoseCache.report}) takes a part from here when the surface's benchmarks are those
 * slices, bit for bit, and computes it otherwise, so the report is `diagnose(model)`'s either way. For
 * diagnose's default options (adaptive grids, tolerance 1e−12).
 */
export class DiagnoseCache {
  readonly #parts: { kind: "benchmark" | "pair" | "past"; a: CheckedSlice; b: CheckedSlice | undefined; part: Part }[] =
    [];
  readonly #evaluated: Evaluated[] = [];
  readonly #checks: Checks = { adaptive: true, tolerance: DEFAULT_TOLERANCE, scratch: new PairScratch() };

  /**
   * The checks diagnose makes of slice `cur`: its butterfly; against `prev` (the shorter maturity) or
   * `next` (the longer), calendar and the smiles between; when `last`, the smiles past it. `observe` sees
   * every sampled value; the parts are kept.
   */
  check(
    cur: CheckedSlice,
    prev: CheckedSlice | undefined,
    last: boolean,
    observe: SampleObserver,
    next?: CheckedSlice,
  ): void {
    const checks = { ...this.#checks, observe };
    const c = this.#evaluate(cur);
    this.#keep("benchmark", cur, undefined, benchmarkPart(checks, c));
    if (prev) this.#keep("pair", prev, cur, pairPart(checks, prev.index, this.#evaluate(prev), c));
    if (next) this.#keep("pair", cur, next, pairPart(checks, cur.index, c, this.#evaluate(next)));
    if (last) this.#keep("past", cur, undefined, pastLastPart(checks, c));
  }

  /** `diagnose(model)`, with the parts kept here for its benchmarks. */
  report(model: VolSurfaceModel): ArbitrageReport {
    return checkBenchmarks(model.benchmarks, this.#checks, undefined, this);
  }

  /** The part kept for these slices, else the one `compute` makes. */
  part(kind: "benchmark" | "pair" | "past", a: CheckedSlice, b: CheckedSlice | undefined, compute: () => Part): Part {
    const kept = this.#parts.find(
      (p) => p.kind === kind && sameSlice(p.a, a) && (b === undefined || (p.b !== undefined && sameSlice(p.b, b))),
    );
    return kept ? kept.part : compute();
  }

  #keep(kind: "benchmark" | "pair" | "past", a: CheckedSlice, b: CheckedSlice | undefined, part: Part): void {
    this.#parts.push({ kind, a, b, part });
  }

  #evaluate(s: CheckedSlice): Evaluated {
    const kept = this.#evaluated.find((e) => sameSlice(e.b, s));
    if (kept) return kept;
    const e = evaluate(s);
    this.#evaluated.push(e);
    if (this.#evaluated.length > KEEP_EVALUATED) this.#evaluated.shift();
    return e;
  }
}

/** The report of the checks on a model's benchmarks (parts from `cache` where it has them). */
function checkBenchmarks(
  bms: readonly Benchmark[],
  checks: Checks,
  given: Float64Array | undefined,
  cache?: DiagnoseCache,
): ArbitrageReport {
  const evaluated: (Evaluated | undefined)[] = bms.map(() => undefined);
  const at = (i: number) => (evaluated[i] ??= evaluate(bms[i]!, given));
  const part = (kind: "benchmark" | "pair" | "past", a: number, b: number | undefined, compute: () => Part) =>
    cache ? cache.part(kind, bms[a]!, b === undefined ? undefined : bms[b], compute) : compute();
  const parts: Part[] = [];
  for (let i = 0; i < bms.length; i++) parts.push(part("benchmark", i, undefined, () => benchmarkPart(checks, at(i))));
  for (let i = 0; i + 1 < bms.length; i++)
    parts.push(part("pair", i, i + 1, () => pairPart(checks, i, at(i), at(i + 1))));
  const last = bms.length - 1;
  if (checks.adaptive && last >= 0) parts.push(part("past", last, undefined, () => pastLastPart(checks, at(last))));
  const butterfly = parts.flatMap((p) => p.butterfly);
  const calendar = parts.flatMap((p) => p.calendar);
  const lee = parts.flatMap((p) => p.lee);
  return {
    ok: butterfly.length + calendar.length + lee.length === 0,
    evaluated: true,
    invalid: [],
    butterfly,
    calendar,
    lee,
    grid: given ? "given" : "adaptive",
    points: parts.reduce((sum, p) => sum + p.points, 0),
    k: Float64Array.from(given ?? []),
  };
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
 * @example
 * ```ts
 * const report = vol.diagnose(vol.fromSurface(surface)); // butterfly, calendar and Lee: where and by how much
 * ```
 */
export function diagnose(model: VolSurfaceModel | SurfaceLike, options: DiagnoseOptions = {}): ArbitrageReport {
  const given = options.k === undefined ? undefined : toFloat64(options.k, "k");
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  if (!(tolerance >= 0))
    throw new VolModelError(`tolerance must be a number >= 0; got ${tolerance}`, {
      field: "tolerance",
      condition: "tolerance >= 0",
    });
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
      grid: given ? "given" : "adaptive",
      points: 0,
      k: Float64Array.from(given ?? []),
    };
  }
  return checkBenchmarks(bms, { adaptive: !given, tolerance, scratch: SCRATCH }, given);
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
