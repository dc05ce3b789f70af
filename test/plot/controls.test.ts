/**
 * Controls without a kernel: plotly sliders carried by the figure (smiles by maturity, curves by market
 * date). Their steps show the right traces, and in a real headless Chromium, offline, moving the slider
 * of an exported HTML file redraws only the chosen group.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as plot from "../../src/plot";
import { groupSlider } from "../../src/plot/controls";
import { drawnCharts, inCI, missingChromium, openOfflineBrowser, SETUP_HINT, type OfflineBrowser } from "./browser";
import { simData, type SimData } from "./sim-data";

interface Step {
  label: string;
  method: string;
  args: [{ visible: boolean[] }];
}
const stepsOf = (fig: plot.Figure): Step[] => (fig.layout.sliders as { steps: Step[] }[] | undefined)?.[0]?.steps ?? [];
const shown = (step: Step) => step.args[0].visible.flatMap((v, i) => (v ? [i] : []));

let d: SimData;
beforeAll(async () => {
  d = await simData();
}, 120_000);
afterAll(() => d?.close());

describe("groupSlider", () => {
  it("a step per group plus 'all' first (the figure as drawn); each step shows its group's traces only", () => {
    const slider = groupSlider(
      [
        { label: "a", traces: [0, 2] },
        { label: "b", traces: [1] },
      ],
      3,
      "Group",
    ) as { active: number; steps: Step[]; currentvalue: { prefix: string } };
    expect(slider.active).toBe(0);
    expect(slider.steps.map((s) => s.label)).toEqual(["all", "a", "b"]);
    expect(slider.steps.map(shown)).toEqual([[0, 1, 2], [0, 2], [1]]);
    expect(slider.steps.every((s) => s.method === "restyle")).toBe(true);
    expect(slider.currentvalue.prefix).toBe("Group: ");
  });
});

describe("charts with a slider", () => {
  it("volSmiles { slider: true }: a maturity slider, one smile a step; none by default or for one maturity", async () => {
    const grid = await d.grid();
    const fig = plot.volSmiles(grid, { slider: true });
    const steps = stepsOf(fig);
    expect(steps.map((s) => s.label)).toEqual(["all", ...fig.data.map((t) => t.name)]);
    expect(steps.slice(1).map(shown)).toEqual(fig.data.map((_, k) => [k]));
    expect(plot.volSmiles(grid).layout.sliders).toBeUndefined();
    expect(plot.volSmiles(grid, { slider: true, maturities: [grid.maturities[0]!] }).layout.sliders).toBeUndefined();
  });

  it("yieldCurve { slider: true }: a market-date slider whose steps show that date's curves (and their instrument markers)", async () => {
    const history = await d.usdHistory();
    const fig = plot.yieldCurve(history, { slider: true, instrumentRates: true });
    const steps = stepsOf(fig);
    const curveTraces = fig.data.filter((t) => t.mode === "lines+markers");
    expect(steps).toHaveLength(curveTraces.length + 1);
    for (const step of steps.slice(1)) {
      const traces = shown(step).map((i) => fig.data[i]!);
      // One date's curve and its instrument markers, nothing else.
      expect(traces.map((t) => t.mode)).toEqual(["lines+markers", "markers"]);
      expect(traces[0]!.name).toBe(step.label);
      expect(traces[1]!.name).toBe(`${step.label} instruments`);
    }
    expect(plot.yieldCurve(history).layout.sliders).toBeUndefined();
    expect(plot.yieldCurve(await d.curvesToday(), { slider: true }).layout.sliders).toBeUndefined(); // one date
  });
});

describe("sliders in headless Chromium, offline", () => {
  const missing = missingChromium();
  if (missing && inCI) {
    it("runs in CI", () => {
      throw new Error(`The browser tests must run in CI, but ${missing}: ${SETUP_HINT}.`);
    });
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "rpl-controls-"));
  let b: OfflineBrowser | undefined;
  afterAll(async () => {
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(missing !== undefined)(
    "moving an exported chart's slider to a step redraws that step's traces only, with no network",
    async () => {
      b = await openOfflineBrowser();
      const fig = plot.volSmiles(await d.grid(), { slider: true });
      const steps = stepsOf(fig);
      const file = plot.toHtml(fig, path.join(dir, "smiles.html"));
      const page = await b.context.newPage();
      await page.goto(pathToFileURL(file).href);
      const [chart] = await drawnCharts(page, 1);
      expect(chart?.svgTraces).toBe(fig.data.length);
      // The slider's rail: its steps are spread evenly along it; a click picks the nearest.
      const rail = await page.locator(".slider-rail-rect").first().boundingBox();
      expect(rail).not.toBeNull();
      const drawnNow = () =>
        page.evaluate(() => document.querySelectorAll(".risk-portal-lab-figure .scatterlayer .trace").length);
      // plotly's current-value text above the rail (`Maturity: 91d`).
      const label = () =>
        page.evaluate(() =>
          Array.from(document.querySelectorAll(".slider-container text.slider-label"))
            .map((e) => e.textContent ?? "")
            .filter((t) => t.startsWith("Maturity: ")),
        );
      for (const k of [2, steps.length - 1, 0]) {
        await page.mouse.click(rail!.x + 2 + ((rail!.width - 4) * k) / (steps.length - 1), rail!.y + rail!.height / 2);
        await page.waitForFunction(
          (n) => document.querySelectorAll(".risk-portal-lab-figure .scatterlayer .trace").length === n,
          shown(steps[k]!).length,
          {
            timeout: 10_000,
          },
        );
        expect(await drawnNow()).toBe(shown(steps[k]!).length);
        expect(await label()).toEqual([`Maturity: ${steps[k]!.label}`]);
      }
      expect(b.external).toEqual([]);
      expect(b.errors).toEqual([]);
    },
    180_000,
  );
});
