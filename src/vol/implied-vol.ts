/**
 * Implied vols: the Black (lognormal, optionally shifted) vol or the Bachelier (normal) vol that reprices an
 * option, the inverses of {@link black76} and {@link bachelier}.
 *
 * - Black: P. Jäckel's "Let's Be Rational" ({@link impliedNormalisedOtm}): a rational initial guess in four branches
 *   and two third-order Householder steps (more only while a step still moves the vol by 1e-8 of itself, in
 *   the far wings at vol-time 25 and beyond) on the normalised Black function, which is this package's own
 *   ({@link black76}'s regions), so `impliedVol` inverts `black76` to the last digits.
 * - Bachelier: P. Jäckel's "Implied Normal Volatility" (Wilmott, 2017): with `Φ̃(x) = N(x) + φ(x)/x`, the
 *   out-of-the-money value is `−|F − K|·Φ̃(x)` at `x = −|F − K|/(σ√T)`; his rational approximation of `Φ̃⁻¹`
 *   in two branches (eqs. 2.1–2.5) and one Householder step of third order (eq. 2.6), with `Φ̃` evaluated
 *   without cancellation ({@link oneMinusUMills}, `1 − u·R(u)`). Where the value is below 1e-290 of `|F − K|` (`φ`
 *   leaving the normal doubles) the step is a Newton iteration on `ln(−Φ̃)` instead.
 *
 * Accuracy, measured in test/vol/implied-vol.test.ts (round trips from 60-digit prices, and from this
 * package's own over |z| ≤ 10, vol 1e-4 … 5, maturity 1/365 … 30): the implied vol is as accurate as the
 * price determines it. A relative error δ in the price moves the vol by `δ·price/(vega·σ)`. Where
 * vega·σ/price ≥ 1e-3 the vol comes back to at most 2.5e-13 relative (Black; 1.9e-14 for |z| ≤ 1) and
 * 1.6e-13 (Bachelier; 9e-16 for |z| ≤ 1), the worst cases in the money where that factor is near 1e-3; the
 * tests hold it to 1e-12. Where the factor is smaller (a price within rounding of `DF·F`, or deep in the
 * money with the time value in the intrinsic value's last digits) the vol is only what the price's digits
 * say, and the price of the implied vol equals the price given to 1.4e-14 (1.6e-13 over random prices with
 * time values down to e^-200 of the range).
 */
import { oneMinusUMills } from "./bachelier";
import {
  checkKind,
  checkNonNegative,
  checkPositive,
  checkShift,
  checkShifted,
  invalid,
  type OptionKind,
} from "./black76";
import { VolModelError, fmt } from "./errors";
import { impliedNormalisedOtm } from "./lets-be-rational";
import { erfcx } from "./normal";

/** The model whose vol is implied: `"black"` (lognormal, shifted with `shift`) or `"bachelier"` (normal). */
export type VolModel = "black" | "bachelier";

/** The inputs of {@link impliedVol}: {@link black76}'s names, a price instead of a vol. */
export interface ImpliedVolInput {
  /** The option's premium, discounted by `discountFactor` (what {@link black76} returns as `price`). */
  price: number;
  /** Forward: Black, finite and `forward + shift > 0`; Bachelier, any finite number. */
  forward: number;
  /** Strike: Black, finite and `strike + shift > 0`; Bachelier, any finite number. */
  strike: number;
  /** Time to expiry in years, finite and ≥ 0 (at 0 only the intrinsic value is a price: vol 0). */
  maturity: number;
  /** `"call"` or `"put"`. */
  kind: OptionKind;
  /** Discount factor to the payment date, finite and > 0. Default 1. */
  discountFactor?: number;
  /** `"black"` (default) or `"bachelier"`. */
  model?: VolModel;
  /** Black only: the shift of the shifted-lognormal model (as {@link black76}'s), default 0. */
  shift?: number;
}

/** The inputs of {@link impliedVols}: a smile of prices at one forward and expiry. */
export interface ImpliedVolsInput {
  /** One discounted premium per strike. */
  prices: ArrayLike<number>;
  /** Forward, as {@link ImpliedVolInput.forward}. */
  forward: number;
  /** The strikes, one per price. */
  strikes: ArrayLike<number>;
  /** Time to expiry in years, finite and ≥ 0. */
  maturity: number;
  /** `"call"` or `"put"` for all, or one per price (calls below the forward and puts above, say). */
  kind: OptionKind | readonly OptionKind[];
  /** Discount factor to the payment date, finite and > 0. Default 1. */
  discountFactor?: number;
  /** `"black"` (default) or `"bachelier"`. */
  model?: VolModel;
  /** Black only: the shift, default 0. */
  shift?: number;
}

/**
 * Why a price implies no vol: below the intrinsic value, at or above the upper bound, a time value at
 * maturity 0, or a time value too small for a double (below 2.2e-308 of sqrt(F·K) or |F − K|).
 */
const enum Fault {
  below = -1,
  above = -2,
  expired = -3,
  tiny = -4,
}

/** Prices within this relative distance below the intrinsic value are the intrinsic value (rounding of DF·(…)). */
const ROUNDING = 4 * 2 ** -53;

/** `ln(F/K)` to a few ulps even when F ≈ K (as {@link fillBlack76Reference} takes it). */
function logRatio(F: number, K: number): number {
  const ratio = F / K;
  if (ratio > 0.5 && ratio < 2) return Math.log1p((F - K) / K);
  return ratio > 0 && ratio < Infinity ? Math.log(ratio) : Math.log(F) - Math.log(K);
}

/** The undiscounted time value `p − intrinsic`, 0 within rounding of the intrinsic value, or a fault. */
function timeValue(p: number, intrinsic: number, sqrtT: number): number {
  const v = p - intrinsic;
  if (v < 0) return -v <= ROUNDING * intrinsic ? 0 : Fault.below;
  if (v > 0 && sqrtT === 0) return v <= ROUNDING * intrinsic ? 0 : Fault.expired;
  return v;
}

/** The Black vol of undiscounted price `p` (F, K shifted, > 0), or a {@link Fault}. */
function blackVol(p: number, F: number, K: number, sqrtT: number, call: boolean): number {
  const intrinsic = call ? (F > K ? F - K : 0) : K > F ? K - F : 0;
  if (!(p < (call ? F : K))) return Fault.above;
  const v = timeValue(p, intrinsic, sqrtT);
  if (v <= 0) return v;
  // The out-of-the-money twin (the option itself, or the other kind by parity) is b(−|x|, s) in Jäckel's
  // normalised form, whatever the kind: a put is the call at the reciprocal strike.
  const x = logRatio(F, K);
  const xo = x < 0 ? x : -x;
  const beta = v / (Math.sqrt(F) * Math.sqrt(K));
  if (!(beta < Math.exp(0.5 * xo))) return Fault.above;
  // A time value below 2.2e-308·sqrt(F·K): the normalised price is subnormal (or 0), with too few digits.
  if (!(beta >= 2 ** -1022)) return Fault.tiny;
  return impliedNormalisedOtm(beta, xo) / sqrtT;
}

/** `Φ̃⁻¹(−k)` for `k > 0` (Jäckel 2017, eqs. 2.1–2.6), as `u = −x > 0`. */
function inversePhiTilde(k: number): number {
  const phiStar = -k;
  let xBar: number;
  if (phiStar < -0.001882039271) {
    const g = 1 / (phiStar - 0.5);
    const g2 = g * g;
    const xi =
      (0.032114372355 - g2 * (0.016969777977 - g2 * (2.6207332461e-3 - 9.6066952861e-5 * g2))) /
      (1 - g2 * (0.6635646938 - g2 * (0.14528712196 - 0.010472855461 * g2)));
    xBar = g * (0.3989422804014327 + xi * g2);
  } else {
    const h = Math.sqrt(-Math.log(k));
    xBar =
      (9.4883409779 - h * (9.6320903635 - h * (0.58556997323 + 2.1464093351 * h))) /
      (1 - h * (0.65174820867 + h * (1.5120247828 + 6.6437847132e-5 * h)));
  }
  const u = -xBar;
  if (k < 1e-290) return logNewton(u, k);
  // q = (Φ̃(x̄) − φ̃*)/φ(x̄) with Φ̃(x̄) = −ψ(u)/u, ψ(u)/φ(u) = 1 − u·R(u) (no cancellation).
  const q = -oneMinusUMills(u) / u + k / (0.3989422804014327 * Math.exp(-0.5 * u * u));
  const x = xBar;
  const x2 = x * x;
  return -(x + (3 * q * x2 * (2 - q * x * (2 + x2))) / (6 + q * x * (-12 + x * (6 * q + x * (-6 + q * x * (3 + x2))))));
}

/**
 * `u` with `ψ(u)/u = k` by Newton on `ln(ψ(u)/u) = −u²/2 − ln(√(2π)·u) + ln(1 − u·R(u))`, whose derivative is
 * `−R/(1 − u·R) − 1/u`: for `k` below 1e-290, where `φ(u)` leaves the normal doubles.
 */
function logNewton(u0: number, k: number): number {
  const lnK = Math.log(k);
  let u = u0;
  for (let i = 0; i < 8; i++) {
    const R = 1.2533141373155003 * erfcx(u * Math.SQRT1_2);
    const g = oneMinusUMills(u);
    const f = -0.5 * u * u - Math.log(2.5066282746310002 * u) + Math.log(g) - lnK;
    const du = f / (-R / g - 1 / u);
    u -= du;
    if (Math.abs(du) <= 1e-16 * u) break;
  }
  return u;
}

/** The Bachelier vol of undiscounted price `p`, or a {@link Fault}. */
function normalVol(p: number, F: number, K: number, sqrtT: number, call: boolean): number {
  const d = F - K;
  const ad = d < 0 ? -d : d;
  const v = timeValue(p, call ? (d > 0 ? d : 0) : d < 0 ? -d : 0, sqrtT);
  if (v <= 0) return v;
  // Near the money (|F − K|/(σ√T) below 3e-9) the value is σ√T·φ(0) − |F − K|/2 to O(u²) < 1e-17 relative.
  if (ad < 1e-9 * v) return ((v + 0.5 * ad) * 2.5066282746310002) / sqrtT;
  const k = v / ad;
  if (!(k >= 2 ** -1022)) return Fault.tiny;
  return ad / (inversePhiTilde(k) * sqrtT);
}

/** The checked market of one or many prices: forward and strike shifted for Black. */
interface Market {
  black: boolean;
  shift: number;
  F: number;
  sqrtT: number;
  DF: number;
}

function checkMarket(input: {
  forward: unknown;
  maturity: unknown;
  discountFactor?: unknown;
  model?: unknown;
  shift?: unknown;
}): Market {
  const model = input.model ?? "black";
  if (model !== "black" && model !== "bachelier")
    throw invalid("model", 'model is "black" or "bachelier"', model, '"black" or "bachelier"');
  const black = model === "black";
  const shift = checkShift(input.shift ?? 0);
  if (!black && shift !== 0) {
    throw new VolModelError(`shift applies to model "black" only (the normal model needs none); got ${fmt(shift)}`, {
      field: "shift",
      condition: 'shift only with model "black"',
    });
  }
  const F = black ? checkShifted(input.forward, shift, "forward") : checkFinite(input.forward, "forward");
  const T = checkNonNegative(input.maturity, "maturity");
  const DF = checkPositive(input.discountFactor ?? 1, "discountFactor");
  return { black, shift, F, sqrtT: Math.sqrt(T), DF };
}

function checkFinite(x: unknown, field: string): number {
  if (typeof x !== "number" || !Number.isFinite(x)) throw invalid(field, `${field} finite`, x, "a finite number");
  return x;
}

/** The strike (shifted for Black), checked; `field` names it. */
function checkStrike(m: Market, K: unknown, field: string): number {
  if (m.black) return checkShifted(K, m.shift, field);
  const k = checkFinite(K, field);
  if (!Number.isFinite(m.F - k)) {
    throw new VolModelError(`forward − ${field} must be finite; got ${fmt(m.F)} − ${fmt(k)}`, {
      field,
      condition: "forward − strike finite",
    });
  }
  return k;
}

/** The vol of a discounted price, or a {@link Fault} (NaN only if the iteration failed). */
function solve(m: Market, price: unknown, K: number, call: boolean, field: string): number {
  if (typeof price !== "number" || !Number.isFinite(price))
    throw invalid(field, `${field} finite`, price, "a finite number");
  const p = price / m.DF;
  return m.black ? blackVol(p, m.F, K, m.sqrtT, call) : normalVol(p, m.F, K, m.sqrtT, call);
}

function boundError(m: Market, price: number, K: number, call: boolean, field: string, where: string, fault: number) {
  const got = `${field} = ${fmt(price)}${where}`;
  const intrinsic = m.DF * (call ? Math.max(m.F - K, 0) : Math.max(K - m.F, 0));
  const lower = `the intrinsic value DF·max(${call ? "F − K" : "K − F"}, 0) = ${fmt(intrinsic)}`;
  if (fault === Fault.below)
    return new VolModelError(`${got} is below its lower bound, ${lower}: no vol gives a price that low`, {
      field,
      condition: "price >= DF·intrinsic",
    });
  if (fault === Fault.above) {
    const what = call ? (m.shift ? "DF·(F + shift)" : "DF·F") : m.shift ? "DF·(K + shift)" : "DF·K";
    return new VolModelError(
      `${got} is at or above its upper bound ${what} = ${fmt(m.DF * (call ? m.F : K))} (the price at infinite vol): no vol gives a price that high`,
      { field, condition: `price < ${what}` },
    );
  }
  if (fault === Fault.expired)
    return new VolModelError(`${got} is above ${lower} at maturity 0: an expired option is worth its intrinsic value`, {
      field,
      condition: "price = DF·intrinsic at maturity 0",
    });
  if (fault === Fault.tiny) {
    const scale = m.black ? `sqrt(F·K) = ${fmt(Math.sqrt(m.F) * Math.sqrt(K))}` : `|F − K| = ${fmt(Math.abs(m.F - K))}`;
    return new VolModelError(
      `${got} is above ${lower} by less than 2.2e-308 of ${scale}: too small a time value to imply a vol in double precision`,
      { field, condition: "time value representable" },
    );
  }
  return new VolModelError(`${got}: no vol was found (iteration gave ${fmt(fault)})`, {
    field,
    condition: "implied vol found",
  });
}

/**
 * The implied vol of one European option's price: the `vol` with which {@link black76} (model `"black"`,
 * default; with `shift`, the shifted-lognormal vol) or {@link bachelier} (model `"bachelier"`: the normal
 * vol, in the forward's units per √year) gives back `price`. Methods and accuracy in the module's comment:
 * to about 1e-14 relative (held to 1e-12 by the tests) wherever the price carries that many digits of the
 * vol.
 *
 * At the intrinsic value `DF·max(±(F − K), 0)` (or within 4 ulps below it, rounding) the vol is 0. Throws
 * {@link VolModelError} for a price below that lower bound, at or above the upper bound (Black: `DF·F` for a
 * call, `DF·K` for a put, with the shift added to each; Bachelier has none), or above the intrinsic value at
 * maturity 0, the message giving the bound and its value; and for any input that {@link black76} or
 * {@link bachelier} would refuse, naming the field. Never NaN.
 *
 * @example
 * ```ts
 * vol.impliedVol({ price: 1.1166, forward: 20, strike: 20, maturity: 4 / 12, discountFactor: Math.exp(-0.09 * 4 / 12), kind: "put" }); // 0.25
 * ```
 */
export function impliedVol(input: ImpliedVolInput): number {
  if (!input || typeof input !== "object")
    throw invalid("input", "object", input, "an object { price, forward, strike, maturity, kind }");
  const m = checkMarket(input);
  const K = checkStrike(m, input.strike, "strike");
  const call = checkKind(input.kind);
  const vol = solve(m, input.price, K, call, "price");
  if (vol >= 0 && vol < Infinity) return vol;
  throw boundError(m, input.price, K, call, "price", "", vol);
}

/**
 * The implied vols of a smile of prices at one forward and expiry ({@link impliedVol} for each), into a new
 * Float64Array, one vol per price. `kind` is one for all or one per price. Every input is checked; the first
 * price that implies no vol is an error naming its index and the bound it breaks
 * (`prices[3] = 0.5 (strikes[3] = 99.3, put) is below its lower bound, …`): never a NaN in the result.
 * @example
 * ```ts
 * const prices = vol.black76Strikes({ forward: 100, maturity: 0.5, kind: "call" }, [90, 100, 110], 0.2).price;
 * vol.impliedVols({ prices, forward: 100, strikes: [90, 100, 110], maturity: 0.5, kind: "call" }); // [0.2, 0.2, 0.2]
 * ```
 */
export function impliedVols(input: ImpliedVolsInput): Float64Array {
  if (!input || typeof input !== "object")
    throw invalid("input", "object", input, "an object { prices, forward, strikes, maturity, kind }");
  const m = checkMarket(input);
  const { prices, strikes, kind } = input;
  for (const [name, a] of [
    ["prices", prices],
    ["strikes", strikes],
  ] as const) {
    if (a === null || typeof a !== "object" || typeof a.length !== "number")
      throw invalid(name, "array", a, "an array of numbers");
  }
  const n = prices.length;
  if (strikes.length !== n) {
    throw new VolModelError(`strikes must be one per price (${n}); got ${strikes.length}`, {
      field: "strikes",
      condition: "one strike per price",
    });
  }
  const kinds = typeof kind === "string" ? undefined : kind;
  if (kinds !== undefined && (kinds === null || typeof kinds !== "object" || kinds.length !== n))
    throw invalid("kind", "one kind or one per price", kind, `"call", "put" or one of them per price (${n})`);
  const allCall = kinds === undefined ? checkKind(kind) : false;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const K = checkStrike(m, strikes[i], `strikes[${i}]`);
    const call = kinds === undefined ? allCall : checkKindAt(kinds[i], i);
    const price = prices[i];
    if (typeof price !== "number" || !Number.isFinite(price))
      throw invalid(`prices[${i}]`, "price finite", price, "a finite number");
    const vol = solve(m, price, K, call, "prices");
    if (!(vol >= 0 && vol < Infinity)) {
      const where = ` (strikes[${i}] = ${fmt(strikes[i]!)}, ${call ? "call" : "put"})`;
      throw boundError(m, price, K, call, `prices[${i}]`, where, vol);
    }
    out[i] = vol;
  }
  return out;
}

function checkKindAt(kind: unknown, i: number): boolean {
  if (kind !== "call" && kind !== "put")
    throw invalid(`kind[${i}]`, 'kind is "call" or "put"', kind, '"call" or "put"');
  return kind === "call";
}
