/**
 * Calibration time of the local vol model: `calibrate` on a 12-maturity × 21-strike surface, with exact
 * quotes (produced by an arbitrage-free surface) and with noisy ones (the same plus seeded noise of 2 vol
 * bp), single-threaded.
 *
 * What: quotes at 7 days to 3 years, 21 PercentForward strikes per maturity spread over
 * `sqrt(theta)·z` in log-moneyness for z from −3.5 to 3 (about 83%–119% of the forward at one week,
 * 55%–183% at three years), from a `buildSurface` equity surface (downward skew, steeper put wing).
 * `calibrate` includes `diagnose(fromSurface(surface))` on the result; that call is timed on its own too,
 * so the fit's share is the difference.
 * How: the built package (dist/vol) is loaded in this process; each variant gets BENCH_CAL_WARMUP (default
 * 2) warm-up calls, then BENCH_CAL_ROUNDS (default 9) timed calls, interleaved round by round so drift hits
 * all alike; the report gives median / min / max ms of wall time and the median of this process's CPU time.
 * Check: with exact quotes every quote must come back to 1e-8 in vol, with noisy ones the RMSE must be of
 * the order of the noise (0.4 to 1.5 times it), and both fitted surfaces must pass `diagnose`; else the
 * run fails (exit 1).
 * Writes bench/results/calibrate.json. Run: `npm run build && node bench/calibrate.mjs`. One core.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { REPO_ROOT, envInt, formatTable, isMain, repoRequire, round, runStandalone, summarise } from "./common.mjs";

const VOL_ENTRY = join(REPO_ROOT, "dist", "vol", "index.js");
// calibrate is not exported from vol/index yet: load its module directly.
const CALIBRATE_ENTRY = join(REPO_ROOT, "dist", "vol", "calibrate.js");
/** Largest |model vol − quote| accepted with exact quotes. */
export const EXACT_TOLERANCE = 1e-8;
/** The noise added to the quotes (decimal vol): 2 vol bp. */
export const NOISE = 2e-4;

export function settingsFromEnv() {
  return { rounds: envInt("BENCH_CAL_ROUNDS", 9), warmup: envInt("BENCH_CAL_WARMUP", 2) };
}

function load() {
  for (const entry of [VOL_ENTRY, CALIBRATE_ENTRY]) if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  return { vol: repoRequire(VOL_ENTRY), calibrate: repoRequire(CALIBRATE_ENTRY).calibrate };
}

/** A seeded uniform generator (mulberry32). */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The 12-maturity equity surface the quotes come from. */
function benchSurface(vol) {
  const maturities = [7, 14, 30, 60, 91, 122, 182, 273, 365, 547, 730, 1095];
  return vol.buildSurface({
    spot: 5321.5,
    referenceDate: "2026-11-20",
    maturities,
    atmVols: maturities.map((d) => 0.19 + 0.07 * Math.exp(-d / 90)),
    forwardRate: 0.025,
    skew: maturities.map((d) => -0.1 - 0.03 * Math.exp(-d / 180)),
    smile: maturities.map((d) => 0.45 + 0.4 * Math.exp(-d / 120)),
    putWing: 1.15,
    callWing: 0.75,
  });
}

/** 21 PercentForward quotes per maturity, exact or with seeded Gaussian noise (decimal vol). */
function quotes(vol, surface, noise, seed) {
  const model = vol.fromSurface(surface);
  const rand = rng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  return surface.benchmark_maturities.map((d, i) => {
    const sqrtTheta = surface.vols[i] * Math.sqrt(d / 365);
    const strikes = Array.from({ length: 21 }, (_, j) => 100 * Math.exp(sqrtTheta * (-3.5 + (6.5 * j) / 20)));
    const vols = Array.from(model.vols(d, strikes, 1), (v) => v + noise * normal());
    return { maturity: d, forward: model.forward(d), strikes, strikeType: 1, vols };
  });
}

/** Wall time and this process's CPU time (user + system) of one call. */
function time(fn) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, result };
}

export function measureCalibrate(settings = settingsFromEnv(), log = () => {}) {
  const { vol, calibrate } = load();
  const truth = benchSurface(vol);
  const truthReport = vol.diagnose(truth);
  if (!truthReport.ok) throw new Error("the bench surface is not arbitrage-free: fix benchSurface");
  const options = (smiles) => ({ spot: truth.spot_ref, referenceDate: truth.reference_date, smiles });
  const exact = quotes(vol, truth, 0, 1);
  const noisy = quotes(vol, truth, NOISE, 20261120);
  let fitted;
  const variants = {
    exact: { name: "calibrate, exact quotes (12 x 21)", run: () => calibrate(options(exact)) },
    noisy: { name: "calibrate, quotes + 2 bp noise (12 x 21)", run: () => calibrate(options(noisy)) },
    diagnose: { name: "diagnose(fitted surface) alone", run: () => vol.diagnose(vol.fromSurface(fitted)) },
  };
  fitted = variants.exact.run().surface;
  for (const v of Object.values(variants)) for (let w = 0; w < settings.warmup; w++) v.run();
  const samples = Object.fromEntries(Object.keys(variants).map((key) => [key, []]));
  const cpuSamples = Object.fromEntries(Object.keys(variants).map((key) => [key, []]));
  const results = {};
  for (let r = 0; r < settings.rounds; r++) {
    for (const [key, v] of Object.entries(variants)) {
      const { ms, cpuMs, result } = time(v.run);
      samples[key].push(ms);
      cpuSamples[key].push(cpuMs);
      results[key] = result;
    }
    log(
      `round ${r + 1}/${settings.rounds}: exact ${round(samples.exact.at(-1), 1)} ms, noisy ${round(samples.noisy.at(-1), 1)} ms, diagnose ${round(samples.diagnose.at(-1), 1)} ms`,
    );
  }

  // Checks on the last results.
  const model = vol.fromSurface(results.exact.surface);
  let maxExactError = 0;
  for (const q of exact) {
    const v = model.vols(q.maturity, q.strikes, q.strikeType);
    for (let j = 0; j < v.length; j++) maxExactError = Math.max(maxExactError, Math.abs(v[j] - q.vols[j]));
  }
  const noisyRmse = results.noisy.fit.map((f) => f.rmseBp);
  const noiseBp = NOISE * 1e4;
  const summary = (r) => ({
    rmseBp: r.fit.map((f) => round(f.rmseBp, 4)),
    maxErrorBp: r.fit.map((f) => round(f.maxErrorBp, 4)),
    iterations: r.fit.map((f) => f.iterations),
    activeConstraints: r.fit.map((f) => f.activeConstraints),
    converged: r.fit.every((f) => f.converged),
    diagnoseOk: r.diagnostics.ok,
  });
  const check = {
    exactMaxVolError: maxExactError,
    exactTolerance: EXACT_TOLERANCE,
    noisyRmseOverNoise: { min: Math.min(...noisyRmse) / noiseBp, max: Math.max(...noisyRmse) / noiseBp },
    exactDiagnoseOk: results.exact.diagnostics.ok,
    noisyDiagnoseOk: results.noisy.diagnostics.ok,
  };
  check.ok =
    maxExactError <= EXACT_TOLERANCE &&
    check.noisyRmseOverNoise.min >= 0.4 &&
    check.noisyRmseOverNoise.max <= 1.5 &&
    check.exactDiagnoseOk &&
    check.noisyDiagnoseOk;
  return {
    settings,
    surface: { maturities: truth.benchmark_maturities, strikesPerMaturity: 21, strikeType: "PercentForward", noiseBp },
    variants: Object.fromEntries(
      Object.entries(variants).map(([key, v]) => [key, { name: v.name, ms: summarise(samples[key]), cpuMs: summarise(cpuSamples[key]) }]),
    ),
    fits: { exact: summary(results.exact), noisy: summary(results.noisy) },
    check,
  };
}

export function formatCalibrate(r) {
  const rows = Object.values(r.variants).map((v) => [
    v.name,
    round(v.ms.median, 1),
    round(v.ms.min, 1),
    round(v.ms.max, 1),
    `${round(v.ms.spreadPct, 1)}%`,
    round(v.cpuMs.median, 1),
  ]);
  const fitOnly = (key) => round(r.variants[key].ms.median - r.variants.diagnose.ms.median, 1);
  return [
    formatTable(["variant", "ms median", "min", "max", "spread", "CPU ms median"], rows),
    "",
    `fit alone (calibrate − diagnose, medians): exact ${fitOnly("exact")} ms, noisy ${fitOnly("noisy")} ms`,
    `iterations per maturity: exact [${r.fits.exact.iterations.join(", ")}], noisy [${r.fits.noisy.iterations.join(", ")}]`,
    `noisy RMSE per maturity (vol bp, noise ${r.surface.noiseBp} bp): [${r.fits.noisy.rmseBp.map((x) => round(x, 2)).join(", ")}]`,
    `check: ${r.check.ok ? "OK" : "FAILED"} — exact quotes back to ${r.check.exactMaxVolError.toExponential(2)} in vol (tolerance ${r.check.exactTolerance}), ` +
      `noisy RMSE ${round(r.check.noisyRmseOverNoise.min, 2)}–${round(r.check.noisyRmseOverNoise.max, 2)} × noise, ` +
      `diagnose ${r.check.exactDiagnoseOk && r.check.noisyDiagnoseOk ? "ok" : "FAILED"}`,
  ].join("\n");
}

if (isMain(import.meta.url)) runStandalone("calibrate", (log) => measureCalibrate(settingsFromEnv(), log), formatCalibrate);
