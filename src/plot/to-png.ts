/**
 * `toPng`: a figure as a PNG, rendered by plotly.js in headless Chromium (driven by playwright-core,
 * with a Chromium already on the machine: nothing is downloaded). The page is blank and offline: every
 * request it would make is refused.
 */
import { RiskPortalError } from "../client/errors";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { checkFigure, type Figure } from "./figure";
import { plotlySource } from "./plotly-source";
import { DEFAULT_HEIGHT, DEFAULT_WIDTH } from "./theme";

/** Where a Chromium is looked for, after `options.chromiumPath` and `$RISK_PORTAL_LAB_CHROMIUM`. */
export const CHROMIUM_CANDIDATES = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/snap/bin/chromium",
] as const;

/** Chromium flags: headless, no sandbox (containers, root), no GPU, and nothing that reaches out. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
] as const;

export interface PngOptions {
  /** Image width in CSS pixels. Default: the layout's width, else 900. */
  width?: number;
  /** Image height in CSS pixels. Default: the layout's height, else 500. */
  height?: number;
  /** Device pixels per CSS pixel (2 for a sharp image on high-DPI screens). Default 1. */
  scale?: number;
}

export interface BrowserOptions {
  /** The Chromium (or Chrome) executable. Default: `$RISK_PORTAL_LAB_CHROMIUM`, else the first of {@link CHROMIUM_CANDIDATES} that exists. */
  chromiumPath?: string;
  /** Time allowed for launching Chromium and for each render, ms. Default 60,000. */
  timeoutMs?: number;
}

/** Something toPng needs is not installed: `missing` names it, the message says how to install it. */
export class PngExportError extends RiskPortalError {
  constructor(
    message: string,
    readonly missing: "chromium" | "playwright-core" | "render",
    options?: { cause?: unknown },
  ) {
    super(message, { operation: "toPng", cause: options?.cause });
  }
}

/** The Chromium `toPng` would use, or `undefined` (with what was tried) when there is none. */
export function findChromium(explicit?: string): { path?: string; tried: string[] } {
  const tried: string[] = [];
  const candidates = [explicit, process.env.RISK_PORTAL_LAB_CHROMIUM, ...CHROMIUM_CANDIDATES].filter(
    (p): p is string => typeof p === "string" && p !== "",
  );
  for (const candidate of candidates) {
    tried.push(candidate);
    if (existsSync(candidate)) return { path: candidate, tried };
    if (candidate === explicit) break; // an explicit path that does not exist is an error, not a hint
  }
  return { tried };
}

type Playwright = typeof import("playwright-core");
type Browser = import("playwright-core").Browser;
type Page = import("playwright-core").Page;

function loadPlaywright(what: string): Playwright {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require("playwright-core") as Playwright;
  } catch (error) {
    throw new PngExportError(
      `${what} needs the npm package playwright-core (it drives Chromium): \`npm install playwright-core\`. No browser is downloaded; a system Chromium is used.`,
      "playwright-core",
      { cause: error },
    );
  }
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
 * Starts the system's headless Chromium (see {@link findChromium}) through playwright-core, with
 * {@link CHROMIUM_ARGS}; throws {@link PngExportError} naming what is missing. `what` names the feature
 * in the message (`toPng`, `export --to pdf`). Close the browser when done.
 */
export async function launchChromium(options: BrowserOptions = {}, what = "toPng"): Promise<Browser> {
  const found = findChromium(options.chromiumPath);
  if (!found.path) {
    throw new PngExportError(
      `${what} needs Chromium, and none was found (tried ${found.tried.join(", ")}). Install it (Debian/Ubuntu: \`apt-get install -y chromium\`; in this repo \`bash scripts/setup-chromium.sh\`), or pass { chromiumPath } / set RISK_PORTAL_LAB_CHROMIUM to a Chromium or Chrome executable.`,
      "chromium",
    );
  }
  const { chromium } = loadPlaywright(what);
  const timeout = options.timeoutMs ?? 60_000;
  try {
    return await chromium.launch({ executablePath: found.path, headless: true, args: [...CHROMIUM_ARGS], timeout });
  } catch (error) {
    throw new PngExportError(
      `${what} could not start Chromium at ${found.path}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
      "chromium",
      { cause: error },
    );
  }
}

/**
 * Starts headless Chromium once for many PNGs (each `toPng` call otherwise starts its own, a few
 * seconds each). Close it when done.
 *
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
