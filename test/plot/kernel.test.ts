/**
 * findKernelDisplay: one display_data message with a whole bundle, through the function tslab's own
 * display uses — checked against the real tslab module, and with stand-ins for the other cases.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findKernelDisplay, type DisplayContent } from "../../src/plot/kernel";
import { notebookSession } from "../../src/session";
import { displayTslab, displayTslabDir, type TslabHandle } from "../../src/tslab";

const nodeRequire = createRequire(__filename);
const TSLAB_DIST = path.dirname(nodeRequire.resolve("tslab/dist/jupyter.js"));

interface TslabJupyter {
  lastWriteDisplayData: ((content: DisplayContent, update: boolean) => void) | null;
}

describe("findKernelDisplay with the real tslab, registered with the session as the runner does", () => {
  const jupyter = nodeRequire(path.join(TSLAB_DIST, "jupyter.js")) as TslabJupyter;
  beforeEach(() => {
    notebookSession().tslabDir = TSLAB_DIST;
  });
  afterEach(() => {
    jupyter.lastWriteDisplayData = null;
    notebookSession().tslabDir = undefined;
  });

  it("finds nothing in a plain process: no tslab registered, and the main module is not tslab's", () => {
    notebookSession().tslabDir = undefined;
    jupyter.lastWriteDisplayData = () => undefined;
    expect(findKernelDisplay()).toBeUndefined();
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
  const handle = (jupyter: object, publicApi: () => unknown = () => undefined): TslabHandle => ({ jupyter, publicApi }) as TslabHandle;

  it("is undefined without a tslab to display through", () => {
    expect(findKernelDisplay(undefined)).toBeUndefined();
  });

  it("sends through the tslab it is given (the kernel's own, wherever installed)", () => {
    const sent: DisplayContent[] = [];
    findKernelDisplay(handle({ lastWriteDisplayData: (c: DisplayContent) => sent.push(c) }))!.send({ "text/plain": "hi", "text/html": "<i>hi</i>" });
    expect(sent).toEqual([{ data: { "text/plain": "hi", "text/html": "<i>hi</i>" }, metadata: {}, transient: {} }]);
  });

  it("falls back to tslab's public display.html (one type) for a tslab without the bundle path", () => {
    const html: string[] = [];
    const display = findKernelDisplay(handle({ somethingElse: true }, () => ({ display: { html: (s: string) => html.push(s) } })))!;
    expect(display.mode).toBe("html-only");
    display.send({ "text/html": "<p>chart</p>", "text/plain": "chart" });
    expect(html).toEqual(["<p>chart</p>"]);
  });
});

describe("which tslab (src/tslab.ts)", () => {
  const trees: string[] = [];
  /** A temporary directory with no tslab installed in it or above it. */
  const tempTree = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rpl-tslab-"));
    trees.push(dir);
    return dir;
  };
  afterEach(() => {
    notebookSession().tslabDir = undefined;
    for (const dir of trees.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const global = path.join("/opt", "global", "node_modules", "tslab");

  it("in a kernel, the kernel's own: the main module is tslab's bin (or dist/main.js), wherever it is installed", () => {
    const noLocal = tempTree();
    expect(displayTslabDir(path.join(global, "bin", "tslab"), noLocal)).toBe(path.join(global, "dist"));
    expect(displayTslabDir(path.join(global, "dist", "main.js"), noLocal)).toBe(path.join(global, "dist"));
    expect(displayTslabDir("/work/node_modules/vitest/dist/worker.js", noLocal)).toBeUndefined();
    expect(displayTslabDir(undefined, noLocal)).toBeUndefined();
  });

  it("a kernel started from one tslab (a global install) runs the tslab installed nearest the notebook: that one displays", () => {
    // tslab's kernel hands over to `node_modules/tslab` found walking up from its directory (its findLocalStartKernel).
    const project = tempTree();
    const localDist = path.join(project, "node_modules", "tslab", "dist");
    mkdirSync(localDist, { recursive: true });
    writeFileSync(path.join(localDist, "main.js"), "");
    const notebooks = path.join(project, "notebooks");
    mkdirSync(notebooks);
    expect(displayTslabDir(path.join(global, "bin", "tslab"), notebooks)).toBe(realpathSync(localDist));
    expect(displayTslabDir(path.join(global, "bin", "tslab"), project)).toBe(realpathSync(localDist));
    // A directory named node_modules is not a project (as tslab skips it).
    expect(displayTslabDir(path.join(global, "bin", "tslab"), path.join(project, "node_modules"))).toBe(realpathSync(localDist));
    // Not a kernel: no tslab, whatever is installed.
    expect(displayTslabDir("/work/node_modules/vitest/dist/worker.js", notebooks)).toBeUndefined();
  });

  it("under the runner, the tslab it registered with the session, whatever the main module", () => {
    notebookSession().tslabDir = TSLAB_DIST;
    expect(displayTslabDir("/work/node_modules/vitest/dist/worker.js")).toBe(TSLAB_DIST);
    expect(displayTslabDir(path.join(global, "bin", "tslab"))).toBe(TSLAB_DIST);
  });

  it("loads that install's jupyter module by its path (the instance the kernel loaded), and its public module only when asked", () => {
    const loaded: string[] = [];
    const tslab = displayTslab(path.join(global, "dist"), (file) => (loaded.push(file), { file }))!;
    expect(loaded).toEqual([path.join(global, "dist", "jupyter.js")]);
    expect(tslab.publicApi()).toEqual({ file: path.join(global, "dist", "public.js") });
    expect(
      displayTslab(path.join(global, "dist"), () => {
        throw new Error("not there");
      }),
    ).toBeUndefined();
    expect(displayTslab(undefined)).toBeUndefined();
  });

  it("requiring the real tslab's files by path gives the very instances a kernel (or the runner) loaded", () => {
    const viaName = nodeRequire("tslab/dist/jupyter") as object;
    expect(displayTslab(TSLAB_DIST)!.jupyter).toBe(viaName);
  });
});
