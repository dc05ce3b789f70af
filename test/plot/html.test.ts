/** Figures as HTML: script-safe JSON, fragments for notebooks, standalone pages, toHtml. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toHtml, type Figure } from "../../src/plot";
import { figureFragment, figurePage, jsonForScript, resetFigureIds, scriptText, titleText } from "../../src/plot/html";
import { plotlyBundlePath, plotlySource } from "../../src/plot/plotly-source";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-html-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hostile: Figure = {
  data: [{ type: "scatter", name: "</script><script>alert(1)</script>", x: [1], y: [2], text: ["<!-- & \u2028"] }],
  layout: { title: { text: "A <b>bold</b><br>title" }, height: 420 },
};

describe("jsonForScript / scriptText", () => {
  it("escapes what could end a script element, and stays the same JSON", () => {
    const json = jsonForScript({ a: "</script><!-- & \u2028" });
    expect(json).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(json)).toEqual({ a: "</script><!-- & \u2028" });
  });

  it("makes a closing script tag inside JavaScript harmless", () => {
    expect(scriptText('var s = "</script>"; var t = "</SCRIPT>";')).toBe(
      'var s = "<\\/script>"; var t = "<\\/SCRIPT>";',
    );
  });
});

describe("figureFragment", () => {
  it("is a div and a draw script; a trace name cannot close the script", () => {
    const html = figureFragment(hostile, { plotly: false, id: "fig-1" });
    expect(html).toMatch(
      /^<div id="fig-1" class="risk-portal-lab-figure" data-rpl-pending="1" style="width:100%;height:420px;/,
    );
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(html).not.toContain("alert(1)</script>");
    expect(html).not.toContain("plotly.js v");
  });

  it("gives each chart an id unique in the session and the same on every run: its number and a hash of the figure", () => {
    const ids = () =>
      [hostile, hostile, { data: [{ type: "bar", x: [1], y: [2] }], layout: {} } as Figure].map(
        (f) => /^<div id="([^"]+)"/.exec(figureFragment(f, { plotly: false }))![1],
      );
    resetFigureIds();
    const first = ids();
    expect(first[0]).toMatch(/^rpl-1-[0-9a-f]{12}$/);
    expect(new Set(first).size).toBe(3);
    expect(first[1]!.slice(-12)).toBe(first[0]!.slice(-12));
    resetFigureIds();
    expect(ids()).toEqual(first);
  });

  it("says in the chart's place what is missing when JavaScript or plotly.js is not there", () => {
    const html = figureFragment(hostile, { plotly: false });
    expect(html).toContain("JavaScript is not running here");
    expect(html).toContain("plotlyJs: \\u0022always\\u0022".replace(/\\u0022/g, '\\"'));
  });
});

describe("figurePage and toHtml", () => {
  // (Booleans, not string matchers: a failing matcher would print the 5 MB page.)
  it("is a complete page with plotly.js inline once, loading nothing, titled after the figure", () => {
    const page = figurePage(hostile);
    expect(page.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(page.includes("<title>A bold — title</title>")).toBe(true);
    expect(page.split("embedded by risk-portal-lab (offline)").length).toBe(2);
    expect(/<script[^>]+src=/.test(page)).toBe(false);
    expect(/<link[^>]+href=/.test(page)).toBe(false);
  });

  it("writes the page, creating directories, and returns the absolute path", () => {
    const file = toHtml(hostile, path.join(dir, "a", "b", "chart.html"));
    expect(path.isAbsolute(file)).toBe(true);
    expect(readFileSync(file, "utf8").includes("Plotly.newPlot")).toBe(true);
    expect(() => toHtml({ nope: 1 } as never, path.join(dir, "x.html"))).toThrow(/toHtml expects a plotly figure/);
  });

  it("titleText strips markup from the layout title", () => {
    expect(titleText(hostile)).toBe("A bold — title");
    expect(titleText({ data: [], layout: {} })).toBeUndefined();
  });
});

describe("plotlySource", () => {
  it("reads the minified bundle once, with its version, without requiring it", () => {
    const source = plotlySource();
    expect(source.path).toMatch(/plotly\.js-dist(-min)?[\\/]plotly(\.min)?\.js$/);
    expect(source.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(source.text.includes("window.Plotly")).toBe(true);
    expect(plotlySource()).toBe(source);
    expect(Object.keys(require.cache).some((k) => k.includes("plotly.js-dist"))).toBe(false);
  });

  it("names the package to install when no bundle resolves", () => {
    expect(() =>
      plotlyBundlePath(() => {
        throw new Error("not found");
      }),
    ).toThrow(/npm install plotly\.js-dist-min/);
  });
});
