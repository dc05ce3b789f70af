import { describe, expect, it } from "vitest";
import { TableBuilder } from "../../src/frames/column-table";
import { keyLabel, pivot, pivotColumns } from "../../src/frames/pivot";

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
    const t = pivotColumns(long(), { index: "maturity", columns: "currency", values: "rate", columnOrder: "sorted" });
    expect(t.columns).toEqual(["maturity", "EUR", "USD"]);
  });

  it("keeps the last of repeated (index, key) pairs and warns", () => {
    const t = pivotColumns(long(), { index: "maturity", columns: "currency", values: "rate" });
    expect(t.data.EUR).toEqual([0.021, 0.025]);
    expect(t.meta.warnings[0]).toMatch(/1 \(maturity, currency\) pair repeats: the last value is kept/);
  });

  it("pivot() is the DataFrame version", () => {
    expect(pivot(long(), { index: "maturity", columns: "currency", values: "rate" }).shape).toEqual([2, 3]);
  });

  it("keyLabel writes numbers, dates and missing keys readably", () => {
    expect(keyLabel(100)).toBe("100");
    expect(keyLabel(new Date("2026-11-20T00:00:00Z"))).toBe("2026-11-20");
    expect(keyLabel(null)).toBe("(missing)");
  });
});
