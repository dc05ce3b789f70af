/**
 * `toPng`: a figure as a PNG, rendered by plotly.js in headless Chromium (driven by playwright-core,
 * with a Chromium already on the machine: nothing is downloaded). The page is blank and offline: every
 * request it would make is refused.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { launchChromium } from "./chromium-launch";
import { type BrowserOptions, PngExportError } from "./chromium";
import { checkFigure, type Figure } from "./figure";
import { plotlySource } from "./plotly-source";
import { DEFAULT_HEIGHT, DEFAULT_WIDTH } from "./theme";

export { CHROMIUM_ARGS, CHROMIUM_CANDIDATES, findChromium, PngExportError, type BrowserOptions } from "./chromium";

export interface PngOptions {
  /** Image width in CSS pixels. Default: the layout's width, else 900. */
  width?: number;
  /** Image height in CSS pixels. Default: the layout's height, else 500. */
  height?: number;
  /** Device pixels per CSS pixel (2 for a sharp image on high-DPI screens). Default 1. */
  scale?: number;
}

/** A headless Chromium with plotly.js loaded in an offline page, for rendering many figures. */
export interface PngRenderer {
  /** Renders the figure and writes the PNG; returns the absolute path. */
  toPng(fig: Figure, file: string, options?: PngOptions): Promise<string>;
  /** The PNG bytes, without writing a file. */
  render(fig: Figure, options?: PngOptions): Promise<Buffer>;
  /** Closes Chromium. */
  close(): Promise<void>;
}

/**
 * Starts headless Chromium once for many PNGs (each `toPng` call otherwise starts its own, a few
 * seconds each). Close it when done.
 *
 * @example
 * ```ts
 * const png = await plot.pngRenderer();
 * try { await png.toPng(fig1, "a.png"); await png.toPng(fig2, "b.png"); } finally { await png.close(); }
 * ```
 */
export async function pngRenderer(options: BrowserOptions = {}): Promise<PngRenderer> {
  const browser = await launchChromium(options);
  const timeout = options.timeoutMs ?? 60_000;
  let page: Page;
  try {
    const context = await browser.newContext({ offline: true });
    // Offline for real: the page is built from strings, so any request is something reaching out.
    await context.route("**/*", (route) => route.abort("blockedbyclient"));
    page = await context.newPage();
    page.setDefaultTimeout(timeout);
    await page.setContent(
      '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0;background:#fff"><div id="figure"></div></body></html>',
    );
    await page.addScriptTag({ content: plotlySource().text });
  } catch (error) {
    await browser.close().catch(() => undefined);
    throw new PngExportError(
      `toPng could not load plotly.js in Chromium: ${error instanceof Error ? error.message : String(error)}`,
      "render",
      {
        cause: error,
      },
    );
  }

  const render = async (fig: Figure, png: PngOptions = {}): Promise<Buffer> => {
    checkFigure(fig, "toPng");
    const width = png.width ?? (typeof fig.layout?.width === "number" ? fig.layout.width : DEFAULT_WIDTH);
    const height = png.height ?? (typeof fig.layout?.height === "number" ? fig.layout.height : DEFAULT_HEIGHT);
    const scale = png.scale ?? 1;
    for (const [name, v] of [
      ["width", width],
      ["height", height],
      ["scale", scale],
    ] as const) {
      if (!(typeof v === "number" && v > 0 && Number.isFinite(v)))
        throw new RangeError(`toPng: ${name} must be a number > 0; got ${String(v)}`);
    }
    // JSON round trip: what the browser gets is exactly what a notebook or an HTML file would get.
    const payload = JSON.parse(JSON.stringify({ data: fig.data, layout: fig.layout ?? {} })) as Figure;
    const url = await page.evaluate(
      async ({ f, width, height, scale }) => {
        // Runs in the page (no DOM types here: the library is compiled for Node). plotly draws the figure
        // once, for the image: drawing it on the page first and then taking its image draws a 3D scene
        // twice (a surface took 2 to 3 times as long).
        const P = (globalThis as unknown as { Plotly: PlotlyApi }).Plotly;
        const figure = { data: f.data, layout: { ...f.layout, width, height }, config: { staticPlot: true } };
        return P.toImage(figure, { format: "png", width, height, scale });
      },
      { f: payload, width, height, scale },
    );
    const comma = url.indexOf(",");
    return Buffer.from(url.slice(comma + 1), "base64");
  };

  return {
    render,
    async toPng(fig, file, png) {
      const bytes = await render(fig, png);
      const target = path.resolve(file);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, bytes);
      return target;
    },
    close: () => browser.close(),
  };
}

/** The part of plotly's browser API used in the page. */
interface PlotlyApi {
  toImage(
    figure: { data: unknown[]; layout: unknown; config: unknown },
    options: { format: "png"; width: number; height: number; scale: number },
  ): Promise<string>;
}

/**
 * Writes the figure as a PNG rendered by plotly.js in headless Chromium (the system's: see
 * {@link findChromium}); throws {@link PngExportError} naming what is missing when Chromium or
 * playwright-core is not installed. Starts and stops Chromium for this one image; for many, use
 * {@link pngRenderer}. Returns the absolute path.
 *
 * @example
 * ```ts
 * await plot.toPng(plot.yieldCurve(df), "out/usd-curve.png", { scale: 2 });
 * ```
 */
export async function toPng(fig: Figure, file: string, options: PngOptions & BrowserOptions = {}): Promise<string> {
  checkFigure(fig, "toPng");
  const renderer = await pngRenderer(options);
  try {
    return await renderer.toPng(fig, file, options);
  } finally {
    await renderer.close();
  }
}
