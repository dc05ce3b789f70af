/**
 * `exp`, `ln(F/K)` and `erfcx` for the Black-76 kernel ({@link fillBlack76}), in plain arithmetic so that
 * its loops make no call per option (bench/black.mjs measures the kernel). None of these checks its
 * argument: the kernel sends the options outside their ranges to the reference kernel instead.
 *
 * - {@link expFast}: `e^x` for −708 < x < 709 by the table method (Tang, "Table-driven implementation of
 *   the exponential function", ACM TOMS 15, 1989): `x = (64m + j)·ln2/64 + r`, `|r| ≤ ln2/128`,
 *   `e^x = 2^m·2^(j/64)·e^r`, with `2^(j/64)` as a double plus its rounding error (mpmath, 200 bits),
 *   `ln2/64` split Cody–Waite (fdlibm's `ln2HI`/`ln2LO`) and `e^r − 1` by its Taylor series through r⁶
 *   (truncation below 3e-20). Within 1 ulp of `Math.exp` (test/vol/black76-kernel.test.ts).
 * - {@link logRatio}: `ln(F/K)` to about 1 ulp even when F ≈ K, as `i·ln2 + 2·atanh(w)` with
 *   `w = (F − 2^i·K)/(F + 2^i·K)`, `i` the power of two nearest F/K (so `|w| ≤ 0.1716` and `F − 2^i·K` is
 *   exact), and `2·atanh(w) = 2w + w·R(w²)` with fdlibm's minimax `R` for `log` (e_log.c, error below
 *   2^−58.45).
 * - {@link erfcxFast}: Cody's {@link erfcx} for x ≥ −0.61, with expFast (the same values for
 *   0.46875 < x ≤ 4: the middle rational function is evaluated in Cody's order, because another order
 *   rounds differently and the small-t series, where it cancels, magnifies that ×25).
 */
import { CODY_SQRPI, codyMid, codySmall, codyTail } from "../normal";

const EXP2_HI = new Float64Array([
  1.0, 1.0108892860517005, 1.0218971486541166, 1.0330248790212284, 1.0442737824274138, 1.0556451783605572,
  1.0671404006768237, 1.0787607977571199, 1.0905077326652577, 1.102382583307841, 1.1143867425958924, 1.1265216186082418,
  1.1387886347566916, 1.1511892299529827, 1.1637248587775775, 1.1763969916502812, 1.189207115002721, 1.202156731452703,
  1.215247359980469, 1.22848053610687, 1.241857812073484, 1.255380757024691, 1.2690509571917332, 1.2828700160787783,
  1.2968395546510096, 1.3109612115247644, 1.3252366431597413, 1.339667524053303, 1.3542555469368927, 1.3690024229745905,
  1.383909881963832, 1.3989796725383112, 1.4142135623730951, 1.42961333839197, 1.4451808069770467, 1.460917794180647,
  1.4768261459394993, 1.4929077282912648, 1.5091644275934228, 1.5255981507445384, 1.5422108254079407, 1.559004400237837,
  1.5759808451078865, 1.593142151342267, 1.6104903319492543, 1.6280274218573478, 1.645755478153965, 1.6636765803267364,
  1.681792830507429, 1.7001063537185235, 1.718619298122478, 1.7373338352737062, 1.7562521603732995, 1.7753764925265212,
  1.7947090750031072, 1.8142521755003989, 1.8340080864093424, 1.8539791250833855, 1.8741676341103, 1.8945759815869656,
  1.9152065613971474, 1.9360617934922943, 1.9571441241754002, 1.978456026387951,
]);
const EXP2_LO = new Float64Array([
  0.0, -1.5234778603368577e-17, 5.109225028973444e-17, 7.600838874027088e-18, 8.551889705537965e-17,
  1.759325738772092e-18, -7.899853966841582e-17, -6.656660436056593e-17, -3.046782079812471e-17, 5.2660368715706944e-17,
  1.0410278456845571e-16, 5.165856758795457e-17, 8.912812676025408e-17, 3.250710218863827e-17, 3.8292048369240935e-17,
  5.554203254218079e-17, 3.982015231465646e-17, 6.644981499252301e-17, -7.712630692681488e-17, -1.89878163130253e-17,
  4.658027591836937e-17, -6.7113898212968784e-18, 2.667932131342186e-18, 1.713594918243561e-17, 2.5382502794888315e-17,
  -7.181536135519454e-17, -2.8587312100388614e-17, 8.927282594831732e-17, 7.70094837980299e-17, 9.593797919118849e-17,
  -6.770511658794786e-17, -9.614213209051323e-17, -9.667293313452913e-17, -1.2031642489053655e-17,
  -3.0237581349939873e-17, -5.600377186075216e-17, -3.483994556892796e-17, 1.4192920154284036e-17,
  -1.016455327754295e-16, -1.1024941712342561e-16, 7.949834809697621e-17, 3.7812070533575275e-17,
  -1.0136916471278304e-17, -1.0094406542311964e-16, 2.4707192569797888e-17, -6.712955084707084e-17,
  -1.0125679913674773e-16, 5.8909926967131e-17, 8.199010020581497e-17, -8.0237193703977e-18, -1.851380418263111e-17,
  3.164389299292957e-17, 2.960140695448873e-17, 6.429731796556572e-17, 1.8227458427912087e-17, -9.969531538920349e-17,
  3.283107224245627e-17, 9.761887490727594e-17, -6.122763413004143e-17, 3.4034035352165297e-17, -1.0619946056195963e-16,
  1.0332385960676326e-16, 8.960767791036668e-17, 4.0388753109278167e-17,
]);
/** `2^(k − 1023)` for k = 0 … 2046. */
const POW2 = new Float64Array(2047).map((_, k) => 2 ** (k - 1023));

/**
 * `e^x` to below 1 ulp (see the module's comment) for `−708 < x < 709`, which the caller ensures: there is
 * no check and no fallback here, because a fallback's call, even on a path never taken, costs the
 * kernel's loop more than the exp itself.
 */
export function expFast(x: number): number {
  // (The constants are written out: module-level ones are loaded from memory in a bundle, where they are `var`s.)
  const kd = x * 92.33248261689366 + 6755399441055744 - 6755399441055744; // x·64/ln2 rounded
  const k = kd | 0;
  const r = x - kd * 0.01083042469326756 - kd * 2.9815858269852933e-12; // kd·ln2/64 in two parts
  // e^r − 1 through r⁶ in Estrin's form: shorter chains of dependent operations than Horner's.
  const r2 = r * r;
  const p = r + r2 * (0.5 + r * (1 / 6)) + r2 * r2 * (1 / 24 + r * (1 / 120) + r2 * (1 / 720));
  const j = k & 63;
  const hi = EXP2_HI[j]!;
  return (hi + (EXP2_LO[j]! + hi * p)) * POW2[(k >> 6) + 1023]!;
}

// A double's bits: the exponent of F/K picks the power of two in logRatio.
const BITS = new Float64Array(1);
const WORDS = new Uint32Array(BITS.buffer);
/** The index of the high word (sign, exponent) of a double in {@link WORDS}: 1 on little-endian machines. */
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/**
 * `ln(F/K)` for F, K > 0 with `ratio = F/K` (see the module's comment): relative error about 1 ulp, with no
 * cancellation when F ≈ K. The caller ensures `1e-300 < F, ratio < 1e300` (no check here, as for {@link expFast}).
 */
export function logRatio(F: number, K: number, ratio: number): number {
  BITS[0] = ratio * Math.SQRT2;
  const i = (WORDS[HIGH]! >>> 20) - 1023;
  const cK = K * POW2[i + 1023]!;
  const w = (F - cK) / (F + cK);
  const z = w * w;
  // fdlibm's e_log.c: log(1 + f) = 2s + s·R(s²), s = f/(2 + f), |s| ≤ 0.1716, R minimax (Lg1 … Lg7), in Estrin's form.
  const z2 = z * z;
  const R =
    z *
    (6.666666666666735e-1 +
      z * 3.999999999940942e-1 +
      z2 * (2.857142874366239e-1 + z * 2.2222198432149784e-1) +
      z2 * z2 * (1.818357216161805e-1 + z * 1.5313837699209373e-1 + z2 * 1.4798198605116586e-1));
  const a = 2 * w + w * R;
  // i·ln2 in two parts (fdlibm's ln2HI, 32 bits, times i is exact, and ln2LO).
  return i === 0 ? a : i * 6.9314718036912382e-1 + (a + i * 1.9082149292705877e-10);
}

/**
 * `erfcx(x) = e^(x²)·erfc(x)` for `x ≥ −0.61` (the caller ensures it), W. J. Cody's rational approximations
 * as {@link erfcx}, with {@link expFast} for `e^(x²)`: below −0.46875 as `2·e^(x²) − erfcx(−x)` with
 * `x²` rounded, a relative error of at most 0.37 ulp in `e^(x²)` ({@link erfcx} splits x² for large |x|).
 */
export function erfcxFast(x: number): number {
  const y = x < 0 ? -x : x;
  const z = y > 1.11e-16 ? y * y : 0;
  // One call site of expFast.
  // e^(x²) wherever it is used below: up to 0.46875 inclusive (`<` left erfcx(0.46875) at 0).
  const e = x <= 0.46875 ? expFast(z) : 0;
  if (y <= 0.46875) return e * (1 - x * codySmall(z));
  const r = y <= 4 ? codyMid(y) : y < 6.71e7 ? codyTail(y) : CODY_SQRPI / y;
  return x >= 0 ? r : 2 * e - r;
}
