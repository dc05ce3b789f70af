/**
 * Every valid nbformat 4 file reads as the same notebook: text as one string or as a list of lines (as
 * nbformat saves it), `execution_count: null` (tslab sends no count under Jupyter), keys in any order,
 * minor versions 4.0–4.5, cell ids or none. The fixtures are one small notebook run headless and under
 * `jupyter nbconvert --execute` (made by fixtures/make-fixtures.sh, so no Jupyter is needed here);
 * test/notebook/notebooks.test.ts compares the showcase notebooks run by the real nbconvert with their headless runs.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeNotebook, parseNotebook, type Notebook } from "../../src/notebook/ipynb";
import { diffNotebookFiles, diffNotebooks } from "../../src/notebook/diff";
import { renderHtml } from "../../src/notebook/render-html";

const fixture = (name: string) => path.join(__dirname, "fixtures", name);
const HEADLESS = fixture("headless.ipynb");
const JUPYTER = fixture("jupyter.ipynb");
const JUPYTER_40 = fixture("jupyter-4.0.ipynb");
const raw = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Notebook;

describe("the fixtures are what nbformat and nbconvert write", () => {
  it("jupyter.ipynb holds text as lists of lines and no execution counts; headless.ipynb one string and counts", () => {
    const j = raw(JUPYTER);
    const code = j.cells.filter((c) => c.cell_type === "code");
    expect(code.every((c) => c.execution_count === null)).toBe(true);
    expect(code.every((c) => (c.metadata.execution as Record<string, string>)["shell.execute_reply"])).toBe(true);
    const outputs = code.flatMap((c) => c.outputs ?? []) as unknown as Record<string, unknown>[];
    expect(outputs.filter((o) => o.output_type === "stream").every((o) => Array.isArray(o.text))).toBe(true);
    const bundles = outputs.filter((o) => o.data).map((o) => o.data as Record<string, unknown>);
    expect(bundles.every((d) => Array.isArray(d["text/plain"]))).toBe(true);
    expect(Object.keys(outputs[0]!)).toEqual(["name", "output_type", "text"]);
    const h = raw(HEADLESS);
    expect(h.cells.filter((c) => c.cell_type === "code").every((c) => typeof c.execution_count === "number")).toBe(
      true,
    );
    expect(raw(JUPYTER_40)).toMatchObject({ nbformat: 4, nbformat_minor: 0 });
    expect(raw(JUPYTER_40).cells.some((c) => c.id !== undefined)).toBe(false);
  });
});

describe("risk-portal-lab diff of a headless run and the same notebook run by nbconvert", () => {
  for (const [name, other] of [
    ["nbformat 4.5, with cell ids and nbclient's timings", JUPYTER],
    ["nbformat 4.0, no cell ids, no timings", JUPYTER_40],
  ] as const)
    it(`shows no change, both ways (${name})`, async () => {
      for (const [a, b] of [
        [HEADLESS, other],
        [other, HEADLESS],
      ] as const) {
        const d = await diffNotebookFiles(a, b);
        expect(d.cells, JSON.stringify(d.cells).slice(0, 2000)).toEqual([]);
        expect(d.summary).toBe(`${path.basename(b, ".ipynb")}: no change in 7 code cells (tolerance 1e-9)`);
        expect(d.changed).toBe(false);
      }
    });

  it("still finds a number that moved in a list-form line, and names the line as printed", async () => {
    const moved = raw(JUPYTER);
    const cell = moved.cells.find((c) => c.id === "nbf-setup")!;
    const stream = cell.outputs![0] as unknown as { text: string[] };
    const at = stream.text.findIndex((l) => l.startsWith("USD DEPO 1M:"));
    stream.text[at] = stream.text[at]!.replace(
      /(\d\.\d{4})%/,
      (_m, v: string) => `${(Number(v) + 0.0001).toFixed(4)}%`,
    );
    const d = diffNotebooks(parseNotebook(readFileSync(HEADLESS, "utf8"), "headless.ipynb"), moved);
    expect(d.cells.map((c) => c.id)).toEqual(["nbf-setup"]);
    expect(d.cells[0]!.texts).toEqual([
      {
        channel: "stdout",
        diff: {
          changes: [
            {
              kind: "changed",
              before: expect.stringMatching(/^USD DEPO 1M: \d\.\d{4}%$/),
              after: stream.text[at].replace("\n", ""),
              move: expect.closeTo(0.0001, 12),
            },
          ],
          linesBefore: 5,
          linesAfter: 5,
        },
      },
    ]);
  });

  it("counts a cell without outputs as run only when the other run says it ran and this one says it did not", () => {
    const headless = raw(HEADLESS);
    const failed = raw(JUPYTER);
    const close = failed.cells.find((c) => c.id === "nbf-close")!;
    delete close.metadata.execution; // nbclient never got to it
    const d = diffNotebooks(headless, failed);
    expect(d.cells.map((c) => [c.id, c.ran])).toEqual([["nbf-close", "before only"]]);
    expect(d.summary).toBe("after: 1 of 7 code cells changed (1 ran in one run only)");
  });

  it("compares a display_data and an execute_result carrying the same bundle as the same", () => {
    const a = raw(HEADLESS);
    const b = raw(HEADLESS);
    const result = b.cells.find((c) => c.id === "nbf-result")!.outputs![0]!;
    b.cells.find((c) => c.id === "nbf-result")!.outputs = [
      { output_type: "display_data", data: (result as { data: Record<string, unknown> }).data, metadata: {} },
    ];
    expect(diffNotebooks(a, b).changed).toBe(false);
  });
});

describe("normalizeNotebook: the one reader of nbformat's multiline text", () => {
  it("joins every list of lines nbformat allows (source, stream text, text and image mime types), leaves JSON mime types alone", () => {
    const nb = {
      nbformat: 4,
      nbformat_minor: 4,
      metadata: {},
      cells: [
        { cell_type: "markdown", metadata: {}, source: ["# A\n", "b"] },
        {
          cell_type: "code",
          metadata: {},
          source: ["x\n", "y"],
          execution_count: null,
          outputs: [
            { output_type: "stream", name: "stdout", text: ["1\n", "2\n"] },
            {
              output_type: "display_data",
              metadata: {},
              data: {
                "text/plain": ["a\n", "b"],
                "text/html": ["<b>\n", "</b>"],
                "image/svg+xml": ["<svg>\n", "</svg>"],
                "application/json": ["kept", "as a list"],
                "application/vnd.plotly.v1+json": { data: [{ x: ["a\n", "b"] }] },
              },
            },
            { output_type: "error", ename: "E", evalue: "v", traceback: ["line 1", "line 2"] },
          ],
        },
      ],
    } as unknown as Notebook;
    const before = JSON.stringify(nb);
    const n = normalizeNotebook(nb);
    expect(JSON.stringify(nb)).toBe(before); // the input is left as it was
    expect(n.cells[0]!.source).toBe("# A\nb");
    const code = n.cells[1]!;
    expect(code.source).toBe("x\ny");
    expect(code.outputs).toEqual([
      { output_type: "stream", name: "stdout", text: "1\n2\n" },
      {
        output_type: "display_data",
        metadata: {},
        data: {
          "text/plain": "a\nb",
          "text/html": "<b>\n</b>",
          "image/svg+xml": "<svg>\n</svg>",
          "application/json": ["kept", "as a list"],
          "application/vnd.plotly.v1+json": { data: [{ x: ["a\n", "b"] }] },
        },
      },
      { output_type: "error", ename: "E", evalue: "v", traceback: ["line 1", "line 2"] },
    ]);
    expect(normalizeNotebook(n)).toEqual(n);
  });

  it("parseNotebook reads with it, and the HTML rendering shows list-form text as the runner's own", () => {
    const j = parseNotebook(readFileSync(JUPYTER, "utf8"), "jupyter.ipynb");
    const stream = j.cells.find((c) => c.id === "nbf-setup")!.outputs![0] as { text: unknown };
    expect(stream.text).toMatch(/^USD curve on 2026-11-20: \d+ points\nUSD DEPO 1W: /);
    const pre = (html: string) => [...html.matchAll(/<pre class="stdout">([^<]*)<\/pre>/g)].map((m) => m[1]);
    // The chart left out: the rendering loads the plot module only where a chart is (as the built package does).
    const render = (nb: Notebook) =>
      pre(renderHtml({ ...nb, cells: nb.cells.filter((c) => c.id !== "nbf-chart") }, { title: "t" }));
    const fromJupyter = render(raw(JUPYTER));
    expect(fromJupyter.slice(0, -1).join("")).not.toContain(",");
    // The headless run shows the cell's value as a result, nbconvert's tslab prints it: the rest is the same.
    expect(fromJupyter.slice(0, -1)).toEqual(render(raw(HEADLESS)));
  });
});
