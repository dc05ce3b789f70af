/**
 * Throughput of the local vol model: `vols(maturity, 1e6 strikes)` on a 10-benchmark surface, against a
 * hand-written loop of the same formulas and a straightforward mathjs implementation (the naive path).
 *
 * What: `model.vols(200, strikes, PercentForward)` with 1e6 strikes (Float64Array, 40%–250% of the
 * forward); 200 days falls between the 182- and 273-day benchmarks, the general two-slice case. Also
 * measured, for context: Absolute strikes, a maturity on a benchmark and one past the last (one slice), a
 * 20 × 50 000 grid, and the delta convention (a root solve per strike, 10 000 deltas).
 *   - hand loop: the same formulas written inline in this file with the bracketing benchmarks and weights
 *     worked out by hand, no validation, a new output array per call like the model: about the best a JS
 *     loop does, so "model / hand" is the price of the library's argument checks and dispatch. Once more
 *     with the output array reused, to show what allocating (and page-faulting in) 8 MB costs per call;
 *   - naive: vol-model.md transcribed with mathjs functions (math.log, math.sqrt, math.multiply, …) on
 *     every scalar, raw SVI once per call — how one writes it first. Run on an evenly spread subset of
 *     the strikes (BENCH_VOL_NAIVE, default 50 000) and compared vol by vol.
 * How: the built package (dist/vol) is loaded in this process; each variant gets warm-up calls, then
 * BENCH_VOL_ROUNDS (default 15) timed calls, interleaved round by round so drift hits all alike; the report
 * gives median / min / max vols per second of wall time and the spread (max − min) / median as the noise
 * figure, plus the median per second of this process's CPU time (less sensitive to other processes
 * taking the core away, which on a shared 2-core machine is most of the noise).
 * Check: the fast result must equal the naive path (and the hand loop) to 1e-12 absolute on every strike
 * of the subset, else the run fails (exit 1): a fast wrong answer cannot pass.
 * Writes bench/results/vol.json. Run: `npm run build && node bench/vol.mjs`. Single-threaded: one core.
 */
import {
  envInt,
  formatTable,
  isMain,
  perSecond,
  repoRequire,
  requireBuilt,
  round,
  runStandalone,
  statRow,
  summarise,
  timeCall,
  timeVariants,
} from "./common.mjs";

/** The target for `vols(maturity, 1e6 strikes)` on one core. */
export const TARGET_VOLS_PER_S = 30e6;
/** Largest |fast − naive| accepted, in vol (decimal). */
export const CHECK_TOLERANCE = 1e-12;

export function settingsFromEnv() {
  return {
    strikes: envInt("BENCH_VOL_STRIKES", 1_000_000),
    rounds: envInt("BENCH_VOL_ROUNDS", 15),
    warmup: envInt("BENCH_VOL_WARMUP", 5),
    naiveStrikes: envInt("BENCH_VOL_NAIVE", 50_000),
    naiveRounds: envInt("BENCH_VOL_NAIVE_ROUNDS", 3),
  };
}

function load() {
  return { vol: requireBuilt("vol", "index.js"), assumptions: requireBuilt("api", "assumptions.js") };
}

/** A 10-benchmark equity surface: 1 week to 2 years, downward skew, steeper put wing. */
function benchSurface(vol) {
  const maturities = [7, 14, 30, 60, 91, 182, 273, 365, 547, 730];
  return vol.buildSurface({
    spot: 5321.5,
    referenceDate: "2026-11-20",
    maturities,
    atmVols: maturities.map((d) => 0.18 + 0.08 * Math.exp(-d / 90)),
    forwardRate: 0.025,
    skew: maturities.map((d) => -0.12 - 0.04 * Math.exp(-d / 180)),
    smile: 0.6,
    putWing: 1.2,
    callWing: 0.7,
  });
}

/**
 * vol-model.md with mathjs on every scalar: raw SVI of each benchmark and F(T) once per call, then w(k, T)
 * and the vol per strike, exactly as written there (no rearrangement, no precomputed constants beyond
 * the raw parameters). Wire strike types only.
 */
export function naiveVols(math, surface, maturityDays, strikes, strikeType, { DAYS_PER_YEAR, STRIKE_TYPE }) {
  const n = surface.benchmark_maturities.length;
  const slices = Array.from({ length: n }, (_, i) => {
    const T = math.divide(surface.benchmark_maturities[i], DAYS_PER_YEAR);
    const v = surface.vols[i];
    const psi = surface.skews[i];
    const kappa = surface.smiles[i];
    const p = surface.put_wings[i];
    const c = surface.call_wings[i];
    const theta = math.multiply(math.pow(v, 2), T);
    const b = math.divide(math.multiply(math.sqrt(theta), math.add(p, c)), 2);
    const rho = math.divide(math.subtract(c, p), math.add(c, p));
    const beta = math.divide(math.subtract(math.subtract(c, p), math.multiply(4, psi)), math.add(c, p));
    const w2 = math.multiply(2, math.add(math.pow(psi, 2), math.multiply(math.sqrt(theta), kappa)));
    const R = math.divide(math.multiply(b, math.subtract(1, math.pow(beta, 2))), w2);
    const m = math.multiply(beta, R);
    const s = math.multiply(R, math.sqrt(math.subtract(1, math.pow(beta, 2))));
    const a = math.subtract(theta, math.multiply(math.multiply(b, R), math.subtract(1, math.multiply(rho, beta))));
    return { T, a, b, rho, m, s, theta };
  });
  const svi = (r, k) =>
    math.add(
      r.a,
      math.multiply(
        r.b,
        math.add(
          math.multiply(r.rho, math.subtract(k, r.m)),
          math.sqrt(math.add(math.pow(math.subtract(k, r.m), 2), math.pow(r.s, 2))),
        ),
      ),
    );
  const T = math.divide(maturityDays, DAYS_PER_YEAR);
  // ln F(T): piecewise linear through (0, ln spot) and (T_i, ln F_i), last segment continued.
  const xs = [0, ...slices.map((r) => r.T)];
  const ys = [
    math.log(surface.spot_ref),
    ...surface.benchmark_fwd_factors.map((f) => math.log(math.multiply(surface.spot_ref, f))),
  ];
  let seg = xs.length - 2;
  for (let q = 0; q + 1 < xs.length; q++) {
    if (math.smallerEq(T, xs[q + 1])) {
      seg = q;
      break;
    }
  }
  const F = math.exp(
    math.add(
      ys[seg],
      math.multiply(
        math.divide(math.subtract(ys[seg + 1], ys[seg]), math.subtract(xs[seg + 1], xs[seg])),
        math.subtract(T, xs[seg]),
      ),
    ),
  );
  const out = new Float64Array(strikes.length);
  for (let j = 0; j < strikes.length; j++) {
    const x = strikes[j];
    const K =
      strikeType === STRIKE_TYPE.Absolute
        ? x
        : strikeType === STRIKE_TYPE.PercentForward
          ? math.multiply(math.divide(x, 100), F)
          : math.multiply(math.divide(x, 100), surface.spot_ref);
    const k = math.log(math.divide(K, F));
    let w;
    if (math.smallerEq(T, slices[0].T)) {
      w = math.multiply(math.divide(T, slices[0].T), svi(slices[0], k));
    } else if (math.largerEq(T, slices[n - 1].T)) {
      w = math.add(
        svi(slices[n - 1], k),
        math.multiply(slices[n - 1].theta, math.subtract(math.divide(T, slices[n - 1].T), 1)),
      );
    } else {
      let i = 0;
      while (!(math.smallerEq(slices[i].T, T) && math.smallerEq(T, slices[i + 1].T))) i++;
      const xw = math.divide(math.subtract(T, slices[i].T), math.subtract(slices[i + 1].T, slices[i].T));
      const wi = svi(slices[i], k);
      w = math.add(wi, math.multiply(xw, math.subtract(svi(slices[i + 1], k), wi)));
    }
    out[j] = math.sqrt(math.divide(w, T));
  }
  return out;
}

/**
 * The same formulas as a hand-written loop, for this surface at this maturity only (PercentForward):
 * bracketing benchmarks and weights worked out here once, then one log and three square roots per strike.
 */
function handLoop(model, maturityDays, DAYS_PER_YEAR) {
  const bms = model.benchmarks;
  const T = maturityDays / DAYS_PER_YEAR;
  const i = bms.findIndex((b, q) => b.T <= T && T < bms[q + 1].T);
  const [bi, bj] = [bms[i], bms[i + 1]];
  const x = (T - bi.T) / (bj.T - bi.T);
  const A = ((1 - x) * bi.T) / T;
  const B = (x * bj.T) / T;
  // σ² = A·w_i/T_i + B·w_j/T_j, raw SVI w = a + b·(rho·(k − m) + sqrt((k − m)² + s²)).
  const c0 = (A * (bi.a - bi.b * bi.rho * bi.m)) / bi.T + (B * (bj.a - bj.b * bj.rho * bj.m)) / bj.T;
  const c1 = (A * bi.b * bi.rho) / bi.T + (B * bj.b * bj.rho) / bj.T;
  const ei = (A * bi.b) / bi.T;
  const ej = (B * bj.b) / bj.T;
  const [mi, mj, si, sj] = [bi.m, bj.m, bi.s * bi.s, bj.s * bj.s];
  const shift = -Math.log(100);
  return (strikes, out = new Float64Array(strikes.length)) => {
    for (let q = 0; q < strikes.length; q++) {
      const k = Math.log(strikes[q]) + shift;
      const di = k - mi;
      const dj = k - mj;
      out[q] = Math.sqrt(c0 + c1 * k + ei * Math.sqrt(di * di + si) + ej * Math.sqrt(dj * dj + sj));
    }
    return out;
  };
}

export function measureVol(settings = settingsFromEnv(), log = () => {}) {
  const { vol, assumptions } = load();
  const { STRIKE_TYPE, DAYS_PER_YEAR } = assumptions;
  const math = repoRequire("mathjs");
  const surface = benchSurface(vol);
  const model = vol.fromSurface(surface);
  const n = settings.strikes;
  const maturity = 200;
  const strikes = new Float64Array(n);
  for (let q = 0; q < n; q++) strikes[q] = 40 + (210 * q) / (n - 1);
  const absStrikes = strikes.map((x) => (x / 100) * model.forward(maturity));
  const gridMaturities = Array.from({ length: 20 }, (_, i) => 5 + i * 40);
  const gridStrikes = strikes.filter((_, q) => q % 20 === 0);
  const deltas = Float64Array.from({ length: 10_000 }, (_, q) => 0.01 + (0.98 * q) / 9_999);
  const hand = handLoop(model, maturity, DAYS_PER_YEAR);
  const handOut = new Float64Array(n);
  let sink = 0;

  const variants = {
    model: {
      name: "vols(200 d, 1e6 PercentForward) two slices",
      count: n,
      run: () => model.vols(maturity, strikes, STRIKE_TYPE.PercentForward),
    },
    hand: { name: "hand-written loop, same formulas", count: n, run: () => hand(strikes) },
    handReuse: { name: "hand-written loop, output reused", count: n, run: () => hand(strikes, handOut) },
    absolute: {
      name: "vols(200 d, 1e6 Absolute)",
      count: n,
      run: () => model.vols(maturity, absStrikes, STRIKE_TYPE.Absolute),
    },
    node: {
      name: "vols(182 d = benchmark, 1e6) one slice",
      count: n,
      run: () => model.vols(182, strikes, STRIKE_TYPE.PercentForward),
    },
    beyond: {
      name: "vols(1000 d > last, 1e6) one slice",
      count: n,
      run: () => model.vols(1000, strikes, STRIKE_TYPE.PercentForward),
    },
    grid: {
      name: `grid ${gridMaturities.length} x ${gridStrikes.length}`,
      count: gridMaturities.length * gridStrikes.length,
      run: () => model.grid(gridMaturities, gridStrikes, STRIKE_TYPE.PercentForward).vols,
    },
    delta: {
      name: "vols(200 d, 1e4 deltas) root solve",
      count: deltas.length,
      run: () => model.vols(maturity, deltas, "delta"),
    },
  };
  const rate = (key, ms) => round(perSecond(variants[key].count, ms[key].at(-1)) / 1e6, 1);
  const timed = timeVariants(variants, settings, {
    onResult: (_, result) => (sink += result[result.length - 1]),
    onRound: (r, ms) =>
      log(`round ${r + 1}/${settings.rounds}: model ${rate("model", ms)} M vols/s, hand ${rate("hand", ms)} M vols/s`),
  });

  // Naive path on an evenly spread subset, timed and compared vol by vol.
  const step = Math.max(1, Math.floor(n / settings.naiveStrikes));
  const subset = strikes.filter((_, q) => q % step === 0);
  naiveVols(math, surface, maturity, subset.subarray(0, 50), STRIKE_TYPE.PercentForward, assumptions);
  const naiveRates = [];
  let naive;
  for (let r = 0; r < settings.naiveRounds; r++) {
    const { ms, result } = timeCall(() =>
      naiveVols(math, surface, maturity, subset, STRIKE_TYPE.PercentForward, assumptions),
    );
    naive = result;
    naiveRates.push(perSecond(subset.length, ms));
    log(`naive round ${r + 1}/${settings.naiveRounds}: ${round(naiveRates.at(-1) / 1e3, 1)} k vols/s`);
  }
  const fast = model.vols(maturity, strikes, STRIKE_TYPE.PercentForward);
  const handVols = hand(strikes);
  let maxDiffNaive = 0;
  let maxDiffHand = 0;
  let worst = -1;
  for (let q = 0, j = 0; q < n; q += step, j++) {
    const d = Math.abs(fast[q] - naive[j]);
    if (!(d <= maxDiffNaive)) {
      maxDiffNaive = d;
      worst = q;
    }
  }
  for (let q = 0; q < n; q++) maxDiffHand = Math.max(maxDiffHand, Math.abs(fast[q] - handVols[q]));
  const finite = fast.every((v) => Number.isFinite(v) && v > 0);
  const checkOk = finite && maxDiffNaive <= CHECK_TOLERANCE && maxDiffHand <= CHECK_TOLERANCE;

  const stats = Object.fromEntries(
    Object.entries(variants).map(([key, v]) => [
      key,
      {
        name: v.name,
        count: v.count,
        volsPerS: summarise(timed.ms[key].map((ms) => perSecond(v.count, ms))),
        volsPerCpuS: summarise(timed.cpuMs[key].map((ms) => perSecond(v.count, ms))),
      },
    ]),
  );
  const naiveStats = summarise(naiveRates);
  return {
    settings,
    surface: { benchmarks: surface.benchmark_maturities, maturity, strikeType: "PercentForward" },
    variants: stats,
    naive: { name: "mathjs, vol-model.md literally", strikes: subset.length, volsPerS: naiveStats },
    speedUpOverNaive: stats.model.volsPerS.median / naiveStats.median,
    modelOverHand: stats.model.volsPerS.median / stats.hand.volsPerS.median,
    target: { volsPerS: TARGET_VOLS_PER_S, met: stats.model.volsPerS.median >= TARGET_VOLS_PER_S },
    check: {
      ok: checkOk,
      tolerance: CHECK_TOLERANCE,
      strikesCompared: subset.length,
      maxAbsDiffVsNaive: maxDiffNaive,
      worstStrike: worst >= 0 ? strikes[worst] : null,
      maxAbsDiffVsHand: maxDiffHand,
      allFinite: finite,
    },
    sink,
  };
}

export function formatVol(r) {
  const M = (x) => round(x / 1e6, 2);
  const rows = Object.values(r.variants).map((v) => statRow(v.name, v.volsPerS, v.volsPerCpuS, M));
  rows.push(statRow(`naive: ${r.naive.name} (${r.naive.strikes} strikes)`, r.naive.volsPerS, undefined, M));
  return [
    formatTable(["variant", "M vols/s median", "min", "max", "spread", "per CPU-s median"], rows),
    "",
    `model: ${M(r.variants.model.volsPerS.median)} M vols/s (target ${M(r.target.volsPerS)}: ${r.target.met ? "met" : "NOT met"}); ` +
      `${round(r.speedUpOverNaive, 0)}x the mathjs path; ${round(r.modelOverHand * 100, 0)}% of the hand loop`,
    `check: ${r.check.ok ? "OK" : "FAILED"} — max |fast − naive| = ${r.check.maxAbsDiffVsNaive.toExponential(2)} over ${r.check.strikesCompared} strikes, ` +
      `max |fast − hand| = ${r.check.maxAbsDiffVsHand.toExponential(2)} (tolerance ${r.check.tolerance})`,
  ].join("\n");
}

if (isMain(import.meta.url)) runStandalone("vol", (log) => measureVol(settingsFromEnv(), log), formatVol);
