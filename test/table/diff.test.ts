/**
 * frames.diff(before, after, { key, tolerance }): rows added, removed and changed between two tables
 * (column tables or danfo DataFrames), before/after/delta columns, the largest moves first, and a clear
 * error for a key that is missing or does not name one row.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Provenance } from "../../src/client/provenance";
import { TableBuilder, type ColumnTable } from "../../src/table/column-table";
import { toDataFrame } from "../../src/frames/danfo";
import { diff, FrameDiffError } from "../../src/frames/diff";
import { show } from "../../src/plot/show";

const table = (columns: Record<string, unknown[]>): ColumnTable => {
  const names = Object.keys(columns);
  const builder = new TableBuilder(columns[names[0]!]!.length, "test");
  for (const name of names) builder.add(name, columns[name]!, { detectDates: false });
  return builder.build();
};

const curve = (rates: number[], names = ["1Y", "2Y", "5Y", "10Y"]) =>
  table({ tenor: names, rate: rates, ccy: names.map(() => "USD") });

const plotDir = mkdtempSync(path.join(tmpdir(), "rpl-frames-diff-"));
afterAll(() => rmSync(plotDir, { recursive: true, force: true }));

describe("frames.diff", () => {
  it("finds exactly the row whose value changed, with before, after and delta", () => {
    const d = diff(curve([0.04, 0.041, 0.042, 0.043]), curve([0.04, 0.0415, 0.042, 0.043]), { key: "tenor" });
    expect(d.rows).toHaveLength(1);
    expect(d.rows[0]!.key).toEqual(["2Y"]);
    expect(d.rows[0]!.changes).toEqual([{ column: "rate", before: 0.041, after: 0.0415, delta: 0.0415 - 0.041 }]);
    expect(d.changed.columns).toEqual(["tenor", "rate_before", "rate_after", "rate_delta"]);
    expect(d.changed.data.tenor).toEqual(["2Y"]);
    expect([d.added.rowCount, d.removed.rowCount, d.unchanged]).toEqual([0, 0, 3]);
    expect(d.summary).toBe("1 row changed, 0 added, 0 removed, 3 unchanged (key tenor)");
  });

  it("lists the largest moves first, and rows added and removed with all their columns", () => {
    const d = diff(curve([0.04, 0.041, 0.042, 0.043]), curve([0.0401, 0.045, 0.042, 0.05], ["1Y", "2Y", "5Y", "30Y"]), {
      key: "tenor",
    });
    expect(d.rows.map((r) => r.key[0])).toEqual(["2Y", "1Y"]);
    expect(d.rows[0]!.move).toBeCloseTo(0.004, 12);
    expect(d.added.data).toEqual({ tenor: ["30Y"], rate: [0.05], ccy: ["USD"] });
    expect(d.removed.data).toEqual({ tenor: ["10Y"], rate: [0.043], ccy: ["USD"] });
    // What plot.show displays: changed (largest first), then added, then removed.
    expect(d.table.data.status).toEqual(["changed", "changed", "added", "removed"]);
    expect(d.table.data.tenor).toEqual(["2Y", "1Y", "30Y", "10Y"]);
    expect(d.table.data.rate_before).toEqual([0.041, 0.04, NaN, 0.043]);
    expect(d.table.data.rate_after).toEqual([0.045, 0.0401, 0.05, NaN]);
  });

  it("reads numbers as numbers within the tolerance: relative above 1, absolute below, NaN equal to NaN", () => {
    const a = table({ id: ["a", "b", "c", "d"], v: [1e6, 0.5, NaN, 3] });
    const b = table({ id: ["a", "b", "c", "d"], v: [1e6 + 1e-4, 0.5 + 1e-10, NaN, 3.1] });
    expect(diff(a, b, { key: "id" }).rows.map((r) => r.key[0])).toEqual(["d"]);
    expect(diff(a, b, { key: "id", tolerance: 0 }).rows.map((r) => r.key[0])).toEqual(["d", "a", "b"]);
    expect(diff(a, b, { key: "id", tolerance: 0.05 }).rows).toEqual([]);
  });

  it("compares text, dates and categories by value, and pairs rows on a key of several columns", () => {
    const a = table({
      book: ["X", "X", "Y"],
      trade: [1, 2, 1],
      status: ["ok", "ok", "failed"],
      at: [new Date("2026-11-20"), null, null],
    });
    const b = table({
      book: ["Y", "X", "X"],
      trade: [1, 1, 2],
      status: ["ok", "ok", "ok"],
      at: [null, new Date("2026-11-20"), new Date("2026-11-21")],
    });
    const d = diff(a, b, { key: ["book", "trade"] });
    expect(d.rows.map((r) => [r.key, r.changes.map((c) => c.column)])).toEqual([
      [["X", 2], ["at"]],
      [["Y", 1], ["status"]],
    ]);
    // A key column named "status": the column saying what happened to the row is diff_status.
    expect(diff(b, a, { key: ["status", "book", "trade"] }).table.columns[0]).toBe("diff_status");
  });

  it("says where its rows came from: the provenance of before's rows, then after's", () => {
    const from = (date: string): Provenance => ({
      operation: "RateAsset",
      request: { method: "POST", path: "/api/RateAsset", body: { currency: "USD", market_date: date } },
      receivedAt: `${date}T08:00:00.000Z`,
      source: "live",
      baseUrl: "http://127.0.0.1:8787",
    });
    const sourced = (rates: number[], date: string) => {
      const builder = new TableBuilder(2, "RateAsset", {}, [from(date)]);
      return builder.add("tenor", ["1Y", "2Y"]).add("rate", rates).build();
    };
    const d = diff(sourced([0.04, 0.041], "2026-11-13"), sourced([0.04, 0.042], "2026-11-20"), { key: "tenor" });
    for (const t of [d.table, d.changed])
      expect(t.meta.provenance.map((p) => p.receivedAt)).toEqual([
        "2026-11-13T08:00:00.000Z",
        "2026-11-20T08:00:00.000Z",
      ]);
    expect(d.added.meta.provenance.map((p) => p.receivedAt)).toEqual(["2026-11-20T08:00:00.000Z"]);
    expect(d.removed.meta.provenance.map((p) => p.receivedAt)).toEqual(["2026-11-13T08:00:00.000Z"]);
  });

  it("takes danfo DataFrames as well as column tables", () => {
    const d = diff(toDataFrame(curve([0.04, 0.041, 0.042, 0.043])), curve([0.04, 0.041, 0.042, 0.044]), {
      key: "tenor",
    });
    expect(d.rows.map((r) => r.key[0])).toEqual(["10Y"]);
    expect(d.rows[0]!.changes[0]!.delta).toBeCloseTo(0.001, 12);
  });

  it("names the columns only one table has, and compares only the ones asked for", () => {
    const a = table({ id: ["a"], v: [1], old: [2] });
    const b = table({ id: ["a"], v: [2], extra: [3] });
    const d = diff(a, b, { key: "id" });
    expect([d.columnsAdded, d.columnsRemoved, d.compared]).toEqual([["extra"], ["old"], ["v"]]);
    expect(d.summary).toBe(
      "1 row changed, 0 added, 0 removed, 0 unchanged (key id); columns added: extra; columns removed: old",
    );
    expect(diff(a, b, { key: "id", columns: [] }).rows).toEqual([]);
  });
});

describe("frames.diff: bad input and display", () => {
  it("refuses a missing key column, a repeated or missing key, and a bad tolerance, naming the column", () => {
    const ok = table({ id: ["a", "b"], v: [1, 2] });
    expect(() => diff(ok, table({ ID: ["a"], v: [1] }), { key: "id" })).toThrow(
      new FrameDiffError('key column "id" is not in after; its columns are "ID", "v"'),
    );
    expect(() => diff(table({ id: ["a", "a"], v: [1, 2] }), ok, { key: "id" })).toThrow(
      'frames.diff: key "id" is not unique in before: "a" is on rows 0 and 1; choose a key that names one row',
    );
    expect(() => diff(ok, table({ id: ["a", null], v: [1, 2] }), { key: "id" })).toThrow(
      'key column "id" is missing a value in after, row 1',
    );
    expect(() => diff(ok, ok, { key: "id", tolerance: -1 })).toThrow("tolerance must be a number >= 0, got -1");
    expect(() => diff(ok, ok, { key: "id", columns: ["w"] })).toThrow('column "w" (options.columns) is not in before');
    expect(() => diff(ok, ok, {} as never)).toThrow("options.key must name the column");
    expect(() => diff({ rows: [] } as never, ok, { key: "id" })).toThrow(
      "before must be a column table or a danfo DataFrame",
    );
  });

  it("is what plot.show displays: the status table, its summary in the caption", () => {
    const d = diff(curve([0.04, 0.041, 0.042, 0.043]), curve([0.04, 0.0415, 0.042, 0.043]), { key: "tenor" });
    const file = show(d, { outDir: plotDir }).file!;
    const html = readFileSync(file, "utf8");
    expect(html).toContain("from frames.diff · 1 row changed, 0 added, 0 removed, 3 unchanged (key tenor)");
    expect(html).toContain("<th>status</th><th>tenor</th><th>rate_before</th><th>rate_after</th><th>rate_delta</th>");
    expect(html).toContain(
      '<td class="rpl-text">changed</td><td class="rpl-text">2Y</td><td>0.041</td><td>0.0415</td>',
    );
  });
});
