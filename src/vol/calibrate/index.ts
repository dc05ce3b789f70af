/**
 * `calibrate`: a surface of the local model (vol-model.md) fitted to quoted implied vols, one benchmark
 * per quoted maturity, free of static arbitrage (issue 18, part 2).
 *
 * The folder, one part a file, each with the part of the method it does in its comment: what goes in
 * and out (the options), the quotes read and checked ({@link readSmile}), one slice in the fit's
 * variables and the bounds they build in, the constraints and the least-squares problem over them, the
 * starting points, the fit loop ({@link fitSlices}), and the check of a fitted slice and the verdict on
 * it ({@link convergenceReasons}).
 */
import { DiagnoseCache } from "../diagnostics";
import { fromSurface, type WireSurface } from "../surface";
import { fitSlices } from "./fit";
import type { CalibrateOptions, CalibrationConstraint, CalibrationResult, SliceFit } from "./options";
import { readCalibrateOptions, readSmile, type ParsedSmile } from "./quotes";
import { convergenceReasons, weightedRms } from "./report";

export {
  CALIBRATION_MARGINS,
  DEFAULT_MAX_ITERATIONS,
  MAX_OUTER,
  MIN_QUOTES,
  VEGA_WEIGHT_FLOOR,
  type CalibrateOptions,
  type CalibrationConstraint,
  type CalibrationResult,
  type SliceFit,
  type SmileQuotes,
} from "./options";
export { NOISE_RMSE_LIMIT, SANE_LIMITS } from "./report";

/**
 * Fits a surface of the local model to quoted implied vols: one benchmark per smile, fitted shortest
 * first by Levenberg–Marquardt in the model's parametrisation, free of butterfly arbitrage (GJ's g ≥ 0),
 * calendar arbitrage (`w_i(k) ≥ w_{i−1}(k)`, wings included) and inside Lee's moment bound, with the
 * minimum total variance kept ≥ 0 (the method and the constraint forms are in the comments of the code that does them).
 * Quotes that an arbitrage-free surface produced are recovered exactly (to rounding); otherwise the fit
 * reports which constraints bind.
 *
 * Throws {@link VolModelError} naming the field path (`smiles[2].vols[5]`) and the reason for: a smile
 * with fewer than 5 quotes at distinct strikes, vols or strikes that are not finite and > 0 (or not a
 * delta in (0, 1), or a log-moneyness beyond the model's limit), maturities not strictly increasing,
 * arrays of different lengths, weights ≤ 0, and a bad spot, reference date, forward or option.
 *
 * @example
 * ```ts
 * const { surface, fit, diagnostics } = vol.calibrate({ spot: 100, referenceDate: "2026-11-20",
 *   smiles: [{ maturity: 30, strikes: [80, 90, 100, 110, 120], strikeType: STRIKE_TYPE.PercentForward,
 *              vols: [0.28, 0.24, 0.21, 0.2, 0.205] }] });
 * fit[0].rmseBp; // vol bp
 * ```
 */
export function calibrate(options: CalibrateOptions): CalibrationResult {
  const { spot, smiles, referenceDate, rate, weighting, maxIterations, onProgress, noiseBp } =
    readCalibrateOptions(options);
  const parsed: ParsedSmile[] = [];
  for (let i = 0; i < smiles.length; i++) parsed.push(readSmile(smiles[i], i, spot, rate, weighting, parsed[i - 1]));

  // diagnose's checks of each fitted slice, made as the fit goes: the final report takes them from here.
  const cache = new DiagnoseCache();
  const { slices: fitted, outcomes } = fitSlices(parsed, maxIterations, cache, onProgress);
  const surface: WireSurface = {
    benchmark_fwd_factors: parsed.map((q) => q.forward / spot),
    smiles: fitted.map((s) => s.smile),
    benchmark_maturities: parsed.map((q) => q.maturity),
    vols: fitted.map((s) => s.vol),
    call_wings: fitted.map((s) => s.callWing),
    put_wings: fitted.map((s) => s.putWing),
    skews: fitted.map((s) => s.skew),
    reference_date: referenceDate,
    spot_ref: spot,
  };
  // Errors from the model itself, as it evaluates the surface returned.
  const model = fromSurface(surface);
  const order: CalibrationConstraint[] = ["butterfly", "calendar", "lee", "minVariance"];
  const fit: SliceFit[] = parsed.map((q, i) => {
    const modelVols = model.vols(q.maturity, q.k, "logMoneyness");
    const residualsBp = Array.from(q.vols, (v, j) => (modelVols[j]! - v) * 1e4);
    const { iterations, converged, passed, active } = outcomes[i]!;
    const params = {
      vol: surface.vols[i]!,
      skew: surface.skews[i]!,
      smile: surface.smiles[i]!,
      putWing: surface.put_wings[i]!,
      callWing: surface.call_wings[i]!,
    };
    const weightedRmseBp = weightedRms(
      residualsBp,
      Array.from(q.sw, (w) => w * w),
    );
    const reasons = convergenceReasons({
      solverStopped: converged,
      passed,
      params,
      weightedRmseBp,
      maxIterations,
      noiseBp,
    });
    return {
      maturity: q.maturity,
      forward: q.forward,
      params,
      rmseBp: Math.sqrt(residualsBp.reduce((acc, e) => acc + e * e, 0) / residualsBp.length),
      maxErrorBp: residualsBp.reduce((acc, e) => Math.max(acc, Math.abs(e)), 0),
      iterations,
      weightedRmseBp,
      activeConstraints: order.filter((c) => active.has(c)),
      converged: reasons.length === 0,
      reasons,
      k: Array.from(q.k),
      residualsBp,
    };
  });
  return { surface, fit, diagnostics: cache.report(model) };
}
