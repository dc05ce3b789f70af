/**
 * How `calibrate` judges a fitted slice (issue 41): the objective it minimised, as a weighted RMSE in vol
 * bp, and the rule that decides `converged`, with the reasons it gives when a slice is not.
 *
 * A slice is converged when all of these hold (each failure gives one reason, in words that name the
 * figure and the limit):
 * 1. the solver stopped on a tolerance, or its cost settled ({@link SETTLED_NOTE}), not on its budget;
 * 2. the slice passed the fine-grid no-arbitrage check;
 * 3. its parameters are sane ({@link SANE_LIMITS}): a parameter beyond them has run off along a direction
 *    the quotes do not pin (a wing beyond the last quote flattened to 0, a curvature grown without bound);
 * 4. when the quotes' noise is given (`noiseBp`), the weighted RMSE is at most {@link NOISE_RMSE_LIMIT}
 *    times it: with 5 parameters fitted to n quotes of independent noise σ the weighted RMSE is about
 *    σ·sqrt((n − 5)/n) ≤ σ, and twice σ is far beyond chance for n ≥ 5 (the constraints, or a poor local
 *    minimum, or quotes that are not what the noise says).
 */
import type { SliceParams } from "../svi";

/** 3 significant digits (`12.5`, `0.0253`, `8.26e8`, `7.64e-17`): parameter values and errors in a sentence. */
function short(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  return a !== 0 && (a >= 1e5 || a < 1e-3) ? x.toExponential(2).replace("e+", "e") : String(Number(x.toPrecision(3)));
}
/** A limit as written in the docs: `1e-6`, `1e4`, `10`. */
const limit = (x: number): string => (x >= 1e4 || x < 1e-3 ? x.toExponential().replace("e+", "e") : String(x));

/** Why the solver's own stop may count, in words: the rule of the fit loop's `SETTLED`. */
export const SETTLED_NOTE =
  "a step or gradient tolerance, or a weighted RMS error that settled (fell by at most 1e-5 of itself over 30 iterations)";

/**
 * The range of each fitted parameter that counts as sane (both ends inclusive): the ATM vol up to 10
 * (1,000%), |smile| up to 1e4, each wing from 1e−6 to 1e6 (wings are slopes of total variance over
 * sqrt(theta): 0.1 to 5 for listed equity smiles). A wing the quotes do not pin can run off by hundreds
 * of orders of magnitude (a smile of 1e84, a put wing of 1e−261), far beyond these.
 */
export const SANE_LIMITS = Object.freeze({ volMax: 10, smileAbsMax: 1e4, wingMin: 1e-6, wingMax: 1e6 });

/** A slice whose weighted RMSE is above this many times the quotes' stated noise (`noiseBp`) is not converged. */
export const NOISE_RMSE_LIMIT = 2;

/** The weighted root mean square `sqrt(Σ w·e² / Σ w)` of errors `e` (vol bp) with weights `w` of the squared errors. */
export function weightedRms(errors: ArrayLike<number>, weights: ArrayLike<number>): number {
  let sum = 0;
  let total = 0;
  for (let j = 0; j < errors.length; j++) {
    sum += weights[j]! * errors[j]! * errors[j]!;
    total += weights[j]!;
  }
  return Math.sqrt(sum / total);
}

/** The sentences naming each parameter of a slice outside {@link SANE_LIMITS}. */
export function insaneParameters(p: SliceParams): string[] {
  const out: string[] = [];
  const L = SANE_LIMITS;
  if (!(p.vol <= L.volMax)) out.push(`ATM vol ${short(p.vol)} is above ${limit(L.volMax)}`);
  if (!(Math.abs(p.smile) <= L.smileAbsMax))
    out.push(`smile ${short(p.smile)} is beyond ±${limit(L.smileAbsMax)} (the curvature ran off)`);
  for (const [name, value] of [
    ["putWing", p.putWing],
    ["callWing", p.callWing],
  ] as const) {
    if (!(value >= L.wingMin))
      out.push(`${name} ${short(value)} ran towards 0 (below ${limit(L.wingMin)}): the quotes do not pin that wing`);
    else if (!(value <= L.wingMax)) out.push(`${name} ${short(value)} is above ${limit(L.wingMax)}`);
  }
  return out;
}

/** What {@link convergenceReasons} judges. */
export interface SliceOutcome {
  /** The solver stopped on a tolerance or its cost settled. */
  solverStopped: boolean;
  /** The slice passed the fine-grid no-arbitrage check. */
  passed: boolean;
  params: SliceParams;
  weightedRmseBp: number;
  maxIterations: number;
  /** The quotes' noise in vol bp, when given. */
  noiseBp: number | undefined;
}

/** Why a slice is not converged (this file's comment): empty when it is. */
export function convergenceReasons(o: SliceOutcome): string[] {
  const out: string[] = [];
  if (!o.passed) out.push("the fitted slice fails the fine-grid no-arbitrage check (see diagnostics)");
  else if (!o.solverStopped)
    out.push(`the solver used its budget (maxIterations ${o.maxIterations}) before reaching ${SETTLED_NOTE}`);
  out.push(...insaneParameters(o.params));
  if (o.noiseBp !== undefined && !(o.weightedRmseBp <= NOISE_RMSE_LIMIT * o.noiseBp)) {
    out.push(
      `weighted RMSE ${short(o.weightedRmseBp)} bp is more than ${NOISE_RMSE_LIMIT}× the quotes' noise (noiseBp ${short(o.noiseBp)} bp)`,
    );
  }
  return out;
}
