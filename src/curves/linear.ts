/**
 * Linear interpolation of values over ascending abscissae: the one piecewise-linear lookup the package
 * has, behind plot's curves at tenors and the simulator's uploaded vol curves (a {@link Curve} has its
 * own interpolations, in zero rates or discount factors). At a node it returns the node's value exactly.
 */

/** What {@link linearAt} returns outside [first, last]: `NaN` (`"none"`, no extrapolation) or the end's value (`"flat"`). */
export type Outside = "none" | "flat";

/**
 * `ys` linear over ascending `xs` at `x`. Outside [first, last], `NaN` (`"none"`, the default: a chart
 * shows a gap where a curve does not reach) or the nearer end's value (`"flat"`); `NaN` for no nodes.
 */
export function linearAt(xs: ArrayLike<number>, ys: ArrayLike<number>, x: number, outside: Outside = "none"): number {
  const n = xs.length;
  if (n === 0) return NaN;
  if (!(x >= xs[0]! && x <= xs[n - 1]!)) {
    if (outside === "none") return NaN;
    return x < xs[0]! ? ys[0]! : x > xs[n - 1]! ? ys[n - 1]! : NaN;
  }
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= x) lo = mid;
    else hi = mid;
  }
  if (xs[lo] === x) return ys[lo]!;
  if (xs[hi] === x) return ys[hi]!;
  const t = (x - xs[lo]!) / (xs[hi]! - xs[lo]!);
  return ys[lo]! + t * (ys[hi]! - ys[lo]!);
}
