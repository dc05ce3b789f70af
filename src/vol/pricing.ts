/**
 * Pricing from a vol surface model: Black-76 prices and greeks at the surface's implied vols, deltas of
 * strikes in any delta convention, the risk-neutral density of the strike (Breeden–Litzenberger, in
 * closed form from the smile) and Dupire local vol in (k, T) form.
 *
 * The smile's k-derivatives come from the benchmarks' raw SVI (`model.benchmarks`, vol-model.md): at a
 * maturity T the model's total variance is `w(k, T) = α·w_i(k) + β·w_j(k) + γ` (before the first
 * benchmark `(T/T_1)·w_1`, between two `(1 − x)·w_i + x·w_(i+1)`, after the last `w_n + theta_n·(T/T_n − 1)`),
 * so `w'` and `w''` are the same combinations of `sviW1`/`sviW2`, and `∂w/∂T` at fixed k is piecewise
 * constant in T (see {@link localVol}).
 */
import { DAYS_PER_YEAR, STRIKE_TYPE } from "../api/assumptions";
import { black76Strikes, type Black76Arrays, type OptionKind } from "./black76";
import { VolModelError, fmt } from "./errors";
import { checkStrikeType, deltaConvention, deltaFromK, type DeltaStrikeType, type ModelStrikeType } from "./strikes";
import type { Benchmark, SurfaceView } from "./surface-view";
import { densityFactor, sviW, sviW1, sviW2 } from "./svi";

/** Where strikes sit at one maturity: the forward, and each strike as a price and as log-moneyness. */
export interface StrikesAt {
  /** Maturity in calendar days, as given. */
  maturityDays: number;
  /** Maturity in years (`maturityDays / DAYS_PER_YEAR`). */
  T: number;
  /** The model's forward `F(T)`. */
  forward: number;
  /** Absolute strikes (prices), `K = F·e^k`; Absolute input comes back as given. */
  strikes: Float64Array;
  /** Log-forward-moneyness `k = ln(K/F)`. */
  k: Float64Array;
}

function strikesAt(
  model: SurfaceView,
  maturityDays: number,
  strikes: ArrayLike<number>,
  strikeType: ModelStrikeType,
): StrikesAt {
  const k = model.logMoneyness(maturityDays, strikes, strikeType);
  // Prices from k (no second delta solve); the model refuses a strike outside double precision.
  const K =
    strikeType === STRIKE_TYPE.Absolute
      ? Float64Array.from(strikes)
      : model.absoluteStrikes(maturityDays, k, "logMoneyness");
  return { maturityDays, T: maturityDays / DAYS_PER_YEAR, forward: model.forward(maturityDays), strikes: K, k };
}

/** Options of {@link priceOptions}. */
export interface PriceOptionsOptions {
  /** `"call"` or `"put"`. */
  kind: OptionKind;
  /** Discount factor from the payment date to today (finite, > 0). Default 1: undiscounted (forward) premiums. */
  discountFactor?: number;
}

/** Prices and greeks of options at one maturity, strike by strike (see {@link priceOptions}). */
export interface OptionPrices extends StrikesAt, Black76Arrays {
  kind: OptionKind;
  discountFactor: number;
  /** The surface's implied vol at each strike (decimal). */
  vols: Float64Array;
}

/**
 * Black-76 prices and greeks of European options at one maturity (days, > 0) on the model's forward,
 * each strike at the surface's own implied vol for it. Strikes are in any {@link ModelStrikeType}
 * convention (deltas included); the result also gives them as prices and log-moneyness.
 *
 * The greeks are sticky-strike: each option keeps its strike's implied vol while the forward moves
 * (delta, gamma) and while time passes (theta holds σ, not the surface's vol at the shorter maturity);
 * vega is the sensitivity to that vol alone. They are the greeks of {@link black76} (forward delta, theta per
 * year at the rate implied by the discount factor); smile dynamics (sticky-delta, local vol) are not in
 * them.
 *
 * @example
 * ```ts
 * const p = vol.priceOptions(model, 91, [90, 100, 110], STRIKE_TYPE.PercentForward, { kind: "put", discountFactor: 0.99 });
 * p.price; p.delta; p.vols;
 * ```
 */
export function priceOptions(
  model: SurfaceView,
  maturityDays: number,
  strikes: ArrayLike<number>,
  strikeType: ModelStrikeType,
  options: PriceOptionsOptions,
): OptionPrices {
  if (!options || typeof options !== "object") {
    throw new VolModelError('options are required: { kind: "call" | "put", discountFactor? }', {
      field: "options",
      condition: "present",
    });
  }
  const at = strikesAt(model, maturityDays, strikes, strikeType);
  const vols = model.vols(maturityDays, at.k, "logMoneyness");
  const discountFactor = options.discountFactor ?? 1;
  const greeks = black76Strikes(
    { forward: at.forward, maturity: at.T, discountFactor, kind: options.kind },
    at.strikes,
    vols,
  );
  return { ...at, kind: options.kind, discountFactor, vols, ...greeks };
}

/**
 * The deltas of strikes (any convention) at one maturity in a delta convention (`"delta"` or a
 * {@link DeltaStrikeType}: put, spot, premium-adjusted), with the model's own vol at each strike: the
 * inverse of passing that convention as the strike type.
 * @example
 * ```ts
 * const deltas = vol.strikeDeltas(vol.fromSurface(surface), 91, [80, 100, 120], STRIKE_TYPE.PercentForward, "delta");
 * ```
 */
export function strikeDeltas(
  model: SurfaceView,
  maturityDays: number,
  strikes: ArrayLike<number>,
  strikeType: ModelStrikeType,
  convention: "delta" | DeltaStrikeType,
): Float64Array {
  if (convention !== "delta" && (convention === null || typeof convention !== "object")) {
    throw new VolModelError(
      `convention must be "delta" or a delta strike type { type: "delta", kind?, premiumAdjusted?, spot? }; got ${JSON.stringify(convention)}`,
      {
        field: "convention",
        condition: "delta convention",
      },
    );
  }
  checkStrikeType(convention);
  const c = deltaConvention(convention)!;
  const k = model.logMoneyness(maturityDays, strikes, strikeType);
  const w = model.totalVariance(maturityDays, k);
  const out = new Float64Array(k.length);
  for (let q = 0; q < k.length; q++) out[q] = deltaFromK(k[q]!, w[q]!, c);
  return out;
}

/**
 * The model's smile at maturity T as `w = Σ weight·w_i(k) + constant` over at most two benchmarks, and
 * `∂w/∂T` at fixed k of the model's linear-in-T interpolation as `Σ dWeight·w_i(k) + dConstant`.
 * At a benchmark maturity (other than the last) the right derivative is used: the segment that starts there.
 */
interface SmilePlan {
  i: number;
  j: number;
  wi: number;
  wj: number;
  c: number;
  /** `∂w/∂T = di·w_i + dj·w_j + dc`. */
  di: number;
  dj: number;
  dc: number;
}

function smilePlan(bms: readonly Benchmark[], T: number): SmilePlan {
  const n = bms.length;
  const first = bms[0]!;
  const last = bms[n - 1]!;
  if (T < first.T) return { i: 0, j: 0, wi: T / first.T, wj: 0, c: 0, di: 1 / first.T, dj: 0, dc: 0 };
  if (T >= last.T)
    return {
      i: n - 1,
      j: n - 1,
      wi: 1,
      wj: 0,
      c: last.theta * (T / last.T - 1),
      di: 0,
      dj: 0,
      dc: last.theta / last.T,
    };
  let i = 0;
  while (bms[i + 1]!.T <= T) i++;
  const a = bms[i]!;
  const b = bms[i + 1]!;
  const h = b.T - a.T;
  const x = (T - a.T) / h;
  return { i, j: i + 1, wi: 1 - x, wj: x, c: 0, di: -1 / h, dj: 1 / h, dc: 0 };
}

/** `w`, `w'`, `w''` in k and the linear-interpolation `∂w/∂T`, at one k. */
function smileAt(
  bms: readonly Benchmark[],
  p: SmilePlan,
  k: number,
): { w: number; w1: number; w2: number; wT: number } {
  const a = bms[p.i]!;
  const wa = sviW(a, k);
  let w = p.wi * wa + p.c;
  let w1 = p.wi * sviW1(a, k);
  let w2 = p.wi * sviW2(a, k);
  let wT = p.di * wa + p.dc;
  if (p.wj !== 0 || p.dj !== 0) {
    const b = bms[p.j]!;
    const wb = sviW(b, k);
    w += p.wj * wb;
    w1 += p.wj * sviW1(b, k);
    w2 += p.wj * sviW2(b, k);
    wT += p.dj * wb;
  }
  return { w, w1, w2, wT };
}

function zeroVariance(at: StrikesAt, q: number): VolModelError {
  return new VolModelError(
    `strikes[${q}] (K = ${fmt(at.strikes[q]!)}, k = ${fmt(at.k[q]!)}): the total variance is 0 there, so the density and local vol are not defined`,
    { field: "strikes", condition: "w(k, T) > 0" },
  );
}

/** The risk-neutral density of the strike at one maturity (see {@link impliedDensity}). */
export interface ImpliedDensity extends StrikesAt {
  /** `q(K) = ∂²C/∂K²` (per unit of strike) of the undiscounted call price C. */
  density: Float64Array;
  /** GJ's `g(k)` at each strike: the density is `g·(lognormal-like factor)`, negative exactly where g < 0. */
  g: Float64Array;
  /** Indices of the strikes where g < 0 (butterfly arbitrage): the density is negative there. */
  negative: number[];
}

/**
 * The risk-neutral density of `K = S_T` at one maturity (days, > 0), at strikes in any convention: the
 * second strike-derivative of the undiscounted call price (Breeden–Litzenberger), in closed form from the
 * smile. With `C = F·c(k)`, `c = N(d1) − e^k·N(d2)` and `w = w(k, T)`, differentiating twice through
 * `w(k)` gives (Gatheral–Jacquier 2014, §2)
 *
 * ```
 * q(K) = ∂²C/∂K² = g(k) / (K·sqrt(2π·w)) · exp(−d2²/2),   d2 = −k/sqrt(w) − sqrt(w)/2,
 * g(k) = (1 − k·w'/(2w))² − (w'²/4)·(1/w + 1/4) + w''/2,
 * ```
 *
 * so the density of `k = ln(K/F)` is `g/sqrt(2πw)·exp(−d2²/2)` (for a flat smile, g = 1: the lognormal).
 * The density is negative where g < 0 (butterfly arbitrage): the values are returned as they are and
 * those strikes listed in `negative`. Throws {@link VolModelError} for a strike where `w = 0` (possible
 * only at the minimum of a slice whose minimum total variance is exactly 0).
 * @example
 * ```ts
 * const density = vol.impliedDensity(vol.fromSurface(surface), 91, [80, 100, 120], STRIKE_TYPE.PercentForward);
 * ```
 */
export function impliedDensity(
  model: SurfaceView,
  maturityDays: number,
  strikes: ArrayLike<number>,
  strikeType: ModelStrikeType,
): ImpliedDensity {
  const at = strikesAt(model, maturityDays, strikes, strikeType);
  const bms = model.benchmarks;
  const plan = smilePlan(bms, at.T);
  const n = at.k.length;
  const density = new Float64Array(n);
  const g = new Float64Array(n);
  const negative: number[] = [];
  for (let q = 0; q < n; q++) {
    const k = at.k[q]!;
    const { w, w1, w2 } = smileAt(bms, plan, k);
    if (!(w > 0)) throw zeroVariance(at, q);
    const gq = densityFactor(k, w, w1, w2);
    const sw = Math.sqrt(w);
    const d2 = -k / sw - sw / 2;
    g[q] = gq;
    density[q] = (gq * Math.exp(-0.5 * d2 * d2)) / (at.strikes[q]! * Math.sqrt(2 * Math.PI * w));
    if (gq < 0) negative.push(q);
  }
  return { ...at, density, g, negative };
}

/** Options of {@link localVol}. */
export interface LocalVolOptions {
  /**
   * How `∂w/∂T` is taken. `"linear"` (default): from the model's own interpolation, linear in T at fixed k,
   * so piecewise constant in T and local vol jumps at every benchmark maturity. `"c1"`: from a C¹ monotone
   * cubic (see {@link localVol}).
   */
  interpolation?: "linear" | "c1";
  /** Throw a {@link VolModelError} naming the first strike where local vol is undefined, instead of listing them. Default false. */
  strict?: boolean;
}

/** A strike where local vol is undefined, and why. */
export interface LocalVolGap {
  /** Index in the strikes given. */
  index: number;
  /** The strike as a price. */
  strike: number;
  k: number;
  /** `"butterfly"`: g(k) ≤ 0; `"calendar"`: g > 0 but ∂w/∂T < 0 (total variance falls with maturity at this k). */
  reason: "butterfly" | "calendar";
  g: number;
  dwdT: number;
}

/** Dupire local vol at one maturity (see {@link localVol}). */
export interface LocalVol extends StrikesAt {
  interpolation: "linear" | "c1";
  /** `σ_loc(K, T)` (decimal per √year); NaN exactly at the indices listed in `undefinedAt`, and nowhere else. */
  localVol: Float64Array;
  /** `∂w/∂T` at fixed k, the numerator (per year). */
  dwdT: Float64Array;
  /** GJ's `g(k)`, the denominator (from the model's own smile at T, whichever the interpolation). */
  g: Float64Array;
  /** The strikes where local vol is undefined (empty on a surface free of static arbitrage there). */
  undefinedAt: LocalVolGap[];
}

/**
 * Dupire's local vol at one maturity (days, > 0) and strikes in any convention, in the (k, T) form of
 * Gatheral ("The Volatility Surface", 2006, ch. 1) with k = ln(K/F(T)):
 *
 * ```
 * σ_loc²(K, T) = (∂w/∂T at fixed k) / g(k),   g(k) = (1 − k·w'/(2w))² − (w'²/4)·(1/w + 1/4) + w''/2,
 * ```
 *
 * the local vol of the forward (deterministic rates and dividends drop out in forward moneyness).
 *
 * The model interpolates total variance linearly in T at fixed k, so with `interpolation: "linear"` (the
 * default, the model as it stands) `∂w/∂T` is piecewise constant in T: `w_1(k)/T_1` before the first
 * benchmark, `(w_(i+1)(k) − w_i(k))/(T_(i+1) − T_i)` between two, `theta_n/T_n` after the last; local vol
 * therefore jumps at every benchmark maturity (at a benchmark the segment starting there is used). With
 * `interpolation: "c1"` the time derivative (and only it: w, w', w'' in g stay the model's) comes instead
 * from a C¹ monotone cubic Hermite in T of `w(k, ·)` at fixed k through (0, 0) and the benchmarks
 * (Fritsch–Butland tangents at interior knots, the one-sided three-point tangent at T = 0, as in PCHIP),
 * with the model's own extrapolation after the last benchmark (slope `theta_n/T_n`, which is also the
 * cubic's end tangent, C¹ there, unless monotonicity on the last interval needs it capped at three times
 * that interval's slope). The cubic is monotone where the benchmarks are (calendar-preserving: ∂w/∂T ≥ 0
 * wherever `w_i(k)` does not fall), so local vol is continuous in T instead of jumping.
 *
 * Where local vol is undefined the model does not return a silent NaN: where g(k) ≤ 0 (butterfly
 * arbitrage) or ∂w/∂T < 0 (calendar arbitrage) the value is NaN and the strike is listed in `undefinedAt`
 * with the reason and both figures; `strict: true` throws a {@link VolModelError} naming the first such
 * strike instead. Throws for a strike where w = 0.
 * @example
 * ```ts
 * const local = vol.localVol(vol.fromSurface(surface), 91, [80, 100, 120], STRIKE_TYPE.PercentForward, { interpolation: "c1" });
 * ```
 */
export function localVol(
  model: SurfaceView,
  maturityDays: number,
  strikes: ArrayLike<number>,
  strikeType: ModelStrikeType,
  options: LocalVolOptions = {},
): LocalVol {
  const interpolation = options.interpolation ?? "linear";
  if (interpolation !== "linear" && interpolation !== "c1") {
    throw new VolModelError(`interpolation must be "linear" or "c1"; got ${JSON.stringify(interpolation)}`, {
      field: "interpolation",
      condition: '"linear" | "c1"',
    });
  }
  const at = strikesAt(model, maturityDays, strikes, strikeType);
  const bms = model.benchmarks;
  const plan = smilePlan(bms, at.T);
  const n = at.k.length;
  const lv = new Float64Array(n);
  const dwdT = new Float64Array(n);
  const g = new Float64Array(n);
  const undefinedAt: LocalVolGap[] = [];
  const c1 = interpolation === "c1" ? new C1Slope(bms) : undefined;
  for (let q = 0; q < n; q++) {
    const k = at.k[q]!;
    const s = smileAt(bms, plan, k);
    if (!(s.w > 0)) throw zeroVariance(at, q);
    const gq = densityFactor(k, s.w, s.w1, s.w2);
    const wT = c1 ? c1.at(k, at.T) : s.wT;
    g[q] = gq;
    dwdT[q] = wT;
    if (gq > 0 && wT >= 0) {
      lv[q] = Math.sqrt(wT / gq);
      continue;
    }
    const gap: LocalVolGap = {
      index: q,
      strike: at.strikes[q]!,
      k,
      reason: gq > 0 ? "calendar" : "butterfly",
      g: gq,
      dwdT: wT,
    };
    if (options.strict) {
      const why =
        gap.reason === "butterfly"
          ? `g(k) = ${fmt(gq)} <= 0 (butterfly arbitrage)`
          : `∂w/∂T = ${fmt(wT)} < 0 at fixed k (calendar arbitrage: total variance falls with maturity)`;
      throw new VolModelError(
        `strikes[${q}] (K = ${fmt(gap.strike)}, k = ${fmt(k)}): local vol is undefined at ${fmt(maturityDays)} d: ${why}`,
        {
          field: "strikes",
          condition: gap.reason === "butterfly" ? "g(k) > 0" : "∂w/∂T >= 0",
        },
      );
    }
    lv[q] = NaN;
    undefinedAt.push(gap);
  }
  return { ...at, interpolation, localVol: lv, dwdT, g, undefinedAt };
}

/**
 * `∂w/∂T` at fixed k of the C¹ monotone cubic Hermite through (0, 0) and `(T_i, w_i(k))`, continued after
 * the last benchmark by the model's extrapolation `w_n(k) + theta_n·(T/T_n − 1)`. Knots t_0 = 0 … t_n = T_n.
 */
class C1Slope {
  readonly #bms: readonly Benchmark[];
  readonly #t: Float64Array;
  readonly #y: Float64Array;
  readonly #m: Float64Array;
  readonly #d: Float64Array;

  constructor(bms: readonly Benchmark[]) {
    this.#bms = bms;
    const n = bms.length;
    this.#t = Float64Array.from([0, ...bms.map((b) => b.T)]);
    this.#y = new Float64Array(n + 1);
    this.#m = new Float64Array(n + 1);
    this.#d = new Float64Array(n);
  }

  at(k: number, T: number): number {
    const bms = this.#bms;
    const n = bms.length;
    const last = bms[n - 1]!;
    const tail = last.theta / last.T;
    if (T > last.T) return tail;
    const t = this.#t;
    const y = this.#y;
    const d = this.#d;
    const m = this.#m;
    for (let i = 0; i < n; i++) y[i + 1] = sviW(bms[i]!, k);
    for (let i = 0; i < n; i++) d[i] = (y[i + 1]! - y[i]!) / (t[i + 1]! - t[i]!);
    // Interior knots: Fritsch–Butland weighted harmonic mean (0 at a local extremum): within [0, 3·δ] of both neighbours.
    for (let i = 1; i < n; i++) {
      const d0 = d[i - 1]!;
      const d1 = d[i]!;
      if (!(d0 * d1 > 0)) {
        m[i] = 0;
        continue;
      }
      const h0 = t[i]! - t[i - 1]!;
      const h1 = t[i + 1]! - t[i]!;
      const w1 = 2 * h1 + h0;
      const w2 = h1 + 2 * h0;
      m[i] = (w1 + w2) / (w1 / d0 + w2 / d1);
    }
    // T = 0: the one-sided three-point tangent, kept monotone (PCHIP's end rule); with one benchmark, the secant.
    if (n === 1) {
      m[0] = d[0]!;
    } else {
      const h0 = t[1]! - t[0]!;
      const h1 = t[2]! - t[1]!;
      let m0 = ((2 * h0 + h1) * d[0]! - h0 * d[1]!) / (h0 + h1);
      if (Math.sign(m0) !== Math.sign(d[0]!)) m0 = 0;
      else if (Math.sign(d[0]!) !== Math.sign(d[1]!) && Math.abs(m0) > 3 * Math.abs(d[0]!)) m0 = 3 * d[0]!;
      m[0] = m0;
    }
    // T_n: the extrapolation's slope (C¹), capped into the last interval's monotone range [0, 3δ] (or [3δ, 0]).
    const dn = d[n - 1]!;
    m[n] = dn >= 0 ? Math.min(Math.max(tail, 0), 3 * dn) : Math.max(Math.min(tail, 0), 3 * dn);
    let i = 0;
    while (i < n - 1 && t[i + 1]! <= T) i++;
    const h = t[i + 1]! - t[i]!;
    const s = (T - t[i]!) / h;
    return 6 * s * (1 - s) * d[i]! + (1 - 4 * s + 3 * s * s) * m[i]! + (3 * s * s - 2 * s) * m[i + 1]!;
  }
}
