/**
 * What the two Black-76 kernels ({@link fillBlack76}, and the previous one kept as the reference,
 * {@link fillBlack76Reference}) share: the output arrays, the constants of the regions, the series of the
 * outer regions and the limits at σ√T = 0. The numerics are described on {@link black76}.
 */
/** The results of the kernel, one element per option (see {@link Black76Greeks}). */
export interface Black76Arrays {
  price: Float64Array;
  delta: Float64Array;
  gamma: Float64Array;
  vega: Float64Array;
  theta: Float64Array;
}

/** The five results, in the order of {@link Black76Arrays}. */
export const RESULT_KEYS = ["price", "delta", "gamma", "vega", "theta"] as const;

/** Five new Float64Arrays of `n` elements. */
export function newArrays(n: number): Black76Arrays {
  return {
    price: new Float64Array(n),
    delta: new Float64Array(n),
    gamma: new Float64Array(n),
    vega: new Float64Array(n),
    theta: new Float64Array(n),
  };
}

/**
 * What every kernel takes (the fast one, the reference, Bachelier's, and the pool's in front of the fast
 * one): options `q = 0 … n − 1`, strike `strikes[q]` and vol `vols[q·volStride]` (stride 0: one vol for
 * all), into `out[·][q]`, at forward `F`, `sqrtT` = √T, discount factor `DF` and `r` the rate it implies
 * (0 at T = 0); `call` or put. The inputs are checked before: F, K > 0 finite (for Bachelier any finite F,
 * K with F − K finite), σ ≥ 0, T ≥ 0, σ√T finite, DF > 0.
 */
export type Black76Kernel<A extends ArrayLike<number> = Float64Array> = (
  F: number,
  strikes: A,
  vols: A,
  volStride: number,
  sqrtT: number,
  DF: number,
  r: number,
  call: boolean,
  out: Black76Arrays,
  n: number,
) => void;

export const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
export const SQRT_HALF_PI = Math.sqrt(Math.PI / 2);
/** Below this `t = σ√T/2` the Taylor series in t (through t¹³) is accurate to double precision. */
export const SMALL_T = 0.21;
/** Where `h + t ≤` this the asymptotic Mills-ratio series converges to double precision. */
export const ASYMPTOTIC_H = -10;

/**
 * `D = Y(h + t) − Y(h − t)` far out of the money (`x1 = −(h + t) ≥ 10`), from the asymptotic series of
 * the Mills ratio `Y(−x) = Σ_n (−1)^n·(2n − 1)!!/x^(2n+1)`: `D = Σ_n (−1)^n·(2n − 1)!!·x1^−(2n+1)·(1 − ρ^(2n+1))`
 * with `ρ = x1/x2`, `x2 = t − h`. The factors `1 − ρ^m` are built up as sums of positive terms
 * (`1 − ρ^(m+2) = (1 − ρ^m) + ρ^m·(1 − ρ²)`, `1 − ρ = 2t/x2`), so nothing cancels however small t is.
 */
export function asymptoticD(h: number, t: number): number {
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
 * Small t (`t < 0.21`): `D = Y(h + t) − Y(h − t)` as the odd Taylor series of Y about h,
 * `D = 2·Σ_j Y^(2j+1)(h)·t^(2j+1)/(2j+1)!`, from `yh = Y(h)`. From `Y' = 1 + hY` every derivative is a
 * polynomial in h plus one times Y; with `a = 1 + h·Y(h) = Y'(h)` the odd ones are `U_j(h²) + a·V_j(h²)`,
 * the integer polynomials below (`Y‴ = −1 + a·(3 + h²)`, …), every term of the series positive. Seven
 * terms, through t¹³: the first one left out is below 2e-16 of the sum for t < 0.21. This function is its
 * terms t⁹ … t¹³ (over t⁹); the rest is written out in {@link taylorD}.
 */
export function taylorTail(z: number, a: number, w: number): number {
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

/** `D = Y(h + t) − Y(h − t)` for `t < 0.21` from `yh = Y(h)`: the series of {@link taylorTail}. */
export function taylorD(h: number, t: number, yh: number): number {
  const a = 1 + h * yh;
  const z = h * h;
  const w = t * t;
  const t1 = (-1 + a * (3 + z)) * (1 / 6);
  const t2 = (-7 - z + a * (15 + z * (10 + z))) * (1 / 120);
  const t3 = (-57 + z * (-18 - z) + a * (105 + z * (105 + z * (21 + z)))) * (1 / 5040);
  return 2 * t * (a + w * (t1 + w * (t2 + w * (t3 + w * taylorTail(z, a, w)))));
}

/** The limits of {@link Black76Greeks} where `σ√T = 0` (or so small that `|ln(F/K)|/(σ√T)` overflows), for option q. */
export function writeLimits(
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
  out.theta[q] = atm && sqrtT === 0 && sigma > 0 ? -Infinity : price > 0 ? r * price : 0;
}
