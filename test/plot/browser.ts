/**
 * Headless Chromium for the browser tests, offline: every request that is not a local file (or an
 * inline data: URL) is refused and recorded, so a test can assert that nothing tried to reach out.
 * Uses the system Chromium (scripts/setup-chromium.sh) through playwright-core; nothing is downloaded.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { CHROMIUM_ARGS, findChromium } from "../../src/plot/to-png";

const run = promisify(execFile);

export const SETUP_HINT = "run `bash scripts/setup-chromium.sh`";
export const inCI = Boolean(process.env.CI) && process.env.CI !== "false" && process.env.CI !== "0";

/** Why Chromium cannot run here, or undefined when it can. */
export function missingChromium(): string | undefined {
  const found = findChromium();
  return found.path ? undefined : `no Chromium at ${found.tried.join(", ")}`;
}

export interface OfflineBrowser {
  browser: Browser;
  context: BrowserContext;
  /** Every request to something other than a file: or data: URL (all refused). */
  external: string[];
  /** Uncaught errors in any page. */
  errors: string[];
  close(): Promise<void>;
}

export async function openOfflineBrowser(): Promise<OfflineBrowser> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: findChromium().path!,
    headless: true,
    // Belt and braces: even a request that escaped routing could not resolve a host name.
    args: [...CHROMIUM_ARGS, "--host-resolver-rules=MAP * ~NOTFOUND"],
  });
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  const external: string[] = [];
  const errors: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:")) return route.continue();
    external.push(url);
    return route.abort("internetdisconnected");
  });
  context.on("page", (page) => page.on("pageerror", (e) => errors.push(e.message)));
  return { browser, context, external, errors, close: () => browser.close() };
}

/** What plotly drew in each chart of the page. */
export interface DrawnChart {
  /** `gd.data.length`: traces plotly holds. */
  traces: number;
  /** plotly's main SVG is there. */
  svg: boolean;
  /** SVG trace groups drawn (scatter, bar, heatmap layers). */
  svgTraces: number;
  /** WebGL canvases of 3D scenes. */
  glCanvases: number;
  /** Text shown in place of the chart (the fallback messages), when nothing was drawn. */
  text: string;
}

/** Waits until `count` charts are drawn (or the timeout), then reports each chart element. */
export async function drawnCharts(page: Page, count: number, timeoutMs = 60_000): Promise<DrawnChart[]> {
  await page
    .waitForFunction((n) => document.querySelectorAll(".js-plotly-plot .main-svg").length >= n, count, {
      timeout: timeoutMs,
    })
    .catch(() => undefined);
  return page.evaluate(() =>
    Array.from(document.querySelectorAll(".risk-portal-lab-figure")).map((el) => {
      const gd = el as HTMLElement & { data?: unknown[] };
      return {
        traces: Array.isArray(gd.data) ? gd.data.length : 0,
        svg: Boolean(el.querySelector("svg.main-svg")),
        svgTraces: el.querySelectorAll(".scatterlayer .trace, .barlayer .trace, .heatmaplayer .hm").length,
        glCanvases: el.querySelectorAll(".gl-container canvas").length,
        text: el.classList.contains("js-plotly-plot") ? "" : (el.textContent ?? ""),
      };
    }),
  );
}

/**
 * An executed notebook exported to HTML by `jupyter nbconvert --to html` (into `outDir`), opened offline:
 * each drawn chart as `[svg drawn, traces]`, the requests for plotly that were refused (none expected: the
 * notebook embeds it) and the page's errors.
 */
export async function drawExported(
  ipynb: string,
  outDir: string,
  env: NodeJS.ProcessEnv,
  count: number,
): Promise<{ charts: [boolean, number][]; plotlyRequests: string[]; errors: string[] }> {
  await run("jupyter", ["nbconvert", "--to", "html", "--output-dir", outDir, ipynb], {
    encoding: "utf8",
    env,
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const b = await openOfflineBrowser();
  try {
    const page = await b.context.newPage();
    await page.goto(pathToFileURL(path.join(outDir, `${path.basename(ipynb, ".ipynb")}.html`)).href);
    const charts = (await drawnCharts(page, count)).map((c): [boolean, number] => [c.svg, c.traces]);
    // The export template may try its own assets (MathJax, require.js); nothing of ours, and no plotly CDN.
    return { charts, plotlyRequests: b.external.filter((u) => /plotly/i.test(u)), errors: b.errors };
  } finally {
    await b.close();
  }
}

/** Share of pixels that are not (near) white in a PNG, measured by the browser itself. */
export async function inkShare(page: Page, png: Buffer): Promise<number> {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext("2d")!;
    ctx.drawImage(img, 0, 0);
    const { data } = ctx.getImageData(0, 0, img.width, img.height);
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i]! < 235 || data[i + 1]! < 235 || data[i + 2]! < 235) ink++;
    return ink / (img.width * img.height);
  }, png.toString("base64"));
}

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.subarray(0, 8).toString("hex") !== "89504e470d0a1a0a") throw new Error("not a PNG");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
