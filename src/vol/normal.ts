/**
 * The standard normal distribution: cumulative distribution and its inverse, in double precision.
 * Used by the forward-delta strike convention (`N(d1) = delta`).
 */

/**
 * `N(x)`, the standard normal cumulative distribution, by Hart's double-precision algorithm (as given
 * by G. West, "Better approximations to cumulative normal functions", Wilmott 2005): absolute error
 * below 1e-14 on the whole line; `N(±∞)` is exactly 1 / 0.
 */
export function normCdf(x: number): number {
  const z = Math.abs(x);
  let tail: number;
  if (z > 37) {
    tail = 0;
  } else {
    const e = Math.exp((-z * z) / 2);
    if (z < 7.07106781186547) {
      let num = 3.52624965998911e-2 * z + 0.700383064443688;
      num = num * z + 6.37396220353165;
      num = num * z + 33.912866078383;
      num = num * z + 112.079291497871;
      num = num * z + 221.213596169931;
      num = num * z + 220.206867912376;
      let den = 8.83883476483184e-2 * z + 1.75566716318264;
      den = den * z + 16.064177579207;
      den = den * z + 86.7807322029461;
      den = den * z + 296.564248779674;
      den = den * z + 637.333633378831;
      den = den * z + 793.826512519948;
      den = den * z + 440.413735824752;
      tail = (e * num) / den;
    } else {
      let cf = z + 0.65;
      cf = z + 4 / cf;
      cf = z + 3 / cf;
      cf = z + 2 / cf;
      cf = z + 1 / cf;
      tail = e / cf / 2.506628274631;
    }
  }
  return x > 0 ? 1 - tail : tail;
}

/**
 * `N⁻¹(p)`, the standard normal quantile, for `0 < p < 1` (Wichura, "Algorithm AS 241: the percentage
 * points of the normal distribution", Applied Statistics 37, 1988; relative error about 1e-16).
 * Returns -∞ at 0, +∞ at 1 and NaN outside [0, 1]: callers validate `p` first.
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
  3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946, 45921.95393154987, 67265.7709270087, 33430.57558358813, 2509.0809287301227,
];
const AS241_B = [1.0, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597, 39307.89580009271, 28729.085735721943, 5226.495278852546];
const AS241_C = [
  1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045, 1.2704582524523684, 0.2417807251774506, 0.022723844989269184,
  0.0007745450142783414,
];
const AS241_D = [
  1.0, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008, 0.015198666563616457, 0.0005475938084995345, 1.0507500716444169e-9,
];
const AS241_E = [
  6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487, 0.026532189526576124, 0.0012426609473880784, 2.7115555687434876e-5,
  2.0103343992922881e-7,
];
const AS241_F = [
  1.0, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133, 1.8463183175100548e-5, 1.421511758316446e-7, 2.0442631033899397e-15,
];
