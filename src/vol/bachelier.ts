/**
 * The Bachelier (normal) model: the price and greeks of a European call or put on a forward `F` struck at
 * `K`, expiring in `T` years, with normal vol `σ` (in the forward's units per √year: 0.0075 on a rate is
 * 75 bp a year) and a discount factor `DF`:
 *
 * ```
 * call = DF·((F − K)·N(x) + σ√T·φ(x)),   put = DF·((K − F)·N(−x) + σ√T·φ(x)),   x = (F − K)/(σ√T).
 * ```
 *
 * Any forward and strike, negative ones too. Numerics, as {@link black76}'s: the out-of-the-money option is
 * computed on its own and the in-the-money one is that plus the discounted intrinsic value (parity). Out of
 * the money, with `u = |x|`, the value is `σ√T·ψ(u)`, `ψ(u) = φ(u)·(1 − u·R(u))` and `R(u) = N(−u)/φ(u)` the
 * Mills ratio ({@link erfcx}, scaled: `R(u) = sqrt(π/2)·erfcx(u/√2)`), never `φ(u) − u·N(−u)`, which
 * cancels to nothing far out of the money; from `u = 4` on, `1 − u·R(u)` is `R(u)` times Laplace's
 * continued fraction (see {@link oneMinusUMills}), nothing subtracted. Accuracy, relative, measured against
 * mpmath at 60 digits (test/vol/bachelier.test.ts): about 1e-15 near the money, growing like `u²·1e-16`
 * far out (1.3e-14 at u = 10), which is the price's own conditioning: rounding `x = (F − K)/(σ√T)` moves
 * `φ(x)` by `x²` ulps.
 */
import {
  checkNonNegative,
  checkObject,
  checkOut,
  checkVolShape,
  checkVolTime,
  invalid,
  firstGreeks,
  marketTerms,
  optionTerms,
  type Black76Greeks,
  type OptionKind,
} from "./black76";
import {
  INV_SQRT_2PI,
  SQRT_HALF_PI,
  newArrays,
  writeLimits,
  type Black76Arrays,
  type Black76Kernel,
} from "./black76/series";
import { VolModelError, fmt } from "./errors";
import { erfcx, normCdf } from "./normal";

/** The inputs of {@link bachelier}. */
export interface BachelierInput {
  /** Forward of the underlying for the option's expiry, any finite number (a rate may be negative). */
  forward: number;
  /** Strike, any finite number, in the forward's units. */
  strike: number;
  /** Time to expiry in years, finite and ≥ 0 (0: the option pays its intrinsic value now). */
  maturity: number;
  /** Normal vol in the forward's units per √year (0.0075 = 75 bp on a rate), finite and ≥ 0. */
  vol: number;
  /** Discount factor from the payment date to today, finite and > 0. Default 1. */
  discountFactor?: number;
  /** `"call"` or `"put"`. */
  kind: OptionKind;
}

/** What {@link bachelierStrikes} needs besides the strikes and vols: one forward, expiry and discount factor. */
export interface BachelierMarket {
  /** Forward for the expiry, any finite number. */
  forward: number;
  /** Time to expiry in years, finite and ≥ 0. */
  maturity: number;
  /** Discount factor to the payment date, finite and > 0. Default 1. */
  discountFactor?: number;
  /** `"call"` or `"put"`. */
  kind: OptionKind;
}

/**
 * `1 − u·R(u)` for `u ≥ 0`, `R` the Mills ratio. Below u = 4 directly (it loses at most a factor ~17 there,
 * 1/(1 − u·R)); from 4 on, without cancellation, as `R(u)·C(u)` with Laplace's continued fraction
 * `C(u) = 1/(u + 2/(u + 3/(u + …)))` (from `R = 1/(u + C)`), evaluated backwards from depth `10 + 440/u²`
 * (38 at u = 4, 14 at u = 10: measured enough for 2e-17 relative against depth 20 000).
 */
export function oneMinusUMills(u: number): number {
  const R = SQRT_HALF_PI * erfcx(u * Math.SQRT1_2);
  if (u < 4) return 1 - u * R;
  let t = u;
  for (let k = Math.ceil(10 + 440 / (u * u)); k >= 2; k--) t = u + k / t;
  return R / t;
}

/**
 * The normalised out-of-the-money Bachelier value `ψ(u) = φ(u) − u·N(−u)` for `u ≥ 0`, without cancellation
 * (see the module's comment): an option's out-of-the-money value is `σ√T·ψ(|F − K|/(σ√T))`.
 */
export function bachelierOtm(u: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * u * u) * oneMinusUMills(u);
}

/** The Bachelier kernel (its arguments: {@link Black76Kernel}). */
const fillBachelier: Black76Kernel<ArrayLike<number>> = (F, strikes, vols, volStride, sqrtT, DF, r, call, out, n) => {
  for (let q = 0; q < n; q++) {
    const K = strikes[q]!;
    const sigma = vols[q * volStride]!;
    const d = F - K;
    const s = sigma * sqrtT;
    const x = d / s;
    const intrinsic = call ? (d > 0 ? d : 0) : d < 0 ? -d : 0;
    if (!(s > 0) || !(x - x === 0)) {
      // The limits of {@link Black76Greeks} at σ√T = 0; the at-the-money vega is DF·√T/√(2π).
      writeLimits(out, q, d, intrinsic, call, 1, sqrtT, sigma, DF, r);
      continue;
    }
    const u = x < 0 ? -x : x;
    const phi = INV_SQRT_2PI * Math.exp(-0.5 * u * u);
    const price = DF * (s * phi * oneMinusUMills(u) + intrinsic);
    out.price[q] = price;
    out.delta[q] = call ? DF * normCdf(x) : -DF * normCdf(-x);
    out.gamma[q] = (DF * phi) / s;
    out.vega[q] = DF * phi * sqrtT;
    // r overflows to ∞ for a subnormal T with DF ≠ 1: a price of 0 then earns nothing (∞·0 would be NaN).
    out.theta[q] = (price > 0 ? r * price : 0) - (DF * phi * sigma) / (2 * sqrtT);
  }
};

/** `x`, a finite number, else an error naming `field`. */
function checkFinite(x: unknown, field: string): number {
  if (typeof x !== "number" || !Number.isFinite(x)) throw invalid(field, `${field} finite`, x, "a finite number");
  return x;
}

/** `forward − strike` finite (it overflows only for forward and strike beyond ±1e308 of opposite signs). */
function checkSpread(F: number, K: number, field: string): void {
  if (!Number.isFinite(F - K)) {
    throw new VolModelError(`forward − ${field} must be finite; got ${fmt(F)} − ${fmt(K)}`, {
      field,
      condition: "forward − strike finite",
    });
  }
}

const ONE_K = new Float64Array(1);
const ONE_VOL = new Float64Array(1);
const ONE_OUT = newArrays(1);

/**
 * The Bachelier (normal-model) price and greeks of one European option, in the shape and conventions of
 * {@link black76} (its `Black76Greeks`, with the normal model's formulas; `x = (F − K)/(σ√T)`):
 * - `price`, discounted by `DF`;
 * - `delta = ∂price/∂F`: `DF·N(x)` for a call, `−DF·N(−x)` for a put;
 * - `gamma = DF·φ(x)/(σ√T)`;
 * - `vega = ∂price/∂σ = DF·√T·φ(x)`, per 1.00 of normal vol in the forward's units (per 0.0001 = 1 bp on a
 *   rate: divide by 10 000);
 * - `theta = −∂price/∂T` per year, with the rate `r = −ln(DF)/T` fixed: `r·price − DF·φ(x)·σ/(2√T)`.
 *
 * At `σ√T = 0` the limits of black76's (intrinsic value, delta `±DF`, 0 or `±DF/2` at the money, gamma 0 or
 * `+∞` at the money, vega `DF·√T/√(2π)` at the money and 0 elsewhere, theta `r·price` or `−∞` at the money
 * when `T = 0 < σ`). Never NaN.
 *
 * Throws {@link VolModelError} naming the field for a forward or strike that is not finite, a maturity or
 * vol that is not a finite number ≥ 0, a discount factor that is not a finite number > 0, a `kind` other
 * than `"call"` / `"put"`, or `vol·sqrt(maturity)` or `forward − strike` overflowing.
 *
 * @example
 * ```ts
 * vol.bachelier({ forward: -0.001, strike: 0.0025, maturity: 2, vol: 0.0075, kind: "call" }).price; // 0.0026…: rates below zero
 * ```
 */
export function bachelier(input: BachelierInput): Black76Greeks {
  checkObject(input, "input");
  const F = checkFinite(input.forward, "forward");
  const K = checkFinite(input.strike, "strike");
  checkSpread(F, K, "strike");
  const { sigma, DF, call, sqrtT, r } = optionTerms(input);
  ONE_K[0] = K;
  ONE_VOL[0] = sigma;
  fillBachelier(F, ONE_K, ONE_VOL, 0, sqrtT, DF, r, call, ONE_OUT, 1);
  return firstGreeks(ONE_OUT);
}

/**
 * Bachelier prices and greeks for many strikes at one forward, expiry and discount factor, into
 * Float64Arrays: the array form of {@link bachelier}, as {@link black76Strikes} is of black76 (`vols` one
 * normal vol or one per strike; `out`, when given, receives the results and is returned). Every input is
 * checked before anything is written; errors name the element (`strikes[3]`, `vols[3]`).
 * @example
 * ```ts
 * const out = vol.bachelierStrikes({ forward: 0.03, maturity: 1, kind: "call" }, [0.02, 0.03, 0.04], 0.008);
 * ```
 */
export function bachelierStrikes(
  market: BachelierMarket,
  strikes: ArrayLike<number>,
  vols: number | ArrayLike<number>,
  out?: Black76Arrays,
): Black76Arrays {
  checkObject(market, "market");
  const F = checkFinite(market.forward, "forward");
  const { DF, call, sqrtT, r } = marketTerms(market, strikes);
  const n = strikes.length;
  for (let q = 0; q < n; q++) checkSpread(F, checkFinite(strikes[q], `strikes[${q}]`), `strikes[${q}]`);
  let volArray: ArrayLike<number>;
  if (typeof vols === "number") {
    ONE_VOL[0] = checkNonNegative(vols, "vols");
    checkVolTime(vols, sqrtT, "vols");
    volArray = ONE_VOL;
  } else {
    checkVolShape(vols, n);
    for (let q = 0; q < n; q++) checkVolTime(checkNonNegative(vols[q], `vols[${q}]`), sqrtT, `vols[${q}]`);
    volArray = vols;
  }
  const res = out ? checkOut(out, n) : newArrays(n);
  fillBachelier(F, strikes, volArray, typeof vols === "number" ? 0 : 1, sqrtT, DF, r, call, res, n);
  return res;
}
