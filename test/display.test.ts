/**
 * findKernelDisplay: one display_data message with a whole bundle, through the function tslab's own
 * display uses — checked against the real tslab module, and with stand-ins for the other cases.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  bundleChars,
  DenoSender,
  denoJupyter,
  DISPLAY_PAUSE_MS,
  PACE_FROM_CHARS,
  paceAfter,
  pauseAfter,
  kernelWatch,
  WIRE_TIMEOUT_MS,
  type DenoJupyter,
  type WireWait,
} from "../src/kernel/deno";
import { kernelIopub, type ProcessView } from "../src/kernel/deno-wire";
import { PLOTLY_PART_CHARS } from "../src/plot/plotly-parts";
import * as frames from "../src/frames";
import * as plot from "../src/plot";
import { PLOTLY_MIME } from "../src/plot/show";
import { simData, type SimData } from "./plot/sim-data";
import { findKernelDisplay, makeDisplayable, notebookLine, type MimeBundle } from "../src/kernel/display";
import { notebookSession } from "../src/kernel/session";
import {
  displayTslab,
  displayTslabDir,
  explainCellError,
  watchKernelCells,
  type DisplayContent,
  type TslabHandle,
} from "../src/kernel/tslab";
import { inspect } from "node:util";

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
    expect(calls[0]).toEqual([
      { data: { "text/html": "<b>one</b>" }, metadata: {}, transient: { display_id: undefined } },
      undefined,
    ]);
    // …and what we send: the same content shape, several types in `data`, one call.
    const display = findKernelDisplay();
    expect(display?.mode).toBe("bundle");
    display!.send({
      "application/vnd.plotly.v1+json": { data: [], layout: {} },
      "text/html": "<div></div>",
      "text/plain": "Figure",
    });
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual([
      {
        data: {
          "application/vnd.plotly.v1+json": { data: [], layout: {} },
          "text/html": "<div></div>",
          "text/plain": "Figure",
        },
        metadata: {},
        transient: {},
      },
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
  const handle = (jupyter: object, publicApi: () => unknown = () => undefined): TslabHandle =>
    ({ jupyter, publicApi }) as TslabHandle;

  it("is undefined without a tslab to display through", () => {
    expect(findKernelDisplay(undefined)).toBeUndefined();
  });

  it("sends through the tslab it is given (the kernel's own, wherever installed)", () => {
    const sent: DisplayContent[] = [];
    findKernelDisplay(handle({ lastWriteDisplayData: (c: DisplayContent) => sent.push(c) }))!.send({
      "text/plain": "hi",
      "text/html": "<i>hi</i>",
    });
    expect(sent).toEqual([{ data: { "text/plain": "hi", "text/html": "<i>hi</i>" }, metadata: {}, transient: {} }]);
  });

  it("falls back to tslab's public display.html (one type) for a tslab without the bundle path", () => {
    const html: string[] = [];
    const display = findKernelDisplay(
      handle({ somethingElse: true }, () => ({ display: { html: (s: string) => html.push(s) } })),
    )!;
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
    expect(displayTslabDir(path.join(global, "bin", "tslab"), path.join(project, "node_modules"))).toBe(
      realpathSync(localDist),
    );
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

describe("Deno's kernel (src/deno.ts), through a stand-in of Deno.jupyter", () => {
  type Sent = [MimeBundle, { raw: true; display_id?: string; update?: boolean }];
  const fakeDeno = (fail?: Error): DenoJupyter & { sent: Sent[] } => {
    const sent: Sent[] = [];
    return {
      sent,
      display: async (bundle, options) => {
        if (fail) throw fail;
        sent.push([bundle, options]);
      },
    };
  };

  it("is found only where Deno.jupyter is there: not under Node, not when its getter throws (outside `deno jupyter`)", () => {
    expect(denoJupyter()).toBeUndefined();
    expect(denoJupyter({})).toBeUndefined();
    const outside = {
      Deno: Object.defineProperty({}, "jupyter", {
        get() {
          throw new Error("Deno.jupyter is only available in `deno jupyter` subcommand.");
        },
      }),
    };
    expect(denoJupyter(outside)).toBeUndefined();
    expect(denoJupyter({ Deno: { jupyter: {} } })).toBeUndefined();
    const jupyter = fakeDeno();
    expect(denoJupyter({ Deno: { jupyter } })).toBe(jupyter);
  });

  it("sends whole bundles as raw display_data, in call order", async () => {
    const deno = fakeDeno();
    const display = findKernelDisplay(undefined, deno)!;
    expect(display).toMatchObject({ kernel: "deno", mode: "bundle" });
    display.send({ "text/html": "<b>1</b>", "text/plain": "1" });
    display.send({ "text/plain": "2" });
    await new Promise((r) => setTimeout(r, 10));
    expect(deno.sent).toEqual([
      [{ "text/html": "<b>1</b>", "text/plain": "1" }, { raw: true }],
      [{ "text/plain": "2" }, { raw: true }],
    ]);
  });

  it("updates a line in place: one display_id, shown once, then updated", async () => {
    const deno = fakeDeno();
    const line = notebookLine(findKernelDisplay(undefined, deno))!;
    line.text("poll 1");
    line.text("poll 2 · done");
    const other = notebookLine(findKernelDisplay(undefined, deno))!;
    other.text("another");
    await new Promise((r) => setTimeout(r, 10));
    const [first, second, third] = deno.sent;
    expect(first![0]).toEqual({ "text/plain": "poll 1" });
    expect(first![1]).toEqual({ raw: true, display_id: expect.stringMatching(/^rpl-line-/) });
    expect(second).toEqual([
      { "text/plain": "poll 2 · done" },
      { raw: true, display_id: first![1].display_id, update: true },
    ]);
    expect(third![1].display_id).not.toBe(first![1].display_id);
    expect(third![1].update).toBeUndefined();
  });

  it("uses broadcast when Deno has it (the send starts at once), then holds the cell until a probe after it is on the wire", () => {
    const messages: [string, Record<string, unknown>][] = [];
    const waits: number[] = [];
    const jupyter: DenoJupyter = {
      display: () => Promise.reject(new Error("display is the fallback only")),
      broadcast: (type, content) => (messages.push([type, content]), Promise.resolve()),
    };
    let probes = 0;
    const watch: WireWait = {
      waitFor(probe, timeoutMs) {
        waits.push(messages.length); // what was sent when the wait began
        probe(`probe-${++probes}`);
        expect(timeoutMs).toBe(WIRE_TIMEOUT_MS);
        return undefined;
      },
    };
    const sender = new DenoSender(jupyter, {
      watch: () => watch,
      pauseMs: () => expect.fail("no pause"),
      warn: expect.fail,
    });
    const part = { "text/html": "x".repeat(PLOTLY_PART_CHARS), "text/plain": "part" };
    void sender.send(part);
    void sender.send({ "text/plain": "line" }, { displayId: "d1", update: true });
    expect(messages).toEqual([
      ["display_data", { data: part, metadata: {}, transient: {} }],
      ["update_display_data", { data: {}, metadata: {}, transient: { display_id: "probe-1" } }],
      ["update_display_data", { data: { "text/plain": "line" }, metadata: {}, transient: { display_id: "d1" } }],
      ["update_display_data", { data: {}, metadata: {}, transient: { display_id: "probe-2" } }],
    ]);
    expect(waits).toEqual([1, 3]); // each wait right after its message, before the next one
  });

  it("without a wire watch, says why once and pauses after a display or a large message instead", () => {
    const messages: string[] = [];
    const pauses: number[] = [];
    const warnings: string[] = [];
    const jupyter: DenoJupyter = {
      display: () => Promise.reject(new Error("display is the fallback only")),
      broadcast: (type) => (messages.push(type), Promise.resolve()),
    };
    const options = {
      watch: () => "its command line names no connection file (--conn)",
      pauseMs: (ms: number) => void pauses.push(ms),
      warn: (why: string) => void warnings.push(why),
    };
    const sender = new DenoSender(jupyter, options);
    const part = { "text/html": "x".repeat(PLOTLY_PART_CHARS), "text/plain": "part" };
    void sender.send({ "text/plain": "small" });
    void sender.send(part);
    void sender.send({ "text/plain": "line" }, { displayId: "d1", update: true });
    expect(messages).toEqual(["display_data", "display_data", "update_display_data"]);
    expect(warnings[0]).toBe("its iopub cannot be watched: its command line names no connection file (--conn)");
    // A new display holds the cell back DISPLAY_PAUSE_MS at least; a small update not at all.
    expect(pauses).toEqual([DISPLAY_PAUSE_MS, Math.max(DISPLAY_PAUSE_MS, paceAfter(bundleChars(part))), 0]);
    expect(pauseAfter(PACE_FROM_CHARS, true)).toBe(paceAfter(PACE_FROM_CHARS));
    expect(paceAfter(PACE_FROM_CHARS - 1)).toBe(0);
    expect(paceAfter(bundleChars(part))).toBeGreaterThanOrEqual(3);
    expect(bundleChars({ a: "xy", b: { c: 1 } })).toBe(2 + '{"c":1}'.length);
    // a Deno without broadcast (before 1.37) cannot send a probe: paced, and said so
    const old = new DenoSender(fakeDeno(), options);
    void old.send({ "text/plain": "x" });
    expect(warnings[3]).toBe("this Deno has no Deno.jupyter.broadcast");
  });

  it("a watch that lost its connection, or timed out, is said; the send still goes and paces", () => {
    const warnings: string[] = [];
    const pauses: number[] = [];
    const jupyter: DenoJupyter = { display: () => Promise.resolve(), broadcast: () => Promise.resolve() };
    const watch: WireWait = { waitFor: () => "its iopub socket closed the connection" };
    const sender = new DenoSender(jupyter, {
      watch: () => watch,
      pauseMs: (ms) => void pauses.push(ms),
      warn: (why) => void warnings.push(why),
    });
    void sender.send({ "text/plain": "x" });
    expect(warnings).toEqual(["its iopub socket closed the connection"]);
    expect(pauses).toEqual([DISPLAY_PAUSE_MS]);
  });

  it("finds the kernel's iopub address from its command line (--conn) and connection file, or says why not", () => {
    const files: Record<string, string> = {
      "/run/k.json": JSON.stringify({ ip: "127.0.0.1", iopub_port: 5555, transport: "tcp", key: "s3cret" }),
      "/run/ipc.json": JSON.stringify({ ip: "k", iopub_port: 1, transport: "ipc" }),
      "/run/bad.json": "{",
      // A JSON error's message quotes the text near the fault: here the key.
      "/run/cut.json": '{"ip": "127.0.0.1", "iopub_port": 5, "key": a5d3c9e1}',
    };
    const view = (argv: string[] | undefined): ProcessView => ({
      argv: () => argv,
      readText: (file) => {
        if (!(file in files)) throw new Error(`ENOENT: ${file}`);
        return files[file]!;
      },
    });
    const deno = ["/x/deno", "jupyter", "--kernel"];
    expect(kernelIopub(view([...deno, "--conn", "/run/k.json"]))).toEqual({ ip: "127.0.0.1", port: 5555 });
    expect(kernelIopub(view([...deno, "--conn=/run/k.json"]))).toEqual({ ip: "127.0.0.1", port: 5555 });
    expect(kernelIopub(view(undefined))).toBe("its command line cannot be read");
    expect(kernelIopub(view(deno))).toBe("its command line names no connection file (--conn)");
    expect(kernelIopub(view([...deno, "--conn", "/run/gone.json"]))).toBe(
      "its connection file /run/gone.json cannot be read (ENOENT: /run/gone.json)",
    );
    expect(kernelIopub(view([...deno, "--conn", "/run/ipc.json"]))).toBe(
      'its connection file /run/ipc.json says transport "ipc", not tcp',
    );
    expect(kernelIopub(view([...deno, "--conn", "/run/bad.json"]))).toBe(
      "its connection file /run/bad.json cannot be read (not JSON)",
    );
    expect(kernelIopub(view([...deno, "--conn", "/run/cut.json"]))).not.toContain("a5d3c9e1");
    expect(kernelWatch(undefined)).toBe("this is not Deno");
  });

  it("reports a send the kernel refused on stderr, never as an unhandled rejection", async () => {
    const errors: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((m: string) => void errors.push(m));
    try {
      await new DenoSender(fakeDeno(new Error("iopub closed")), { warn: () => undefined }).send({ "text/plain": "x" });
    } finally {
      spy.mockRestore();
    }
    expect(errors).toEqual(["risk-portal-lab: Deno's kernel did not send a display (iopub closed)"]);
  });

  it("a tslab kernel wins over a Deno global (tslab is what runs the cells when it is there)", () => {
    const sent: DisplayContent[] = [];
    const tslab = {
      jupyter: { lastWriteDisplayData: (c: DisplayContent) => void sent.push(c) },
      publicApi: () => undefined,
    } as TslabHandle;
    expect(findKernelDisplay(tslab, fakeDeno())?.kernel).toBe("tslab");
  });
});

describe('Symbol.for("Jupyter.display") on figures, tables and DataFrames (a bare value as a cell\'s last expression in Deno)', () => {
  const JUPYTER = Symbol.for("Jupyter.display");
  const display = (value: object): MimeBundle => (value as Record<symbol, () => MimeBundle>)[JUPYTER]!();
  let d: SimData;
  let curve: frames.ColumnTable;
  beforeAll(async () => {
    d = await simData();
    curve = await d.curvesToday();
  });
  afterAll(() => d?.close());

  it("every figure builder's figure answers with show's bundle: plotly JSON, HTML, text", async () => {
    const figures = [
      plot.yieldCurve(curve),
      plot.curveHistory(await d.usdHistory()),
      plot.curveSurface(await d.usdHistory()),
      plot.volSmiles(await d.grid()),
      plot.volSurface(await d.grid()),
      plot.crossCheckHeatmap(await d.check()),
      plot.reportStatus(await d.reports()),
      plot.transactions(await d.trades()),
      plot.positionEffects(await d.effects()),
    ];
    for (const f of figures) expect(Object.keys(display(f))).toEqual([PLOTLY_MIME, "text/html", "text/plain"]);
    plot.resetPlotlyEmbed();
    const fig = plot.yieldCurve(curve);
    const bundle = display(fig);
    expect(Object.keys(bundle)).toEqual([PLOTLY_MIME, "text/html", "text/plain"]);
    expect(bundle["text/plain"]).toBe(plot.figureSummary(fig));
    // plotly.js goes in parts to the kernel display, before the figure: no kernel here, none in the bundle.
    expect(bundle["text/html"]).not.toContain("embedded by risk-portal-lab (offline)");
    expect(bundle["text/html"]).toContain("Plotly.newPlot(");
  });

  it("is invisible to JSON, keys and equality (the figure stays plain plotly data)", () => {
    const fig = plot.yieldCurve(curve);
    expect(Object.keys(fig)).toEqual(["data", "layout", "config"]);
    expect(JSON.parse(JSON.stringify(fig))).toEqual(fig);
    expect({ ...fig }).toEqual(fig);
    expect(Object.getOwnPropertyDescriptor(fig, JUPYTER)?.enumerable).toBe(false);
  });

  it("tables and DataFrames (any danfo frame, derived ones too) answer with the table view", () => {
    const bundle = display(curve);
    expect(Object.keys(bundle)).toEqual(["text/html", "text/plain"]);
    expect(bundle["text/plain"]).toMatch(new RegExp(`^ColumnTable · ${curve.rowCount} rows`));
    const df = frames.toDataFrame(curve);
    expect(display(df)["text/plain"]).toMatch(new RegExp(`^DataFrame · ${curve.rowCount} rows`));
    expect(display(df.head(3))["text/plain"]).toMatch(/^DataFrame · 3 rows/);
  });

  it("a danfo Series (a column, a sorted one, describe() of a column) answers with the table view, not danfo's text", () => {
    const df = frames.toDataFrame(curve);
    const column = df.columns.find((c, i) => df.dtypes[i] === "float64")!;
    const series = df[column] as unknown as object;
    expect(display(series)["text/plain"]).toMatch(new RegExp(`^Series · ${curve.rowCount} rows`));
    expect(display(series)["text/html"]).toContain("<table");
    const sorted = (df[column] as unknown as { sortValues(o: object): object }).sortValues({ ascending: false });
    expect(display(sorted)["text/plain"]).toMatch(/^Series · /);
  });

  it("keeps a method a value already has", () => {
    const own = () => ({ "text/plain": "mine" });
    const value = makeDisplayable({ [JUPYTER]: own });
    expect(value[JUPYTER]).toBe(own);
  });
});

describe("util.inspect of figures, tables and DataFrames (tslab prints a cell's last value with console.log)", () => {
  const jupyter = nodeRequire(path.join(TSLAB_DIST, "jupyter.js")) as TslabJupyter;
  /** A stand-in for tslab's executor: a file at …/tslab/dist/executor.js printing a value as it does. */
  const fakeDir = mkdtempSync(path.join(tmpdir(), "rpl-executor-"));
  const executorFile = path.join(fakeDir, "tslab", "dist", "executor.js");
  mkdirSync(path.dirname(executorFile), { recursive: true });
  writeFileSync(
    executorFile,
    'const { Console } = require("node:console");\nmodule.exports = (value) => new Console(process.stdout).log(value);\n',
  );
  const printResult = nodeRequire(executorFile) as (value: unknown) => void;
  let d: SimData;
  let curve: frames.ColumnTable;
  const sent: MimeBundle[] = [];
  let written = "";
  const realWrite = process.stdout.write;
  beforeAll(async () => {
    d = await simData();
    curve = await d.curvesToday();
  });
  afterAll(async () => {
    await d?.close();
    rmSync(fakeDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    sent.length = 0;
    written = "";
    notebookSession().tslabDir = TSLAB_DIST;
    jupyter.lastWriteDisplayData = (content) => sent.push(content.data);
  });
  afterEach(() => {
    jupyter.lastWriteDisplayData = null;
    notebookSession().tslabDir = undefined;
    process.stdout.write = realWrite;
  });
  /** Runs `print` with stdout captured; the captured text. */
  const stdoutOf = async (print: () => void): Promise<string> => {
    process.stdout.write = (chunk: string) => ((written += chunk), true);
    print();
    await Promise.resolve();
    process.stdout.write = realWrite;
    return written;
  };

  it("as tslab's printed last value: displayed as plot.show shows it, and no text printed", async () => {
    const df = frames.toDataFrame(curve);
    expect(await stdoutOf(() => printResult(df))).toBe("");
    expect(sent).toHaveLength(1);
    expect(sent[0]!["text/html"]).toContain("<table");
    expect(sent[0]!["text/plain"]).toMatch(/^DataFrame · \d+ rows/);
    sent.length = 0;
    plot.resetPlotlyEmbed();
    expect(await stdoutOf(() => printResult(plot.yieldCurve(curve)))).toBe("");
    expect(sent[0]![PLOTLY_MIME]).toBeDefined();
    expect(sent.length).toBeGreaterThan(1); // plotly.js in parts after the session's first chart
    sent.length = 0;
    expect(await stdoutOf(() => printResult(curve))).toBe("");
    expect(sent.map((b) => b["text/plain"])).toEqual([expect.stringMatching(/^ColumnTable · /)]);
  });

  it("anywhere else under tslab (a cell's own console.log, inside an array): one line saying what it is and how to show it", async () => {
    const df = frames.toDataFrame(curve);
    const line = `DataFrame · ${curve.rowCount} rows × ${df.columns.length} columns · from RateAsset — write plot.show(…) to see it as a table`;
    expect(inspect(df)).toBe(line);
    expect(await stdoutOf(() => printResult([df]))).toBe(`[\n  ${line}\n]\n`);
    expect(inspect(plot.yieldCurve(curve))).toMatch(
      /^Figure "Zero curves · .*" \(\d+ traces?: scatter.*\) — write plot\.show\(…\) to see it as a chart$/,
    );
    expect(sent).toEqual([]);
  });

  it("outside tslab: Node's own inspection of the value's fields, as before", () => {
    notebookSession().tslabDir = undefined;
    const fig = plot.yieldCurve(curve);
    expect(inspect(fig)).toBe(inspect({ ...fig }));
    expect(inspect(frames.toDataFrame(curve))).toMatch(/^DataFrame \{/);
  });
});

describe("explainCellError: the shorthand property tslab does not carry across cells", () => {
  const notDefined = (name: string) => {
    try {
      // A variable no scope declares, as tslab's rewritten cell reads it.
      new Function(`return { ${name} };`)();
    } catch (error) {
      return error as ReferenceError;
    }
    throw new Error("no ReferenceError");
  };
  const HINT =
    "surface is not defined: `surface` is from an earlier cell, and tslab does not carry a shorthand property `{ surface }` across cells; write `{ surface: surface }`";

  it("names the earlier cell's variable and what to write instead, in the message and the stack", () => {
    const error = notDefined("surface");
    expect(explainCellError(error, "const book = { surface };", { surface: 1 })).toBe(error);
    expect(error.message).toBe(HINT);
    expect(error.stack!.split("\n")[0]).toBe(`ReferenceError: ${HINT}`);
    const second = notDefined("surface");
    explainCellError(second, "const book = { when: 1, surface, other };", { surface: 1 });
    expect(second.message).toBe(HINT);
  });

  it("leaves other errors alone: a name no earlier cell declared, no shorthand use, another error", () => {
    for (const [error, code, values] of [
      [notDefined("surface"), "const book = { surface };", { other: 1 }],
      [notDefined("surface"), "surface.points", { surface: 1 }],
      [new TypeError("surface is not defined"), "{ surface }", { surface: 1 }],
    ] as const) {
      const message = error.message;
      explainCellError(error, code, values);
      expect(error.message).toBe(message);
    }
  });

  it("watches cells only in a tslab kernel (its main module is tslab's)", () => {
    expect(watchKernelCells(path.join(tmpdir(), "not-tslab.js"))).toBe(false);
    expect(watchKernelCells(undefined)).toBe(false);
  });
});
