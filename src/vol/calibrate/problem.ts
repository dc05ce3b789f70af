/**
 * The least-squares problem of one slice under its constraints: what the fit loop hands the solver.
 */
import type { LeastSquaresProblem } from "../optimize";
import {
  FAR_K,
  MAX_DIPS,
  REFINE_BELOW,
  REGION_EDGES,
  REGIONS,
  WING_ROWS,
  familiesOf,
  familyOn,
  familyValue,
  scanMin,
  smileArrays,
  smileAt,
  smileOn,
  union,
  type Family,
} from "./constraints";
import { CALIBRATION_MARGINS, type CalibrationConstraint } from "./options";
import type { ParsedSmile } from "./quotes";
import { addPressed, asymptote, decode, totalVariance, type Slice, type SliceSpace } from "./slice";

/**
 * Levenberg–Marquardt's view of one slice under the augmented Lagrangian of its constraints. Rows:
 * `sw_q·(σ(k_q) − σ_q)` for the quotes; then, for each constraint family and each stretch of k
 * ({@link REGION_EDGES}), one row for the family's minimum over that stretch, `C(x) = min_k c(x, k)` (the
 * lowest grid point, refined by golden-section search between its neighbours), shifted by its margin;
 * then the scalar constraints. A constraint row is `sqrt(ρ)·max(0, μ/ρ − C)` (Powell–Hestenes–Rockafellar),
 * zero while the constraint holds and its multiplier μ is 0. Because the row follows the minimum wherever
 * it moves, it is a smooth function of x (envelope theorem: its gradient is ∂c/∂x at the minimiser, which
 * `prepare` holds fixed for the Jacobian), so the solver sees a few smooth constraints rather than a
 * thousand grid points switching on and off. With `penalties` false, the quotes alone.
 */
export class SliceProblem implements LeastSquaresProblem {
  readonly parameters = 5;
  readonly rows: number;
  readonly always: number;
  /** Penalty parameter ρ. */
  rho: number;
  readonly #q: ParsedSmile;
  readonly #space: SliceSpace;
  readonly #prev: Slice | undefined;
  readonly #scalars: number;
  readonly #families: Family[];
  readonly #calScale: number;
  readonly #calMargin: number;
  /** Sorted grid (with every region edge in it); `#edges[r]` is the grid index of REGION_EDGES[r]. */
  #grid: Float64Array = new Float64Array(0);
  #edges = new Int32Array(REGION_EDGES.length);
  /** w, w', w'' of the previous slice and of the current one at each grid point. */
  #prevSmile = smileArrays(0);
  #curSmile = smileArrays(0);
  /** Multipliers, one per constraint row. */
  readonly #mu: Float64Array;
  /** The minimiser of each (family, region) at the point of the last `prepare`. */
  readonly #kStar: Float64Array;
  /** The minimisers found by the last `residuals`, and at which point: `prepare` at that point reuses them. */
  readonly #lastK: Float64Array;
  readonly #lastX = new Float64Array(5).fill(NaN);
  readonly #minimaOut: Float64Array;
  readonly #cur = new Float64Array(3);
  readonly #prv = new Float64Array(3);
  #values = new Float64Array(0);

  constructor(
    q: ParsedSmile,
    space: SliceSpace,
    prev: Slice | undefined,
    last: boolean,
    grid: ArrayLike<number>,
    rho: number,
    start: Slice,
    penalties = true,
  ) {
    this.#q = q;
    this.#space = space;
    this.#prev = prev;
    this.#scalars = penalties && prev ? WING_ROWS : 0;
    this.#families = penalties ? familiesOf(prev, last, space.dir) : [];
    this.rho = rho;
    this.always = q.k.length;
    // Total variance to vol near the money: dσ ≈ dw / (2·v·T).
    this.#calScale = 1 / (2 * start.vol * q.T);
    this.#calMargin = prev
      ? CALIBRATION_MARGINS.calendarRelative * prev.theta + CALIBRATION_MARGINS.calendarAbsolute
      : 0;
    const regionRows = REGIONS * this.#families.length;
    this.#mu = new Float64Array(regionRows + this.#scalars);
    this.#kStar = new Float64Array(regionRows);
    this.#lastK = new Float64Array(regionRows);
    this.#minimaOut = new Float64Array(regionRows);
    this.rows = this.always + this.#mu.length;
    if (penalties) this.addPoints(union(Float64Array.from(REGION_EDGES), Float64Array.from(grid)));
  }

  /** Adds points to the sampling grid of the constraint families. */
  addPoints(points: ArrayLike<number>): void {
    const grid = union(this.#grid, Float64Array.from(points));
    const prevSmile = smileArrays(grid.length);
    if (this.#prev) smileOn(this.#prev, grid, prevSmile);
    this.#curSmile = smileArrays(grid.length);
    this.#grid = grid;
    this.#edges = Int32Array.from(REGION_EDGES, (e) => grid.indexOf(e));
    this.#prevSmile = prevSmile;
    this.#values = new Float64Array(grid.length * this.#families.length);
    this.#lastX.fill(NaN);
  }

  prepare(x: Float64Array): void {
    if (x.every((v, i) => v === this.#lastX[i])) this.#kStar.set(this.#lastK);
    else this.#minima(decode(x, this.#space), this.#kStar, undefined);
  }

  residuals(x: Float64Array, out: Float64Array): void {
    const sl = decode(x, this.#space);
    const nq = this.always;
    for (let j = 0; j < nq; j++) out[j] = this.#quote(sl, j);
    if (this.#mu.length === 0) return;
    const R = this.#kStar.length;
    const minima = this.#minimaOut;
    this.#minima(sl, this.#lastK, minima);
    this.#lastX.set(x);
    const sqrtRho = Math.sqrt(this.rho);
    for (let c = 0; c < R; c++) out[nq + c] = this.#penalty(this.#mu[c]!, minima[c]!, sqrtRho);
    for (let s = 0; s < this.#scalars; s++)
      out[nq + R + s] = this.#penalty(this.#mu[R + s]!, this.#scalar(sl, s), sqrtRho);
  }

  residualRows(x: Float64Array, which: Int32Array, count: number, out: Float64Array): void {
    const sl = decode(x, this.#space);
    const sqrtRho = Math.sqrt(this.rho);
    for (let q = 0; q < count; q++) {
      const j = which[q]!;
      // Penalty rows unclamped (the solver's model takes max(0, ·) itself): a row just above 0 would
      // otherwise get half its slope from the central difference.
      out[q] =
        j < this.always
          ? this.#quote(sl, j)
          : sqrtRho * (this.#mu[j - this.always]! / this.rho - this.#constraintAtKStar(sl, j - this.always));
    }
  }

  /**
   * The multiplier update `μ ← max(0, μ − ρ·C(x))`. Returns the largest violation at x relative to its
   * tolerance (half the margin; 1e−13 for the wing slopes): at most 1 when x is feasible enough.
   */
  updateMultipliers(x: Float64Array): number {
    const values = this.#constraints(x);
    let worst = 0;
    for (let c = 0; c < values.length; c++) {
      const value = values[c]!;
      worst = Math.max(worst, value === value ? -value / this.#tolerance(c) : Infinity);
      this.#mu[c] = Math.max(0, this.#mu[c]! - this.rho * (value === value ? value : -1));
    }
    return worst;
  }

  /** Constraints that bind at x: a non-zero multiplier or a violation; the minimum variance when it is pressed down. */
  active(x: Float64Array): Set<CalibrationConstraint> {
    const values = this.#constraints(x);
    const out = new Set<CalibrationConstraint>();
    const R = this.#kStar.length;
    for (let c = 0; c < values.length; c++) {
      if (this.#mu[c] === 0 && !(values[c]! < 0)) continue;
      out.add(c < R && this.#familyOf(c).kind !== "calendar" ? "butterfly" : "calendar");
    }
    addPressed(decode(x, this.#space), this.#space, out);
    return out;
  }

  #familyOf(c: number): Family {
    return this.#families[Math.floor(c / REGIONS)]!;
  }

  /** Every constraint value at x (families' minima, then scalars), shifted by the margins. */
  #constraints(x: Float64Array): Float64Array {
    const sl = decode(x, this.#space);
    const R = this.#kStar.length;
    const values = new Float64Array(this.#mu.length);
    if (values.length === 0) return values;
    if (x.every((v, i) => v === this.#lastX[i])) values.set(this.#minimaOut);
    else this.#minima(sl, undefined, values);
    for (let s = 0; s < this.#scalars; s++) values[R + s] = this.#scalar(sl, s);
    return values;
  }

  /** Each family's minimum over each region: where (`kStar`) and its value (`minima`). */
  #minima(sl: Slice, kStar: Float64Array | undefined, minima: Float64Array | undefined): void {
    const F = this.#families.length;
    if (F === 0) return;
    this.#sampleFamilies(sl);
    const { n, grid, values, edges } = {
      n: this.#grid.length,
      grid: this.#grid,
      values: this.#values,
      edges: this.#edges,
    };
    for (let f = 0; f < F; f++) {
      const family = this.#families[f]!;
      const value = (k: number) => this.#familyAt(family, sl, k);
      for (let region = 0; region < REGIONS; region++) {
        const lo = edges[region]!;
        const hi = edges[region + 1]!;
        let best = lo;
        for (let p = lo + 1; p <= hi; p++) if (!(values[f * n + p]! >= values[f * n + best]!)) best = p;
        let k = grid[best]!;
        let vk = values[f * n + best]!;
        // Every low local minimum of the samples refined (the lowest few): two dips of nearly equal depth
        // would otherwise make the row jump between them as the grid's lowest point changes.
        const dips = this.#dips(f, lo, hi);
        for (const p of dips) {
          const kp = scanMin(value, grid[Math.max(lo, p - 1)]!, grid[Math.min(hi, p + 1)]!, grid[p]!);
          const vp = kp === grid[p] ? values[f * n + p]! : value(kp);
          if (vp < vk) [k, vk] = [kp, vp];
        }
        const c = f * REGIONS + region;
        if (kStar) kStar[c] = k;
        if (minima) minima[c] = vk;
      }
    }
  }

  /** Grid indices of the local minima of family f's samples in [lo, hi] below {@link REFINE_BELOW}, the lowest {@link MAX_DIPS}. */
  #dips(f: number, lo: number, hi: number): number[] {
    const n = this.#grid.length;
    const v = this.#values;
    const out: number[] = [];
    if (hi <= lo) return out;
    for (let p = lo; p <= hi; p++) {
      const vp = v[f * n + p]!;
      if (!(vp < REFINE_BELOW)) continue;
      if ((p > lo && !(vp <= v[f * n + p - 1]!)) || (p < hi && !(vp <= v[f * n + p + 1]!))) continue;
      out.push(p);
    }
    if (out.length > MAX_DIPS) out.sort((a, b) => v[f * n + a]! - v[f * n + b]!).length = MAX_DIPS;
    return out;
  }

  /** Every family's value at every grid point into `#values` (family-major). */
  #sampleFamilies(sl: Slice): void {
    const grid = this.#grid;
    const n = grid.length;
    smileOn(sl, grid, this.#curSmile);
    for (let f = 0; f < this.#families.length; f++) {
      familyOn(
        this.#families[f]!,
        grid,
        sl,
        this.#curSmile,
        this.#prevSmile,
        this.#calScale,
        this.#calMargin,
        this.#values,
        f * n,
      );
    }
  }

  #familyAt(family: Family, sl: Slice, k: number): number {
    smileAt(sl, k, this.#cur);
    if (this.#prev) smileAt(this.#prev, k, this.#prv);
    return familyValue(family, k, sl, this.#cur, this.#prv, this.#calScale, this.#calMargin);
  }

  #constraintAtKStar(sl: Slice, c: number): number {
    const R = this.#kStar.length;
    if (c < R) return this.#familyAt(this.#familyOf(c), sl, this.#kStar[c]!);
    return this.#scalar(sl, c - R);
  }

  #penalty(mu: number, value: number, sqrtRho: number): number {
    const v = mu / this.rho - value;
    // NaN (cannot happen on a decoded slice, whose total variance is > 0) counts as violated.
    return v > 0 ? sqrtRho * v : value === value ? 0 : sqrtRho;
  }

  #quote(sl: Slice, j: number): number {
    const q = this.#q;
    if (!sl.valid) return NaN;
    return q.sw[j]! * (Math.sqrt(totalVariance(sl, q.k[j]!) / sl.T) - q.vols[j]!);
  }

  /** Wing asymptote s (0 put, 1 call) against the previous slice's, at |k| = FAR_K. */
  #scalar(sl: Slice, s: number): number {
    const wing = s === 0 ? "put" : "call";
    const a = asymptote(this.#prev!, wing);
    const b = asymptote(sl, wing);
    return this.#calScale * (this.#space.dir * ((b.S - a.S) * FAR_K + (b.I - a.I)) - CALIBRATION_MARGINS.asymptote);
  }

  #tolerance(c: number): number {
    if (c < this.#kStar.length)
      return this.#familyOf(c).kind === "calendar"
        ? (this.#calScale * this.#calMargin) / 2
        : CALIBRATION_MARGINS.butterfly / 2;
    return (this.#calScale * CALIBRATION_MARGINS.asymptote) / 2;
  }
}
