/**
 * The interpolators behind a {@link Curve}: each answers `I(t) = z(t)·t` (minus the log of the discount
 * factor) and the instantaneous forward `f(t) = I'(t)` from the pillars `(t_i, z_i)`, for `t` strictly
 * between the first and the last pillar. Outside (shared by all): a flat zero rate before the first
 * pillar, a flat forward after the last (see `curve.ts`).
 *
 * Pure functions over Float64Array; the curve validates its pillars once, then calls these in a tight loop.
 */

/** How a curve fills the gaps between its pillars. */
export type Interpolation = "linear-zero" | "log-linear-df" | "monotone-convex";

export const INTERPOLATIONS: readonly Interpolation[] = ["linear-zero", "log-linear-df", "monotone-convex"];

/** The default: linear in the zero rate (exact at the pillars, what notebook 01 did by hand). */
export const DEFAULT_INTERPOLATION: Interpolation = "linear-zero";

/** Validated pillars: ascending `t > 0`, their zero rates, `I = z·t`, and the discrete forwards. */
export interface Nodes {
  t: Float64Array;
  z: Float64Array;
  /** `I_i = z_i·t_i`. */
  I: Float64Array;
  /** `fd[i]`: the forward over `(t_{i-1}, t_i]` (`fd[0]` over `(0, t_0]`, = `z_0`), continuous. */
  fd: Float64Array;
}

export function makeNodes(t: Float64Array, z: Float64Array): Nodes {
  const n = t.length;
  const I = new Float64Array(n);
  const fd = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    I[i] = z[i]! * t[i]!;
    fd[i] = i === 0 ? z[0]! : (I[i]! - I[i - 1]!) / (t[i]! - t[i - 1]!);
  }
  return { t, z, I, fd };
}

/** Answers `I(t)` and `f(t)` on the interval `(t_{i-1}, t_i]`, `1 <= i < n`. */
export interface Interpolator {
  /** `z(t)·t` for `t` in `(t_{i-1}, t_i]`. */
  integral(i: number, t: number): number;
  /** The instantaneous forward at `t` in `(t_{i-1}, t_i]` (its left limit at `t_i`). */
  forward(i: number, t: number): number;
}

export function makeInterpolator(
  kind: Interpolation,
  nodes: Nodes,
  options: { positivity?: boolean } = {},
): Interpolator {
  switch (kind) {
    case "linear-zero":
      return linearZero(nodes);
    case "log-linear-df":
      return logLinearDf(nodes);
    case "monotone-convex":
      return monotoneConvex(nodes, options.positivity ?? true);
  }
}

/** `z` linear in `t` between pillars; the forward is `z + t·z'`. */
function linearZero({ t, z }: Nodes): Interpolator {
  const zAt = (i: number, s: number) => z[i - 1]! + ((s - t[i - 1]!) / (t[i]! - t[i - 1]!)) * (z[i]! - z[i - 1]!);
  return {
    integral: (i, s) => zAt(i, s) * s,
    forward: (i, s) => zAt(i, s) + (s * (z[i]! - z[i - 1]!)) / (t[i]! - t[i - 1]!),
  };
}

/** `log DF` linear in `t` between pillars: the forward is constant, the discrete forward of the interval. */
function logLinearDf({ t, I, fd }: Nodes): Interpolator {
  return {
    integral: (i, s) => I[i - 1]! + ((s - t[i - 1]!) / (t[i]! - t[i - 1]!)) * (I[i]! - I[i - 1]!),
    forward: (i) => fd[i]!,
  };
}

/**
 * Hagan & West (2006), "Interpolation methods for curve construction", Applied Mathematical Finance
 * 13(2), section 5 ("the monotone convex method"): instantaneous forwards at the pillars from the
 * discrete forwards of the neighbouring intervals, then on each interval the piecewise-quadratic `g(x)`
 * of their four regions, which integrates to zero (so every pillar is repriced) and stays between the
 * interval's end forwards (no overshoot).
 *
 * With `positivity` (their positivity-preserving amendment), when every discrete forward is > 0 the
 * pillar forwards are collared: `f_i` in `[0, 2·min(fd_i, fd_{i+1})]`, the last in `[0, 2·fd_n]`, which
 * keeps `f(t) >= 0` everywhere. When some discrete forward is <= 0 (a negative-rate curve) the collar
 * does not apply and the forwards follow the input's sign, as the plain method does.
 *
 * The first interval `(0, t_0]` is the curve's flat-zero stub (see `curve.ts`), not the paper's
 * quadratic, so `f_0` (the forward at 0) is never needed.
 *
 * Continuity. The forward is continuous inside every interval. At a pillar it is continuous except:
 * - at `t_0`, where it steps from the stub's `z_0` to `f_0`, and at the last pillar, where it steps from
 *   `f_{n−1}` to the flat tail `fd_{n−1}` (`curve.ts`);
 * - where an interval has exactly one end of `g` at 0. Interval `i` with `g0 = f_{i−1} − fd_i = 0 ≠ g1`:
 *   g is region (iv) with `η = 1`, `A = 0`, i.e. `g ≡ 0`, so the forward is flat at `fd_i` and jumps to
 *   `f_i` at `t_i`. With `g1 = f_i − fd_i = 0 ≠ g0` (`η = 0`) it is flat from `t_{i−1}` on, having jumped
 *   there from `f_{i−1}` to `fd_i`. This happens when two neighbouring intervals have one discrete forward
 *   (their shared pillar's forward is that forward): pillars 1Y/2Y/3Y at 3%, 5Y/10Y at 3.6% give 3.00% up
 *   to 3Y and 3.50% at 3Y. It is the construction's own limit, kept as such: as `g0 → 0` from either
 *   side (region (ii) below, (iv) above) the climb to `g1` is squeezed into a ramp about `3|g0|/|g1|·h`
 *   wide against the pillar and the zero rates converge to the flat ones; a continuous patch there (the
 *   one quadratic with these ends, say) would move the zero rates inside the interval by up to
 *   `(4/27)·|g1|·h/t` when a pillar rate moves by 1e-12. A `g` within rounding of 0 counts as 0.
 */
function monotoneConvex(nodes: Nodes, positivity: boolean): Interpolator {
  const { t, I, fd } = nodes;
  const n = t.length;
  // Pillar forwards f[i] at t_i. Interior: the distance-weighted average of the two neighbouring discrete
  // forwards (HW eq. 24, with τ_0 = 0 and fd[0] the forward over (0, t_0]). Last: HW's end condition.
  const f = new Float64Array(n);
  for (let i = 0; i < n - 1; i++) {
    const left = i === 0 ? t[0]! : t[i]! - t[i - 1]!;
    const right = t[i + 1]! - t[i]!;
    f[i] = (left / (left + right)) * fd[i + 1]! + (right / (left + right)) * fd[i]!;
  }
  if (n >= 2) f[n - 1] = fd[n - 1]! - 0.5 * (f[n - 2]! - fd[n - 1]!);
  let allPositive = true;
  for (let i = 0; i < n; i++) if (!(fd[i]! > 0)) allPositive = false;
  if (positivity && allPositive) {
    for (let i = 0; i < n - 1; i++) f[i] = Math.min(Math.max(0, f[i]!), 2 * Math.min(fd[i]!, fd[i + 1]!));
    if (n >= 2) f[n - 1] = Math.min(Math.max(0, f[n - 1]!), 2 * fd[n - 1]!);
  }
  const tol = roundingTolerances(nodes);
  const snap = (g: number, i: number) => (Math.abs(g) <= tol[i]! ? 0 : g);
  const at = (i: number, s: number) => {
    const h = t[i]! - t[i - 1]!;
    const x = (s - t[i - 1]!) / h;
    return { h, x, ...gOf(snap(f[i - 1]! - fd[i]!, i), snap(f[i]! - fd[i]!, i), x) };
  };
  return {
    integral(i, s) {
      const { h, x, G } = at(i, s);
      return I[i - 1]! + h * (fd[i]! * x + G);
    },
    forward: (i, s) => fd[i]! + at(i, s).g,
  };
}

/**
 * Per interval i, a bound on the rounding in its `g0`, `g1` (pillar forwards and discrete forwards of
 * intervals i − 1 … i + 1, each `(I_j − I_{j−1})/h_j` known to a few ulps of `I` over `h`). A `g` within it is
 * 0 in exact arithmetic (equal neighbouring discrete forwards, say) and is taken as 0: without this, the
 * forward at such a pillar was `fd` or the pillar forward by the sign of a 1e-18 residue.
 */
function roundingTolerances({ t, I, fd }: Nodes): Float64Array {
  const n = t.length;
  const err = (j: number) => {
    const h = j === 0 ? t[0]! : t[j]! - t[j - 1]!;
    return 4 * Number.EPSILON * ((Math.abs(j === 0 ? 0 : I[j - 1]!) + Math.abs(I[j]!)) / h + Math.abs(fd[j]!));
  };
  const tol = new Float64Array(n);
  for (let i = 1; i < n; i++) tol[i] = 4 * Math.max(err(i - 1), err(i), i + 1 < n ? err(i + 1) : 0);
  return tol;
}

/**
 * Hagan–West's `g(x)` on `x` in [0, 1] for end values `g0 = f_{i-1} − fd_i`, `g1 = f_i − fd_i`, and its
 * integral `G(x) = ∫_0^x g` (`G(1) = 0`). Regions as in the paper (their figure 4):
 * (i) `g` quadratic and monotone; (ii) flat at `g0` up to `η`, then quadratic; (iii) quadratic down to
 * `η`, then flat at `g1`; (iv) two quadratics meeting at their extremum `A` at `η`.
 */
export function gOf(g0: number, g1: number, x: number): { g: number; G: number } {
  if (g0 === 0 && g1 === 0) return { g: 0, G: 0 };
  if ((g0 < 0 && -0.5 * g0 <= g1 && g1 <= -2 * g0) || (g0 > 0 && -0.5 * g0 >= g1 && g1 >= -2 * g0)) {
    // (i)
    return {
      g: g0 * (1 - 4 * x + 3 * x * x) + g1 * (-2 * x + 3 * x * x),
      G: g0 * (x - 2 * x * x + x * x * x) + g1 * (-x * x + x * x * x),
    };
  }
  if ((g0 < 0 && g1 > -2 * g0) || (g0 > 0 && g1 < -2 * g0)) {
    // (ii)
    const eta = (g1 + 2 * g0) / (g1 - g0);
    if (x <= eta) return { g: g0, G: g0 * x };
    const u = (x - eta) / (1 - eta);
    return { g: g0 + (g1 - g0) * u * u, G: g0 * x + ((g1 - g0) * (x - eta) * u * u) / 3 };
  }
  if ((g0 > 0 && g1 < 0) || (g0 < 0 && g1 > 0)) {
    // (iii): 0 > g1 > -g0/2, or 0 < g1 < -g0/2
    const eta = (3 * g1) / (g1 - g0);
    if (x >= eta) return { g: g1, G: g1 * x + ((g0 - g1) * eta) / 3 };
    const v = (eta - x) / eta;
    return { g: g1 + (g0 - g1) * v * v, G: g1 * x + ((g0 - g1) * eta * (1 - v * v * v)) / 3 };
  }
  // (iv): g0 and g1 of one sign (or one of them 0)
  const eta = g1 / (g1 + g0);
  const A = (-g0 * g1) / (g0 + g1);
  if (eta > 0 && x <= eta) {
    const v = (eta - x) / eta;
    return { g: A + (g0 - A) * v * v, G: A * x + ((g0 - A) * eta * (1 - v * v * v)) / 3 };
  }
  const u = (x - eta) / (1 - eta);
  return { g: A + (g1 - A) * u * u, G: A * x + ((g0 - A) * eta) / 3 + ((g1 - A) * (x - eta) * u * u) / 3 };
}
