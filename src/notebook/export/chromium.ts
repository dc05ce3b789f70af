/**
 * The page an export prints or rasterises: the notebook's HTML loaded in headless Chromium, offline
 * (every request refused: the page is built from strings), its plotly charts drawn by the inlined
 * plotly.js and then replaced by PNG images of themselves, so that a PDF holds each chart as an image
 * (WebGL ones included) and a Markdown export can write them beside it.
 */
import type { Browser, Page } from "playwright-core";

/** CSS width of the page's content when printed: an A4 page (210 mm) less 2 × 12 mm margins, at 96 px per inch. */
export const PRINT_WIDTH = 703;

/** An offline page holding `html`, its charts drawn and replaced by PNGs (their data: URLs, in page order). */
export async function rasterisedPage(
  browser: Browser,
  html: string,
  timeoutMs = 60_000,
): Promise<{ page: Page; charts: string[] }> {
  // 2 device pixels per CSS pixel: the charts' screenshots are sharp in print.
  const context = await browser.newContext({
    offline: true,
    viewport: { width: PRINT_WIDTH, height: 1000 },
    deviceScaleFactor: 2,
  });
  await context.route("**/*", (route) => route.abort("blockedbyclient"));
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // Laid out as it prints, so that charts are drawn at the printed width and wide outputs measured there.
  await page.emulateMedia({ media: "print" });
  await page.setContent(html, { waitUntil: "load" });
  const count = await page.locator(".risk-portal-lab-figure").count();
  if (count > 0) {
    try {
      await page.waitForFunction(ALL_DRAWN, undefined, { timeout: timeoutMs });
    } catch (error) {
      throw new Error(
        `export: ${count} chart(s) did not all draw in Chromium within ${timeoutMs / 1000} s${errors.length ? ` (${errors[0]})` : ""}: ${(error as Error).message.split("\n")[0]}`,
        { cause: error },
      );
    }
  }
  const charts: string[] = [];
  // A screenshot of what plotly drew (Plotly.toImage would draw a 3D chart again: seconds in software GL).
  for (const figure of await page.locator(".risk-portal-lab-figure").all())
    charts.push(
      `data:image/png;base64,${(await figure.screenshot({ type: "png", animations: "disabled" })).toString("base64")}`,
    );
  await page.evaluate(`((urls) => {
    [...document.querySelectorAll(".risk-portal-lab-figure")].forEach((el, i) => {
      const img = document.createElement("img");
      img.src = urls[i];
      img.alt = "chart";
      img.className = "figure";
      img.style.width = el.clientWidth + "px";
      el.replaceWith(img);
    });
  })(${JSON.stringify(charts)})`);
  await page.evaluate(FIT_WIDE);
  return { page, charts };
}

// In the page (plain JavaScript: the library is compiled without DOM types).
/** Every chart drawn: no longer waiting for plotly.js, and plotly's SVG is there. */
const ALL_DRAWN = `[...document.querySelectorAll(".risk-portal-lab-figure")].every(
  (el) => !el.hasAttribute("data-rpl-pending") && el.querySelector(".main-svg") !== null)`;

/** Outputs wider than the page (a table with many columns) zoomed out to fit it: paper cannot scroll. */
const FIT_WIDE = `for (const box of document.querySelectorAll(".output, section.md")) {
  const room = box.clientWidth;
  const wide = Math.max(0, ...[...box.querySelectorAll("table, pre, div")].map((el) => el.scrollWidth));
  if (room > 0 && wide > room + 1) box.style.zoom = String(room / wide);
}`;
