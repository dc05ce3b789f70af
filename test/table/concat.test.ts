import { describe, expect, it } from "vitest";
import { TableBuilder } from "../../src/table/column-table";
import { concatColumns } from "../../src/table/concat";

describe("concatColumns(tables, source)", () => {
  it("stacks rows, takes the union of columns and leaves a column a table lacks missing", () => {
    const a = new TableBuilder(2, "x").add("k", ["a", "b"]).add("v", [1, 2]).build();
    const b = new TableBuilder(1, "x").add("v", [3]).add("extra", [true]).build();
    const t = concatColumns([a, b], "both");
    expect(t.columns).toEqual(["k", "v", "extra"]);
    expect(t.data).toEqual({ k: ["a", "b", null], v: [1, 2, 3], extra: [null, null, true] });
    expect(t.meta.source).toBe("both");
  });

  it("keeps kinds (dates, categories with merged levels) and warnings", () => {
    const a = new TableBuilder(1, "x")
      .add("s", ["failed"], { hint: "category", levels: ["none", "failed"] })
      .add("d", [new Date(0)])
      .warn("w1")
      .build();
    const b = new TableBuilder(1, "x")
      .add("s", ["odd"], { hint: "category", levels: ["none", "failed"] })
      .add("d", [null])
      .build();
    const t = concatColumns([a, b], "both");
    expect(t.kinds).toEqual({ s: "category", d: "date" });
    expect(t.meta.categories.s).toEqual(["none", "failed", "odd"]);
    expect(t.meta.warnings).toEqual([{ message: "w1" }]);
  });

  it("of no tables is an empty table", () => {
    expect(concatColumns([], "none")).toMatchObject({ columns: [], rowCount: 0 });
  });
});
