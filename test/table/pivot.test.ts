import { describe, expect, it } from "vitest";
import { TableBuilder } from "../../src/table/column-table";
import { toDataFrame } from "../../src/frames/danfo";
import { PivotError } from "../../src/table/errors";
import { pivot, pivotColumns } from "../../src/frames/pivot";
import { keyLabel, type PivotAgg } from "../../src/table/pivot";
import { REPORT_STATUSES } from "../../src/api/assumptions";

const long = () =>
  new TableBuilder(5, "t")
    .add("maturity", [2, 1, 1, 2, 1])
    .add("currency", ["EUR", "EUR", "USD", "USD", "EUR"])
    .add("date", [
      new Date("2026-11-20T00:00:00Z"),
      new Date("2026-11-20T00:00:00Z"),
      new Date("2026-11-20T00:00:00Z"),
      new Date("2026-11-20T00:00:00Z"),
      new Date("2026-11-21T00:00:00Z"),
    ])
    .add("rate", [0.025, 0.02, 0.04, 0.042, 0.021])
    .build();

describe("pivotColumns(table, { index, columns, values })", () => {
  it("makes one row per index value (ascending for numbers) and one column per key, in order seen", () => {
    const t = pivotColumns(long(), { index: "maturity", columns: ["currency", "date"], values: "rate" });
    expect(t.columns).toEqual(["maturity", "EUR 2026-11-20", "USD 2026-11-20", "EUR 2026-11-21"]);
    expect(t.data.maturity).toEqual([1, 2]);
    expect(t.data["EUR 2026-11-20"]).toEqual([0.02, 0.025]);
    expect(t.data["EUR 2026-11-21"]).toEqual([0.021, NaN]);
  });

  it("sorts the new columns on request", () => {
    const t = pivotColumns(long(), {
      index: "maturity",
      columns: "currency",
      values: "rate",
      columnOrder: "sorted",
      agg: "last",
    });
    expect(t.columns).toEqual(["maturity", "EUR", "USD"]);
  });

  it("refuses repeated (index, key) pairs unless told how to combine them, naming the first", () => {
    expect(() => pivotColumns(long(), { index: "maturity", columns: "currency", values: "rate" })).toThrow(PivotError);
    expect(() => pivotColumns(long(), { index: "maturity", columns: "currency", values: "rate" })).toThrow(
      /1 \(maturity, currency\) pair has more than one row \(first: maturity 1, currency EUR: rows 1 and 4\); pass agg: "sum", "mean", "count", "min", "max", "first" or "last"/,
    );
  });

  it("combines repeated pairs with agg: sum, mean, count, min, max, first, last (missing values skipped)", () => {
    const t = new TableBuilder(7, "t")
      .add("day", [1, 1, 1, 2, 2, 3, 1])
      .add("ccy", ["EUR", "EUR", "USD", "EUR", "EUR", "USD", "EUR"])
      .add("x", [1, 2, 10, NaN, 5, NaN, 4])
      .build();
    const cells = (agg: PivotAgg) => {
      const p = pivotColumns(t, { index: "day", columns: "ccy", values: "x", agg });
      return { EUR: p.data.EUR, USD: p.data.USD, warnings: p.meta.warnings };
    };
    expect(cells("sum")).toEqual({ EUR: [7, 5, NaN], USD: [10, NaN, NaN], warnings: [] });
    expect(cells("mean")).toEqual({ EUR: [7 / 3, 5, NaN], USD: [10, NaN, NaN], warnings: [] });
    expect(cells("count")).toEqual({ EUR: [3, 1, 0], USD: [1, 0, 0], warnings: [] });
    expect(cells("min")).toEqual({ EUR: [1, 5, NaN], USD: [10, NaN, NaN], warnings: [] });
    expect(cells("max")).toEqual({ EUR: [4, 5, NaN], USD: [10, NaN, NaN], warnings: [] });
    expect(cells("first")).toMatchObject({ EUR: [1, 5, NaN], USD: [10, NaN, NaN] });
    expect(cells("last")).toMatchObject({ EUR: [4, 5, NaN], USD: [10, NaN, NaN] });
    expect(cells("last").warnings).toEqual([
      { message: '2 (day, ccy) pairs have more than one row: the last value of each is kept (agg: "last")' },
    ]);
    // Text: count, first and last; sums of text are refused.
    const text = pivotColumns(t, { index: "day", columns: "ccy", values: "ccy", agg: "count" });
    expect(text.data.EUR).toEqual([3, 2, 0]);
    expect(() => pivotColumns(t, { index: "day", columns: "x", values: "ccy", agg: "sum" })).toThrow(
      /agg "sum" needs numbers; "ccy" is string/,
    );
    expect(() => pivotColumns(t, { index: "day", columns: "ccy", values: "x", agg: "median" as PivotAgg })).toThrow(
      /agg must be one of sum, mean, count, min, max, first, last; got "median"/,
    );
  });

  it("takes a danfo DataFrame as well as a column table", () => {
    const df = toDataFrame(long());
    const t = pivotColumns(df, { index: "maturity", columns: "currency", values: "rate", agg: "max" });
    expect(t.data).toEqual({ maturity: [1, 2], EUR: [0.021, 0.025], USD: [0.04, 0.042] });
    expect(pivot(df, { index: "maturity", columns: "currency", values: "rate", agg: "max" }).shape).toEqual([2, 3]);
  });

  it("pivot() is the DataFrame version", () => {
    expect(pivot(long(), { index: "maturity", columns: "currency", values: "rate", agg: "last" }).shape).toEqual([
      2, 3,
    ]);
  });

  it("keyLabel writes numbers, dates and missing keys readably", () => {
    expect(keyLabel(100)).toBe("100");
    expect(keyLabel(new Date("2026-11-20T00:00:00Z"))).toBe("2026-11-20");
    expect(keyLabel(null)).toBe("(missing)");
  });

  describe("category keys keep their declared order (issue 41)", () => {
    // Reports as they come: a failure listed before anything running, no `none` at all.
    const reports = () =>
      new TableBuilder(6, "GetReportInfos")
        .add("day", [1, 1, 2, 2, 2, 1])
        .add("status", ["failed", "running", "succeeded", "failed", "warning", "succeeded"], {
          hint: "category",
          levels: REPORT_STATUSES,
        })
        .add("n", [1, 1, 1, 1, 1, 1])
        .build();

    it("lists a status pivot's columns in lifecycle order, not in the order first seen", () => {
      const t = pivotColumns(reports(), { index: "day", columns: "status", values: "n", agg: "count" });
      expect(t.columns).toEqual(["day", "running", "succeeded", "warning", "failed"]);
      expect(t.data.failed).toEqual([1, 1]);
      expect(t.data.running).toEqual([1, 0]);
      // The same from a DataFrame that carries the levels, and with columnOrder: "sorted" (levels, not A to Z).
      expect(
        pivot(toDataFrame(reports()), { index: "day", columns: "status", values: "n", agg: "count" }).columns,
      ).toEqual(["day", "running", "succeeded", "warning", "failed"]);
      expect(
        pivotColumns(reports(), { index: "day", columns: "status", values: "n", agg: "sum", columnOrder: "sorted" })
          .columns,
      ).toEqual(["day", "running", "succeeded", "warning", "failed"]);
    });

    it("orders rows of a category index by its levels, and the category part of a two-part key", () => {
      const byStatus = pivotColumns(reports(), { index: "status", columns: "day", values: "n", agg: "count" });
      expect(byStatus.data.status).toEqual(["running", "succeeded", "warning", "failed"]);
      const both = pivotColumns(reports(), { index: "n", columns: ["day", "status"], values: "n", agg: "count" });
      // Part by part: days in the order first seen, statuses in lifecycle order within each day.
      expect(both.columns).toEqual([
        "n",
        "1 running",
        "1 succeeded",
        "1 failed",
        "2 succeeded",
        "2 warning",
        "2 failed",
      ]);
    });
  });
});
