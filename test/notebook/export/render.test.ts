/**
 * The notebook HTML (the runner's page and `export`): Markdown cells through markdown-it with raw HTML
 * escaped and unsafe links refused, and tracebacks' ANSI colours as spans.
 */
import { describe, expect, it } from "vitest";
import { renderHtml } from "../../../src/notebook/render-html";
import type { Notebook } from "../../../src/notebook/ipynb";

const ESC = String.fromCharCode(27);

function notebook(markdown: string, outputs: unknown[] = []): Notebook {
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      { cell_type: "markdown", metadata: {}, source: markdown },
      { cell_type: "code", metadata: {}, source: "1", execution_count: 1, outputs },
    ],
  } as unknown as Notebook;
}

/** The page without its own <style> (the stylesheet is the renderer's, not the notebook's). */
const body = (html: string) => html.replace(/<style>[\s\S]*?<\/style>/g, "");

describe("notebook markdown", () => {
  it("renders pipe tables, block quotes, images, code and math as text", () => {
    const md = [
      "# Rates",
      "",
      "| tenor | rate |",
      "|---|---:|",
      "| 1Y | 3.1% |",
      "",
      "> a quote",
      "",
      "![curve](https://example.com/c.png)",
      "",
      "```ts",
      "const a = 1 < 2;",
      "```",
      "",
      "The price is $e^{-r_1 t_2} * S$ today.",
    ].join("\n");
    const html = body(renderHtml(notebook(md), { title: "t" }));
    expect(html).toContain("<h1>Rates</h1>");
    expect(html).toMatch(/<table>[\s\S]*<td>1Y<\/td>[\s\S]*<td style="text-align:right">3.1%<\/td>/);
    expect(html).toMatch(/<blockquote>\s*<p>a quote<\/p>\s*<\/blockquote>/);
    expect(html).toContain('<img src="https://example.com/c.png" alt="curve">');
    expect(html).toContain("const a = 1 &lt; 2;");
    // Math kept as its TeX text: no emphasis made of its `_` and `*`.
    expect(html).toContain('<span class="math">$e^{-r_1 t_2} * S$</span>');
  });

  it("runs no script and links no javascript: from a markdown cell", () => {
    const md = [
      "# Hostile",
      "",
      "<script>alert(1)</script>",
      "",
      '<img src=x onerror="alert(2)">',
      "",
      "[click](javascript:alert(3)) [data](data:text/html,<script>alert(4)</script>) [ok](https://example.com/a)",
      "",
      '<a href="javascript:alert(5)">raw</a> ![i](javascript:alert(6))',
    ].join("\n");
    const html = body(renderHtml(notebook(md), { title: "t" }));
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img[^>]*onerror/i);
    expect(html).not.toMatch(/<a [^>]*href="(javascript|data):/i);
    expect(html).not.toMatch(/src="javascript:/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain('<a href="https://example.com/a">ok</a>');
  });
});

describe("tracebacks", () => {
  it("turns ANSI colours into spans and leaves no escape code as text", () => {
    const traceback = [
      `${ESC}[31mError${ESC}[0m: ${ESC}[1mboom${ESC}[22m <b>`,
      `    at ${ESC}[36mmain${ESC}[39m (${ESC}[38;5;208mfile.ts${ESC}[0m) ${ESC}[38;2;10;20;30mrgb${ESC}[0m${ESC}[2K`,
    ];
    const stream = { output_type: "stream", name: "stderr", text: `${ESC}[33mwarn${ESC}[0m\n` };
    const error = { output_type: "error", ename: "Error", evalue: "boom", traceback };
    const html = body(renderHtml(notebook("# T", [stream, error]), { title: "t" }));
    expect(html).not.toContain(ESC);
    expect(html).not.toMatch(/&#0*27;|&#x0*1b;|\\u001b|\[\d+(;\d+)*m/i);
    expect(html).toContain('<span class="ansi-red">Error</span>');
    expect(html).toContain('<span class="ansi-bold">boom</span> &lt;b&gt;');
    expect(html).toContain('<span class="ansi-cyan">main</span>');
    expect(html).toContain('<span style="color:#ff8700">file.ts</span>');
    expect(html).toContain('<span style="color:rgb(10,20,30)">rgb</span>');
    expect(html).toContain('<span class="ansi-yellow">warn</span>');
  });
});
