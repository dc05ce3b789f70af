/**
 * The charts in a real headless Chromium, offline: exported HTML files open from disk with the
 * network refused (and none is attempted), plotly draws every kind of chart with the expected traces, the
 * notebook fragments draw whichever order they render in, and PNG exports are images with ink on them.
 *
 * Needs Chromium (scripts/setup-chromium.sh). Without it the tests are skipped locally, and fail in CI.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as plot from "../../src/plot";
import { plotlyPartBundles } from "../../src/plot/plotly-parts";
import type { Page } from "playwright-core";
import {
  drawnCharts,
  inCI,
  inkShare,
  missingChromium,
  openOfflineBrowser,
  pngSize,
  SETUP_HINT,
  type DrawnChart,
  type OfflineBrowser,
} from "./browser";
import { simData, type SimData } from "./sim-data";

const missing = missingChromium();
if (missing && !inCI) console.warn(`test/plot/browser: skipping the Chromium tests: ${missing}; ${SETUP_HINT}.`);

const dir = mkdtempSync(path.join(tmpdir(), "rpl-browser-"));
/** Each page parses plotly.js (~4.8 MB) and draws: 2-4 s a chart on two cores; room for a busy machine. */
const TIMEOUT_MS = 180_000;

/** One figure of each kind, from the simulator's data. */
async function everyKind(d: SimData): Promise<Record<string, plot.Figure>> {
  const trades = await d.trades();
  const effects = await d.effects();
  return {
    "yield-curve": plot.yieldCurve(await d.curvesToday()),
    // 27 curves: past the palette's ten colours, dashed and marked apart (issue 41).
    "yield-curve-history": plot.yieldCurve(await d.usdHistory()),
    "curve-history": plot.curveHistory(await d.usdHistory()),
    "curve-surface": plot.curveSurface(await d.usdHistory()),
    "vol-smiles": plot.volSmiles(await d.grid()),
    "vol-surface": plot.volSurface(await d.grid()),
    "cross-check-heatmap": plot.crossCheckHeatmap(await d.check()),
    "report-status": plot.reportStatus(await d.reports()),
    transactions: plot.transactions(trades),
    "position-effects": plot.positionEffects(effects, { before: { "SX5E.XEUR": 5_000, EUR: 1e6 } }),
  };
}

describe("charts in headless Chromium, offline", () => {
  if (missing && inCI) {
    it("runs in CI", () => {
      throw new Error(`The browser tests must run in CI, but ${missing}: ${SETUP_HINT}.`);
    });
    return;
  }
  const skip = missing !== undefined;
  const why = skip ? ` (skipped: ${missing}; ${SETUP_HINT})` : "";

  let d: SimData;
  let figures: Record<string, plot.Figure>;
  let b: OfflineBrowser;
  beforeAll(async () => {
    if (skip) return;
    d = await simData();
    figures = await everyKind(d);
    b = await openOfflineBrowser();
  }, TIMEOUT_MS);
  afterAll(async () => {
    await b?.close();
    await d?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Chart `i` of the page drew `fig` (its SVG or WebGL scene, every trace) with ink on it. */
  async function expectDrawn(page: Page, chart: DrawnChart | undefined, i: number, fig: plot.Figure, kind: string) {
    expect(chart, kind).toBeDefined();
    expect(chart!.svg, `${kind}: plotly's SVG`).toBe(true);
    expect(chart!.traces, `${kind}: traces`).toBe(fig.data.length);
    const gl = fig.data.filter((t) => t.type === "surface").length;
    if (gl > 0) expect(chart!.glCanvases, `${kind}: WebGL scene`).toBeGreaterThan(0);
    // plotly draws no group for a trace without points (e.g. "beyond tolerance (0)").
    else
      expect(chart!.svgTraces, `${kind}: SVG trace groups`).toBe(fig.data.filter((t) => (t.x?.length ?? 0) > 0).length);
    // Drawn, not blank: a screenshot of the chart has ink on it.
    const shot = await page.locator(".js-plotly-plot").nth(i).screenshot();
    expect(await inkShare(page, shot), `${kind}: ink`).toBeGreaterThan(0.02);
  }

  it.skipIf(skip)(
    `opens exported HTML files from disk with no network, and draws every kind of chart with every trace${why}`,
    async () => {
      const page = await b.context.newPage();
      const requested: string[] = [];
      page.on("request", (r) => requested.push(r.url()));
      // Exported files (plot.toHtml), a 2D chart and a 3D one: each a page of its own with plotly.js inside.
      for (const kind of ["yield-curve", "vol-surface"]) {
        const fig = figures[kind]!;
        await page.goto(pathToFileURL(plot.toHtml(fig, path.join(dir, `${kind}.html`))).href);
        await expectDrawn(page, (await drawnCharts(page, 1))[0], 0, fig, kind);
      }
      // Every kind on one page, as an exported notebook holds them (plotly.js once, in the first chart):
      // the browser parses plotly.js's 4.8 MB once, not once a kind (3 s of CPU each on two cores).
      const kinds = Object.entries(figures);
      const body = kinds.map(([, fig], i) => plot.mimeBundle(fig, { plotly: i === 0 })["text/html"] as string);
      const file = path.join(dir, "every-kind.html");
      writeFileSync(
        file,
        `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>${body.join("\n")}</body></html>`,
      );
      await page.goto(pathToFileURL(file).href);
      const charts = await drawnCharts(page, kinds.length);
      expect(charts).toHaveLength(kinds.length);
      for (const [i, [kind, fig]] of kinds.entries()) await expectDrawn(page, charts[i], i, fig, kind);
      expect(b.external).toEqual([]);
      expect(requested.filter((u) => !u.startsWith("file:") && !u.startsWith("data:"))).toEqual([]);
      expect(b.errors).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  it.skipIf(skip)(
    `draws notebook outputs with plotly.js embedded once, in any render order, and says so when it is missing${why}`,
    async () => {
      const curve = figures["yield-curve"]!;
      const smiles = figures["vol-smiles"]!;
      const first = plot.mimeBundle(curve, { plotly: true })["text/html"] as string;
      const later = plot.mimeBundle(smiles, { plotly: false })["text/html"] as string;
      const page = await b.context.newPage();
      const open = async (name: string, body: string) => {
        const file = path.join(dir, name);
        writeFileSync(file, `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>${body}</body></html>`);
        await page.goto(pathToFileURL(file).href);
      };

      // As in an exported notebook: the chart that carries plotly.js first, then one that does not.
      await open("in-order.html", `${first}\n${later}`);
      let charts = await drawnCharts(page, 2);
      expect(charts.map((c) => [c.svg, c.traces])).toEqual([
        [true, curve.data.length],
        [true, smiles.data.length],
      ]);

      // A frontend that renders the later output first: it waits in the queue, then draws.
      await open("reversed.html", `${later}\n${first}`);
      charts = await drawnCharts(page, 2);
      expect(charts.map((c) => c.traces)).toEqual([smiles.data.length, curve.data.length]);

      // As a notebook gets it: the first chart, then plotly.js in parts (each its own output), then another
      // chart; and with the parts rendered in any order (a frontend that renders the last one first).
      const parts = plotlyPartBundles().map((p) => p["text/html"] as string);
      await open(
        "parts.html",
        [plot.mimeBundle(curve, { plotly: false })["text/html"] as string, ...parts, later].join("\n"),
      );
      charts = await drawnCharts(page, 2);
      expect(charts.map((c) => [c.svg, c.traces])).toEqual([
        [true, curve.data.length],
        [true, smiles.data.length],
      ]);
      const shuffled = parts.map((p, i) => [p, (i * 7919) % parts.length] as const).sort((x, y) => x[1] - y[1]);
      await open("parts-shuffled.html", [later, ...shuffled.map(([p]) => p)].join("\n"));
      charts = await drawnCharts(page, 1);
      expect(charts.map((c) => [c.svg, c.traces])).toEqual([[true, smiles.data.length]]);

      // The output that held plotly.js is gone: the chart's place says what happened and what to do.
      await open("missing.html", later);
      charts = await drawnCharts(page, 1, 3_000);
      expect(charts[0]!.svg).toBe(false);
      expect(charts[0]!.text).toContain('plot.show(fig, { plotlyJs: "always" })');

      expect(b.external).toEqual([]);
      expect(b.errors).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  it.skipIf(skip)(
    `exports PNGs of the chosen size with ink on them, 2D and 3D, through one renderer${why}`,
    async () => {
      const renderer = await plot.pngRenderer();
      try {
        const files = {
          curve: await renderer.toPng(figures["yield-curve"]!, path.join(dir, "curve.png")),
          surface: await renderer.toPng(figures["vol-surface"]!, path.join(dir, "surface.png"), {
            width: 640,
            height: 480,
            scale: 2,
          }),
        };
        const page = await b.context.newPage();
        const curve = readFileSync(files.curve);
        expect(pngSize(curve)).toEqual({ width: 900, height: 500 });
        expect(await inkShare(page, curve)).toBeGreaterThan(0.02);
        const surface = readFileSync(files.surface);
        expect(pngSize(surface)).toEqual({ width: 1280, height: 960 });
        expect(await inkShare(page, surface)).toBeGreaterThan(0.05);
        await page.close();
      } finally {
        await renderer.close();
      }
    },
    TIMEOUT_MS,
  );

  it.skipIf(skip)(
    `toPng starts and stops its own Chromium for one image${why}`,
    async () => {
      const file = await plot.toPng(figures["report-status"]!, path.join(dir, "one", "status.png"), {
        width: 600,
        height: 400,
      });
      expect(pngSize(readFileSync(file))).toEqual({ width: 600, height: 400 });
    },
    TIMEOUT_MS,
  );
});
