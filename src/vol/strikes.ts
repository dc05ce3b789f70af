/**
 * Strike conventions: the three wire `strike_type` values (A5) plus local ones, log-moneyness and the
 * delta conventions (forward or spot, plain or premium-adjusted, call or put). Everything maps to
 * log-forward-moneyness `k = ln(K / F(T))`, computed in log space (`ln x + shift`) so that no forward is
 * ever multiplied out (no overflow, and PercentForward 100 is k = 0 exactly).
 */
import { STRIKE_TYPE, STRIKE_TYPE_VALUES, type StrikeType } from "../api/assumptions";
import type { OptionKind } from "./black76";
import { VolModelError, fmt } from "./errors";
import { varianceAndSlope, type MaturityPlan, type SliceArrays } from "./kernel";
import { erfc, erfcx, normCdf, normInv } from "./normal";

/**
 * A delta strike convention (Reiswich & Wystup, "FX volatility smile construction", Wilmott 2012; §2 of
 * their 2010 working paper), with `d± = −k/sqrt(w) ± sqrt(w)/2`, `k = ln(K/F)`, `w` the model's total
 * variance at k, `ω = +1` for a call and `−1` for a put, and `DF_f` the foreign (dividend) discount factor:
 *
 * | convention                       | delta                  | range                     |
 * |----------------------------------|------------------------|---------------------------|
 * | forward                          | `ω·N(ω·d+)`            | call (0, 1), put (−1, 0)  |
 * | spot                             | `ω·DF_f·N(ω·d+)`       | call (0, DF_f), put (−DF_f, 0) |
 * | forward, premium-adjusted        | `ω·(K/F)·N(ω·d−)`      | call (0, max], put (−∞, 0) |
 * | spot, premium-adjusted           | `ω·DF_f·(K/F)·N(ω·d−)` | call (0, DF_f·max], put (−∞, 0) |
 *
 * Put deltas are negative (the 25-delta put is −0.25). The premium-adjusted call delta is not monotone in
 * the strike: it rises from 0 (K → 0) to a maximum `max` and falls back to 0; a delta is solved on the
 * branch right of the maximum (the larger strike, the market convention), and a delta above the maximum is
 * unreachable (the error names the maximum).
 *
 * `{ type: "delta" }` alone is the plain `"delta"`: forward call delta, not premium-adjusted.
 */
export interface DeltaStrikeType {
  type: "delta";
  /** `"call"` (default) or `"put"`. */
  kind?: OptionKind;
  /** Premium-adjusted (the premium paid in the foreign currency / underlying is part of the hedge). Default false. */
  premiumAdjusted?: boolean;
  /** Spot delta, with the foreign (dividend) discount factor `DF_f = e^(−r_f·T)` to the option's expiry (finite, > 0). Default: forward delta. */
  spot?: { discountFactor: number };
}

/**
 * A strike convention the local model understands: a wire `strike_type` (0 Absolute: a price;
 * 1 PercentForward: 100 = ATM forward; 2 PercentSpot: 100 = `spot_ref`), `"logMoneyness"`
 * (`k = ln(K/F(T))`, any finite real), `"delta"` (Black forward call delta `N(d1)` in (0, 1), not
 * premium-adjusted) or a {@link DeltaStrikeType} (put, spot and premium-adjusted deltas). Only the wire
 * values go on the wire.
 */
export type ModelStrikeType = StrikeType | "logMoneyness" | "delta" | DeltaStrikeType;

/** The local-only strike conventions given by name (a {@link DeltaStrikeType} object is local too). */
export const LOCAL_STRIKE_TYPES = ["logMoneyness", "delta"] as const;

/** A percentage strike of 100 is the reference level (the forward or the spot), A5. */
export const PERCENT_REFERENCE = 100;
const LN_PERCENT_REFERENCE = Math.log(PERCENT_REFERENCE);

/** A delta convention with its defaults filled in (see {@link DeltaStrikeType}). */
export interface DeltaConvention {
  readonly kind: OptionKind;
  readonly premiumAdjusted: boolean;
  /** Spot delta (true) or forward delta. */
  readonly spot: boolean;
  /** `DF_f` for a spot delta, 1 for a forward delta. */
  readonly discountFactor: number;
}

/** The plain `"delta"` convention: forward call delta `N(d1)`, not premium-adjusted. */
export const FORWARD_CALL_DELTA: DeltaConvention = Object.freeze({
  kind: "call",
  premiumAdjusted: false,
  spot: false,
  discountFactor: 1,
});

const DELTA_KEYS = ["type", "kind", "premiumAdjusted", "spot"];

function strikeTypeError(message: string, condition: string): VolModelError {
  return new VolModelError(message, { field: "strike_type", condition });
}

const shown = (x: unknown): string => (typeof x === "number" ? fmt(x) : (JSON.stringify(x) ?? String(x)));

/**
 * Throws unless `strikeType` is one of {@link ModelStrikeType}: a wire value, `"logMoneyness"`, `"delta"`,
 * or a {@link DeltaStrikeType} object (`type: "delta"`, `kind` `"call"`/`"put"`, `premiumAdjusted` a
 * boolean, `spot.discountFactor` a finite number > 0, no other keys). Errors are on the field
 * `strike_type` and name the offending key.
 */
export function checkStrikeType(strikeType: unknown): asserts strikeType is ModelStrikeType {
  if (
    (STRIKE_TYPE_VALUES as readonly unknown[]).includes(strikeType) ||
    (LOCAL_STRIKE_TYPES as readonly unknown[]).includes(strikeType)
  )
    return;
  if (strikeType !== null && typeof strikeType === "object" && !Array.isArray(strikeType)) {
    const o = strikeType as Record<string, unknown>;
    if (o.type !== "delta")
      throw strikeTypeError(
        `strike_type.type must be "delta" for a strike type given as an object; got ${shown(o.type)}`,
        'type "delta"',
      );
    const extra = Object.keys(o).filter((key) => !DELTA_KEYS.includes(key));
    if (extra.length > 0) {
      throw strikeTypeError(
        `strike_type has unknown key(s) ${extra.map((key) => JSON.stringify(key)).join(", ")}; a delta strike type takes ${DELTA_KEYS.join(", ")}`,
        "known keys",
      );
    }
    if (o.kind !== undefined && o.kind !== "call" && o.kind !== "put")
      throw strikeTypeError(`strike_type.kind must be "call" or "put"; got ${shown(o.kind)}`, 'kind "call" | "put"');
    if (o.premiumAdjusted !== undefined && typeof o.premiumAdjusted !== "boolean") {
      throw strikeTypeError(
        `strike_type.premiumAdjusted must be true or false; got ${shown(o.premiumAdjusted)}`,
        "premiumAdjusted boolean",
      );
    }
    if (o.spot !== undefined) {
      const spot = o.spot as Record<string, unknown> | null;
      const df = spot !== null && typeof spot === "object" ? spot.discountFactor : undefined;
      if (typeof df !== "number" || !(df > 0 && df < Infinity) || Object.keys(spot!).length !== 1) {
        throw strikeTypeError(
          `strike_type.spot must be { discountFactor } with the foreign (dividend) discount factor to expiry, a finite number > 0; got ${shown(o.spot)}`,
          "spot.discountFactor > 0",
        );
      }
    }
    return;
  }
  const names = Object.entries(STRIKE_TYPE)
    .map(([name, v]) => `${v} (${name})`)
    .join(", ");
  throw strikeTypeError(
    `strike_type must be one of ${names}, "logMoneyness" or "delta"; got ${shown(strikeType)}`,
    "known strike type",
  );
}

/** The delta convention of a strike type (defaults filled in), or undefined when it is not a delta convention. Assumes {@link checkStrikeType} passed. */
export function deltaConvention(strikeType: ModelStrikeType): DeltaConvention | undefined {
  if (strikeType === "delta") return FORWARD_CALL_DELTA;
  if (typeof strikeType !== "object") return undefined;
  return {
    kind: strikeType.kind ?? "call",
    premiumAdjusted: strikeType.premiumAdjusted ?? false,
    spot: strikeType.spot !== undefined,
    discountFactor: strikeType.spot?.discountFactor ?? 1,
  };
}

/**
 * `"premium-adjusted spot put delta"`, `"forward call delta"`: a convention in words, for messages and labels.
 * @example
 * ```ts
 * import { deltaLabel } from "risk-portal-lab/vol";
 * deltaLabel({ kind: "put", spot: true, premiumAdjusted: false, discountFactor: 0.99 }); // "spot put delta"
 * ```
 */
export function deltaLabel(c: DeltaConvention): string {
  return `${c.premiumAdjusted ? "premium-adjusted " : ""}${c.spot ? "spot" : "forward"} ${c.kind} delta`;
}

/** For the strike types given as prices or percentages: `k = ln(x) + shift`. Undefined for the local types. */
export function logShift(strikeType: ModelStrikeType, lnF: number, lnSpot: number): number | undefined {
  switch (strikeType) {
    case STRIKE_TYPE.Absolute:
      return -lnF;
    case STRIKE_TYPE.PercentForward:
      return -LN_PERCENT_REFERENCE;
    case STRIKE_TYPE.PercentSpot:
      return lnSpot - LN_PERCENT_REFERENCE - lnF;
    default:
      return undefined;
  }
}

/** `ln N(z)` without underflow (`N(z) = erfcx(−z/√2)·e^(−z²/2)/2` for z < 0). */
function lnNormCdf(z: number): number {
  if (z < 0) return -0.5 * z * z + Math.log(0.5 * erfcx(-z * Math.SQRT1_2));
  return Math.log1p(-0.5 * erfc(z * Math.SQRT1_2));
}

/** `φ(z)/N(z)`, without overflow or underflow. */
function normHazard(z: number): number {
  if (z < 0) return Math.sqrt(2 / Math.PI) / erfcx(-z * Math.SQRT1_2);
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI) / normCdf(z);
}

/**
 * The delta of a strike at log-moneyness `k` with total variance `w = σ²T ≥ 0` in convention `c` (the
 * formulas of {@link DeltaStrikeType}). At `w = 0` the limits: `d± = ±∞` by the sign of −k (0 at k = 0).
 * The premium-adjusted forms are evaluated in log space, so a huge k gives 0 or ∓∞·0 never arises.
 */
export function deltaFromK(k: number, w: number, c: DeltaConvention): number {
  const sw = Math.sqrt(w > 0 ? w : 0);
  const dPlus = sw > 0 ? -k / sw + sw / 2 : k < 0 ? Infinity : k > 0 ? -Infinity : 0;
  const omega = c.kind === "call" ? 1 : -1;
  if (!c.premiumAdjusted) return omega * c.discountFactor * normCdf(omega * dPlus);
  const dMinus = sw > 0 ? dPlus - sw : dPlus;
  return omega * c.discountFactor * Math.exp(k + lnNormCdf(omega * dMinus));
}

/** Beyond this |k| a strike is `F·e^±700`, at the edge of double precision: the delta solver stops there. */
const K_LIMIT = 700;

/** `d+ = −k/sqrt(w) + sqrt(w)/2` and its k-derivative for `w = w(k, T)`; at `w = 0`, ±∞ by the sign of −k. */
function dPlusAndSlope(
  k: number,
  sl: SliceArrays,
  plan: MaturityPlan,
  tmp: { w: number; w1: number },
): [number, number] {
  varianceAndSlope(k, sl, plan, tmp);
  const { w, w1 } = tmp;
  if (!(w > 0)) return [k < 0 ? Infinity : k > 0 ? -Infinity : 0, -Infinity];
  const sw = Math.sqrt(w);
  return [-k / sw + sw / 2, -1 / sw + (k * w1) / (2 * w * sw) + w1 / (4 * sw)];
}

/** `d− = −k/sqrt(w) − sqrt(w)/2` and its k-derivative. */
function dMinusAndSlope(
  k: number,
  sl: SliceArrays,
  plan: MaturityPlan,
  tmp: { w: number; w1: number },
): [number, number] {
  varianceAndSlope(k, sl, plan, tmp);
  const { w, w1 } = tmp;
  if (!(w > 0)) return [k < 0 ? Infinity : k > 0 ? -Infinity : 0, -Infinity];
  const sw = Math.sqrt(w);
  return [-k / sw - sw / 2, -1 / sw + (k * w1) / (2 * w * sw) - w1 / (4 * sw)];
}

/**
 * The slopes of total variance in the wings at this maturity, `w'(k) → −putWing` (k → −∞) and
 * `→ callWing` (k → +∞): raw SVI's `b(1 − rho)` and `b(1 + rho)`, interpolated like w (per slice
 * `bb·T_i·(1 ± rho)`, weighted by the plan). Lee's moment bound is 2 for each.
 */
function wingSlopes(sl: SliceArrays, plan: MaturityPlan): { putWing: number; callWing: number } {
  const { i, j, A, B, T } = plan;
  let call = A * sl.bb[i]! * (1 + sl.rho[i]!);
  let put = A * sl.bb[i]! * (1 - sl.rho[i]!);
  if (plan.twoSlices) {
    call += B * sl.bb[j]! * (1 + sl.rho[j]!);
    put += B * sl.bb[j]! * (1 - sl.rho[j]!);
  }
  return { putWing: put * T, callWing: call * T };
}

/**
 * Finds the root of a function `f` that falls as k rises, from the guess `k0`: a bracket `[lo, hi]` with
 * `f(lo) > 0 > f(hi)` by steps doubling outwards (never beyond ±{@link K_LIMIT}, nor left of `floor`),
 * then Newton's method kept inside the bracket (bisection when a step leaves it), to `|f| ≤ 1e−13` or a
 * bracket of a few ulps. `unreachable(side)` is called (and must throw) when the bracket cannot be
 * found: side +1 when f stays > 0 up to k = 700, −1 when f stays < 0 down to the floor.
 */
function solveFalling(
  f: (k: number) => [number, number],
  k0: number,
  step0: number,
  floor: number,
  unreachable: (side: 1 | -1) => never,
): number {
  let k = Math.min(K_LIMIT, Math.max(floor, k0));
  let [fk, slope] = f(k);
  if (fk === 0) return k;
  let lo = k;
  let hi = k;
  let step = step0;
  if (fk > 0) {
    for (;;) {
      hi = Math.min(K_LIMIT, k + step);
      if (f(hi)[0] < 0) break;
      lo = hi;
      if (hi === K_LIMIT) unreachable(1);
      step *= 2;
    }
  } else {
    for (;;) {
      lo = Math.max(floor, k - step);
      if (f(lo)[0] > 0) break;
      hi = lo;
      if (lo === floor) unreachable(-1);
      step *= 2;
    }
  }
  k = (lo + hi) / 2;
  [fk, slope] = f(k);
  for (let iter = 0; iter < 200; iter++) {
    if (fk === 0 || Math.abs(fk) <= 1e-13) return k;
    if (fk > 0) lo = k;
    else hi = k;
    if (hi - lo <= 4 * Number.EPSILON * Math.max(1, Math.abs(k))) return k;
    let next = k - fk / slope;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    k = next;
    [fk, slope] = f(k);
  }
  return k;
}

/**
 * The maximum of the premium-adjusted call delta `e^k·N(d−(k))` (times `DF_f`) on this smile: where the
 * k-derivative of its log, `1 + (φ/N)(d−)·d−'(k)`, changes sign from + to −, found by stepping out from
 * k = 0 and bisecting to 1e-12 in k. Returns `[k*, ln(e^k*·N(d−(k*)))]`; k* is ±700 when the sign never
 * changes in |k| ≤ 700.
 */
function premiumAdjustedCallMax(sl: SliceArrays, plan: MaturityPlan, step0: number): [number, number] {
  const tmp = { w: 0, w1: 0 };
  const logSlope = (k: number): number => {
    const [dm, dmSlope] = dMinusAndSlope(k, sl, plan, tmp);
    const hazard = normHazard(dm);
    return hazard === 0 ? 1 : 1 + hazard * dmSlope;
  };
  const logValue = (k: number): number => k + lnNormCdf(dMinusAndSlope(k, sl, plan, tmp)[0]);
  let lo = 0;
  let hi = 0;
  let step = step0;
  if (logSlope(0) > 0) {
    for (;;) {
      hi = Math.min(K_LIMIT, lo + step);
      if (!(logSlope(hi) > 0)) break;
      lo = hi;
      if (hi === K_LIMIT) return [K_LIMIT, logValue(K_LIMIT)];
      step *= 2;
    }
  } else {
    for (;;) {
      lo = Math.max(-K_LIMIT, hi - step);
      if (logSlope(lo) > 0) break;
      hi = lo;
      if (lo === -K_LIMIT) return [-K_LIMIT, logValue(-K_LIMIT)];
      step *= 2;
    }
  }
  while (hi - lo > 1e-12 * Math.max(1, Math.abs(lo))) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (logSlope(mid) > 0) lo = mid;
    else hi = mid;
  }
  const kStar = (lo + hi) / 2;
  return [kStar, logValue(kStar)];
}

/** Throws unless `delta` is in the range the convention allows. */
function checkDeltaRange(delta: number, c: DeltaConvention, index: number): void {
  const DF = c.discountFactor;
  const call = c.kind === "call";
  const label = deltaLabel(c);
  const bound = fmt(DF);
  const inRange = c.premiumAdjusted
    ? call
      ? delta > 0 && delta < DF
      : delta < 0 && delta > -Infinity
    : call
      ? delta > 0 && delta < DF
      : delta < 0 && delta > -DF;
  if (!inRange) {
    const range = c.premiumAdjusted && !call ? "< 0 (and finite)" : call ? `in (0, ${bound})` : `in (-${bound}, 0)`;
    const condition = call ? `0 < delta < ${bound}` : c.premiumAdjusted ? "delta < 0" : `-${bound} < delta < 0`;
    throw new VolModelError(`strikes[${index}] must be a ${label} ${range}; got ${fmt(delta)}`, {
      field: "strikes",
      condition,
    });
  }
}

/** Throws why `delta` is not reached before |k| = K_LIMIT on the `side` wing. */
function deltaUnreachable(
  delta: number,
  side: 1 | -1,
  sl: SliceArrays,
  plan: MaturityPlan,
  c: DeltaConvention,
  index: number,
): never {
  const call = c.kind === "call";
  const label = deltaLabel(c);
  const tmp = { w: 0, w1: 0 };
  const edge = side * K_LIMIT;
  varianceAndSlope(edge, sl, plan, tmp);
  const atEdge = deltaFromK(edge, tmp.w, c);
  const { callWing, putWing } = wingSlopes(sl, plan);
  // Lee's bound is the question only where the delta has to go to 0 (or a put's to −DF) in the call wing.
  const leeSide = side === 1 && !(c.premiumAdjusted && !call);
  let cause: string;
  if (leeSide && callWing >= 2) {
    cause = `the call-wing slope b(1 + rho) = ${fmt(callWing)} is beyond Lee's bound 2, so d1 does not fall to −∞ and the delta does not fall to 0`;
  } else if (leeSide) {
    cause = `the call-wing slope b(1 + rho) = ${fmt(callWing)} is within Lee's bound 2, but the delta falls too slowly (or, with butterfly arbitrage, turns back): at k = ${edge} it is still ${fmt(atEdge)}`;
  } else {
    cause = `at k = ${edge} the delta is only ${fmt(atEdge)} (wing slopes b(1 - rho) = ${fmt(putWing)}, b(1 + rho) = ${fmt(callWing)})`;
  }
  throw new VolModelError(
    `strikes[${index}]: ${label} ${fmt(delta)} is not reached for |k| <= ${K_LIMIT} on this smile (${cause})`,
    {
      field: "strikes",
      condition: "delta reachable",
    },
  );
}

/**
 * Log-moneyness `k` at which the delta in convention `convention` (default: forward call delta `N(d1)`)
 * equals `delta`, on the model's own smile at this maturity (`w = w(k, T)` in `d±`). Plain deltas solve
 * `d+(k) = ±N⁻¹(|delta|/DF_f)`; premium-adjusted ones `k + ln N(ω·d−(k)) = ln(|delta|/DF_f)`, the call on
 * the branch right of its maximum. Newton's method kept inside a bracket (bisection when a step leaves it),
 * to 1e−13 in `d+` (or in the log of the delta) or a bracket of a few ulps. When butterfly arbitrage makes
 * the delta non-monotone in k more than one k may fit; the one found is the one next to the flat-smile
 * guess. `index` names the element in errors.
 *
 * Throws {@link VolModelError} (field `strikes`) for a delta outside the convention's range, and for one
 * that no |k| ≤ 700 reaches, naming the cause: a call wing beyond Lee's bound (its total-variance slope
 * `b(1 + rho)` ≥ 2, so `d+` does not fall to −∞), or, within the bound, a delta beyond what |k| ≤ 700
 * reaches (the error gives the delta at k = ±700), or a premium-adjusted call delta above its maximum.
 */
export function kFromDelta(
  delta: number,
  sl: SliceArrays,
  plan: MaturityPlan,
  index: number,
  convention: DeltaConvention = FORWARD_CALL_DELTA,
): number {
  checkDeltaRange(delta, convention, index);
  const c = convention;
  const DF = c.discountFactor;
  const call = c.kind === "call";
  const label = deltaLabel(c);
  const tmp = { w: 0, w1: 0 };
  varianceAndSlope(0, sl, plan, tmp);
  const sw0 = Math.sqrt(tmp.w);
  const step = Math.max(sw0, 0.05);
  const unreachable = (side: 1 | -1): never => deltaUnreachable(delta, side, sl, plan, c, index);
  const u = Math.abs(delta) / DF;
  if (!c.premiumAdjusted) {
    // ω·N(ω·d+) = delta/DF  ⇔  d+ = ω·N⁻¹(|delta|/DF): falls as k rises.
    const target = call ? normInv(u) : -normInv(u);
    const f = (k: number): [number, number] => {
      const [d, slope] = dPlusAndSlope(k, sl, plan, tmp);
      return [d - target, slope];
    };
    return solveFalling(f, sw0 * (sw0 / 2 - target), step, -K_LIMIT, unreachable);
  }
  const target = Math.log(u);
  if (!call) {
    // k + ln N(−d−(k)) = ln|delta|, rising in k: solve −(…) falling.
    const f = (k: number): [number, number] => {
      const [dm, slope] = dMinusAndSlope(k, sl, plan, tmp);
      return [target - k - lnNormCdf(-dm), -1 + normHazard(-dm) * slope];
    };
    const guess = u < 1 ? sw0 * normInv(u) - (sw0 * sw0) / 2 : target;
    return solveFalling(f, guess, step, -K_LIMIT, unreachable);
  }
  const [kStar, lnMax] = premiumAdjustedCallMax(sl, plan, step);
  if (target > lnMax + 1e-13) {
    const max = DF * Math.exp(lnMax);
    throw new VolModelError(
      `strikes[${index}]: ${label} ${fmt(delta)} is unreachable: on this smile the premium-adjusted call delta is at most ${fmt(max)} (at k = ${fmt(kStar)}, K/F = ${fmt(Math.exp(kStar))})`,
      { field: "strikes", condition: `delta <= ${fmt(max)}` },
    );
  }
  if (target >= lnMax) return kStar;
  // Right of the maximum k + ln N(d−(k)) falls as k rises.
  const f = (k: number): [number, number] => {
    const [dm, slope] = dMinusAndSlope(k, sl, plan, tmp);
    return [k + lnNormCdf(dm) - target, 1 + normHazard(dm) * slope];
  };
  return solveFalling(f, kStar + step, step, kStar, unreachable);
}
