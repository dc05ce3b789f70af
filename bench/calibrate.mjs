/**
 * Calibration time of the local vol model: `calibrate` on a 12-maturity × 21-strike surface, with exact
 * quotes (produced by an arbitrage-free surface), with noisy ones (the same plus seeded noise of 2 vol bp),
 * and on its worst case (quotes from an SSVI surface plus seeded noise of 20 vol bp, which presses most
 * slices against the calendar and butterfly constraints), single-threaded.
 *
 * What: quotes at 7 days to 3 years, 21 PercentForward strikes per maturity spread over
 * `sqrt(theta)·z` in log-moneyness for z from −3.5 to 3 (about 83%–119% of the forward at one week,
 * 55%–183% at three years), from a `buildSurface` equity surface (downward skew, steeper put wing); the
 * worst case from SSVI (`w = θ/2·(1 + ρφk + sqrt((φk + ρ)² + 1 − ρ²))`, power-law `φ = η/(θ^γ(1 + θ)^(1−γ))`,
 * ρ = −0.7, η = 1, γ = 0.3, the same ATM vols and strikes) with N(0, (20 bp)²) noise, seed 6 (as
 * test/vol/calibrate-ssvi.test.ts). `calibrate`'s result includes `diagnose(fromSurface(surface))` (since
 * issue 30, made of the checks the fit made of each slice, not computed again); `diagnose` of the fitted
 * surface is timed on its own too.
 * How: the built package (dist/vol) is loaded in this process; each variant gets BENCH_CAL_WARMUP (default
 * 2) warm-up calls, then BENCH_CAL_ROUNDS (default 9) timed calls, interleaved round by round so drift hits
 * all alike; the report gives median / min / max ms of wall time and the median of this process's CPU time.
 * Before and after in one run: a baseline build's calibrate and diagnose run interleaved with these on the
 * same quotes, and the report gives baseline / this build ratios of the medians. By default the baseline
 * is the build issue 30 was filed against ({@link FILED_REV}: its vol code is that of 08bf7ee, unchanged
 * up to stop 35's ee64d16): `git archive` of that revision's src/ into the system's temp directory,
 * compiled there by `tsc -p tsconfig.build.json` as dist/ is (once; kept for later runs). BENCH_CAL_BASELINE
 * names another revision (`6474a78`), or a dist directory of another build, or `none`.
 * Check: with exact quotes every quote must come back to 1e-8 in vol, with noisy ones the RMSE must be of
 * the order of the noise (0.4 to 1.5 times it), the worst case must converge on every slice, and all fitted
 * surfaces must pass `diagnose`; else the run fails (exit 1).
 * Writes bench/results/calibrate.json. Run: `npm run build && node bench/calibrate.mjs`. One core.
 */
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  envInt,
  formatTable,
  isMain,
  REPO_ROOT,
  requireBuilt,
  round,
  runStandalone,
  statRow,
  summarise,
  timeVariants,
} from "./common.mjs";
import { checkoutRevision, shortSha } from "./baseline.mjs";

/** Largest |model vol − quote| accepted with exact quotes. */
export const EXACT_TOLERANCE = 1e-8;
/** The noise added to the quotes (decimal vol): 2 vol bp. */
export const NOISE = 2e-4;
/** The noise of the worst case: 20 vol bp. */
export const WORST_NOISE = 20e-4;

export function settingsFromEnv() {
  return { rounds: envInt("BENCH_CAL_ROUNDS", 9), warmup: envInt("BENCH_CAL_WARMUP", 2) };
}

function load() {
  // The simulator's seeded generator draws the noise.
  return { vol: requireBuilt("vol", "index.js"), random: requireBuilt("sim", "random.js") };
}

/** The revision issue 30 ("calibrate 81 ms → 20 ms") was filed against (stop 35; vol code as of 08bf7ee). */
export const FILED_REV = "ee64d16";

/**
 * The dist directory of a revision's build: its src/ (and tsconfigs) by `git archive` into the temp
 * directory, compiled by `tsc -p tsconfig.build.json` (type errors of an old tree against today's
 * node_modules do not stop the emit). Built once per revision.
 */
function buildRevision(rev) {
  const sha = shortSha(rev);
  const root = join(tmpdir(), `rpl-calibrate-baseline-${sha}`);
  const dist = join(root, "dist");
  if (existsSync(join(dist, "vol", "index.js")) && existsSync(join(dist, "sim", "random.js"))) return { dist, sha };
  rmSync(root, { recursive: true, force: true });
  checkoutRevision(sha, root, ["src", "tsconfig.json", "tsconfig.build.json"]);
  const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "pipe" });
  } catch (error) {
    if (!existsSync(join(dist, "vol", "index.js"))) throw error;
  }
  return { dist, sha };
}

/** The baseline build's vol module and what it is (BENCH_CAL_BASELINE, see the module comment), or undefined. */
function loadBaseline() {
  const value = process.env.BENCH_CAL_BASELINE ?? FILED_REV;
  if (value === "none") return undefined;
  let dist = value;
  let label = value;
  if (!existsSync(join(value, "vol", "index.js"))) {
    const built = buildRevision(value);
    const filed = shortSha(FILED_REV);
    dist = built.dist;
    label = built.sha === filed ? `${built.sha} (the build issue 30 was filed against)` : built.sha;
  }
  return { vol: createRequire(import.meta.url)(join(dist, "vol", "index.js")), label };
}

/** The worst case: SSVI quotes at the bench surface's maturities and strikes, plus seeded noise (decimal vol). */
function ssviQuotes(random, seed = 6, noise = WORST_NOISE, rho = -0.7, eta = 1, gamma = 0.3) {
  const draws = random.rng(seed, "bench/calibrate/ssvi");
  return [7, 14, 30, 60, 91, 122, 182, 273, 365, 547, 730, 1095].map((d) => {
    const T = d / 365;
    const atm = 0.19 + 0.07 * Math.exp(-d / 90);
    const theta = atm * atm * T;
    const phi = eta / (theta ** gamma * (1 + theta) ** (1 - gamma));
    const strikes = [];
    const vols = [];
    for (let j = 0; j < 21; j++) {
      const k = Math.sqrt(theta) * (-3.5 + (6.5 * j) / 20);
      const w = (theta / 2) * (1 + rho * phi * k + Math.sqrt((phi * k + rho) ** 2 + 1 - rho * rho));
      strikes.push(100 * Math.exp(k));
      vols.push(Math.sqrt(w / T) + noise * draws.normal());
    }
    return { maturity: d, forward: 5321.5 * Math.exp(0.025 * T), strikes, strikeType: 1, vols };
  });
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
function quotes(vol, surface, noise, draws) {
  const model = vol.fromSurface(surface);
  return surface.benchmark_maturities.map((d, i) => {
    const sqrtTheta = surface.vols[i] * Math.sqrt(d / 365);
    const strikes = Array.from({ length: 21 }, (_, j) => 100 * Math.exp(sqrtTheta * (-3.5 + (6.5 * j) / 20)));
    const vols = Array.from(model.vols(d, strikes, 1), (v) => v + noise * draws.normal());
    return { maturity: d, forward: model.forward(d), strikes, strikeType: 1, vols };
  });
}

export function measureCalibrate(settings = settingsFromEnv(), log = () => {}) {
  const { vol, random } = load();
  const { calibrate } = vol;
  const truth = benchSurface(vol);
  const truthReport = vol.diagnose(truth);
  if (!truthReport.ok) throw new Error("the bench surface is not arbitrage-free: fix benchSurface");
  const options = (smiles) => ({ spot: truth.spot_ref, referenceDate: truth.reference_date, smiles });
  const exact = quotes(vol, truth, 0, random.rng(1, "bench/calibrate"));
  const noisy = quotes(vol, truth, NOISE, random.rng(20261120, "bench/calibrate"));
  const worst = ssviQuotes(random);
  let fitted;
  const variants = {
    exact: { name: "calibrate, exact quotes (12 x 21)", run: () => calibrate(options(exact)) },
    noisy: { name: "calibrate, quotes + 2 bp noise (12 x 21)", run: () => calibrate(options(noisy)) },
    worst: { name: "calibrate, SSVI quotes + 20 bp noise (12 x 21)", run: () => calibrate(options(worst)) },
    diagnose: { name: "diagnose(fitted surface) alone", run: () => vol.diagnose(vol.fromSurface(fitted)) },
  };
  const baselineBuild = loadBaseline();
  const baseline = baselineBuild?.vol;
  if (baseline) {
    for (const key of ["exact", "noisy", "worst", "diagnose"]) {
      const cases = { exact, noisy, worst };
      variants[`${key}Baseline`] = {
        name: `${key === "diagnose" ? "diagnose" : `calibrate, ${key}`}: baseline build`,
        run:
          key === "diagnose"
            ? () => baseline.diagnose(baseline.fromSurface(fitted))
            : () => baseline.calibrate(options(cases[key])),
      };
    }
  }
  fitted = variants.exact.run().surface;
  const results = {};
  const timed = timeVariants(variants, settings, {
    onResult: (key, result) => (results[key] = result),
    onRound: (r, ms) =>
      log(
        `round ${r + 1}/${settings.rounds}: exact ${round(ms.exact.at(-1), 1)} ms, noisy ${round(ms.noisy.at(-1), 1)} ms, ` +
          `worst ${round(ms.worst.at(-1), 1)} ms, diagnose ${round(ms.diagnose.at(-1), 1)} ms`,
      ),
  });

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
    worstConverged: results.worst.fit.every((f) => f.converged),
    worstDiagnoseOk: results.worst.diagnostics.ok,
  };
  check.ok =
    maxExactError <= EXACT_TOLERANCE &&
    check.noisyRmseOverNoise.min >= 0.4 &&
    check.noisyRmseOverNoise.max <= 1.5 &&
    check.exactDiagnoseOk &&
    check.noisyDiagnoseOk &&
    check.worstConverged &&
    check.worstDiagnoseOk;
  return {
    settings,
    surface: { maturities: truth.benchmark_maturities, strikesPerMaturity: 21, strikeType: "PercentForward", noiseBp },
    variants: Object.fromEntries(
      Object.entries(variants).map(([key, v]) => [
        key,
        { name: v.name, ms: summarise(timed.ms[key]), cpuMs: summarise(timed.cpuMs[key]) },
      ]),
    ),
    fits: { exact: summary(results.exact), noisy: summary(results.noisy), worst: summary(results.worst) },
    baseline: baseline ? { build: baselineBuild.label, worst: summary(results.worstBaseline) } : undefined,
    check,
  };
}

export function formatCalibrate(r) {
  const rows = Object.values(r.variants).map((v) => statRow(v.name, v.ms, v.cpuMs, (x) => round(x, 1)));
  // CPU medians: on a shared machine the wall times' difference is mostly noise.
  const fitOnly = (key) => round(r.variants[key].cpuMs.median - r.variants.diagnose.cpuMs.median, 1);
  const ratios = r.baseline
    ? [
        "",
        `baseline ${r.baseline.build}: baseline / this build, medians of wall (CPU) time: ` +
          ["exact", "noisy", "worst", "diagnose"]
            .map(
              (k) =>
                `${k} ${round(r.variants[`${k}Baseline`].ms.median / r.variants[k].ms.median, 2)}x ` +
                `(${round(r.variants[`${k}Baseline`].cpuMs.median / r.variants[k].cpuMs.median, 2)}x)`,
            )
            .join(", "),
        `baseline worst case converged per maturity: [${r.baseline.worst.converged ? "all" : "not all"}]`,
      ]
    : [];
  return [
    formatTable(["variant", "ms median", "min", "max", "spread", "CPU ms median"], rows),
    ...ratios,
    "",
    `calibrate less one diagnose (CPU medians; calibrate's checks are diagnose's, made once, and its report reuses them): exact ${fitOnly("exact")} ms, noisy ${fitOnly("noisy")} ms`,
    `iterations per maturity: exact [${r.fits.exact.iterations.join(", ")}], noisy [${r.fits.noisy.iterations.join(", ")}]`,
    `noisy RMSE per maturity (vol bp, noise ${r.surface.noiseBp} bp): [${r.fits.noisy.rmseBp.map((x) => round(x, 2)).join(", ")}]`,
    `worst case (SSVI + ${WORST_NOISE * 1e4} bp): iterations [${r.fits.worst.iterations.join(", ")}], RMSE [${r.fits.worst.rmseBp.map((x) => round(x, 1)).join(", ")}], ` +
      `every slice converged: ${r.check.worstConverged}`,
    `check: ${r.check.ok ? "OK" : "FAILED"} — exact quotes back to ${r.check.exactMaxVolError.toExponential(2)} in vol (tolerance ${r.check.exactTolerance}), ` +
      `noisy RMSE ${round(r.check.noisyRmseOverNoise.min, 2)}–${round(r.check.noisyRmseOverNoise.max, 2)} × noise, ` +
      `diagnose ${r.check.exactDiagnoseOk && r.check.noisyDiagnoseOk && r.check.worstDiagnoseOk ? "ok" : "FAILED"}, ` +
      `worst case ${r.check.worstConverged ? "converged" : "NOT converged"}`,
  ].join("\n");
}

if (isMain(import.meta.url))
  runStandalone("calibrate", (log) => measureCalibrate(settingsFromEnv(), log), formatCalibrate);
