import { describe, expect, it } from "vitest";
import { fromDataFrame, frameInfo, loadDanfo, toDataFrame } from "../../src/frames/danfo";
import { TableBuilder } from "../../src/table/column-table";

const table = () =>
  new TableBuilder(3, "test", { $type: "X" })
    .add("price", [99.5, null, 101.25])
    .add("trade_date", ["2026-11-20T00:00:00+00:00", null, "2026-11-21T09:00:00+02:00"])
    .add("status", ["failed", null, "succeeded"], { hint: "category", levels: ["none", "succeeded", "failed"] })
    .add("ok", [true, null, false])
    .add("mixed", [1, "two", null])
    .add("nothing", [null, null, null])
    .build();

describe("toDataFrame(table)", () => {
  it("keeps the column order and sets danfo dtypes from the kinds", () => {
    const df = toDataFrame(table());
    expect(df.columns).toEqual(["price", "trade_date", "status", "ok", "mixed", "nothing"]);
    expect(df.dtypes).toEqual(["float64", "datetime", "string", "boolean", "string", "float64"]);
    expect(df.shape).toEqual([3, 6]);
  });

  it("keeps Dates as Date objects (not strings, not NaN) and null for a missing date", () => {
    const values = toDataFrame(table()).column("trade_date").values as unknown as (Date | null)[];
    expect(values[0]).toBeInstanceOf(Date);
    expect(values[0]!.toISOString()).toBe("2026-11-20T00:00:00.000Z");
    expect(values[1]).toBeNull();
    expect(values[2]!.toISOString()).toBe("2026-11-21T07:00:00.000Z");
  });

  it("keeps numbers exact (float64 columns of doubles) and missing numbers as NaN, which danfo's isNa sees", () => {
    const df = toDataFrame(table());
    const price = df.column("price");
    expect(price.values).toEqual([99.5, NaN, 101.25]);
    expect(price.isNa().values).toEqual([false, true, false]);
    expect(price.add(1).values).toEqual([100.5, NaN, 102.25]);
    expect(price.mean()).toBe(100.375);
  });

  it("keeps null for missing text and booleans, also seen by isNa", () => {
    const df = toDataFrame(table());
    expect(df.column("status").isNa().values).toEqual([false, true, false]);
    expect(df.column("ok").values).toEqual([true, null, false]);
  });

  it("attaches the category levels, missing counts, warnings and response fields (frameInfo)", () => {
    const df = toDataFrame(table());
    const info = frameInfo(df)!;
    expect(info.categories.status).toEqual(["none", "succeeded", "failed"]);
    expect(info.missing).toMatchObject({ price: 1, trade_date: 1, nothing: 3 });
    expect(info.warnings.some((w) => w.includes('column "mixed"'))).toBe(true);
    expect(info.fields).toEqual({ $type: "X" });
    expect(info.kinds.status).toBe("category");
    expect(frameInfo(df.head(1))).toBeUndefined();
  });

  it("builds the same frame as danfo's public constructor (values, index, dtypes, column access, derived frames)", () => {
    const t = table();
    const df = toDataFrame(t);
    const rows = Array.from({ length: t.rowCount }, (_, i) =>
      t.columns.map((c) => (t.kinds[c] === "empty" ? NaN : t.data[c]![i])),
    );
    const reference = new (loadDanfo().DataFrame)(rows, { columns: t.columns, dtypes: df.dtypes });
    expect(df.values).toEqual(reference.values);
    expect(df.index).toEqual(reference.index);
    expect(df.column("price").values).toEqual(reference.column("price").values);
    expect(df.iloc({ rows: [2] }).values).toEqual(reference.iloc({ rows: [2] }).values);
    expect(df.sortValues("price", { ascending: false }).column("price").values).toEqual(
      reference.sortValues("price", { ascending: false }).column("price").values,
    );
    expect(df.head(2).shape).toEqual([2, 6]);
  });

  it("renames a column that would hide a DataFrame member, and says so", () => {
    const t = new TableBuilder(1, "t").add("count", [3]).add("index", ["a"]).add("$data", [1]).build();
    const df = toDataFrame(t);
    expect(df.columns).toEqual(["count_", "index_", "$data_"]);
    expect(typeof df.count).toBe("function");
    expect(df.index).toEqual([0]);
    const info = frameInfo(df)!;
    expect(info.renamed).toEqual({ count: "count_", index: "index_", $data: "$data_" });
    expect(info.warnings.some((w) => w.includes('column "count" is "count_"'))).toBe(true);
  });

  it("gives an empty frame (with the columns) for an empty table", () => {
    const df = toDataFrame(new TableBuilder(0, "t").add("a", []).build());
    expect(df.shape).toEqual([0, 1]);
    expect(df.columns).toEqual(["a"]);
  });
});

describe("fromDataFrame(df)", () => {
  it("round-trips an adapter's frame to a column table with kinds and levels", () => {
    const back = fromDataFrame(toDataFrame(table()));
    expect(back.columns).toEqual(["price", "trade_date", "status", "ok", "mixed", "nothing"]);
    expect(back.kinds).toMatchObject({ price: "number", trade_date: "date", status: "category", ok: "boolean" });
    expect(back.meta.categories.status).toEqual(["none", "succeeded", "failed"]);
  });

  it("reads a frame built with danfo directly, kinds from its dtypes", () => {
    const df = new (loadDanfo().DataFrame)({ a: [1, 2], b: ["x", "y"] });
    expect(fromDataFrame(df).kinds).toEqual({ a: "number", b: "string" });
  });
});
