/**
 * Strike conventions: the three wire `strike_type` values (A5) plus two local ones, log-moneyness and
 * forward call delta. Everything maps to log-forward-moneyness `k = ln(K / F(T))`, computed in log space
 * (`ln x + shift`) so that no forward is ever multiplied out (no overflow, and PercentForward 100 is k = 0
 * exactly).
 */
import { STRIKE_TYPE, STRIKE_TYPE_VALUES, type StrikeType } from "../api/assumptions";
import { VolModelError, fmt } from "./errors";
import { varianceAndSlope, type MaturityPlan, type SliceArrays } from "./kernel";
import { normInv } from "./normal";

/**
 * A strike convention the local model understands: a wire `strike_type` (0 Absolute: a price;
 * 1 PercentForward: 100 = ATM forward; 2 PercentSpot: 100 = `spot_ref`), `"logMoneyness"`
 * (`k = ln(K/F(T))`, any finite real) or `"delta"` (Black forward call delta `N(d1)` in (0, 1), not
 * premium-adjusted). Only the wire values go on the wire.
 */
export type ModelStrikeType = StrikeType | "logMoneyness" | "delta";

/** The local-only strike conventions. */
export const LOCAL_STRIKE_TYPES = ["logMoneyness", "delta"] as const;

/** A percentage strike of 100 is the reference level (the forward or the spot), A5. */
export const PERCENT_REFERENCE = 100;
const LN_PERCENT_REFERENCE = Math.log(PERCENT_REFERENCE);

/** Throws unless `strikeType` is one of {@link ModelStrikeType}. */
export function checkStrikeType(strikeType: unknown): asserts strikeType is ModelStrikeType {
  if ((STRIKE_TYPE_VALUES as readonly unknown[]).includes(strikeType) || (LOCAL_STRIKE_TYPES as readonly unknown[]).includes(strikeType)) return;
  const names = Object.entries(STRIKE_TYPE)
    .map(([name, v]) => `${v} (${name})`)
    .join(", ");
  throw new VolModelError(`strike_type must be one of ${names}, "logMoneyness" or "delta"; got ${JSON.stringify(strikeType) ?? String(strikeType)}`, {
    field: "strike_type",
    condition: "known strike type",
  });
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

/** Beyond this |k| a strike is `F·e^±700`, at the edge of double precision: the delta solver stops there. */
const K_LIMIT = 700;

/** `d1 = −k/sqrt(w) + sqrt(w)/2` and its k-derivative for `w = w(k, T)`; at `w = 0`, ±∞ by the sign of −k. */
function d1AndSlope(k: number, sl: SliceArrays, plan: MaturityPlan, tmp: { w: number; w1: number }): [number, number] {
  varianceAndSlope(k, sl, plan, tmp);
  const { w, w1 } = tmp;
  if (!(w > 0)) return [k < 0 ? Infinity : k > 0 ? -Infinity : 0, -Infinity];
  const sw = Math.sqrt(w);
  return [-k / sw + sw / 2, -1 / sw + (k * w1) / (2 * w * sw) + w1 / (4 * sw)];
}

/**
 * Log-moneyness `k` at which the forward call delta `N(d1(k))` equals `delta`, with
 * `d1 = −k/sqrt(w(k,T)) + sqrt(w(k,T))/2` on the model's own smile at this maturity. Solved by Newton's
 * method kept inside a bracket (bisection when a step leaves it), to `|d1 − N⁻¹(delta)| ≤ 1e−13` or
 * a bracket of a few ulps. When butterfly arbitrage makes `d1` non-monotone in k more than one k may
 * fit; the one found is the one next to the flat-smile guess. `index` names the element in errors.
 */
export function kFromDelta(delta: number, sl: SliceArrays, plan: MaturityPlan, index: number): number {
  if (!(delta > 0 && delta < 1)) {
    throw new VolModelError(`strikes[${index}] must be a forward call delta in (0, 1); got ${fmt(delta)}`, { field: "strikes", condition: "0 < delta < 1" });
  }
  const target = normInv(delta);
  const tmp = { w: 0, w1: 0 };
  varianceAndSlope(0, sl, plan, tmp);
  const sw0 = Math.sqrt(tmp.w);
  const f = (k: number): [number, number] => {
    const [d1, slope] = d1AndSlope(k, sl, plan, tmp);
    return [d1 - target, slope];
  };
  // The flat-smile answer, then a bracket [lo, hi] with f(lo) > 0 > f(hi) (d1 falls as k rises).
  let k = Math.min(K_LIMIT, Math.max(-K_LIMIT, sw0 * (sw0 / 2 - target)));
  let [fk, slope] = f(k);
  if (fk === 0) return k;
  let lo = k;
  let hi = k;
  let step = Math.max(sw0, 0.05);
  const unreachable = (): never => {
    throw new VolModelError(
      `strikes[${index}]: forward call delta ${fmt(delta)} is not reached for |k| <= ${K_LIMIT} on this smile (a call wing beyond Lee's bound keeps d1 from falling to N⁻¹(delta))`,
      { field: "strikes", condition: "delta reachable" },
    );
  };
  if (fk > 0) {
    for (;;) {
      hi = Math.min(K_LIMIT, k + step);
      if (f(hi)[0] < 0) break;
      lo = hi;
      if (hi === K_LIMIT) unreachable();
      step *= 2;
    }
  } else {
    for (;;) {
      lo = Math.max(-K_LIMIT, k - step);
      if (f(lo)[0] > 0) break;
      hi = lo;
      if (lo === -K_LIMIT) unreachable();
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
