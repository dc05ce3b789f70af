/**
 * Every chart builder that takes a table does n log n work in its rows (issue 29, "Charts that scale"):
 * on 40,000 rows it takes at most 40x its time on 4,000 rows (n log n gives 10–14x, quadratic work
 * 100x and more: `concentration` was 430x). A ratio in one process, never a wall-clock figure: each
 * time is this process's CPU time, the best of three, the small table's over several calls, so that a
 * busy shared machine does not make a linear builder look quadratic. bench/plot-scale.mjs reports the same ratios (goal 20x).
 */
import { describe, expect, it } from "vitest";
import * as plot from "../../src/plot";
import { scaleTables, type ScaleTables } from "./scale-inputs";

/** A generous bound: linear work stays far below it, quadratic work far above. */
const MAX_RATIO = 40;

const small = scaleTables(4_000);
const large = scaleTables(40_000);

/** The builders, each on the table it takes. */
const BUILDERS: Record<string, (t: ScaleTables) => unknown> = {
  "concentration by trade_id": (t) => plot.concentration(t.trades, { by: "trade_id", value: "notional" }),
  "concentration by counterparty, series currency": (t) =>
    plot.concentration(t.trades, { by: "counterparty", series: "currency" }),
  transactions: (t) => plot.transactions(t.trades),
  "transactions, chosen instruments": (t) =>
    plot.transactions(t.trades, { instruments: ["INST 0", "INST 1", "INST 2", "INST 3", "INST 4", "INST 5"] }),
  "table preview": (t) => plot.tableHtml(t.trades) + plot.tableText(t.trades),
  positionEffects: (t) => plot.positionEffects(t.effects),
  yieldCurve: (t) => plot.yieldCurve(t.curves),
  curveHistory: (t) => plot.curveHistory(t.curves),
  curveSurface: (t) => plot.curveSurface(t.curves),
  spreadHistory: (t) => plot.spreadHistory(t.curves),
  "curveTenorHeatmap, one currency": (t) => plot.curveTenorHeatmap(t.curves, { currency: "USD" }),
  "curveTenorHeatmap, every currency": (t) => plot.curveTenorHeatmap(t.curves),
  crossCheckHeatmap: (t) => plot.crossCheckHeatmap(t.grid),
  reportStatus: (t) => plot.reportStatus(t.reports),
  volSmiles: (t) => plot.volSmiles(t.grid),
  volSurface: (t) => plot.volSurface(t.grid),
};

/** The best of three of the mean CPU time (this process, user + system) of `reps` calls, in ms: time the machine gave other processes does not count. */
function best(fn: () => unknown, reps: number): number {
  let min = Infinity;
  for (let trial = 0; trial < 3; trial++) {
    const t0 = process.cpuUsage();
    for (let k = 0; k < reps; k++) fn();
    const t = process.cpuUsage(t0);
    min = Math.min(min, (t.user + t.system) / 1000 / reps);
  }
  return min;
}

describe("chart builders scale like n log n", () => {
  for (const [name, build] of Object.entries(BUILDERS)) {
    it(`${name}: 40,000 rows within ${MAX_RATIO}x of 4,000`, () => {
      build(small); // warm up
      const t1 = best(() => build(small), 6);
      const t2 = best(() => build(large), 1);
      const ratio = t2 / Math.max(t1, 0.05);
      expect(
        ratio,
        `${name}: ${t1.toFixed(2)} ms at 4,000 rows, ${t2.toFixed(2)} ms at 40,000 (${ratio.toFixed(1)}x)`,
      ).toBeLessThanOrEqual(MAX_RATIO);
    });
  }
});
