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
    where.benchmark === undefined ? "" : `benchmark ${where.benchmark}${where.maturityDays === undefined ? "" : ` (maturity ${fmt(where.maturityDays)} d)`}: `;
  throw new VolModelError(`${head}${detail}`, { benchmark: where.benchmark, field, condition });
}

/**
 * Converts the model's parameters of one slice to raw SVI (vol-model.md, "Conversion to raw SVI"),
 * checking every validity condition first. `T` is the slice's maturity in years (> 0).
 *
 * Throws {@link VolModelError} naming the benchmark (from `where`), the field and the failed condition:
 * non-finite input, `T > 0`, `v > 0`, `p > 0`, `c > 0`, `-p < 2·psi < c`, `kappa > -psi²/sqrt(theta)`
 * (`w''(0) > 0`), and a non-negative minimum total variance `a + b·s·sqrt(1 − rho²) ≥ 0`.
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
  if (!(T > 0 && Number.isFinite(T))) fail(where, "benchmark_maturities", "T > 0", `maturity must be > 0; got T = ${fmt(T)} years`);
  if (!(v > 0)) fail(where, "vols", "v > 0", `vol must be > 0; got v = ${fmt(v)}`);
  if (!(p > 0)) fail(where, "put_wings", "p > 0", `put wing must be > 0; got p = ${fmt(p)}`);
  if (!(c > 0)) fail(where, "call_wings", "c > 0", `call wing must be > 0; got c = ${fmt(c)}`);
  if (!(-p < 2 * psi && 2 * psi < c)) {
    fail(where, "skews", "-p < 2·psi < c", `skew must satisfy -p < 2·psi < c; got 2·psi = ${fmt(2 * psi)}, p = ${fmt(p)}, c = ${fmt(c)}`);
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
  const R = (b * (1 - beta * beta)) / w2;
  const m = beta * R;
  const s = R * Math.sqrt(1 - beta * beta);
  const a = theta - b * R * (1 - rho * beta);
  const raw = { a, b, rho, m, s };
  if (![theta, a, b, rho, m, s].every(Number.isFinite) || !(s > 0) || !(b > 0)) {
    fail(
      where,
      "vols",
      "finite raw SVI",
      `the parameters overflow or underflow in double precision (theta = ${fmt(theta)}, a = ${fmt(a)}, b = ${fmt(b)}, m = ${fmt(m)}, s = ${fmt(s)}); rescale vol, smile or wings`,
    );
  }
  const minW = minTotalVariance(raw);
  if (!(minW >= 0)) {
    fail(
      where,
      "smiles",
      "a + b·s·sqrt(1 - rho²) >= 0",
      `minimum total variance a + b·s·sqrt(1 - rho²) must be >= 0; got ${fmt(minW)} (a = ${fmt(a)}, b = ${fmt(b)}, rho = ${fmt(rho)}, s = ${fmt(s)}); raise the smile`,
    );
  }
  return raw;
}

/**
 * The inverse of {@link rawSvi}: the model's parameters of a raw SVI slice at maturity `T` years
 * (`theta = w(0)`, `psi = w'(0)/(2·sqrt(theta))`, `p = b(1 − rho)/sqrt(theta)`, `c = b(1 + rho)/sqrt(theta)`,
 * `kappa = (w''(0)/2 − psi²)/sqrt(theta)`). Requires `w(0) > 0`; no other check.
 */
export function sliceParams(raw: RawSvi, T: number): SliceParams {
  const { a, b, rho, m, s } = raw;
  const r = Math.sqrt(m * m + s * s);
  const theta = a + b * (r - rho * m);
  const sqrtTheta = Math.sqrt(theta);
  const skew = (b * (rho - m / r)) / (2 * sqrtTheta);
  const w2 = (b * s * s) / (r * r * r);
  return {
    vol: Math.sqrt(theta / T),
    skew,
    smile: (w2 / 2 - skew * skew) / sqrtTheta,
    putWing: (b * (1 - rho)) / sqrtTheta,
    callWing: (b * (1 + rho)) / sqrtTheta,
  };
}

/** The minimum of a raw SVI slice's total variance over k: `a + b·s·sqrt(1 − rho²)`. */
export function minTotalVariance(raw: RawSvi): number {
  return raw.a + raw.b * raw.s * Math.sqrt(1 - raw.rho * raw.rho);
}

/** Total variance `w(k)` of a raw SVI slice at log-moneyness `k`. */
export function sviW(raw: RawSvi, k: number): number {
  const d = k - raw.m;
  return raw.a + raw.b * (raw.rho * d + Math.sqrt(d * d + raw.s * raw.s));
}

/** `w'(k) = b·(rho + (k − m)/sqrt((k − m)² + s²))`. */
export function sviW1(raw: RawSvi, k: number): number {
  const d = k - raw.m;
  return raw.b * (raw.rho + d / Math.sqrt(d * d + raw.s * raw.s));
}

/** `w''(k) = b·s²/((k − m)² + s²)^(3/2)`. */
export function sviW2(raw: RawSvi, k: number): number {
  const d = k - raw.m;
  const q = d * d + raw.s * raw.s;
  return (raw.b * raw.s * raw.s) / (q * Math.sqrt(q));
}

/**
 * Gatheral–Jacquier's butterfly density factor (GJ eq. 2.1) of a slice at `k`:
 * `g(k) = (1 − k·w'/(2w))² − (w'²/4)·(1/w + 1/4) + w''/2`; the slice is free of butterfly arbitrage
 * where `g ≥ 0`. NaN where `w(k) = 0` (undefined there).
 */
export function butterflyG(raw: RawSvi, k: number): number {
  const w = sviW(raw, k);
  if (!(w > 0)) return NaN;
  const w1 = sviW1(raw, k);
  const w2 = sviW2(raw, k);
  const h = 1 - (k * w1) / (2 * w);
  return h * h - ((w1 * w1) / 4) * (1 / w + 1 / 4) + w2 / 2;
}
