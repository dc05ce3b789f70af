/**
 * The chart builders draw exactly the same figures after the work on their speed (issue 29, "Charts that
 * scale"): every trace, in the same order, with the same values. Each case's figure JSON is hashed
 * (SHA-256) and compared with the hash the builders gave before that work (commit 020912c), on the
 * simulator's tables (test/plot/sim-data.ts) and on hand-made tables of 3,000 rows (scale-inputs.ts).
 *
 * A builder whose output is meant to change (a new default, a theme colour) changes its hash here: run
 * this file, check the new figure by eye, and replace the hash the failure prints.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as plot from "../../src/plot";
import { scaleTables, type ScaleTables } from "./scale-inputs";
import { simData, type SimData } from "./sim-data";

let d: SimData;
let t: ScaleTables;
beforeAll(async () => {
  d = await simData();
  t = scaleTables(3_000);
});
afterAll(() => d.close());

const hash = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);

/** Each case: the figure (or table preview) a builder gives. */
const CASES: Record<string, () => Promise<unknown> | unknown> = {
  "sim concentration by counterparty": async () => plot.concentration(await d.trades(), { by: "counterparty" }),
  "sim concentration by trade_id": async () =>
    plot.concentration(await d.trades(), { by: "trade_id", value: "notional" }),
  "sim concentration by instrument, series currency": async () =>
    plot.concentration(await d.trades(), { by: "instrument_name", series: "currency", top: 3 }),
  "sim transactions": async () => plot.transactions(await d.trades()),
  "sim positionEffects": async () => plot.positionEffects(await d.effects(), { before: { "SX5E.XEUR": 100 } }),
  "sim yieldCurve": async () => plot.yieldCurve(await d.curvesToday(), { instrumentRates: true }),
  "sim curveHistory": async () => plot.curveHistory(await d.usdHistory()),
  "sim curveSurface": async () => plot.curveSurface(await d.usdHistory()),
  "sim spreadHistory": async () => plot.spreadHistory(await d.usdHistory()),
  "sim curveTenorHeatmap": async () => plot.curveTenorHeatmap(await d.usdHistory()),
  "sim crossCheckHeatmap": async () => plot.crossCheckHeatmap(await d.check()),
  "sim reportStatus": async () => plot.reportStatus(await d.reports()),
  "sim volSmiles": async () => plot.volSmiles(await d.grid(), { slider: true }),
  "sim volSurface": async () => plot.volSurface(await d.grid()),
  "3k concentration by trade_id": () => plot.concentration(t.trades, { by: "trade_id", value: "notional" }),
  "3k concentration by counterparty, series currency": () =>
    plot.concentration(t.trades, { by: "counterparty", series: "currency", top: 2 }),
  "3k transactions": () => plot.transactions(t.trades),
  "3k transactions, chosen instruments": () =>
    plot.transactions(t.trades, { instruments: ["INST 3", "ID7", "INST 0"] }),
  "3k transactions, reporting currency": () =>
    plot.transactions(t.trades, {
      reportingCurrency: { currency: "USD", rates: { USD: 1, EUR: 1.1, GBP: 1.3, JPY: 0.007, CHF: 1.2 } },
    }),
  "3k table preview": () => [plot.tableHtml(t.trades), plot.tableText(t.trades, 3)],
  "3k positionEffects": () => plot.positionEffects(t.effects),
  "3k yieldCurve": () => plot.yieldCurve(t.curves, { slider: true }),
  "3k curveHistory": () => plot.curveHistory(t.curves, { tenors: [0.5, 2, 10, 30] }),
  "3k curveSurface EUR": () => plot.curveSurface(t.curves, { currency: "EUR" }),
  "3k spreadHistory": () => plot.spreadHistory(t.curves),
  "3k spreadHistory butterfly": () => plot.spreadHistory(t.curves, { legs: ["2Y", "5Y", "10Y"] }),
  "3k curveTenorHeatmap GBP": () => plot.curveTenorHeatmap(t.curves, { currency: "GBP" }),
  "3k crossCheckHeatmap": () => plot.crossCheckHeatmap(t.grid),
  "3k reportStatus": () => plot.reportStatus(t.reports),
  "3k volSmiles": () => plot.volSmiles(t.grid),
  "3k volSurface": () => plot.volSurface(t.grid),
};

/** The hashes before issue 29's changes (three changed on purpose since, each saying why). */
const BEFORE: Record<string, string> = {
  "3k concentration by counterparty, series currency": "7e4f313469946194",
  "3k concentration by trade_id": "f2ff65696ff3daa3",
  "3k crossCheckHeatmap": "16b3b594f88a866f",
  "3k curveHistory": "ddfe0072727dea2f",
  "3k curveSurface EUR": "29b37c74da4dc2a9",
  "3k curveTenorHeatmap GBP": "e81180c6d8b25d5c",
  "3k positionEffects": "51922f50f9a452f2",
  "3k reportStatus": "5c299eb4f1b314cf", // issue 41: "queued" no longer in succeeded's green
  "3k spreadHistory": "42c6d1fcc92696fe",
  "3k spreadHistory butterfly": "8824c8cea7b83ce4",
  // issue 41: numbers to 10 significant digits, not to the last bit; issue 44: a rounded cell carries its exact value (data-x)
  "3k table preview": "af796d02a8f9f6f7",
  "3k transactions": "f66a628264c9cb8f",
  "3k transactions, chosen instruments": "e45471e126a1b184",
  "3k transactions, reporting currency": "b8b5c826e0edc497",
  "3k volSmiles": "9a1ad135b8070434",
  "3k volSurface": "00d602a13dfc5bad",
  "3k yieldCurve": "5408e510c7ade97b", // issue 41: curves past the tenth dashed and marked apart
  "sim concentration by counterparty": "824e6a77ee9e3234",
  "sim concentration by instrument, series currency": "131208028c291f0e",
  "sim concentration by trade_id": "383cd23cd57b388b",
  "sim crossCheckHeatmap": "4d141054e0df9eb8",
  "sim curveHistory": "1c4b9309549c5562",
  "sim curveSurface": "9f6b2edaccf2b960",
  "sim curveTenorHeatmap": "1f41da7bc06f6dac",
  "sim positionEffects": "bb6e081f5fd5509a",
  "sim reportStatus": "a2690bc2dbf4b1d5",
  "sim spreadHistory": "7be9c4b43fb312b8",
  "sim transactions": "60c5efbab5527b80",
  "sim volSmiles": "f258a747eedda92d",
  "sim volSurface": "e4d2edf2dfd4e5c2",
  "sim yieldCurve": "cf74799f72e79804",
};

describe("the builders draw the same figures as before", () => {
  it("every case hashes as before", async () => {
    const now: Record<string, string> = {};
    for (const [name, make] of Object.entries(CASES)) now[name] = hash(await make());
    expect(now).toEqual(BEFORE);
  });
});
