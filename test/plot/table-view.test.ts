/** Tables in notebooks: shape, column types, head and tail, as HTML and text. */
import { describe, expect, it } from "vitest";
import { canonicalRequest } from "../../src/record/canonical";
import { attachProvenance, formatProvenance, type Provenance } from "../../src/client/provenance";
import * as frames from "../../src/frames";
import { tableHtml, tableText } from "../../src/plot";
import { cellText } from "../../src/plot/table-view";

function table(n: number): frames.ColumnTable {
  return {
    columns: ["market_date", "status", "rate"],
    data: {
      market_date: Array.from({ length: n }, (_, i) => new Date(Date.UTC(2026, 10, 1 + i))),
      status: Array.from({ length: n }, (_, i) => (i % 3 === 0 ? "failed" : "succeeded")),
      rate: Array.from({ length: n }, (_, i) => (i === 1 ? NaN : 0.04 + i / 10_000)),
    },
    kinds: { market_date: "date", status: "category", rate: "number" },
    rowCount: n,
    meta: {
      source: "GetReportInfos",
      categories: { status: ["succeeded", "failed"] },
      missing: { rate: 1 },
      warnings: [{ message: "one warning" }],
      fields: {},
      provenance: [],
    },
  };
}

describe("tableHtml", () => {
  it("captions the shape and source, and heads the columns with their types", () => {
    const html = tableHtml(table(12));
    expect(html).toContain(
      '<b>ColumnTable</b> · 12 rows × 3 columns <span class="rpl-muted">· from GetReportInfos</span>',
    );
    expect(html).toContain('<tr><th class="rpl-index"></th><th>market_date</th><th>status</th><th>rate</th></tr>');
    expect(html).toContain(
      '<tr class="rpl-types"><th class="rpl-index"></th><th>date</th><th>category</th><th>number</th></tr>',
    );
    expect(html).toContain("<summary>1 warning</summary>");
  });

  it("shows the first and last rows around an elision mark, all rows when few", () => {
    const html = tableHtml(table(12), 2);
    const rows = [...html.matchAll(/<tr><td class="rpl-index">(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(rows).toEqual([0, 1, 10, 11]);
    expect(html).toContain('<tr class="rpl-gap">');
    const all = [...tableHtml(table(4), 2).matchAll(/<tr><td class="rpl-index">(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(all).toEqual([0, 1, 2, 3]);
    expect(tableHtml(table(4), 2)).not.toContain('<tr class="rpl-gap">');
  });

  it("writes dates as days, missing values faintly, and escapes text", () => {
    const t = table(3);
    t.data.status![2] = "<b>x</b>";
    const html = tableHtml(t);
    expect(html).toContain('<td class="rpl-text">2026-11-01</td>');
    expect(html).toContain('<td class="rpl-na">NaN</td>');
    expect(html).toContain("&lt;b&gt;x&lt;/b&gt;");
  });

  it("shows a danfo DataFrame with its dtypes, reading only the rows shown", () => {
    const df = frames.toDataFrame(table(30));
    const html = tableHtml(df);
    expect(html).toContain("<b>DataFrame</b> · 30 rows × 3 columns");
    // danfo calls every number column float32; its values are JavaScript doubles: named as what they are.
    expect(html).toContain("<th>date</th><th>category</th><th>number</th>");
    expect(html).not.toContain("float32");
    expect(html).toContain('<td class="rpl-index">29</td>');
  });
});

describe("tableText", () => {
  it("aligns the columns under a shape line", () => {
    const text = tableText(table(12), 1).split("\n");
    expect(text[0]).toBe("ColumnTable · 12 rows × 3 columns · from GetReportInfos");
    expect(text[1]).toMatch(/^\s+market_date\s+status\s+rate$/);
    expect(text[2]).toMatch(/^\s+date\s+category\s+number$/);
    expect(text[3]).toMatch(/^\s*0\s+2026-11-01\s+failed\s+0\.04$/);
    expect(text[4]).toMatch(/^\s*…(\s+…){3}$/);
    expect(text).toHaveLength(6);
  });

  it("cellText: numbers with separators, date-times in UTC, objects as JSON", () => {
    expect(cellText(1234567.5)).toBe("1,234,567.5");
    // Every number exactly as it is: grouped digits, no rounding, no padding zeros.
    expect(cellText(51_832_906_865.2)).toBe("51,832,906,865.2");
    expect(cellText(0.1 + 0.2)).toBe("0.30000000000000004");
    expect(cellText(-1234.5)).toBe("-1,234.5");
    expect(cellText(0.0849)).toBe("0.0849");
    expect(cellText(1e-7)).toBe("1e-7");
    expect(cellText(-2.5e21)).toBe("-2.5e+21");
    expect(cellText(-0)).toBe("-0");
    expect(cellText(Number.MAX_VALUE)).toBe("1.7976931348623157e+308");
    expect(cellText(Infinity)).toBe("Infinity");
    expect(cellText(new Date("2026-11-20T07:21:00Z"))).toBe("2026-11-20 07:21:00");
    expect(cellText({ a: 1 })).toBe('{"a":1}');
    expect(cellText(null)).toBe("null");
  });
});

describe("the provenance footer", () => {
  const live = (currency: string, second: number, baseUrl = "http://127.0.0.1:4321"): Provenance => ({
    operation: "RateAsset",
    request: canonicalRequest("POST", "/api/RateAsset", undefined, { currency, market_date: "2026-11-20" }),
    receivedAt: `2026-11-22T01:40:1${second}.345Z`,
    source: "live",
    baseUrl,
  });
  const withProvenance = (list: Provenance[]) => {
    const t = table(3);
    t.meta.provenance = list;
    return t;
  };
  const FOOTER = /<p class="rpl-provenance rpl-muted">(.*?)<\/p>/g;

  it("shows one line under the table, in HTML and as the last text line", () => {
    const t = withProvenance([live("USD", 2)]);
    const line =
      'RateAsset {"currency":"USD","market_date":"2026-11-20"} · live from http://127.0.0.1:4321 · received 2026-11-22 01:40:12Z';
    expect(formatProvenance(t.meta.provenance)).toBe(line);
    const html = tableHtml(t);
    expect([...html.matchAll(FOOTER)].map((m) => m[1])).toEqual([line.replaceAll('"', "&quot;")]);
    expect(html.indexOf('<p class="rpl-provenance')).toBeGreaterThan(html.indexOf("</table>"));
    const text = tableText(t).split("\n");
    expect(text.at(-1)).toBe(`source: ${line}`);
    expect(text.filter((l) => l.startsWith("source: "))).toHaveLength(1);
  });

  it("sums up many responses in the one line, for a DataFrame too", () => {
    const df = frames.toDataFrame(withProvenance([live("USD", 2), live("EUR", 3)]));
    const line =
      "RateAsset ×2 · live from http://127.0.0.1:4321 · received 2026-11-22 01:40:12Z … 2026-11-22 01:40:13Z";
    expect([...tableHtml(df).matchAll(FOOTER)].map((m) => m[1])).toEqual([line]);
    expect(tableText(df).split("\n").at(-1)).toBe(`source: ${line}`);
  });

  it("shows the provenance of frames and tables built by adapters", () => {
    const p = live("EUR", 4);
    const curve = attachProvenance(
      { yield_curve_model: { currency: "EUR", market_date: "2026-11-20", data: [{ maturity: 1, rate: 0.02 }] } },
      p,
    );
    expect(tableText(frames.yieldCurve(curve)).split("\n").at(-1)).toBe(`source: ${formatProvenance([p])}`);
    expect(tableHtml(frames.yieldCurveColumns(curve))).toContain('<p class="rpl-provenance rpl-muted">RateAsset');
  });

  it("escapes the line in HTML", () => {
    const html = tableHtml(withProvenance([live("<b>X</b>", 5, "http://h/?a=1&b=2")]));
    const footer = [...html.matchAll(FOOTER)].map((m) => m[1]!);
    expect(footer).toHaveLength(1);
    expect(footer[0]).toContain("&lt;b&gt;X&lt;/b&gt;");
    expect(footer[0]).toContain("http://h/?a=1&amp;b=2");
    expect(footer[0]).not.toContain("<b>");
  });

  it("is absent when the table has no provenance", () => {
    for (const t of [table(3), frames.toDataFrame(table(3)), frames.lookBacksColumns(["6M"])]) {
      expect(tableHtml(t)).not.toContain('<p class="rpl-provenance');
      expect(tableText(t)).not.toMatch(/^source: /m);
    }
    // A hand-made table without the field (JavaScript callers, older code) shows no line either.
    const old = table(2) as { meta: Partial<frames.TableMeta> };
    delete old.meta.provenance;
    expect(tableHtml(old as frames.ColumnTable)).not.toContain('<p class="rpl-provenance');
    expect(tableText(old as frames.ColumnTable).split("\n")).toHaveLength(5);
  });
});

describe("numbers as a table shows them (issue 41)", () => {
  const numbers = (columns: Record<string, number[]>) => {
    const names = Object.keys(columns);
    const t = table(columns[names[0]!]!.length);
    t.columns = names;
    t.data = columns;
    t.kinds = Object.fromEntries(names.map((c) => [c, "number"]));
    t.meta.categories = {};
    t.meta.missing = {};
    t.meta.warnings = [];
    return t;
  };
  const cells = (html: string, column: number) =>
    [...html.matchAll(/<tr><td class="rpl-index">\d+<\/td>(.*?)<\/tr>/g)].map(
      (m) => [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!)[column],
    );

  it("drops binary float noise, keeps integers whole, and leaves the data as it was", () => {
    const t = numbers({
      rate: [2.2487030000000003, 0.1 + 0.2, 0.0412],
      amount: [8585.647897400006, 51_832_906_865.2, -1234.5],
      count: [3, 12_500_000, 0],
    });
    const html = tableHtml(t);
    expect(cells(html, 0)).toEqual(["2.248703", "0.3", "0.0412"]);
    expect(cells(html, 1)).toEqual(["8,585.647897", "51,832,906,865", "-1,234.5"]);
    expect(cells(html, 2)).toEqual(["3", "12,500,000", "0"]);
    expect(tableText(t).split("\n")[3]).toMatch(/^0\s+2\.248703\s+8,585\.647897\s+3$/);
    expect(t.data.rate![0]).toBe(2.2487030000000003);
  });

  it("shows as many digits as tell the column's values apart, and tiny or huge values in exponent form", () => {
    const t = numbers({ x: [1.000000000001, 1.000000000002, 1], y: [1e-9, -2.5e21, 123.456] });
    const html = tableHtml(t);
    expect(cells(html, 0)).toEqual(["1.000000000001", "1.000000000002", "1"]);
    expect(cells(html, 1)).toEqual(["1e-9", "-2.5e+21", "123.456"]);
  });

  it("takes digits (decimal places) for every number column or per column", () => {
    const t = numbers({ rate: [2.2487030000000003, 0.0412], amount: [8585.647897400006, 3], count: [3, 4] });
    const all = tableHtml(t, { digits: 2 });
    expect(cells(all, 0)).toEqual(["2.25", "0.04"]);
    expect(cells(all, 1)).toEqual(["8,585.65", "3.00"]);
    expect(cells(all, 2)).toEqual(["3", "4"]); // whole-number columns stay whole
    const one = tableHtml(t, { digits: { rate: 6 } });
    expect(cells(one, 0)).toEqual(["2.248703", "0.041200"]);
    expect(cells(one, 1)).toEqual(["8,585.647897", "3"]);
    expect(tableText(t, { rows: 1, digits: 1 }).split("\n")[3]).toMatch(/^0\s+2\.2\s+8,585\.6\s+3$/);
  });

  it("refuses digits that are not decimal places, or that name a column the table lacks", () => {
    const t = numbers({ rate: [2.5] });
    expect(() => tableHtml(t, { digits: 2.5 })).toThrow(
      /tableHtml: digits must be a whole number from 0 to 20 \(decimal places\); got 2\.5/,
    );
    expect(() => tableHtml(t, { digits: { rat: 2 } })).toThrow(
      /digits names "rat", which is not a column of this table \(its columns: rate\)/,
    );
    expect(() => tableHtml(t, { digits: { rate: -1 } })).toThrow(/digits\.rate must be a whole number from 0 to 20/);
  });
});
