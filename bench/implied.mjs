/**
 * Implied vols per second: `impliedVols` (a smile of prices at once) and `impliedVol` (one object per
 * option), Black (Jäckel's Let's Be Rational) and Bachelier (Jäckel 2017), with the pricing of the same
 * options in the same run for the ratio: `black76Strikes` on one thread and `bachelierStrikes`.
 *
 * What: 200 000 out-of-the-money options (puts below the forward, calls above) at one forward and expiry,
 * strikes 40%–250% of a forward of 5321.5 (Black, a skewed smile 12%–60%) or ±4% around a rate of 0.5%
 * (Bachelier, 40–200 bp normal vols), six months, DF e^(−0.03·0.5); the scalar variants take every 4th
 * option (50 000 objects per round). Prices come from `black76Strikes` / `bachelierStrikes`.
 * How: as bench/black.mjs (common.mjs's timeVariants): warm-up calls, then BENCH_IMPLIED_ROUNDS (default 9)
 * rounds, interleaved; median / min / max options per second of wall time, spread, median per CPU-s.
 * Check: every implied vol within 1e-12 relative of the vol that priced it (the options of the smile all have
 * vega·σ/price ≥ 1e-3), and the scalar results equal the vectorised ones bit for bit; else exit 1.
 * Writes bench/results/implied.json. Run: `npm run build && node bench/implied.mjs`.
 *
 * Measured on issue 45's branch (2 vCPUs shared, load 5–7; medians of 9 rounds, per CPU-s in brackets):
 * Black impliedVols 0.90 M options/s (0.90), impliedVol 0.93 (0.93), black76Strikes on the same options
 * 10.1 (10.1): 11x as many priced as inverted; Bachelier impliedVols 5.8 (6.0), impliedVol 5.7 (5.6),
 * bachelierStrikes 5.6 (5.6). The array form costs what the scalar one does (the same inversion per price;
 * no object per option in either, the scalar's object aside). Check: worst vol error 4.6e-15 (Black),
 * 8.7e-16 (Bachelier).
 */
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

/** Largest relative |implied − true| vol accepted. */
export const CHECK_TOLERANCE = 1e-12;

export function settingsFromEnv() {
  return {
    options: envInt("BENCH_IMPLIED_OPTIONS", 200_000),
    scalarEvery: envInt("BENCH_IMPLIED_SCALAR_EVERY", 4),
    rounds: envInt("BENCH_IMPLIED_ROUNDS", 9),
    warmup: envInt("BENCH_IMPLIED_WARMUP", 3),
  };
}

const arrays = (n) => ({
  price: new Float64Array(n),
  delta: new Float64Array(n),
  gamma: new Float64Array(n),
  vega: new Float64Array(n),
  theta: new Float64Array(n),
});

/** A smile of out-of-the-money prices for one model: strikes, vols, kinds, prices. */
function smile(model, n, price) {
  const T = 0.5;
  const market = { forward: model === "black" ? 5321.5 : 0.005, maturity: T, discountFactor: Math.exp(-0.03 * T) };
  const strikes = new Float64Array(n);
  const vols = new Float64Array(n);
  for (let q = 0; q < n; q++) {
    const u = q / (n - 1);
    if (model === "black") {
      strikes[q] = market.forward * (0.4 + 2.1 * u);
      const k = Math.log(strikes[q] / market.forward);
      vols[q] = 0.2 - 0.12 * k + 0.25 * k * k;
    } else {
      strikes[q] = market.forward - 0.04 + 0.08 * u;
      const d = strikes[q] - market.forward;
      vols[q] = 0.006 - 0.02 * d + 30 * d * d;
    }
  }
  const kinds = Array.from(strikes, (K) => (K < market.forward ? "put" : "call"));
  const calls = price({ ...market, kind: "call" }, strikes, vols, arrays(n)).price;
  const puts = price({ ...market, kind: "put" }, strikes, vols, arrays(n)).price;
  const prices = Float64Array.from(kinds, (kind, q) => (kind === "call" ? calls[q] : puts[q]));
  return { market, strikes, vols, kinds, prices };
}

export function measureImplied(settings = settingsFromEnv(), log = () => {}) {
  const black = requireBuilt("vol", "black76", "index.js");
  const bachelier = requireBuilt("vol", "bachelier.js");
  const implied = requireBuilt("vol", "implied-vol.js");
  const parallel = requireBuilt("vol", "black76", "parallel.js");
  const n = settings.options;
  const every = settings.scalarEvery;
  const m = Math.floor(n / every);
  const oneThread = (run) => () => {
    const was = parallel.setBlack76Threads(1);
    try {
      return run();
    } finally {
      parallel.setBlack76Threads(was);
    }
  };
  const sets = {
    black: smile("black", n, (...a) => oneThread(() => black.black76Strikes(...a))()),
    bachelier: smile("bachelier", n, bachelier.bachelierStrikes),
  };
  const inputs = {};
  for (const [model, s] of Object.entries(sets)) {
    const { forward, maturity, discountFactor } = s.market;
    // Plain object literals, one shape (see bench/black.mjs).
    inputs[model] = Array.from({ length: m }, (_, j) => ({
      price: s.prices[j * every],
      forward,
      strike: s.strikes[j * every],
      maturity,
      kind: s.kinds[j * every],
      discountFactor,
      model,
    }));
  }
  const smileInput = (model) => ({
    ...sets[model].market,
    prices: sets[model].prices,
    strikes: sets[model].strikes,
    kind: sets[model].kinds,
    model,
  });
  const scalar = (model) => () => {
    let sum = 0;
    for (let j = 0; j < m; j++) sum += implied.impliedVol(inputs[model][j]);
    return [sum];
  };
  const priceOut = arrays(n);
  const variants = {
    blackVectorised: {
      name: `impliedVols, Black, ${n} prices`,
      count: n,
      run: () => implied.impliedVols(smileInput("black")),
    },
    blackScalar: { name: `impliedVol({...}), Black, ${m} options`, count: m, run: scalar("black") },
    blackPricing: {
      name: `black76Strikes (1 thread), same ${n} options`,
      count: n,
      run: oneThread(
        () =>
          black.black76Strikes({ ...sets.black.market, kind: "call" }, sets.black.strikes, sets.black.vols, priceOut)
            .price,
      ),
    },
    bachelierVectorised: {
      name: `impliedVols, Bachelier, ${n} prices`,
      count: n,
      run: () => implied.impliedVols(smileInput("bachelier")),
    },
    bachelierScalar: { name: `impliedVol({...}), Bachelier, ${m} options`, count: m, run: scalar("bachelier") },
    bachelierPricing: {
      name: `bachelierStrikes, same ${n} options`,
      count: n,
      run: () =>
        bachelier.bachelierStrikes(
          { ...sets.bachelier.market, kind: "call" },
          sets.bachelier.strikes,
          sets.bachelier.vols,
          priceOut,
        ).price,
    },
  };
  let sink = 0;
  const rate = (key, ms) => round(perSecond(variants[key].count, ms[key].at(-1)) / 1e6, 3);
  const timed = timeVariants(variants, settings, {
    onResult: (_, result) => (sink += result[result.length - 1]),
    onRound: (r, ms) =>
      log(
        `round ${r + 1}/${settings.rounds}: Black ${rate("blackVectorised", ms)} M/s vectorised, ${rate("blackScalar", ms)} scalar; ` +
          `Bachelier ${rate("bachelierVectorised", ms)} vectorised, ${rate("bachelierScalar", ms)} scalar`,
      ),
  });

  const check = { ok: true, tolerance: CHECK_TOLERANCE, maxRelVolError: {}, scalarMismatches: 0, allFinite: true };
  for (const model of ["black", "bachelier"]) {
    const got = implied.impliedVols(smileInput(model));
    let worst = 0;
    for (let q = 0; q < n; q++) {
      if (!Number.isFinite(got[q])) check.allFinite = false;
      worst = Math.max(worst, Math.abs(got[q] - sets[model].vols[q]) / sets[model].vols[q]);
    }
    check.maxRelVolError[model] = worst;
    for (let j = 0; j < m; j++)
      if (!Object.is(implied.impliedVol(inputs[model][j]), got[j * every])) check.scalarMismatches++;
    if (!(worst <= CHECK_TOLERANCE)) check.ok = false;
  }
  if (check.scalarMismatches > 0 || !check.allFinite) check.ok = false;

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
  const ratio = (a, b) => stats[a].optionsPerS.median / stats[b].optionsPerS.median;
  return {
    settings,
    variants: stats,
    ratios: {
      blackVectorisedOverScalar: ratio("blackVectorised", "blackScalar"),
      blackPricingOverImplied: ratio("blackPricing", "blackVectorised"),
      bachelierVectorisedOverScalar: ratio("bachelierVectorised", "bachelierScalar"),
      bachelierPricingOverImplied: ratio("bachelierPricing", "bachelierVectorised"),
    },
    check,
    sink,
  };
}

export function formatImplied(r) {
  const M = (x) => round(x / 1e6, 3);
  const rows = Object.values(r.variants).map((v) => statRow(v.name, v.optionsPerS, v.optionsPerCpuS, M));
  const x = (v) => `${round(v, 2)}x`;
  return [
    formatTable(["variant", "M options/s median", "min", "max", "spread", "per CPU-s median"], rows),
    "",
    `Black: impliedVols ${x(r.ratios.blackVectorisedOverScalar)} the scalar impliedVol; black76Strikes prices ${x(r.ratios.blackPricingOverImplied)} as many options a second as impliedVols inverts`,
    `Bachelier: impliedVols ${x(r.ratios.bachelierVectorisedOverScalar)} the scalar impliedVol; bachelierStrikes ${x(r.ratios.bachelierPricingOverImplied)} impliedVols`,
    `check: ${r.check.ok ? "OK" : "FAILED"} — max relative vol error Black ${r.check.maxRelVolError.black.toExponential(2)}, ` +
      `Bachelier ${r.check.maxRelVolError.bachelier.toExponential(2)} (tolerance ${r.check.tolerance}); ` +
      `scalar = vectorised: ${r.check.scalarMismatches} mismatches`,
  ].join("\n");
}

if (isMain(import.meta.url)) runStandalone("implied", (log) => measureImplied(settingsFromEnv(), log), formatImplied);
