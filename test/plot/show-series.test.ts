/**
 * plot.show(series): a danfo Series (a column of a frame the adapters return, what `describe()` returns)
 * shows as a table — its index and values, the name as the column — through the same path a notebook
 * kernel takes (`showWith` with a kernel display: the bundle `show` sends), as an HTML page outside a
 * kernel, and `df.describe()` (a DataFrame in danfo 1.2) with its statistic names as the index.
 * Before: `show` refused a Series ("show expects a plotly figure …, a danfo DataFrame, …").
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DataFrame } from "../../vendor/danfo";
import type { KernelDisplay, MimeBundle } from "../../src/kernel/display";
import * as frames from "../../src/frames";
import { show, tableHtml, tableText } from "../../src/plot";
import { isSeries, type SeriesLike } from "../../src/plot/input";
import { showWith } from "../../src/plot/show";
import { simData, type SimData } from "./sim-data";

function recorder(): KernelDisplay & { sent: MimeBundle[] } {
  const sent: MimeBundle[] = [];
  return { kernel: "tslab", mode: "bundle", sent, send: (b) => void sent.push(b), line: () => undefined };
}

let d: SimData;
let df: DataFrame;
let notional: number[];
beforeAll(async () => {
  d = await simData();
  const table = await d.trades();
  df = frames.toDataFrame(table);
  notional = table.data.notional as number[];
});
afterAll(() => d.close());

/** `df[name]`, a danfo Series. */
const column = (name: string) => (df as unknown as Record<string, SeriesLike>)[name]!;

describe("plot.show(series)", () => {
  it("sends one bundle, an HTML and a text table of the Series' index and values, in a kernel", () => {
    const series = column("notional");
    expect(isSeries(series)).toBe(true);
    expect(isSeries(df)).toBe(false);
    const display = recorder();
    expect(showWith(display, series, { rows: 3 }).displayId).toMatch(/^rpl-show-/);
    expect(display.sent).toHaveLength(1);
    const bundle = display.sent[0]!;
    expect(Object.keys(bundle).sort()).toEqual(["text/html", "text/plain"]);
    const html = bundle["text/html"] as string;
    const n = notional.length;
    expect(html).toContain(
      `<b>Series</b> · ${n.toLocaleString("en-US")} rows <span class="rpl-muted">· first 3 and last 3 rows</span>`,
    );
    expect(html).toContain('<tr><th class="rpl-index"></th><th>notional</th></tr>');
    expect(html).toContain('<tr class="rpl-types"><th class="rpl-index"></th><th>number</th></tr>');
    const rows = [
      ...html.matchAll(/<tr><td class="rpl-index">([\d,]+)<\/td><td(?: class="[^"]*")?>([^<]*)<\/td><\/tr>/g),
    ].map((m) => [m[1], m[2]]);
    const at = (i: number) => [plainNumber(i), plainNumber(notional[i]!)];
    expect(rows).toEqual([at(0), at(1), at(2), at(n - 3), at(n - 2), at(n - 1)]);
    const text = (bundle["text/plain"] as string).split("\n");
    expect(text[0]).toBe(`Series · ${n.toLocaleString("en-US")} rows`);
    expect(text[1]).toMatch(/^\s+notional$/);
    expect(text).toHaveLength(3 + 6 + 1);
  });

  it("shows a Series with labels for its index: a sorted, filtered column keeps its row labels", () => {
    const big = (df as unknown as { query(mask: unknown): DataFrame }).query(
      (column("notional") as unknown as { gt(x: number): unknown }).gt(0),
    );
    const s = (big as unknown as Record<string, SeriesLike>)["notional"]!;
    const text = tableText(s, 2).split("\n");
    const index = Array.from(s.index as ArrayLike<number>);
    expect(text[3]).toMatch(new RegExp(`^\\s*${index[0]}\\s`));
    expect(text.at(-1)).toMatch(new RegExp(`^\\s*${index.at(-1)!.toLocaleString("en-US")}\\s`));
  });

  it("shows what describe() returns: a DataFrame of statistics by column, a Series of one column's", () => {
    const stats = (df.loc({ columns: ["quantity", "notional"] }) as unknown as { describe(): DataFrame }).describe();
    const display = recorder();
    showWith(display, stats);
    const html = display.sent[0]!["text/html"] as string;
    expect(html).toContain("<b>DataFrame</b> · 7 rows × 2 columns");
    for (const label of ["count", "mean", "std", "min", "median", "max", "variance"])
      expect(html).toContain(`<td class="rpl-index">${label}</td>`);
    const one = (column("notional") as unknown as { describe(): SeriesLike }).describe();
    expect(isSeries(one)).toBe(true);
    showWith(display, one);
    const text = display.sent[1]!["text/plain"] as string;
    expect(text.split("\n")[0]).toBe("Series · 7 rows");
    const count = notional.filter((v) => !Number.isNaN(v)).length;
    expect(text).toMatch(new RegExp(`\\n\\s*count\\s+${count.toLocaleString("en-US")}\\n`));
    expect(tableHtml(one)).toContain('<td class="rpl-index">mean</td>');
  });

  it("outside a kernel writes the Series as an HTML page", () => {
    const outDir = mkdtempSync(path.join(tmpdir(), "rpl-series-"));
    try {
      vi.spyOn(console, "log").mockImplementation(() => undefined);
      const file = show(column("counterparty"), { outDir }).file!;
      expect(readFileSync(file, "utf8")).toContain('<tr><th class="rpl-index"></th><th>counterparty</th></tr>');
    } finally {
      vi.restoreAllMocks();
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});

/** A number as the table writes it (`cellText`): the shortest round-trip text, integer digits grouped. */
function plainNumber(v: number): string {
  const [whole, fraction] = String(v).split(".");
  return `${whole!.replace(/\B(?=(\d{3})+$)/g, ",")}${fraction === undefined ? "" : `.${fraction}`}`;
}
