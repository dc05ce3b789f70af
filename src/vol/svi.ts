/**
 * One benchmark (a slice): the model's parameters (ATM vol, skew, smile, put and call wings; vol-model.md)
 * and their raw-SVI equivalent `w(k) = a + b·(rho·(k − m) + sqrt((k − m)² + s²))`, with the closed-form
 * conversions both ways and the slice's total variance and its k-derivatives.
 */
import { VolModelError, fmt } from "./errors";

/** The model's parameters of one benchmark (vol-model.md, "One benchmark"). All dimensionless except `vol`. */
export interface SliceParams {
  /** ATM-forward implied vol `v` (decimal per √year, 0.2 = 20%); `theta = v²·T`. */
  vol: number;
  /** Skew `psi = sqrt(T)·dσ/dk` at k = 0. */
  skew: number;
  /** Smile (ATM curvature) `kappa = sqrt(T)·d²σ/dk²` at k = 0. */
  smile: number;
  /** Put wing `p`: `w'(k) → −p·sqrt(theta)` as k → −∞. */
  putWing: number;
  /** Call wing `c`: `w'(k) → c·sqrt(theta)` as k → +∞. */
  callWing: number;
}

/** Raw SVI parameters of one slice (Gatheral–Jacquier §3.1), in total variance `w = σ²·T`. */
export interface RawSvi {
  a: number;
  b: number;
  rho: number;
  m: number;
  s: number;
}

/** Where a slice sits, for error messages: its benchmark index and maturity in days. */
export interface SliceLocation {
  benchmark?: number;
  maturityDays?: number;
}

function fail(where: SliceLocation, field: string, condition: string, detail: string): never {
  const head =
    where.benchmark === undefined
      ? ""
      : `benchmark ${where.benchmark}${where.maturityDays === undefined ? "" : ` (maturity ${fmt(where.maturityDays)} d)`}: `;
  throw new VolModelError(`${head}${detail}`, { benchmark: where.benchmark, field, condition });
}

/**
 * Converts the model's parameters of one slice to raw SVI (vol-model.md, "Conversion to raw SVI"),
 * checking every validity condition first. `T` is the slice's maturity in years (> 0).
 *
 * Throws {@link VolModelError} naming the benchmark (from `where`), the field and the failed condition:
 * non-finite input, `T > 0`, `v > 0`, `p > 0`, `c > 0`, `-p < 2·psi < c`, `kappa > -psi²/sqrt(theta)`
 * (`w''(0) > 0`), and a non-negative minimum total variance `a + b·s·sqrt(1 − rho²) ≥ 0`.
 * @example
 * ```ts
 * import { rawSvi, rawToModel } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * rawSvi(rawToModel(raw, 0.25), 0.25); // the raw SVI of a model slice (checked)
 * ```
 */
export function rawSvi(params: SliceParams, T: number, where: SliceLocation = {}): RawSvi {
  const { vol: v, skew: psi, smile: kappa, putWing: p, callWing: c } = params;
  const fields: [string, string, number][] = [
    ["vols", "vol", v],
    ["skews", "skew", psi],
    ["smiles", "smile", kappa],
    ["put_wings", "put wing", p],
    ["call_wings", "call wing", c],
  ];
  for (const [field, name, x] of fields) {
    if (!Number.isFinite(x)) fail(where, field, "finite", `${name} must be a finite number; got ${x}`);
  }
  if (!(T > 0 && Number.isFinite(T)))
    fail(where, "benchmark_maturities", "T > 0", `maturity must be > 0; got T = ${fmt(T)} years`);
  if (!(v > 0)) fail(where, "vols", "v > 0", `vol must be > 0; got v = ${fmt(v)}`);
  if (!(p > 0)) fail(where, "put_wings", "p > 0", `put wing must be > 0; got p = ${fmt(p)}`);
  if (!(c > 0)) fail(where, "call_wings", "c > 0", `call wing must be > 0; got c = ${fmt(c)}`);
  if (!(-p < 2 * psi && 2 * psi < c)) {
    fail(
      where,
      "skews",
      "-p < 2·psi < c",
      `skew must satisfy -p < 2·psi < c; got 2·psi = ${fmt(2 * psi)}, p = ${fmt(p)}, c = ${fmt(c)}`,
    );
  }
  const theta = v * v * T;
  const sqrtTheta = Math.sqrt(theta);
  const w2 = 2 * (psi * psi + sqrtTheta * kappa);
  if (!(w2 > 0)) {
    fail(
      where,
      "smiles",
      "kappa > -psi²/sqrt(theta)",
      `smile must satisfy kappa > -psi²/sqrt(theta) (w''(0) > 0); got kappa = ${fmt(kappa)}, bound -psi²/sqrt(theta) = ${fmt((-psi * psi) / sqrtTheta)}`,
    );
  }
  const b = (sqrtTheta * (p + c)) / 2;
  const rho = (c - p) / (c + p);
  const beta = (c - p - 4 * psi) / (c + p);
  // 1 − beta² as (1 − beta)(1 + beta): no cancellation when |beta| is near 1.
  const oneMinusBeta2 = (1 - beta) * (1 + beta);
  const R = (b * oneMinusBeta2) / w2;
  const m = beta * R;
  const s = R * Math.sqrt(oneMinusBeta2);
  const a = theta - b * R * (1 - rho * beta);
  const raw = { a, b, rho, m, s };
  if (![theta, b, rho, m, s, R].every(Number.isFinite) || !(s > 0) || !(b > 0)) {
    fail(
      where,
      "vols",
      "finite raw SVI",
      `the parameters overflow or underflow in double precision (theta = ${fmt(theta)}, b = ${fmt(b)}, m = ${fmt(m)}, s = ${fmt(s)}); rescale vol, smile or wings`,
    );
  }
  const minW = minFromModel(theta, psi, kappa, rho, beta);
  if (!(minW >= 0)) {
    fail(
      where,
      "smiles",
      "a + b·s·sqrt(1 - rho²) >= 0",
      `minimum total variance a + b·s·sqrt(1 - rho²) must be >= 0; got ${fmt(minW)} (theta = ${fmt(theta)}, b = ${fmt(b)}, rho = ${fmt(rho)}, m = ${fmt(m)}, s = ${fmt(s)}); raise the smile`,
    );
  }
  return raw;
}

/**
 * The minimum over k of the total variance of the model's slice at maturity `T` years, from the model's
 * parameters: `a + b·s·sqrt(1 − rho²)` (vol-model.md) written as
 * `theta·(1 − 2·(1 − beta²)·q / (1 − rho·beta + sqrt((1 − beta²)(1 − rho²))))`, `q = psi²/(psi² + sqrt(theta)·kappa)`
 * (so `b·R·(rho − beta)² = 2·theta·(1 − beta²)·q`, with `rho − beta = 4·psi/(c + p)` exact). Nothing in it
 * grows with `R`: a skew-free slice (`beta = rho`) has exactly `theta`, however tiny its smile, where the
 * centred form of {@link minTotalVariance}, given `m` and `s` near 1e149, finds `rho − m/R` ≈ 1e-16 by
 * rounding and a minimum of −1e116. Assumes the conditions {@link rawSvi} checks.
 * @example
 * ```ts
 * import { modelMinTotalVariance, rawToModel } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * modelMinTotalVariance(rawToModel(raw, 0.25), 0.25); // from the model's parameters, without cancellation
 * ```
 */
export function modelMinTotalVariance(params: SliceParams, T: number): number {
  const { vol: v, skew: psi, smile: kappa, putWing: p, callWing: c } = params;
  return minFromModel(v * v * T, psi, kappa, (c - p) / (c + p), (c - p - 4 * psi) / (c + p));
}

function minFromModel(theta: number, psi: number, kappa: number, rho: number, beta: number): number {
  // q = psi²/(psi² + sqrt(theta)·kappa) as 1/(1 + sqrt(theta)·kappa/psi²), no psi² to underflow; in [0, ∞) when w''(0) > 0.
  const q = psi === 0 ? 0 : 1 / (1 + (Math.sqrt(theta) * kappa) / psi / psi);
  const oneMinusBeta2 = (1 - beta) * (1 + beta);
  return theta * (1 - (2 * oneMinusBeta2 * q) / (1 - rho * beta + Math.sqrt(oneMinusBeta2 * (1 - rho) * (1 + rho))));
}

/**
 * The inverse of {@link rawSvi}: the model's parameters of a raw SVI slice at maturity `T` years
 * (`theta = w(0)`, `psi = w'(0)/(2·sqrt(theta))`, `p = b(1 − rho)/sqrt(theta)`, `c = b(1 + rho)/sqrt(theta)`,
 * `kappa = (w''(0)/2 − psi²)/sqrt(theta)`). Throws {@link VolModelError} naming the field for a parameter
 * that is not finite, `b <= 0`, `|rho| >= 1`, `s <= 0`, `T <= 0`, or an ATM total variance
 * `w(0) <= 0` (the ATM vol would be undefined): never NaN.
 * @example
 * ```ts
 * import { sliceParams } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * sliceParams(raw, 0.25); // the model's parameters of a raw slice
 * ```
 */
export function sliceParams(raw: RawSvi, T: number): SliceParams {
  const { a, b, rho, m, s } = raw;
  for (const [field, x] of [
    ["a", a],
    ["b", b],
    ["rho", rho],
    ["m", m],
    ["s", s],
  ] as const) {
    if (!Number.isFinite(x))
      throw new VolModelError(`${field} must be a finite number; got ${x}`, { field, condition: "finite" });
  }
  if (!(T > 0 && T < Infinity))
    throw new VolModelError(`T must be a finite number > 0 (years); got ${fmt(T)}`, { field: "T", condition: "T > 0" });
  if (!(b > 0))
    throw new VolModelError(`b must be > 0 (both wings slope upwards); got ${fmt(b)}`, {
      field: "b",
      condition: "b > 0",
    });
  if (!(rho > -1 && rho < 1))
    throw new VolModelError(`rho must be in (-1, 1); got ${fmt(rho)}`, { field: "rho", condition: "|rho| < 1" });
  if (!(s > 0)) throw new VolModelError(`s must be > 0; got ${fmt(s)}`, { field: "s", condition: "s > 0" });
  const r = Math.hypot(m, s);
  const theta = a + b * (r - rho * m);
  if (!(theta > 0 && theta < Infinity)) {
    throw new VolModelError(
      `the ATM total variance w(0) = a + b·(sqrt(m² + s²) − rho·m) must be > 0; got ${fmt(theta)}`,
      {
        field: "a",
        condition: "w(0) > 0",
      },
    );
  }
  const sqrtTheta = Math.sqrt(theta);
  const skew = (b * (rho - m / r)) / (2 * sqrtTheta);
  // w''(0) = b·s²/r³ written as (b/s)·(s/r)³: no overflow of s² or r³.
  const sr = s / r;
  const w2 = (b / s) * sr * sr * sr;
  return {
    vol: Math.sqrt(theta / T),
    skew,
    smile: (w2 / 2 - skew * skew) / sqrtTheta,
    putWing: (b * (1 - rho)) / sqrtTheta,
    callWing: (b * (1 + rho)) / sqrtTheta,
  };
}

/**
 * A slice in centred form: its ATM total variance `theta = w(0)` and raw SVI's `b, rho, m, s`. The model
 * evaluates slices in this form, `w(k) = theta + b·(rho·k + k·(k − 2m)/(sqrt((k − m)² + s²) + sqrt(m² + s²)))`,
 * which has no cancellation between large terms (raw SVI's `a` can be −1e300 on a valid, nearly flat
 * slice whose `w` is 0.04). Every {@link Benchmark} of a model is one.
 */
export interface SviSlice {
  theta: number;
  b: number;
  rho: number;
  m: number;
  s: number;
}

/**
 * The centred form of a raw SVI slice (`theta = w(0)`).
 * @example
 * ```ts
 * import { centredSlice } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * const slice = centredSlice(raw); // { theta: w(0), b, rho, m, s }
 * ```
 */
export function centredSlice(raw: RawSvi): SviSlice {
  return { theta: sviW(raw, 0), b: raw.b, rho: raw.rho, m: raw.m, s: raw.s };
}

/**
 * The minimum over k of a slice's total variance. For a raw slice `a + b·s·sqrt(1 − rho²)`; for a centred
 * one ({@link SviSlice}) the same value written without cancellation:
 * `theta − b·R·(rho − beta)² / ((1 − rho·beta) + (s/R)·sqrt(1 − rho²))`, `R = sqrt(m² + s²)`, `beta = m/R`.
 * This is the minimum of the slice as its rounded `m` and `s` describe it: when they are huge (a tiny smile)
 * `beta = m/R` is known to an ulp only, and `b·R·(rho − beta)²` can be −1e116 on a slice whose true minimum
 * is `theta`. For the model's own slices use {@link modelMinTotalVariance}, which the model checks and reports.
 * @example
 * ```ts
 * import { minTotalVariance } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * minTotalVariance(raw); // a + b·s·√(1 − ρ²)
 * ```
 */
export function minTotalVariance(slice: RawSvi | SviSlice): number {
  if (!("theta" in slice)) return slice.a + slice.b * slice.s * Math.sqrt(1 - slice.rho * slice.rho);
  const { theta, b, rho, m, s } = slice;
  const R = Math.hypot(m, s);
  const beta = m / R;
  const d = rho - beta;
  return theta - (b * R * d * d) / (1 - rho * beta + (s / R) * Math.sqrt((1 - rho) * (1 + rho)));
}

/**
 * Total variance `w(k)` of a slice at log-moneyness `k` (raw: `a + b·(rho·(k − m) + sqrt((k − m)² + s²))`; centred: see {@link SviSlice}).
 * @example
 * ```ts
 * import { sviW } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * sviW(raw, 0.1); // total variance at log-moneyness 0.1
 * ```
 */
export function sviW(slice: RawSvi | SviSlice, k: number): number {
  const { b, rho, m, s } = slice;
  const d = k - m;
  if (!("theta" in slice)) return slice.a + b * (rho * d + Math.hypot(d, s));
  return slice.theta + b * (rho * k + centredTerm(k, m, s));
}

/**
 * `sqrt((k − m)² + s²) − sqrt(m² + s²)` as `k·(k − 2m)/(sqrt((k − m)² + s²) + sqrt(m² + s²))`, scaled by
 * `1/max(R, 1)` so that no square overflows, whatever the size of m and s.
 */
function centredTerm(k: number, m: number, s: number): number {
  const R = Math.hypot(m, s);
  const alpha = R > 1 ? 1 / R : 1;
  const ka = k * alpha;
  const M = m * alpha;
  return (k * (ka - 2 * M)) / (Math.hypot(ka - M, s * alpha) + R * alpha);
}

/**
 * `w'(k) = b·(rho + (k − m)/sqrt((k − m)² + s²))`.
 * @example
 * ```ts
 * import { sviW1 } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * sviW1(raw, 0.1); // dw/dk
 * ```
 */
export function sviW1(slice: RawSvi | SviSlice, k: number): number {
  const d = k - slice.m;
  return slice.b * (slice.rho + d / Math.hypot(d, slice.s));
}

/**
 * `w''(k) = b·s²/((k − m)² + s²)^(3/2)`, written as `(b/s)·(s/h)³` so that nothing overflows.
 * @example
 * ```ts
 * import { sviW2 } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * sviW2(raw, 0.1); // d²w/dk²
 * ```
 */
export function sviW2(slice: RawSvi | SviSlice, k: number): number {
  const h = Math.hypot(k - slice.m, slice.s);
  const r = slice.s / h;
  return (slice.b / slice.s) * r * r * r;
}

/**
 * Gatheral–Jacquier's butterfly density factor (GJ eq. 2.1) of a slice at `k`:
 * `g(k) = (1 − k·w'/(2w))² − (w'²/4)·(1/w + 1/4) + w''/2`; the slice is free of butterfly arbitrage
 * where `g ≥ 0`. NaN where `w(k) = 0` (undefined there).
 * @example
 * ```ts
 * vol.butterflyG({ a: 0.04, b: 0.4, rho: -0.4, m: 0, s: 0.2 }, 0.1); // ≥ 0: no butterfly arbitrage at k = 0.1
 * ```
 */
export function butterflyG(slice: RawSvi | SviSlice, k: number): number {
  return densityFactor(k, sviW(slice, k), sviW1(slice, k), sviW2(slice, k));
}

/**
 * GJ's `g` from total variance and its first two k-derivatives at `k`:
 * `(1 − k·w'/(2w))² − (w'²/4)·(1/w + 1/4) + w''/2`. NaN where `w <= 0` or an input is NaN: callers treat
 * NaN as a failed check, never as a pass.
 * @example
 * ```ts
 * import { densityFactor, sviW, sviW1, sviW2 } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * const k = 0.1;
 * densityFactor(k, sviW(raw, k), sviW1(raw, k), sviW2(raw, k)); // vol.butterflyG(raw, k)
 * ```
 */
export function densityFactor(k: number, w: number, w1: number, w2: number): number {
  if (!(w > 0)) return NaN;
  const h = 1 - (k * w1) / (2 * w);
  return h * h - ((w1 * w1) / 4) * (1 / w + 1 / 4) + w2 / 2;
}
