/**
 * The standard normal distribution (cumulative distribution and its inverse) and the complementary error
 * function, plain and scaled, in double precision. Used by the delta strike conventions and Black-76.
 */

/**
 * `N(x)`, the standard normal cumulative distribution, from {@link erfc}: `N(x) = erfc(−x/√2)/2` for
 * x < 0, `1 − erfc(x/√2)/2` for x ≥ 0. In the lower tail the error is relative: about 1e-15, growing to
 * ~x²·1e-16 far out (the rounding of x/√2), down to x ≈ −37.5 where N leaves the normal doubles (0
 * beyond); in the upper half it is below 1e-16 absolute. `N(0)` is exactly 0.5, `N(±∞)` exactly 1 / 0,
 * and NaN stays NaN. (A tail probability of 1e-200 comes out to ~14 digits, not as rounding noise.)
 * @example
 * ```ts
 * import { normCdf } from "risk-portal-lab/vol";
 * normCdf(1.96); // 0.975…
 * ```
 */
export function normCdf(x: number): number {
  return x < 0 ? 0.5 * erfc(-x * Math.SQRT1_2) : 1 - 0.5 * erfc(x * Math.SQRT1_2);
}

/**
 * The complementary error function `erfc(x) = 2/√π ∫ₓ^∞ e^(−u²) du`, by W. J. Cody's rational Chebyshev
 * approximations ("Rational Chebyshev approximation for the error function", Math. Comp. 23, 1969; the
 * netlib SPECFUN routine CALERF): relative error about 1e-16 for x ≥ 0 (down to the underflow of
 * `erfc`, x ≈ 26.5, beyond which it is 0), 2 for x → −∞.
 * @example
 * ```ts
 * import { erfc } from "risk-portal-lab/vol";
 * erfc(1); // 0.157299…
 * ```
 */
export function erfc(x: number): number {
  const y = Math.abs(x);
  if (y <= 0.46875) return 1 - x * codySmall(y > 1.11e-16 ? y * y : 0);
  const r =
    y <= 4 ? codyMid(y) * expMinusSquare(y) : y < 26.543 ? codyTail(y) * expMinusSquare(y) : y >= 26.543 ? 0 : y; // y: NaN stays NaN
  return x >= 0 ? r : 2 - r;
}

/**
 * The scaled complementary error function `erfcx(x) = e^(x²)·erfc(x)` (Cody 1969, as {@link erfc}),
 * which for x ≥ 0 never underflows (`erfcx(x) ≈ 1/(x·√π)` for large x): relative error about 1e-16.
 * For x < 0 it grows like `2e^(x²)` and is +∞ below x ≈ −26.6.
 * @example
 * ```ts
 * import { erfcx } from "risk-portal-lab/vol";
 * erfcx(30); // e^900·erfc(30), finite where erfc(30) underflows
 * ```
 */
export function erfcx(x: number): number {
  const y = Math.abs(x);
  if (y <= 0.46875) {
    const z = y > 1.11e-16 ? y * y : 0;
    return Math.exp(z) * (1 - x * codySmall(z));
  }
  const r = y <= 4 ? codyMid(y) : y < 6.71e7 ? codyTail(y) : CODY_SQRPI / y;
  if (x >= 0) return r;
  if (x < -26.628) return Infinity;
  return 2 / expMinusSquare(y) - r;
}

// W. J. Cody's coefficients as CALERF lists them (the Horner forms below are its loops unrolled).
export const CODY_SQRPI = 0.5641895835477563; // 1/√π

/** `erf(y)/y` for `y² = z ≤ 0.46875²`. */
export function codySmall(z: number): number {
  const num =
    (((0.18577770618460315 * z + 3.1611237438705655) * z + 113.86415415105016) * z + 377.485237685302) * z +
    3209.3775891384694;
  const den = (((z + 23.601290952344122) * z + 244.02463793444417) * z + 1282.6165260773723) * z + 2844.236833439171;
  return num / den;
}

/** `erfcx(y)` for `0.46875 < y ≤ 4`. */
export function codyMid(y: number): number {
  let num = 2.1531153547440383e-8 * y + 0.5641884969886701;
  num = num * y + 8.883149794388377;
  num = num * y + 66.11919063714163;
  num = num * y + 298.6351381974001;
  num = num * y + 881.952221241769;
  num = num * y + 1712.0476126340707;
  num = num * y + 2051.0783778260716;
  num = num * y + 1230.3393547979972;
  let den = y + 15.744926110709835;
  den = den * y + 117.6939508913125;
  den = den * y + 537.1811018620099;
  den = den * y + 1621.3895745666903;
  den = den * y + 3290.7992357334597;
  den = den * y + 4362.619090143247;
  den = den * y + 3439.3676741437216;
  den = den * y + 1230.3393548037495;
  return num / den;
}

/** `erfcx(y)` for `y > 4`, in powers of `1/y²`. */
export function codyTail(y: number): number {
  const z = 1 / (y * y);
  const num =
    ((((0.016315387137302097 * z + 0.30532663496123236) * z + 0.36034489994980445) * z + 0.12578172611122926) * z +
      0.016083785148742275) *
      z +
    0.0006587491615298378;
  const den =
    ((((z + 2.568520192289822) * z + 1.8729528499234604) * z + 0.5279051029514285) * z + 0.06051834131244132) * z +
    0.0023352049762686918;
  return (CODY_SQRPI - (z * num) / den) / y;
}

/** `e^(−y²)` as `e^(−ysq²)·e^(−(y − ysq)(y + ysq))` with `ysq` y rounded down to 1/16: no error from rounding y². */
function expMinusSquare(y: number): number {
  const ysq = Math.trunc(y * 16) / 16;
  return Math.exp(-ysq * ysq) * Math.exp(-(y - ysq) * (y + ysq));
}

/**
 * `N⁻¹(p)`, the standard normal quantile, for `0 < p < 1` (Wichura, "Algorithm AS 241: the percentage
 * points of the normal distribution", Applied Statistics 37, 1988; relative error about 1e-16).
 * Returns -∞ at 0, +∞ at 1 and NaN outside [0, 1]: callers validate `p` first.
 * @example
 * ```ts
 * import { normInv } from "risk-portal-lab/vol";
 * normInv(0.975); // 1.95996…
 * ```
 */
export function normInv(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * horner(AS241_A, r)) / horner(AS241_B, r);
  }
  let r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  let value: number;
  if (r <= 5) {
    r -= 1.6;
    value = horner(AS241_C, r) / horner(AS241_D, r);
  } else {
    r -= 5;
    value = horner(AS241_E, r) / horner(AS241_F, r);
  }
  return q < 0 ? -value : value;
}

/** `c[0] + c[1]·x + c[2]·x² + …` */
function horner(c: readonly number[], x: number): number {
  let y = c[c.length - 1]!;
  for (let i = c.length - 2; i >= 0; i--) y = y * x + c[i]!;
  return y;
}

// AS 241 (PPND16) coefficients, lowest order first: central region |p − 0.5| ≤ 0.425 (A/B), then the
// tails for r = sqrt(−ln(min(p, 1 − p))) ≤ 5 (C/D) and beyond (E/F).
const AS241_A = [
  3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946, 45921.95393154987, 67265.7709270087,
  33430.57558358813, 2509.0809287301227,
];
const AS241_B = [
  1.0, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597, 39307.89580009271,
  28729.085735721943, 5226.495278852546,
];
const AS241_C = [
  1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045, 1.2704582524523684, 0.2417807251774506,
  0.022723844989269184, 0.0007745450142783414,
];
const AS241_D = [
  1.0, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008, 0.015198666563616457,
  0.0005475938084995345, 1.0507500716444169e-9,
];
const AS241_E = [
  6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487, 0.026532189526576124,
  0.0012426609473880784, 2.7115555687434876e-5, 2.0103343992922881e-7,
];
const AS241_F = [
  1.0, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133, 1.8463183175100548e-5,
  1.421511758316446e-7, 2.0442631033899397e-15,
];
