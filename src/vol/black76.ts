/**
 * Black-76: the price and greeks of a European call or put on a forward (or futures) price `F`, struck at
 * `K`, expiring in `T` years, with Black vol `σ` and a discount factor `DF` to the payment date:
 *
 * ```
 * call = DF·(F·N(d1) − K·N(d2)),   put = DF·(K·N(−d2) − F·N(−d1)),
 * d1 = ln(F/K)/(σ√T) + σ√T/2,      d2 = d1 − σ√T.
 * ```
 *
 * Numerics. The price is never formed as the difference `F·N(d1) − K·N(d2)` of two nearly equal numbers:
 * the out-of-the-money option (the call when K ≥ F, the put when K < F) is computed on its own, and the
 * in-the-money one is that plus the discounted intrinsic value `DF·|F − K|` (put–call parity), so a
 * deep out-of-the-money price of 1e-250 comes out to ~14 digits instead of as rounding noise. The
 * out-of-the-money value is Jäckel's normalised Black function (P. Jäckel, "Let's be rational", Wilmott
 * 2015, §3) in four regions of `h = −|ln(F/K)|/(σ√T)` and `t = σ√T/2`, each evaluated without
 * cancellation: an asymptotic series of the Mills ratio when `h + t ≤ −10` (far out of the money), a
 * Taylor series in `t` when `t < 0.21` (small vol-time), `N` of both `d`s when `h + t > 0.85`, and the
 * difference of scaled complementary error functions otherwise. The series were derived here from
 * `Y(z) = N(z)/φ(z)`, `Y' = 1 + z·Y` (see {@link fill} and {@link asymptoticD}); `erfc`/`erfcx` are
 * Cody's (normal.ts). Accuracy, relative, wherever the price is a normal double: about 1e-14 for
 * `|h| < 5`; further out the price's own conditioning takes over (rounding the inputs moves it by ~h²·1e-16,
 * 4e-13 at h = 30). Measured against mpmath at 60 digits on 20 000 random options, and in
 * test/vol/black76.test.ts against a 70-digit textbook Black-76 (greeks by finite differences).
 */
import { VolModelError, fmt } from "./errors";
import { erfcx } from "./normal";

/** A call or a put. */
export type OptionKind = "call" | "put";

/** The inputs of {@link black76}. */
export interface Black76Input {
  /** Forward (or futures) price of the underlying for the option's expiry, finite and > 0. */
  forward: number;
  /** Strike, finite and > 0, in the forward's units. */
  strike: number;
  /** Time to expiry in years, finite and ≥ 0 (0: the option pays its intrinsic value now). */
  maturity: number;
  /** Black vol (decimal per √year, 0.2 = 20%), finite and ≥ 0. */
  vol: number;
  /** Discount factor from the payment date to today, finite and > 0. Default 1 (the undiscounted, forward premium). */
  discountFactor?: number;
  /** `"call"` or `"put"`. */
  kind: OptionKind;
}

/**
 * The price and greeks of a Black-76 option. With `DF` the discount factor and `φ` the standard normal
 * density:
 * - `price`: the premium, discounted by `DF`;
 * - `delta = ∂price/∂F`, the forward delta: `DF·N(d1)` for a call, `−DF·N(−d1)` for a put (the
 *   discounted forward delta; divide by `DF` for the undiscounted `N(d1)` of the delta strike convention);
 * - `gamma = ∂²price/∂F² = DF·φ(d1)/(F·σ√T)` (the same for calls and puts);
 * - `vega = ∂price/∂σ = DF·F·φ(d1)·√T`, per 1.00 of vol (divide by 100 for one vol point);
 * - `theta = −∂price/∂T` per year of time to expiry, with `F`, `K`, `σ` and the continuously compounded
 *   rate `r = −ln(DF)/T` held fixed (so `DF = e^(−rT)` shrinks with T): `theta = r·price −
 *   DF·F·φ(d1)·σ/(2√T)`. It is the change in value per year as calendar time passes with the forward
 *   unchanged; divide by 365 for a calendar day. At `T = 0` the rate cannot be implied from `DF` and the
 *   `r·price` term is taken as 0.
 *
 * Where `σ√T = 0` (vol 0 or maturity 0) the values are the limits as `σ√T → 0`: the (discounted)
 * intrinsic value, a delta of `±DF` in the money, 0 out of the money and `±DF/2` at the money
 * (`F = K`); gamma 0, except `+∞` at the money (the payoff's kink); vega `DF·F·√T/√(2π)` at the money
 * and 0 elsewhere; theta `r·price`, except `−∞` at the money when `T = 0 < σ`. Never NaN.
 */
export interface Black76Greeks {
  price: number;
  delta: number;
  gamma: number;
  vega: number;
  theta: number;
}

/** The same as {@link Black76Greeks}, one element per strike. */
export interface Black76Arrays {
  price: Float64Array;
  delta: Float64Array;
  gamma: Float64Array;
  vega: Float64Array;
  theta: Float64Array;
}

/** What {@link black76Strikes} needs besides the strikes and vols: one forward, expiry and discount factor. */
export interface Black76Market {
  /** Forward price for the expiry, finite and > 0. */
  forward: number;
  /** Time to expiry in years, finite and ≥ 0. */
  maturity: number;
  /** Discount factor to the payment date, finite and > 0. Default 1. */
  discountFactor?: number;
  /** `"call"` or `"put"`. */
  kind: OptionKind;
}

const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
const SQRT_HALF_PI = Math.sqrt(Math.PI / 2);
/** Below this `t = σ√T/2` the Taylor series in t (through t¹³) is accurate to double precision. */
const SMALL_T = 0.21;
/** Where `h + t ≤` this the asymptotic Mills-ratio series converges to double precision. */
const ASYMPTOTIC_H = -10;

function invalid(field: string, condition: string, value: unknown, what: string): VolModelError {
  const shown = typeof value === "number" ? fmt(value) : (JSON.stringify(value) ?? String(value));
  return new VolModelError(`${field} must be ${what}; got ${shown}`, { field, condition });
}

function checkPositive(x: unknown, field: string): number {
  if (typeof x !== "number" || !(x > 0 && x < Infinity)) throw invalid(field, `${field} > 0`, x, "a finite number > 0");
  return x;
}

function checkNonNegative(x: unknown, field: string): number {
  if (typeof x !== "number" || !(x >= 0 && x < Infinity))
    throw invalid(field, `${field} >= 0`, x, "a finite number >= 0");
  return x;
}

function checkKind(kind: unknown): boolean {
  if (kind !== "call" && kind !== "put") throw invalid("kind", 'kind is "call" or "put"', kind, '"call" or "put"');
  return kind === "call";
}

/** Arguments and values of the Mills ratios of one option (see {@link fill}). */
const yArg = new Float64Array(3);
const yVal = new Float64Array(3);

/**
 * `D = Y(h + t) − Y(h − t)` far out of the money (`x1 = −(h + t) ≥ 10`), from the asymptotic series of
 * the Mills ratio `Y(−x) = Σ_n (−1)^n·(2n − 1)!!/x^(2n+1)`: `D = Σ_n (−1)^n·(2n − 1)!!·x1^−(2n+1)·(1 − ρ^(2n+1))`
 * with `ρ = x1/x2`, `x2 = t − h`. The factors `1 − ρ^m` are built up as sums of positive terms
 * (`1 − ρ^(m+2) = (1 − ρ^m) + ρ^m·(1 − ρ²)`, `1 − ρ = 2t/x2`), so nothing cancels however small t is.
 */
function asymptoticD(h: number, t: number): number {
  const x1 = -(h + t);
  const x2 = t - h;
  const rho = x1 / x2;
  const rho2 = rho * rho;
  const oneMinusRho = (2 * t) / x2;
  const oneMinusRho2 = oneMinusRho * (1 + rho);
  const r = 1 / (x1 * x1);
  let u = oneMinusRho; // 1 − ρ^m, m = 2n + 1
  let pw = rho; // ρ^m
  let p = 1 / x1; // (2n − 1)!!·x1^−(2n+1)
  let sum = 0;
  for (let n = 0; n < 60; n++) {
    const term = p * u;
    sum += n % 2 === 0 ? term : -term;
    if (!(term > 1e-17 * sum)) break;
    p *= (2 * n + 1) * r;
    u += pw * oneMinusRho2;
    pw *= rho2;
  }
  return sum;
}

/**
 * Small t (`t < 0.21`, in {@link fill}): `D = Y(h + t) − Y(h − t)` as the odd Taylor series of Y about h,
 * `D = 2·Σ_j Y^(2j+1)(h)·t^(2j+1)/(2j+1)!`, from `yh = Y(h)`. From `Y' = 1 + hY` every derivative is a
 * polynomial in h plus one times Y; with `a = 1 + h·Y(h) = Y'(h)` the odd ones are `U_j(h²) + a·V_j(h²)`,
 * the integer polynomials below (`Y‴ = −1 + a·(3 + h²)`, …), every term of the series positive. Seven
 * terms, through t¹³: the first one left out is below 2e-16 of the sum for t < 0.21. This function is its
 * terms t⁹ … t¹³ (over t⁹); the rest is written out in {@link fill} (the engine would inline neither whole).
 */
function taylorTail(z: number, a: number, w: number): number {
  const t4 = (-561 + z * (-285 + z * (-33 - z)) + a * (945 + z * (1260 + z * (378 + z * (36 + z))))) * (1 / 362880);
  const t5 =
    (-6555 +
      z * (-4680 + z * (-840 + z * (-52 - z))) +
      a * (10395 + z * (17325 + z * (6930 + z * (990 + z * (55 + z)))))) *
    (1 / 39916800);
  const t6 =
    (-89055 +
      z * (-82845 + z * (-20370 + z * (-1926 + z * (-75 - z)))) +
      a * (135135 + z * (270270 + z * (135135 + z * (25740 + z * (2145 + z * (78 + z))))))) *
    (1 / 6227020800);
  return t4 + w * (t5 + w * t6);
}

/** The limits of {@link Black76Greeks} where `σ√T = 0` (or so small that `|ln(F/K)|/(σ√T)` overflows), for option q. */
function writeLimits(
  out: Black76Arrays,
  q: number,
  x: number,
  intrinsic: number,
  call: boolean,
  F: number,
  sqrtT: number,
  sigma: number,
  DF: number,
  r: number,
): void {
  const atm = x === 0;
  const price = DF * intrinsic;
  out.price[q] = price;
  out.delta[q] = call ? DF * (x > 0 ? 1 : atm ? 0.5 : 0) : -DF * (x < 0 ? 1 : atm ? 0.5 : 0);
  out.gamma[q] = atm ? Infinity : 0;
  out.vega[q] = atm ? DF * F * sqrtT * INV_SQRT_2PI : 0;
  out.theta[q] = atm && sqrtT === 0 && sigma > 0 ? -Infinity : r * price;
}

/**
 * The hot loop: options `q = 0 … n − 1` (strike `strikes[q]`, vol `vols[q·volStride]`: stride 0 for one vol
 * for all) into `out[·][q]`. Inputs already checked: F, K > 0 finite, σ ≥ 0, T ≥ 0, σ√T finite,
 * DF > 0, `r` the rate implied by DF (0 at T = 0).
 *
 * The out-of-the-money value is `sqrt(F·K)·b` with Jäckel's normalised `b = e^(ht)·N(h + t) − e^(−ht)·N(h − t)`
 * at `h = ho = −|ln(F/K)|/(σ√T) ≤ 0`, written `b = E·D`: `E = φ(h)·e^(−t²/2)` (so `sqrt(F·K)·E = F·φ(d1)`, as
 * `e^(ht)·φ(h + t) = e^(−ht)·φ(h − t) = E`) and `D = Y(h + t) − Y(h − t)`. The delta needs
 * `N(−|d1|) = φ(d1)·Y(−|d1|)`, which in the two outer regions is one of the two Y's of D (|d1| is `t − ho`
 * or `|ho + t|`), so those options take two erfcx, not three.
 */
function fill(
  F: number,
  strikes: ArrayLike<number>,
  vols: ArrayLike<number>,
  volStride: number,
  sqrtT: number,
  DF: number,
  r: number,
  call: boolean,
  out: Black76Arrays,
  n: number,
): void {
  const sqrtF = Math.sqrt(F);
  const lnF = Math.log(F);
  const { price: outPrice, delta: outDelta, gamma: outGamma, vega: outVega, theta: outTheta } = out;
  for (let q = 0; q < n; q++) {
    const K = strikes[q]!;
    // (A vol read from an array every time, never merged with a number argument: the engine would box the merge.)
    const sigma = vols[q * volStride]!;
    // ln(F/K) to a few ulps even when F ≈ K (log1p((F − K)/K), F − K exact there): far out of the money the
    // price depends on exp(−ln(F/K)²/(2σ²T)), so a relative error δ in it becomes (ln(F/K)/(σ√T))²·δ.
    const ratio = F / K;
    const x =
      ratio > 0.5 && ratio < 2
        ? Math.log1p((F - K) / K)
        : ratio > 0 && ratio < Infinity
          ? Math.log(ratio)
          : lnF - Math.log(K);
    const s = sigma * sqrtT;
    const intrinsic = call ? (F > K ? F - K : 0) : K > F ? K - F : 0;
    const h = x / s;
    if (!(s > 0) || !(h - h === 0)) {
      writeLimits(out, q, x, intrinsic, call, F, sqrtT, sigma, DF, r);
      continue;
    }
    const t = 0.5 * s;
    const sqrtFK = sqrtF * Math.sqrt(K);
    // F·φ(d1) = sqrt(F·K)·φ(h)·e^(−t²/2): no exp of a rounded d1², and in log space when φ(h) alone would
    // underflow but the product does not (a huge forward and strike).
    const arg = -0.5 * (h * h + t * t);
    const fPhi = (arg > -600 ? Math.exp(arg) * sqrtFK : Math.exp(arg + Math.log(sqrtFK))) * INV_SQRT_2PI;
    const ho = h < 0 ? h : -h;
    const d1 = h + t;
    const region = ho + t <= ASYMPTOTIC_H ? 0 : t < SMALL_T ? 1 : ho + t > 0.85 ? 2 : 3;
    // The Y's as erfcx arguments (Y(z) = sqrt(π/2)·erfcx(−z/√2)), all through one call site below so that
    // the engine inlines erfcx once: [0] Y(−|d1|) when it is not one of the others, [1], [2] those of D.
    // In the outer regions |d1| is t − ho (h ≥ 0) or |ho + t|: the delta reuses one of D's.
    const deltaAt = region < 2 || (region === 3 && h < 0 && d1 >= 0) ? 0 : h >= 0 ? 2 : 1;
    yArg[0] = (d1 < 0 ? -d1 : d1) * Math.SQRT1_2;
    if (region === 1) yArg[1] = -ho * Math.SQRT1_2;
    else if (region >= 2) {
      yArg[1] = (region === 2 ? ho + t : -(ho + t)) * Math.SQRT1_2;
      yArg[2] = (t - ho) * Math.SQRT1_2;
    }
    const m = region === 0 ? 1 : region === 1 ? 2 : 3;
    for (let j = deltaAt === 0 ? 0 : 1; j < m; j++) yVal[j] = SQRT_HALF_PI * erfcx(yArg[j]!);
    let otm: number;
    if (region === 0) otm = fPhi * asymptoticD(ho, t);
    else if (region === 1) {
      const a = 1 + ho * yVal[1]!;
      const z = ho * ho;
      const w = t * t;
      const t1 = (-1 + a * (3 + z)) * (1 / 6);
      const t2 = (-7 - z + a * (15 + z * (10 + z))) * (1 / 120);
      const t3 = (-57 + z * (-18 - z) + a * (105 + z * (105 + z * (21 + z)))) * (1 / 5040);
      otm = fPhi * 2 * t * (a + w * (t1 + w * (t2 + w * (t3 + w * taylorTail(z, a, w)))));
    } else if (region === 2) {
      // N(d1) is not small, nothing to cancel: e^(ht)·N(h + t) = e^(ht) − E·Y(−(h + t)); the second term as
      // E·Y(h − t) cannot overflow.
      const v = sqrtFK * Math.exp(ho * t) - fPhi * (yVal[1]! + yVal[2]!);
      otm = v > 0 ? v : 0;
    } else {
      // The difference of Mills ratios loses at most a factor ~25 (at t = 0.21, h + t = −10).
      otm = fPhi * (yVal[1]! - yVal[2]!);
    }
    const yDelta = yVal[deltaAt]!;
    const price = DF * (otm + intrinsic);
    const tail = (fPhi / F) * yDelta;
    outPrice[q] = price;
    outDelta[q] = call ? DF * (d1 < 0 ? tail : 1 - tail) : -DF * (d1 < 0 ? 1 - tail : tail);
    outGamma[q] = (DF * fPhi) / F / (F * s);
    outVega[q] = DF * fPhi * sqrtT;
    outTheta[q] = r * price - (DF * fPhi * sigma) / (2 * sqrtT);
  }
}

/** `sqrt(T)` and the implied rate `r = −ln(DF)/T` (0 at T = 0). */
function timeTerms(maturity: number, discountFactor: number): [number, number] {
  return [Math.sqrt(maturity), maturity > 0 ? -Math.log(discountFactor) / maturity : 0];
}

function checkVolTime(sigma: number, sqrtT: number, field: string): void {
  if (!(sigma * sqrtT < Infinity)) {
    throw new VolModelError(`${field} · sqrt(maturity) must be finite; got ${fmt(sigma)} · ${fmt(sqrtT)}`, {
      field,
      condition: "vol·sqrt(T) finite",
    });
  }
}

const scratchK = new Float64Array(1);
const scratchVol = new Float64Array(1);
const scratch: Black76Arrays = {
  price: new Float64Array(1),
  delta: new Float64Array(1),
  gamma: new Float64Array(1),
  vega: new Float64Array(1),
  theta: new Float64Array(1),
};

/**
 * The Black-76 price and greeks of one European option (definitions and limits on {@link Black76Greeks}).
 *
 * Throws {@link VolModelError} naming the field for a forward, strike or discount factor that is not a
 * finite number > 0, a maturity or vol that is not a finite number ≥ 0, a `kind` other than `"call"` /
 * `"put"`, or `vol·sqrt(maturity)` overflowing.
 *
 * ```ts
 * black76({ forward: 20, strike: 20, maturity: 4 / 12, vol: 0.25, discountFactor: Math.exp(-0.09 * 4 / 12), kind: "put" }).price; // 1.1166 (Hull)
 * ```
 */
export function black76(input: Black76Input): Black76Greeks {
  if (!input || typeof input !== "object")
    throw invalid("input", "object", input, "an object { forward, strike, maturity, vol, kind }");
  const F = checkPositive(input.forward, "forward");
  const K = checkPositive(input.strike, "strike");
  const T = checkNonNegative(input.maturity, "maturity");
  const sigma = checkNonNegative(input.vol, "vol");
  const DF = checkPositive(input.discountFactor ?? 1, "discountFactor");
  const call = checkKind(input.kind);
  const [sqrtT, r] = timeTerms(T, DF);
  checkVolTime(sigma, sqrtT, "vol");
  scratchK[0] = K;
  scratchVol[0] = sigma;
  fill(F, scratchK, scratchVol, 0, sqrtT, DF, r, call, scratch, 1);
  return {
    price: scratch.price[0]!,
    delta: scratch.delta[0]!,
    gamma: scratch.gamma[0]!,
    vega: scratch.vega[0]!,
    theta: scratch.theta[0]!,
  };
}

/**
 * Black-76 prices and greeks for many strikes at one forward, expiry and discount factor, written into
 * Float64Arrays (no allocation per strike): the throughput form of {@link black76}, with the same
 * definitions. `vols` is one vol for every strike or one per strike (a smile). `out`, when given, receives
 * the results (each array at least `strikes.length` long) and is returned; otherwise new arrays are.
 *
 * Everything is checked before anything is computed: errors name the element (`strikes[3]`, `vols[3]`).
 */
export function black76Strikes(
  market: Black76Market,
  strikes: ArrayLike<number>,
  vols: number | ArrayLike<number>,
  out?: Black76Arrays,
): Black76Arrays {
  if (!market || typeof market !== "object")
    throw invalid("market", "object", market, "an object { forward, maturity, kind }");
  const F = checkPositive(market.forward, "forward");
  const T = checkNonNegative(market.maturity, "maturity");
  const DF = checkPositive(market.discountFactor ?? 1, "discountFactor");
  const call = checkKind(market.kind);
  const [sqrtT, r] = timeTerms(T, DF);
  if (strikes === null || typeof strikes !== "object" || typeof strikes.length !== "number")
    throw invalid("strikes", "array", strikes, "an array of numbers");
  const n = strikes.length;
  for (let q = 0; q < n; q++) {
    const K = strikes[q];
    if (typeof K !== "number" || !(K > 0 && K < Infinity)) checkPositive(K, `strikes[${q}]`);
  }
  let volArray: ArrayLike<number> | undefined;
  let vol0 = 0;
  if (typeof vols === "number") {
    vol0 = checkNonNegative(vols, "vols");
    checkVolTime(vol0, sqrtT, "vols");
  } else {
    if (vols === null || typeof vols !== "object" || vols.length !== n) {
      throw new VolModelError(
        `vols must be one number or one per strike (${n}); got ${vols === null || typeof vols !== "object" ? String(vols) : `${vols.length} values`}`,
        {
          field: "vols",
          condition: "one vol per strike",
        },
      );
    }
    for (let q = 0; q < n; q++) {
      const v = vols[q];
      if (typeof v !== "number" || !(v >= 0 && v * sqrtT < Infinity)) {
        checkNonNegative(v, `vols[${q}]`);
        checkVolTime(v as number, sqrtT, `vols[${q}]`);
      }
    }
    volArray = vols;
  }
  const res = out ?? {
    price: new Float64Array(n),
    delta: new Float64Array(n),
    gamma: new Float64Array(n),
    vega: new Float64Array(n),
    theta: new Float64Array(n),
  };
  if (out) {
    for (const key of ["price", "delta", "gamma", "vega", "theta"] as const) {
      const a = out[key];
      if (!(a instanceof Float64Array) || a.length < n) {
        throw new VolModelError(`out.${key} must be a Float64Array of at least ${n} elements`, {
          field: `out.${key}`,
          condition: "Float64Array, length >= strikes",
        });
      }
    }
  }
  if (volArray === undefined) {
    scratchVol[0] = vol0;
    fill(F, strikes, scratchVol, 0, sqrtT, DF, r, call, res, n);
  } else {
    fill(F, strikes, volArray, 1, sqrtT, DF, r, call, res, n);
  }
  return res;
}
