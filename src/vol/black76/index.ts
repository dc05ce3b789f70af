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
 * Taylor series in `t` when `t < 0.21` and the next region would lose digits (small vol-time), `N` of
 * both `d`s when `h + t > 0.85`, and the difference of scaled complementary error functions otherwise.
 * The series were derived here from `Y(z) = N(z)/φ(z)`, `Y' = 1 + z·Y` ({@link taylorD},
 * {@link asymptoticD}); `erfcx` is Cody's ({@link erfcx}, {@link erfcxFast}). Accuracy, relative, wherever
 * the price is a normal double: about 1e-14 for `|h| < 5`; further out the price's own conditioning takes over (rounding the inputs moves it by
 * ~h²·1e-16, 4e-13 at h = 30). Measured against mpmath at 60 digits on 20 000 random options, and in
 * test/vol/black76.test.ts against a 70-digit textbook Black-76 (greeks by finite differences).
 *
 * The loop is {@link fillBlack76} (chunks of options in passes, no object and no call per option); the
 * previous kernel is kept as {@link fillBlack76Reference}, which the tests and bench/black.mjs measure it
 * against and which still computes the rare options the fast passes leave out (the limits at σ√T = 0, the
 * far tail h + t ≤ −10, F or F/K beyond 1e±300).
 */
import { VolModelError, fmt } from "../errors";
import { fillBlack76 } from "./kernel";
import { fillBlack76Parallel } from "./parallel";
import { RESULT_KEYS, newArrays, type Black76Arrays } from "./series";

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
  /**
   * Shift of the shifted-lognormal (displaced) model, in the forward's units, finite; default 0. The model is
   * Black-76 on `F + shift` and `K + shift`, which must both be > 0 (the forward and strike themselves may
   * then be 0 or negative: a shift of 0.02 admits rates down to −2%). Greeks are with respect to the
   * unshifted forward and are those of the shifted one (`∂/∂F = ∂/∂(F + shift)`); `vol` is the shifted
   * lognormal vol.
   */
  shift?: number;
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
export type { Black76Arrays };

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
  /** Shift of the shifted-lognormal model (see {@link Black76Input.shift}), default 0: every `strike + shift` and `forward + shift` > 0. */
  shift?: number;
}

/** The error for `field` failing `condition`: "field must be what; got value". */
export function invalid(field: string, condition: string, value: unknown, what: string): VolModelError {
  const shown = typeof value === "number" ? fmt(value) : (JSON.stringify(value) ?? String(value));
  return new VolModelError(`${field} must be ${what}; got ${shown}`, { field, condition });
}

/** The fields of what the pricers take: one option (`input`) or a market for many strikes (`market`). */
const SHAPES = {
  input: "an object { forward, strike, maturity, vol, kind }",
  market: "an object { forward, maturity, kind }",
} as const;

/** `x` an object, else an error naming `field` and the fields it should have. */
export function checkObject(x: unknown, field: keyof typeof SHAPES): void {
  if (!x || typeof x !== "object") throw invalid(field, "object", x, SHAPES[field]);
}

/** `x`, a finite number > 0, else an error naming `field`. */
export function checkPositive(x: unknown, field: string): number {
  if (typeof x !== "number" || !(x > 0 && x < Infinity)) throw invalid(field, `${field} > 0`, x, "a finite number > 0");
  return x;
}

/** `x`, a finite number (the shift of the shifted-lognormal model), else an error naming `shift`. */
export function checkShift(x: unknown): number {
  if (typeof x !== "number" || !Number.isFinite(x)) throw invalid("shift", "shift finite", x, "a finite number");
  return x;
}

/**
 * `value + shift`, checked: with shift 0 exactly {@link checkPositive} (the same messages); otherwise `value`
 * finite and `value + shift` finite and > 0, the message giving the sum.
 */
export function checkShifted(x: unknown, shift: number, field: string): number {
  if (shift === 0) return checkPositive(x, field);
  if (typeof x !== "number" || !Number.isFinite(x)) throw invalid(field, `${field} finite`, x, "a finite number");
  const sum = x + shift;
  if (!(sum > 0 && sum < Infinity)) {
    throw new VolModelError(
      `${field} + shift must be a finite number > 0; got ${fmt(x)} + ${fmt(shift)} = ${fmt(sum)}`,
      { field, condition: `${field} + shift > 0` },
    );
  }
  return sum;
}

/** The strikes plus the shift, each checked ({@link checkShifted}, naming `strikes[i]`): a new Float64Array. */
function shiftedStrikes(strikes: ArrayLike<number>, shift: number): Float64Array {
  const out = new Float64Array(strikes.length);
  for (let q = 0; q < strikes.length; q++) out[q] = checkShifted(strikes[q], shift, `strikes[${q}]`);
  return out;
}

/** `x`, a finite number ≥ 0, else an error naming `field`. */
export function checkNonNegative(x: unknown, field: string): number {
  if (typeof x !== "number" || !(x >= 0 && x < Infinity))
    throw invalid(field, `${field} >= 0`, x, "a finite number >= 0");
  return x;
}

/** True for `"call"`, false for `"put"`, an error naming `kind` otherwise. */
export function checkKind(kind: unknown): boolean {
  if (kind !== "call" && kind !== "put") throw invalid("kind", 'kind is "call" or "put"', kind, '"call" or "put"');
  return kind === "call";
}

/** `sqrt(T)` and the implied rate `r = −ln(DF)/T` (0 at T = 0). */
export function timeTerms(maturity: number, discountFactor: number): [number, number] {
  return [Math.sqrt(maturity), maturity > 0 ? -Math.log(discountFactor) / maturity : 0];
}

/** `sigma·sqrtT` finite, else an error naming `field`. */
export function checkVolTime(sigma: number, sqrtT: number, field: string): void {
  if (!(sigma * sqrtT < Infinity)) {
    throw new VolModelError(`${field} · sqrt(maturity) must be finite; got ${fmt(sigma)} · ${fmt(sqrtT)}`, {
      field,
      condition: "vol·sqrt(T) finite",
    });
  }
}

/** The one vol of {@link black76Strikes} called with one vol for all, as the kernels read it. */
const scratchVol = new Float64Array(1);

/** One vol for every strike: checked, with `vol·sqrt(T)` finite. */
function checkOneVol(vol: number, sqrtT: number): number {
  const v = checkNonNegative(vol, "vols");
  checkVolTime(v, sqrtT, "vols");
  return v;
}

/** `vols` one per strike (`n`), else an error naming `vols`. */
export function checkVolShape(vols: ArrayLike<number>, n: number): void {
  if (vols === null || typeof vols !== "object" || vols.length !== n) {
    throw new VolModelError(
      `vols must be one number or one per strike (${n}); got ${vols === null || typeof vols !== "object" ? String(vols) : `${vols.length} values`}`,
      { field: "vols", condition: "one vol per strike" },
    );
  }
}

/** Each strike finite and > 0, each vol finite, ≥ 0 and with `vol·sqrt(T)` finite: the first that is not, named. */
function checkElements(strikes: ArrayLike<number>, vols: ArrayLike<number> | undefined, sqrtT: number): void {
  const n = strikes.length;
  for (let q = 0; q < n; q++) {
    const K = strikes[q];
    if (typeof K !== "number" || !(K > 0 && K < Infinity)) checkPositive(K, `strikes[${q}]`);
  }
  if (vols === undefined) return;
  for (let q = 0; q < n; q++) {
    const v = vols[q];
    if (typeof v !== "number" || !(v >= 0 && v * sqrtT < Infinity)) {
      checkNonNegative(v, `vols[${q}]`);
      checkVolTime(v as number, sqrtT, `vols[${q}]`);
    }
  }
}

/** `out`'s five arrays Float64Arrays of at least `n` elements, else an error naming the array. */
export function checkOut(out: Black76Arrays, n: number): Black76Arrays {
  for (const key of RESULT_KEYS) {
    const a = out[key];
    if (!(a instanceof Float64Array) || a.length < n) {
      throw new VolModelError(`out.${key} must be a Float64Array of at least ${n} elements`, {
        field: `out.${key}`,
        condition: "Float64Array, length >= strikes",
      });
    }
  }
  return out;
}

/** What the kernels take of a market besides the forward, checked: see {@link Black76Kernel}. */
interface KernelTerms {
  DF: number;
  call: boolean;
  sqrtT: number;
  r: number;
}

/**
 * One option's `maturity`, `vol`, `discountFactor` (default 1) and `kind`, checked in that order (errors
 * name them), with `vol·sqrt(maturity)` finite.
 */
export function optionTerms(input: {
  maturity: unknown;
  vol: unknown;
  discountFactor?: unknown;
  kind: unknown;
}): KernelTerms & { sigma: number } {
  const T = checkNonNegative(input.maturity, "maturity");
  const sigma = checkNonNegative(input.vol, "vol");
  const DF = checkPositive(input.discountFactor ?? 1, "discountFactor");
  const call = checkKind(input.kind);
  const [sqrtT, r] = timeTerms(T, DF);
  checkVolTime(sigma, sqrtT, "vol");
  return { sigma, DF, call, sqrtT, r };
}

/**
 * A market's `maturity`, `discountFactor` (default 1) and `kind`, checked in that order (errors name them),
 * then `strikes` an array-like: what {@link black76Strikes} and {@link bachelierStrikes} check after the
 * forward.
 */
export function marketTerms(
  market: { maturity: unknown; discountFactor?: unknown; kind: unknown },
  strikes: ArrayLike<number>,
): KernelTerms {
  const T = checkNonNegative(market.maturity, "maturity");
  const DF = checkPositive(market.discountFactor ?? 1, "discountFactor");
  const call = checkKind(market.kind);
  const [sqrtT, r] = timeTerms(T, DF);
  if (strikes === null || typeof strikes !== "object" || typeof strikes.length !== "number")
    throw invalid("strikes", "array", strikes, "an array of numbers");
  return { DF, call, sqrtT, r };
}

/** The results of a kernel's first option: what {@link black76} and {@link bachelier} return. */
export function firstGreeks(out: Black76Arrays): Black76Greeks {
  const { price, delta, gamma, vega, theta } = out;
  return { price: price[0]!, delta: delta[0]!, gamma: gamma[0]!, vega: vega[0]!, theta: theta[0]! };
}

const oneK = new Float64Array(1);
const oneVol = new Float64Array(1);
const oneOut = newArrays(1);

/**
 * The Black-76 price and greeks of one European option (definitions and limits on {@link Black76Greeks}).
 *
 * Throws {@link VolModelError} naming the field for a forward, strike or discount factor that is not a
 * finite number > 0 (with a `shift`: a forward or strike plus the shift that is not, the message giving the
 * sum), a maturity or vol that is not a finite number ≥ 0, a `kind` other than `"call"` /
 * `"put"`, or `vol·sqrt(maturity)` overflowing.
 *
 * @example
 * ```ts
 * vol.black76({ forward: 20, strike: 20, maturity: 4 / 12, vol: 0.25, discountFactor: Math.exp(-0.09 * 4 / 12), kind: "put" }).price; // 1.1166 (Hull)
 * ```
 */
export function black76(input: Black76Input): Black76Greeks {
  checkObject(input, "input");
  const shift = checkShift(input.shift ?? 0);
  const F = checkShifted(input.forward, shift, "forward");
  const K = checkShifted(input.strike, shift, "strike");
  const { sigma, DF, call, sqrtT, r } = optionTerms(input);
  oneK[0] = K;
  oneVol[0] = sigma;
  fillBlack76(F, oneK, oneVol, 0, sqrtT, DF, r, call, oneOut, 1);
  return firstGreeks(oneOut);
}

/**
 * Black-76 prices and greeks for many strikes at one forward, expiry and discount factor, written into
 * Float64Arrays (no allocation per strike): the throughput form of {@link black76}, with the same
 * definitions. `vols` is one vol for every strike or one per strike (a smile). `out`, when given, receives
 * the results (each array at least `strikes.length` long) and is returned; otherwise new arrays are.
 *
 * Everything is checked before anything is written: errors name the element (`strikes[3]`, `vols[3]`). (A
 * large batch of Float64Arrays is checked while a worker thread starts on it, into memory of its own.)
 * With `market.shift` ≠ 0, the shifted strikes are a new array (checked first, each `strikes[i] + shift` > 0).
 * @example
 * ```ts
 * const out = vol.black76Strikes({ forward: 100, maturity: 0.5, kind: "call" }, [90, 100, 110], 0.2);
 * out.price; // Float64Array of 3 prices; delta, gamma, vega, theta beside it
 * ```
 */
export function black76Strikes(
  market: Black76Market,
  strikes: ArrayLike<number>,
  vols: number | ArrayLike<number>,
  out?: Black76Arrays,
): Black76Arrays {
  checkObject(market, "market");
  const shift = checkShift(market.shift ?? 0);
  const F = checkShifted(market.forward, shift, "forward");
  const { DF, call, sqrtT, r } = marketTerms(market, strikes);
  if (shift !== 0) strikes = shiftedStrikes(strikes, shift);
  const n = strikes.length;
  const vols1 = typeof vols === "number" ? checkOneVol(vols, sqrtT) : undefined;
  if (vols1 === undefined) checkVolShape(vols as ArrayLike<number>, n);
  const res = out ? checkOut(out, n) : newArrays(n);
  const volArray = vols1 === undefined ? (vols as ArrayLike<number>) : undefined;
  const check = () => checkElements(strikes, volArray, sqrtT);
  // Float64Arrays' elements are checked while a worker starts on a large batch ({@link fillBlack76Parallel}:
  // nothing is written to `out` before they pass); other array-likes are checked before they are copied.
  const deferred = strikes instanceof Float64Array && (volArray === undefined || volArray instanceof Float64Array);
  if (!deferred) check();
  // The kernel reads Float64Arrays only (one shape of loop for every input): other array-likes are copied.
  const K = strikes instanceof Float64Array ? strikes : Float64Array.from(strikes);
  if (volArray === undefined) scratchVol[0] = vols1!;
  const V =
    volArray === undefined ? scratchVol : volArray instanceof Float64Array ? volArray : Float64Array.from(volArray);
  const stride = volArray === undefined ? 0 : 1;
  if (!fillBlack76Parallel(F, K, V, stride, sqrtT, DF, r, call, res, n, deferred ? check : undefined)) {
    if (deferred) check();
    fillBlack76(F, K, V, stride, sqrtT, DF, r, call, res, n);
  }
  return res;
}
