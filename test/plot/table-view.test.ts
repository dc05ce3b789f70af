/** Tables in notebooks: shape, column types, head and tail, as HTML and text. */
import { describe, expect, it } from "vitest";
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
    meta: { source: "GetReportInfos", categories: { status: ["succeeded", "failed"] }, missing: { rate: 1 }, warnings: ["one warning"], fields: {} },
  };
}

describe("tableHtml", () => {
  it("captions the shape and source, and heads the columns with their types", () => {
    const html = tableHtml(table(12));
    expect(html).toContain("<b>ColumnTable</b> · 12 rows × 3 columns <span class=\"rpl-muted\">· from GetReportInfos</span>");
    expect(html).toContain("<tr><th class=\"rpl-index\"></th><th>market_date</th><th>status</th><th>rate</th></tr>");
    expect(html).toContain("<tr class=\"rpl-types\"><th class=\"rpl-index\"></th><th>date</th><th>category</th><th>number</th></tr>");
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
    expect(html).toContain("<td class=\"rpl-text\">2026-11-01</td>");
    expect(html).toContain("<td class=\"rpl-na\">NaN</td>");
    expect(html).toContain("&lt;b&gt;x&lt;/b&gt;");
  });

  it("shows a danfo DataFrame with its dtypes, reading only the rows shown", () => {
    const df = frames.toDataFrame(table(30));
    const html = tableHtml(df);
    expect(html).toContain("<b>DataFrame</b> · 30 rows × 3 columns");
    expect(html).toContain("<th>date</th><th>category</th><th>float32</th>");
    expect(html).toContain("<td class=\"rpl-index\">29</td>");
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
    expect(cellText(new Date("2026-11-20T07:21:00Z"))).toBe("2026-11-20 07:21:00");
    expect(cellText({ a: 1 })).toBe('{"a":1}');
    expect(cellText(null)).toBe("null");
  });
});
