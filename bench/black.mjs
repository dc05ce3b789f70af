/**
 * Throughput of Black-76 price + greeks (price, delta, gamma, vega, theta per option).
 *
 * What:
 *   - parallel: `black76Strikes` over 1e6 strikes on the calling thread and the worker pool
 *     (fillBlack76Parallel: min(CPUs, 4) threads, or RPL_BLACK_THREADS), output reused and new; the
 *     pool is started and waited for before timing; its results must equal one thread's bit for bit;
 *   - vectorised: `black76Strikes(market, strikes, vols, out)` on one thread (setBlack76Threads(1)) over 1e6
 *     strikes (Float64Array, 40%–250% of the forward, a smile of per-strike vols), output arrays reused (the intended hot path); once more with
 *     new output arrays per call (5 × 8 MB allocated and page-faulted in);
 *   - scalar: `black76({ forward, strike, maturity, vol, discountFactor, kind })` called once per option,
 *     an object in and an object out (1e5 options per round: the notebook-style API);
 *   - naive: the textbook `DF·(F·N(d1) − K·N(d2))` and the four greeks written inline with the same `N`
 *     (normal.ts), no parity, no regions: how one writes it first, for context on what the careful
 *     numerics (Jäckel's regions, out-of-the-money price plus intrinsic) cost.
 * How: the built package (dist/vol/black76/index.js, dist/vol/normal.js) is loaded in this process; each variant
 * gets warm-up calls, then BENCH_BLACK_ROUNDS (default 15) timed calls, interleaved round by round so drift
 * hits all alike; the report gives median / min / max options per second of wall time, the spread
 * (max − min) / median as the noise figure, and the median per second of this process's CPU time.
 *   - reference: the previous kernel (dist/vol/black76/reference.js, kept for this and for
 *     test/vol/black76-kernel.test.ts) on the same inputs, output reused: the before of the same run.
 * Check: the vectorised results must be within 1e-14·max(1, h²/6) of the previous kernel's (the report gives
 * the largest relative differences), equal the scalar API bit for bit, and agree with the naive formula to
 * 1e-9 relative where the naive one is itself accurate (prices above 1e-3 of the forward), else the run
 * fails (exit 1).
 * With BENCH_BLACK_BASELINE=<a dist directory> (e.g. of a worktree at an older commit, built with `tsc -p
 * tsconfig.build.json`), that build's `black76Strikes` runs interleaved with this one on the same inputs
 * (output reused), its results checked against this one's as the previous kernel's are, and the report gives
 * the ratio.
 * Per CPU-s counts every thread (process.cpuUsage). Writes bench/results/black.json. Run: `npm run build &&
 * node bench/black.mjs`.
 *
 * Measured at 6c735b2 (2 vCPUs at load 11-18; two runs, medians; baseline = d950adf's build): vectorised
 * 4.54 / 3.81 M options/s wall, 12.45 / 11.41 per CPU-s; previous kernel in the same process 1.27x / 1.14x
 * slower wall, 1.13x / 1.11x per CPU-s; baseline build 1.15x / 1.12x wall, 1.16x / 1.15x per CPU-s.
 * Idle 2-vCPU machine, pool of 1 worker + the calling thread (three runs, medians of 15 rounds), output
 * reused: 2 threads 20.38 / 17.83 / 19.57 M options/s wall (10.71 / 9.48 / 10.42 per CPU-s), 1 thread
 * 12.26 / 12.50 / 12.51 (12.25 / 12.50 / 12.50): 1.66x / 1.43x / 1.56x wall, 0.87x / 0.76x / 0.83x per
 * CPU-s (the copies in and out of shared memory); new output 20.9 / 16.62 / 19.06 against 11.88 / 11.28 /
 * 11.9. The calling thread does ~57% of the chunks (it also copies).
 * At a275b50 (the worker starts on a window's first chunk while the calling thread copies the rest in and
 * checks the inputs), idle: 2 threads 22.3 M options/s (median of 15; min 20.4, max 23.6), 1 thread 12.58:
 * 1.77x wall, 0.91x per CPU-s.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  envInt,
  formatTable,
  isMain,
  perSecond,
  requireBuilt,
  round,
  runStandalone,
  statRow,
  summarise,
  timeVariants,
} from "./common.mjs";

/** Largest relative |vectorised − naive| accepted where the naive formula is accurate. */
export const CHECK_TOLERANCE = 1e-9;

export function settingsFromEnv() {
  return {
    strikes: envInt("BENCH_BLACK_STRIKES", 1_000_000),
    scalarOptions: envInt("BENCH_BLACK_SCALAR", 100_000),
    rounds: envInt("BENCH_BLACK_ROUNDS", 15),
    warmup: envInt("BENCH_BLACK_WARMUP", 5),
  };
}

function load() {
  const dir = process.env.BENCH_BLACK_BASELINE;
  // A build of this layout (vol/black76/index.js) or of one before it (vol/black76.js).
  const file =
    dir && [join(dir, "vol", "black76", "index.js"), join(dir, "vol", "black76.js")].find((f) => existsSync(f));
  const baseline = dir ? createRequire(import.meta.url)(file ?? join(dir, "vol", "black76.js")) : undefined;
  return {
    black: requireBuilt("vol", "black76", "index.js"),
    normal: requireBuilt("vol", "normal.js"),
    reference: requireBuilt("vol", "black76", "reference.js"),
    parallel: requireBuilt("vol", "black76", "parallel.js"),
    baseline,
  };
}

/** The textbook formulas inline, output arrays given: no validation, no parity, no regions. */
function naiveLoop(normCdf, market, strikes, vols, out) {
  const { forward: F, maturity: T, discountFactor: DF } = market;
  const sqrtT = Math.sqrt(T);
  const r = -Math.log(DF) / T;
  const invSqrt2Pi = 1 / Math.sqrt(2 * Math.PI);
  for (let q = 0; q < strikes.length; q++) {
    const K = strikes[q];
    const sigma = vols[q];
    const s = sigma * sqrtT;
    const d1 = Math.log(F / K) / s + s / 2;
    const d2 = d1 - s;
    const nd1 = normCdf(d1);
    const price = DF * (F * nd1 - K * normCdf(d2));
    const phi = Math.exp(-0.5 * d1 * d1) * invSqrt2Pi;
    out.price[q] = price;
    out.delta[q] = DF * nd1;
    out.gamma[q] = (DF * phi) / (F * s);
    out.vega[q] = DF * F * phi * sqrtT;
    out.theta[q] = r * price - (DF * F * phi * sigma) / (2 * sqrtT);
  }
  return out;
}

const arrays = (n) => ({
  price: new Float64Array(n),
  delta: new Float64Array(n),
  gamma: new Float64Array(n),
  vega: new Float64Array(n),
  theta: new Float64Array(n),
});

/** The previous kernel (dist/vol/black76/reference.js) on the bench's market: no validation, Float64Arrays. */
function runReference(reference, market, strikes, vols, out) {
  const { forward: F, maturity: T, discountFactor: DF } = market;
  const r = T > 0 ? -Math.log(DF) / T : 0;
  reference.fillBlack76Reference(F, strikes, vols, 1, Math.sqrt(T), DF, r, market.kind === "call", out, strikes.length);
  return out;
}

/**
 * The largest relative differences of `out` from the previous kernel's `ref`: prices above 1e-12·F, and
 * the greeks (theta on the scale |r·price| + |r·price − theta|); whether every value is within
 * 1e-14·max(1, h²/6), h = ln(F/K)/(σ√T) (the tolerance of test/vol/black76-kernel.test.ts).
 */
function differences(market, strikes, vols, out, ref) {
  const { forward: F, maturity: T, discountFactor: DF } = market;
  const r = T > 0 ? -Math.log(DF) / T : 0;
  let price = 0;
  let greeks = 0;
  let identical = 0;
  let values = 0;
  let withinTolerance = true;
  for (let q = 0; q < strikes.length; q++) {
    const h = Math.log(F / strikes[q]) / (vols[q] * Math.sqrt(T));
    const tol = 1e-14 * Math.max(1, (h * h) / 6);
    for (const key of ["price", "delta", "gamma", "vega", "theta"]) {
      const want = ref[key][q];
      const got = out[key][q];
      values++;
      if (Object.is(want, got)) {
        identical++;
        continue;
      }
      const rp = r * ref.price[q];
      const e = Math.abs(got - want) / (key === "theta" ? Math.abs(rp) + Math.abs(rp - want) : Math.abs(want));
      if (!(e <= tol)) withinTolerance = false;
      if (key !== "price") greeks = Math.max(greeks, e);
      else if (want > 1e-12 * F) price = Math.max(price, e);
    }
  }
  return { price, greeks, identical, values, withinTolerance };
}

export function measureBlack(settings = settingsFromEnv(), log = () => {}) {
  const { black, normal, reference, parallel, baseline } = load();
  const n = settings.strikes;
  const market = { forward: 5321.5, maturity: 0.55, discountFactor: Math.exp(-0.03 * 0.55), kind: "call" };
  const strikes = new Float64Array(n);
  const vols = new Float64Array(n);
  for (let q = 0; q < n; q++) {
    const K = market.forward * (0.4 + (2.1 * q) / (n - 1));
    const k = Math.log(K / market.forward);
    strikes[q] = K;
    vols[q] = 0.2 - 0.12 * k + 0.25 * k * k; // a skewed smile, 12%–60%
  }
  const m = settings.scalarOptions;
  const step = Math.max(1, Math.floor(n / m));
  // Plain object literals, one shape (objects made with `{ ...market, strike, vol }` come out with slow
  // properties in V8, and the bench would time property lookups instead of the API).
  const { forward, maturity, discountFactor, kind } = market;
  const inputs = Array.from({ length: m }, (_, j) => ({
    forward,
    strike: strikes[j * step],
    maturity,
    vol: vols[j * step],
    discountFactor,
    kind,
  }));
  const out = arrays(n);
  const naiveOut = arrays(n);
  const referenceOut = arrays(n);
  let sink = 0;

  // The worker pool: started by a first large call, then waited for (up to 5 s) so that every timed call
  // of the parallel variant runs on all its threads.
  const parallelOut = arrays(n);
  const threads = parallel.black76Threads();
  black.black76Strikes(market, strikes, vols, parallelOut);
  for (const until = Date.now() + 5000; parallel.black76PoolStatus().state === "starting" && Date.now() < until;);
  const single = (run) => () => {
    const was = parallel.setBlack76Threads(1);
    try {
      return run();
    } finally {
      parallel.setBlack76Threads(was);
    }
  };
  const variants = {
    parallel: {
      name: `black76Strikes, 1e6 strikes, output reused, ${threads} threads`,
      count: n,
      run: () => black.black76Strikes(market, strikes, vols, parallelOut).price,
    },
    vectorised: {
      name: "black76Strikes, 1e6 strikes, output reused, 1 thread",
      count: n,
      run: single(() => black.black76Strikes(market, strikes, vols, out).price),
    },
    parallelAlloc: {
      name: `black76Strikes, 1e6 strikes, new output, ${threads} threads`,
      count: n,
      run: () => black.black76Strikes(market, strikes, vols).price,
    },
    vectorisedAlloc: {
      name: "black76Strikes, 1e6 strikes, new output, 1 thread",
      count: n,
      run: single(() => black.black76Strikes(market, strikes, vols).price),
    },
    scalar: {
      name: `black76({...}) per option, ${m} options`,
      count: m,
      run: () => {
        let s = 0;
        for (let j = 0; j < m; j++) s += black.black76(inputs[j]).theta;
        return [s];
      },
    },
    reference: {
      name: "previous kernel (black76-reference), output reused",
      count: n,
      run: () => runReference(reference, market, strikes, vols, referenceOut).price,
    },
    naive: {
      name: "textbook formulas inline (context)",
      count: n,
      run: () => naiveLoop(normal.normCdf, market, strikes, vols, naiveOut).price,
    },
  };
  const baselineOut = arrays(n);
  if (baseline) {
    variants.vectorisedBaseline = {
      name: "black76Strikes, output reused: baseline build",
      count: n,
      run: () => baseline.black76Strikes(market, strikes, vols, baselineOut).price,
    };
  }
  const rate = (key, ms) => round(perSecond(variants[key].count, ms[key].at(-1)) / 1e6, 2);
  const timed = timeVariants(variants, settings, {
    onResult: (_, result) => (sink += result[result.length - 1]),
    onRound: (r, ms) =>
      log(
        `round ${r + 1}/${settings.rounds}: ${threads} threads ${rate("parallel", ms)} M options/s, ` +
          `1 thread ${rate("vectorised", ms)} M options/s, ` +
          `previous kernel ${rate("reference", ms)} M options/s, ` +
          `scalar ${rate("scalar", ms)} M options/s, naive ${rate("naive", ms)} M options/s`,
      ),
  });

  // Checks: parallel = one thread bit for bit; vectorised = scalar bit for bit (on the scalar subset);
  // vectorised ≈ naive where naive is accurate.
  const pool = parallel.black76PoolStatus();
  black.black76Strikes(market, strikes, vols, parallelOut);
  single(() => black.black76Strikes(market, strikes, vols, out))();
  let parallelMismatches = 0;
  for (const key of ["price", "delta", "gamma", "vega", "theta"])
    for (let q = 0; q < n; q++) if (!Object.is(parallelOut[key][q], out[key][q])) parallelMismatches++;
  naiveLoop(normal.normCdf, market, strikes, vols, naiveOut);
  let scalarMismatches = 0;
  for (let j = 0; j < m; j++) {
    const g = black.black76(inputs[j]);
    const q = j * step;
    for (const key of ["price", "delta", "gamma", "vega", "theta"])
      if (!Object.is(g[key], out[key][q])) scalarMismatches++;
  }
  let maxRelVsNaive = 0;
  let compared = 0;
  for (let q = 0; q < n; q++) {
    if (!(naiveOut.price[q] > 1e-3 * market.forward)) continue;
    compared++;
    for (const key of ["price", "delta", "gamma", "vega"]) {
      maxRelVsNaive = Math.max(maxRelVsNaive, Math.abs(out[key][q] - naiveOut[key][q]) / Math.abs(naiveOut[key][q]));
    }
  }
  const finite = Object.values(out).every((a) => a.every((x) => Number.isFinite(x)));
  runReference(reference, market, strikes, vols, referenceOut);
  const vsReference = differences(market, strikes, vols, out, referenceOut);
  let vsBaseline;
  if (baseline) {
    baseline.black76Strikes(market, strikes, vols, baselineOut);
    vsBaseline = differences(market, strikes, vols, out, baselineOut);
  }
  const maxRelVsBaseline = vsBaseline ? Math.max(vsBaseline.price, vsBaseline.greeks) : 0;
  const checkOk =
    finite &&
    parallelMismatches === 0 &&
    scalarMismatches === 0 &&
    maxRelVsNaive <= CHECK_TOLERANCE &&
    (!vsBaseline || vsBaseline.withinTolerance) &&
    vsReference.withinTolerance;

  const stats = Object.fromEntries(
    Object.entries(variants).map(([key, v]) => [
      key,
      {
        name: v.name,
        count: v.count,
        optionsPerS: summarise(timed.ms[key].map((ms) => perSecond(v.count, ms))),
        optionsPerCpuS: summarise(timed.cpuMs[key].map((ms) => perSecond(v.count, ms))),
      },
    ]),
  );
  return {
    settings,
    market,
    variants: stats,
    pool,
    parallelOverSingle: {
      wall: stats.parallel.optionsPerS.median / stats.vectorised.optionsPerS.median,
      cpu: stats.parallel.optionsPerCpuS.median / stats.vectorised.optionsPerCpuS.median,
    },
    vectorisedOverScalar: stats.vectorised.optionsPerS.median / stats.scalar.optionsPerS.median,
    vectorisedOverNaive: stats.vectorised.optionsPerS.median / stats.naive.optionsPerS.median,
    vectorisedOverReference: {
      wall: stats.vectorised.optionsPerS.median / stats.reference.optionsPerS.median,
      cpu: stats.vectorised.optionsPerCpuS.median / stats.reference.optionsPerCpuS.median,
    },
    vsReference,
    vectorisedOverBaseline: baseline
      ? {
          wall: stats.vectorised.optionsPerS.median / stats.vectorisedBaseline.optionsPerS.median,
          cpu: stats.vectorised.optionsPerCpuS.median / stats.vectorisedBaseline.optionsPerCpuS.median,
          maxRelDiff: maxRelVsBaseline,
        }
      : undefined,
    check: {
      ok: checkOk,
      tolerance: CHECK_TOLERANCE,
      parallelMismatches,
      scalarCompared: m,
      scalarMismatches,
      naiveCompared: compared,
      maxRelDiffVsNaive: maxRelVsNaive,
      allFinite: finite,
    },
    sink,
  };
}

export function formatBlack(r) {
  const M = (x) => round(x / 1e6, 2);
  const rows = Object.values(r.variants).map((v) => statRow(v.name, v.optionsPerS, v.optionsPerCpuS, M));
  return [
    formatTable(
      ["variant (price + 4 greeks per option)", "M options/s median", "min", "max", "spread", "per CPU-s median"],
      rows,
    ),
    "",
    `parallel (pool ${r.pool.state}, ${r.pool.threads} threads): ${M(r.variants.parallel.optionsPerS.median)} M options/s wall, ` +
      `${M(r.variants.parallel.optionsPerCpuS.median)} per CPU-s; 1 thread ${M(r.variants.vectorised.optionsPerS.median)} wall, ` +
      `${M(r.variants.vectorised.optionsPerCpuS.median)} per CPU-s; parallel / 1 thread ${round(r.parallelOverSingle.wall, 2)}x wall, ` +
      `${round(r.parallelOverSingle.cpu, 2)}x per CPU-s; ${r.check.parallelMismatches} values differ from 1 thread`,
    `vectorised (1 thread): ${M(r.variants.vectorised.optionsPerS.median)} M options/s, ${round(r.vectorisedOverScalar, 1)}x the scalar object API, ` +
      `${round(r.vectorisedOverNaive * 100, 0)}% of the naive textbook loop`,
    `vectorised / previous kernel (same run): ${round(r.vectorisedOverReference.wall, 2)}x wall, ${round(r.vectorisedOverReference.cpu, 2)}x per CPU-s`,
    `max relative difference from the previous kernel: prices > 1e-12·F ${r.vsReference.price.toExponential(2)}, ` +
      `greeks ${r.vsReference.greeks.toExponential(2)} (theta on |r·price| + |r·price − theta|); ${r.vsReference.identical} of ` +
      `${r.vsReference.values} values bit-identical; tolerance 1e-14·max(1, h²/6): ${r.vsReference.withinTolerance ? "met" : "NOT MET"}`,
    ...(r.vectorisedOverBaseline
      ? [
          `vectorised / baseline build: ${round(r.vectorisedOverBaseline.wall, 2)}x (per CPU-s ${round(r.vectorisedOverBaseline.cpu, 2)}x), ` +
            `max relative difference ${r.vectorisedOverBaseline.maxRelDiff.toExponential(2)}`,
        ]
      : []),
    `check: ${r.check.ok ? "OK" : "FAILED"} — vectorised = scalar on ${r.check.scalarCompared} options (${r.check.scalarMismatches} mismatches); ` +
      `max relative |vectorised − naive| = ${r.check.maxRelDiffVsNaive.toExponential(2)} over ${r.check.naiveCompared} options with price > 1e-3·F ` +
      `(tolerance ${r.check.tolerance})`,
  ].join("\n");
}

if (isMain(import.meta.url)) runStandalone("black", (log) => measureBlack(settingsFromEnv(), log), formatBlack);
