/**
 * findKernelDisplay: one display_data message with a whole bundle, through the function tslab's own
 * display uses — checked against the real tslab module, and with stand-ins for the other cases.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findKernelDisplay, type DisplayContent } from "../../src/plot/kernel";

const nodeRequire = createRequire(__filename);
const TSLAB_DIST = path.dirname(nodeRequire.resolve("tslab/dist/jupyter.js"));

interface TslabJupyter {
  lastWriteDisplayData: ((content: DisplayContent, update: boolean) => void) | null;
}

describe("findKernelDisplay with the real tslab", () => {
  const jupyter = nodeRequire(path.join(TSLAB_DIST, "jupyter.js")) as TslabJupyter;
  afterEach(() => {
    jupyter.lastWriteDisplayData = null;
  });

  it("finds nothing while no cell has run (tslab loaded, no display function yet)", () => {
    jupyter.lastWriteDisplayData = null;
    expect(findKernelDisplay()).toBeUndefined();
  });

  it("sends the bundle as ONE message through the function tslab's display.raw calls, in the same shape", () => {
    const calls: [DisplayContent, boolean][] = [];
    jupyter.lastWriteDisplayData = (content, update) => calls.push([content, update]);
    // What tslab itself sends for one mime type…
    const tslab = nodeRequire(path.join(TSLAB_DIST, "public.js")) as { display: { html(s: string): void } };
    tslab.display.html("<b>one</b>");
    expect(calls[0]).toEqual([{ data: { "text/html": "<b>one</b>" }, metadata: {}, transient: { display_id: undefined } }, undefined]);
    // …and what we send: the same content shape, several types in `data`, one call.
    const display = findKernelDisplay();
    expect(display?.mode).toBe("bundle");
    display!.send({ "application/vnd.plotly.v1+json": { data: [], layout: {} }, "text/html": "<div></div>", "text/plain": "Figure" });
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual([
      { data: { "application/vnd.plotly.v1+json": { data: [], layout: {} }, "text/html": "<div></div>", "text/plain": "Figure" }, metadata: {}, transient: {} },
      false,
    ]);
  });

  it("reads the display function at each send, so a display made in one cell writes to the running one", () => {
    const first: unknown[] = [];
    const second: unknown[] = [];
    jupyter.lastWriteDisplayData = (content) => first.push(content);
    const display = findKernelDisplay()!;
    jupyter.lastWriteDisplayData = (content) => second.push(content); // tslab sets it anew for each cell
    display.send({ "text/plain": "x" });
    expect(first).toHaveLength(0);
    expect(second).toHaveLength(1);
  });
});

describe("findKernelDisplay with stand-in modules", () => {
  const id = path.join("/opt", "global", "node_modules", "tslab", "dist", "jupyter.js");

  it("is undefined outside a kernel (no tslab/dist/jupyter.js loaded)", () => {
    expect(findKernelDisplay({ "/x/node_modules/other/index.js": { exports: {} } })).toBeUndefined();
  });

  it("uses the kernel's own tslab wherever it is installed (found in the module cache, not required by name)", () => {
    const sent: DisplayContent[] = [];
    const cache = { [id]: { exports: { lastWriteDisplayData: (c: DisplayContent) => sent.push(c) } } };
    findKernelDisplay(cache)!.send({ "text/plain": "hi", "text/html": "<i>hi</i>" });
    expect(sent).toEqual([{ data: { "text/plain": "hi", "text/html": "<i>hi</i>" }, metadata: {}, transient: {} }]);
  });

  it("falls back to tslab's public display.html (one type) for a tslab without the bundle path", () => {
    const html: string[] = [];
    const cache = { [id]: { exports: { somethingElse: true } } };
    const load = (file: string) => {
      expect(file).toBe(path.join(path.dirname(id), "public.js"));
      return { display: { html: (s: string) => html.push(s) } };
    };
    const display = findKernelDisplay(cache, load)!;
    expect(display.mode).toBe("html-only");
    display.send({ "text/html": "<p>chart</p>", "text/plain": "chart" });
    expect(html).toEqual(["<p>chart</p>"]);
  });
});
