/**
 * What src/frames/danfo-fixes corrects in danfo 1.2: each test shows danfo's own result (run with
 * withUpstreamDanfo, which puts danfo's methods back for the call) and the corrected one.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadDanfo, toDataFrame, fromDataFrame, KIND_OF_DTYPE } from "../../src/frames/danfo";
import { withUpstreamDanfo } from "../../src/frames/danfo-fixes";
import { TableBuilder } from "../../src/table/column-table";
import type { DataFrame } from "../../vendor/danfo";

const d = loadDanfo();
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- danfo's methods as a user calls them (its types lack several)
type Any = any;
const upstream = <T>(fn: () => T): T => withUpstreamDanfo(d, fn);

/** A trade table as the package returns it: doubles that float32 cannot hold, text, dates, a missing value. */
function trades(): Any {
  const notional = [
    51_832_906_865.2,
    -39_912_345.67,
    5_000_000.01,
    12_345_678.9,
    NaN,
    7_777_777.77,
    4_999_999.99,
    123.45,
  ];
  return toDataFrame(
    new TableBuilder(notional.length, "test", {})
      .add("trade_id", ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"])
      .add("ccy", ["EUR", "USD", "EUR", "GBP", "USD", "EUR", "usd", "GBP"])
      .add("notional", notional)
      .add("price", [99.5, 100.125, 101.3, 98.7, 99.9, 100.01, 97.3, 102.2])
      .add(
        "trade_date",
        notional.map((_, i) => `2026-11-${String(10 + i).padStart(2, "0")}`),
        { hint: "date" },
      )
      .build(),
  );
}

const plainFilter = (df: Any, min: number): number[] =>
  (df["notional"].values as number[]).filter((x) => x > min).sort((a, b) => a - b);
const sortedNumbers = (values: unknown[]): number[] => (values as number[]).slice().sort((a, b) => a - b);

describe("boolean masks on any index (query, iloc, loc)", () => {
  it("sort then query returns the rows a plain filter returns (danfo: the right count, the wrong rows)", () => {
    const df = trades();
    const sorted = df.sortValues("notional", { ascending: false });
    const want = plainFilter(df, 5e6);
    const theirs = upstream(() => sorted.query(sorted["notional"].gt(5e6))["notional"].values);
    expect(theirs).toHaveLength(want.length);
    expect(sortedNumbers(theirs)).not.toEqual(want);
    const ours = sorted.query(sorted["notional"].gt(5e6));
    expect(sortedNumbers(ours["notional"].values)).toEqual(want);
    expect(ours.index).toEqual([0, 3, 5, 2]); // the labels of those rows, in the sorted order
  });

  it("iloc and loc with a mask select the masked positions on a filtered frame and on custom labels", () => {
    const df = trades();
    const filtered = df.query(df["ccy"].eq("EUR")); // index 0, 2, 5
    const mask = [true, true, false];
    expect(upstream(() => filtered.iloc({ rows: mask }).index)).toEqual([0, 5]); // positions 0 and 2 read as labels 0 and 2
    expect(filtered.iloc({ rows: mask }).index).toEqual([0, 2]);
    expect(filtered.loc({ rows: mask }).index).toEqual([0, 2]);
    const labelled = new d.DataFrame({ x: [1, 2, 3] }, { index: ["a", "b", "c"] }) as Any;
    expect(labelled.iloc({ rows: [false, true, true] }).values).toEqual([[2], [3]]);
    expect(labelled.loc({ rows: labelled["x"].ge(2) }).index).toEqual(["b", "c"]);
    expect(labelled.loc({ rows: ["c", "a"] }).values).toEqual([[3], [1]]);
    const series = filtered["notional"];
    expect(upstream(() => series.iloc(mask).values)).toEqual([51_832_906_865.2, 7_777_777.77]);
    expect(series.iloc(mask).values).toEqual([51_832_906_865.2, 5_000_000.01]);
    expect(series.loc(mask).index).toEqual([0, 2]);
  });

  it("keeps danfo's slices and positions, and says so when a mask does not fit", () => {
    const df = trades();
    expect(df.iloc({ rows: ["1:3"], columns: ["2:4"] }).columns).toEqual(["notional", "price"]);
    expect(df.iloc({ rows: [4, 1] }).index).toEqual([4, 1]);
    expect(df.loc({ rows: ["2:4"], columns: ["ccy", "price"] }).index).toEqual([2, 3]);
    expect(df.head(2).index).toEqual([0, 1]);
    expect(df.tail(2).index).toEqual([6, 7]);
    expect(() => df.query([true, false])).toThrow(
      "query: a boolean mask must have one value per row (8 rows); it has 2",
    );
    expect(() => df.iloc({ rows: [8] })).toThrow("row position 8 is not an integer in 0..7");
    expect(() => df.loc({ rows: ["zz"] })).toThrow("IndexError: Specified index (zz) not found");
    const inplace = df.sortValues("price");
    inplace.query(inplace["price"].gt(100), { inplace: true });
    expect(sortedNumbers(inplace["price"].values)).toEqual([100.01, 100.125, 101.3, 102.2]);
  });
});

describe("frame-wide arithmetic and comparisons in doubles", () => {
  it("mul(2) equals 2·x exactly (danfo: float32 tensors, off by up to 4 on a 51.8bn notional)", () => {
    const df = trades().loc({ columns: ["notional", "price"] });
    const x = df["notional"].values as number[];
    const theirs = upstream(() => df.mul(2)["notional"].values as number[]);
    expect(theirs[0]).not.toBe(2 * x[0]!);
    const ours = df.mul(2);
    expect(ours["notional"].values).toEqual(x.map((v) => 2 * v));
    expect(ours.index).toEqual(df.index);
    expect(ours.dtypes).toEqual(["float64", "float64"]);
  });

  it("add, sub, div, pow, mod with a number, an array along either axis, a Series and a DataFrame", () => {
    const df = new d.DataFrame({ a: [0.1, -7, NaN], b: [1e10 + 0.5, 3, 4] }) as Any;
    expect(df.add(0.2).values).toEqual([
      [0.1 + 0.2, 1e10 + 0.7],
      [-6.8, 3.2],
      [NaN, 4.2],
    ]);
    expect(df.sub([1, 2]).values).toEqual([
      [0.1 - 1, 1e10 - 1.5],
      [-8, 1],
      [NaN, 2],
    ]);
    expect(df.sub([1, 2, 3], { axis: 0 }).values).toEqual([
      [0.1 - 1, 1e10 - 0.5],
      [-9, 1],
      [NaN, 1],
    ]);
    expect(df.div(new d.Series([10, 4])).values).toEqual([
      [0.1 / 10, (1e10 + 0.5) / 4],
      [-0.7, 0.75],
      [NaN, 1],
    ]);
    expect(df.pow(df).values[1]).toEqual([Math.pow(-7, -7), 27]);
    expect(df.mod(3).values[1]).toEqual([2, 0]); // floored, as TensorFlow's mod: -7 mod 3 = 2
    expect(upstream(() => df.mod(3).values[1])).toEqual([2, 0]);
    expect(() => df.add([1, 2, 3])).toThrow("add with axis 1 needs one value per column (2); got 3");
    expect(() => trades().add(1)).toThrow("TypeError: add operation is not supported for string dtypes");
    const inplace = df.copy();
    inplace.mul(10, { inplace: true });
    expect(inplace.values[0]).toEqual([1, 1e11 + 5]);
  });

  it("comparisons in doubles give booleans labelled boolean (danfo: float32 flips a comparison near the threshold)", () => {
    const df = new d.DataFrame({ a: [16_777_217, 0.1], b: [1, NaN] }) as Any;
    expect(upstream(() => df.gt(16_777_216).values[0][0])).toBe(false);
    const gt = df.gt(16_777_216);
    expect(gt.values).toEqual([
      [true, false],
      [false, false],
    ]);
    expect(gt.dtypes).toEqual(["boolean", "boolean"]);
    expect(df.ne(0.1).values[1]).toEqual([false, true]);
    expect(df.le([16_777_217, 1]).values).toEqual([
      [true, true],
      [true, false],
    ]);
  });

  it("Series arithmetic stays in doubles (danfo's own, unchanged)", () => {
    const s = trades()["notional"];
    expect(s.mul(2).values[0]).toBe(103_665_813_730.4);
    expect(s.add(s).values[4]).toBeNaN();
  });
});

describe("dtypes", () => {
  it("say float64 for number columns (danfo: float32), inside danfo keeps its own label", () => {
    const df = trades();
    expect(upstream(() => df.dtypes)).toEqual(["string", "string", "float32", "float32", "datetime"]);
    expect(df.dtypes).toEqual(["string", "string", "float64", "float64", "datetime"]);
    expect(df["notional"].dtype).toBe("float64");
    expect(df.$dtypes).toEqual(["string", "string", "float32", "float32", "datetime"]);
    expect(KIND_OF_DTYPE[df.dtypes[2]]).toBe("number");
  });

  it("keep danfo's own methods working: constructor, asType, selectDtypes, ctypes, concat, apply, toString, fromDataFrame", () => {
    const df = trades();
    expect(new d.DataFrame({ x: [1.5] }, { dtypes: ["float64"] }).dtypes).toEqual(["float64"]);
    expect(new d.Series([1.5], { dtypes: ["float64"] }).dtype).toBe("float64");
    expect(df.asType("price", "float64").dtypes[3]).toBe("float64");
    expect(df.asType("price", "int32")["price"].values[0]).toBe(99);
    expect(df["price"].asType("float64").dtype).toBe("float64");
    expect(df.selectDtypes(["float64"]).columns).toEqual(["notional", "price"]);
    expect(df.selectDtypes(["float32"]).columns).toEqual(["notional", "price"]);
    expect(df.ctypes.values).toEqual(["string", "string", "float64", "float64", "datetime"]);
    const both = d.concat({ dfList: [df, df], axis: 0 }) as Any;
    expect(both.shape).toEqual([16, 5]);
    expect(both.dtypes[2]).toBe("float64");
    expect(df["notional"].values).toHaveLength(8); // danfo's concat grew the first frame's columns to 16
    const other = trades();
    upstream(() => d.concat({ dfList: [other, df], axis: 0 }));
    expect(() => other["notional"]).toThrow(
      "IndexError: You provided an index of length 8 but Ndframe rows has length of 16",
    );
    const numbers = df.loc({ columns: ["notional", "price"] });
    expect(numbers.apply((row: number[]) => row[1], { axis: 1 }).values[0]).toBe(99.5);
    expect(String(df.head(1))).toContain("51832906865.2");
    expect(fromDataFrame(df).kinds).toMatchObject({ notional: "number", price: "number", trade_date: "date" });
    expect(d.toCSV(numbers.head(1))).toBe("notional,price\n51832906865.2,99.5\n");
  });
});

describe("operations that changed their input", () => {
  it("fillNa of some columns leaves the frame as it was (danfo: wrote the fills into its rows)", () => {
    const make = (): Any => new d.DataFrame({ v: [1.5, NaN], n: [1, 2] });
    const theirs = make();
    upstream(() => theirs.fillNa([0], { columns: ["v"] }));
    expect(theirs.values[1]).toEqual([0, 2]);
    expect(theirs["v"].values[1]).toBeNaN(); // rows and columns disagree
    const ours = make();
    expect(ours.fillNa([0], { columns: ["v"] }).values).toEqual([
      [1.5, 1],
      [0, 2],
    ]);
    expect(ours.values[1]).toEqual([NaN, 2]);
    ours.fillNa([0], { columns: ["v"], inplace: true });
    expect(ours["v"].values).toEqual([1.5, 0]);
  });
});

describe("sortValues", () => {
  it("by one column or several, per-column direction, stable, missing last, labels kept", () => {
    const df = trades();
    expect(df.sortValues("notional", { ascending: false }).index).toEqual([0, 3, 5, 2, 6, 7, 1, 4]);
    expect(df.sortValues("notional").index).toEqual([1, 7, 6, 2, 5, 3, 0, 4]);
    expect(df.sortValues(["ccy", "price"], { ascending: [true, false] }).index).toEqual([2, 5, 0, 7, 3, 1, 4, 6]);
    expect(df.sortValues("ccy").index).toEqual([0, 2, 5, 3, 7, 1, 4, 6]); // USD and usd equal, as danfo compares text upper-cased
    const dates = new d.DataFrame(
      { t: [new Date(3), null, new Date(1)], v: [1, 2, 3] },
      { dtypes: ["datetime", "int32"] },
    ) as Any;
    expect(dates.sortValues("t").values).toEqual([
      [new Date(1), 3],
      [new Date(3), 1],
      [null, 2],
    ]);
    expect(dates.sortValues("t", { ascending: false })["v"].values).toEqual([1, 3, 2]);
  });

  it("is typed for several columns and directions (vendor/danfo's declarations say so)", () => {
    const typed: DataFrame = toDataFrame(
      new TableBuilder(3, "test", {}).add("a", [2, 1, 2]).add("b", [1, 2, 3]).build(),
    );
    expect(typed.sortValues(["a", "b"], { ascending: [true, false] }).index).toEqual([1, 2, 0]);
  });

  it("equals danfo's result where danfo is right (no missing values), and in place too", () => {
    const df = trades().query(trades()["notional"].ge(0)); // no NaN
    const theirs = upstream(() => df.sortValues("price", { ascending: false }));
    const ours = df.sortValues("price", { ascending: false });
    expect(ours.index).toEqual(theirs.index);
    expect(ours.values).toEqual(theirs.values);
    expect(ours.dtypes).toEqual(df.dtypes);
    df.sortValues("price", { inplace: true });
    expect(df["price"].values).toEqual(sortedNumbers(ours["price"].values));
    expect(() => df.sortValues("nope")).toThrow('ParamError: specified column "nope" not found in columns');
    expect(() => df.sortValues(["ccy", "price"], { ascending: [true] })).toThrow("one boolean per sort column (2)");
  });
});

describe("groupby(…).agg and describe", () => {
  const frame = (): Any =>
    new d.DataFrame({ k: ["x", "y", "x", "z", "y", "x"], n: [3, 1, 2, 7, 5, 4], v: [1.5, 2, 3.25, 4, 5.5, 0.1] });

  it("sum, mean, count, min, max equal danfo's (columns, order, dtypes), also through the shortcuts and col()", () => {
    const df = frame();
    const spec = { v: ["sum", "mean", "count", "min", "max"], n: "sum" };
    const theirs = upstream(() => df.groupby(["k"]).agg(spec));
    const ours = df.groupby(["k"]).agg(spec);
    expect(ours.columns).toEqual(theirs.columns);
    expect(ours.values).toEqual(theirs.values);
    expect(ours.dtypes).toEqual(theirs.dtypes.map((t: string) => (t === "float32" ? "float64" : t)));
    for (const op of ["sum", "mean", "count", "min", "max"]) {
      expect(df.groupby(["k"])[op]().values).toEqual(upstream(() => df.groupby(["k"])[op]().values));
      expect(df.groupby(["k"]).col(["v"])[op]().values).toEqual(
        upstream(() => df.groupby(["k"]).col(["v"])[op]().values),
      );
    }
    const two = new d.DataFrame({ a: [2, 1, 2, 1], b: ["p", "q", "p", "p"], v: [1, 2, 3, 4] }) as Any;
    expect(two.groupby(["a", "b"]).agg({ v: "sum" }).values).toEqual(
      upstream(() => two.groupby(["a", "b"]).agg({ v: "sum" }).values),
    );
  });

  it("keeps danfo's other group operations and errors", () => {
    const df = frame();
    expect(df.groupby(["k"]).std().columns).toEqual(["k", "n_std", "v_std"]);
    expect(df.groupby(["k"]).agg({ v: "median" }).values).toEqual([
      ["x", 1.5],
      ["y", 3.75],
      ["z", 4],
    ]);
    expect(df.groupby(["k"]).ngroups).toBe(3);
    expect(df.groupby(["k"]).getGroup(["z"]).values).toEqual([["z", 7, 4]]);
    expect(() => df.groupby(["k"]).agg({ v: "nope" })).toThrow("group operation: nope for column v is not valid");
    expect(() => df.groupby(["k"]).agg({ k: "sum" })).toThrow("Can't perform math operation on column k");
    expect(() => df.groupby(["nope"])).toThrow('groupby column "nope" not found');
  });

  it("tells apart groups danfo merged by joining keys with '-'", () => {
    const df = new d.DataFrame({ a: ["a-b", "a"], b: ["c", "b-c"], v: [1, 2] }) as Any;
    expect(upstream(() => df.groupby(["a", "b"]).agg({ v: "sum" }).shape[0])).toBe(1);
    expect(df.groupby(["a", "b"]).agg({ v: "sum" }).values).toEqual([
      ["a-b", "c", 1],
      ["a", "b-c", 2],
    ]);
  });

  it("describe: the number columns, missing values skipped (danfo: throws on a date column, NaN with one missing value)", () => {
    const df = trades();
    expect(() => upstream(() => df.describe())).toThrow("unexpected type of argument");
    const numbers = df.loc({ columns: ["notional", "price"] });
    expect(upstream(() => numbers.describe())["notional"].values[1]).toBeNaN();
    const ours = df.describe();
    expect(ours.columns).toEqual(["notional", "price"]);
    expect(ours.index).toEqual(["count", "mean", "std", "min", "median", "max", "variance"]);
    const present = (df["notional"].values as number[]).filter((x) => !Number.isNaN(x));
    const mean = present.reduce((a, b) => a + b, 0) / present.length;
    const variance = present.reduce((a, b) => a + (b - mean) ** 2, 0) / (present.length - 1);
    expect(ours["notional"].values).toEqual([
      7,
      mean,
      Math.sqrt(variance),
      -39_912_345.67,
      5_000_000.01,
      51_832_906_865.2,
      variance,
    ]);
    const clean = new d.DataFrame({ a: [1, 2, 3, 10], b: [0.5, 0.25, 4, 8] }) as Any;
    expect(clean.describe().values).toEqual(upstream(() => clean.describe().values));
  });
});

/** What a Series is, as danfo and the corrections both keep it. */
function seriesState(s: Any): unknown {
  return {
    isSeries: s instanceof d.Series,
    values: s.values,
    index: s.index,
    columns: s.columns,
    dtypes: s.dtypes,
    ownDtypes: s.$dtypes,
    cache: s.$dataIncolumnFormat,
    lowMemory: s.config.isLowMemoryMode,
    shape: s.shape,
  };
}

describe("a column and a comparison on a sorted frame (df[col], Series.gt, …: issue 46, item 3)", () => {
  const sorted = (): Any => trades().sortValues("notional", { ascending: false });

  it("df[col] is danfo's Series for every column: values, index (a copy), dtypes, config", () => {
    const df = sorted();
    for (const name of df.columns as string[]) {
      const ours = df[name];
      expect(seriesState(ours), name).toEqual(seriesState(upstream(() => df[name])));
      expect(ours.index).not.toBe(df.index);
      expect(df.column(name).values).toEqual(ours.values);
    }
    expect(() => df.column("nope")).toThrow(upstream(() => captured(() => df.column("nope"))));
  });

  it("so in low-memory mode, and on an empty frame", () => {
    const low = new d.DataFrame({ a: [3, 1, 2], b: ["x", "y", "z"] }, { config: { lowMemoryMode: true } }) as Any;
    const lowSorted = low.sortValues("a");
    for (const name of ["a", "b"])
      expect(seriesState(lowSorted[name])).toEqual(seriesState(upstream(() => lowSorted[name])));
    const empty = new d.DataFrame([], { columns: ["a"] }) as Any;
    expect(seriesState(empty["a"])).toEqual(seriesState(upstream(() => empty["a"])));
  });

  it("lt … ne against a number, an array, a Series and text give danfo's boolean Series", () => {
    const df = sorted();
    const notional = df["notional"];
    const price = df["price"];
    const ccy = df["ccy"];
    const cases: [string, Any, unknown][] = [
      ...["lt", "gt", "le", "ge", "eq", "ne"].map((op): [string, Any, unknown] => [op, notional, 5_000_000.01]),
      ["gt", price, price.values.map((x: number) => x + (x > 100 ? -1 : 1))],
      ["le", price, df["notional"]],
      ["eq", ccy, "EUR"],
      ["ne", ccy, "usd"],
    ];
    for (const [op, series, other] of cases)
      expect(seriesState(series[op](other)), `${series.columns[0]}.${op}`).toEqual(
        seriesState(upstream(() => series[op](other))),
      );
    const mask = notional.gt(5e6);
    expect(mask.values).toEqual([true, true, true, true, false, false, false, false]);
    expect(mask.index).toBe(notional.index); // danfo's boolOps keeps the Series' own index array
    for (const [op, other] of [
      ["gt", [1, 2]],
      ["gt", "EUR"],
      ["lt", { a: 1 }],
    ] as const)
      expect(() => notional[op](other)).toThrow(upstream(() => captured(() => notional[op](other))));
  });

  it("a sort's or query's rows are built when first read, as they would have been built at once", () => {
    const df = trades();
    const sorted = df.sortValues("notional", { ascending: false });
    const q = sorted.query(sorted["notional"].gt(5e6));
    const built = (f: Any): boolean => "value" in Object.getOwnPropertyDescriptor(f, "$data")!;
    expect([built(sorted), built(q)], "rows built by the sort and the query").toEqual([false, false]);
    expect([sorted.shape, q.shape]).toEqual([
      [8, 5],
      [4, 5],
    ]);
    expect(built(q), "rows built by shape").toBe(false);
    const rows = (f: Any): unknown[][] =>
      f.index.map((_: unknown, i: number) => f.columns.map((c: string) => f[c].values[i]));
    expect(q.values).toEqual(rows(q));
    expect(built(q)).toBe(true);
    expect(q.values).toBe(q.values);
    // danfo's own code on frames whose rows are not built yet: a column set, a copy, a print, a group-by.
    const later = sorted.query(sorted["notional"].gt(5e6));
    later["price"] = [1, 2, 3, 4];
    expect(later.values.map((r: unknown[]) => r[3])).toEqual([1, 2, 3, 4]);
    expect(later["price"].values).toEqual([1, 2, 3, 4]);
    expect(sorted.copy().values).toEqual(rows(sorted));
    const eager = df.sortValues("notional", { ascending: false });
    void eager.values;
    expect(df.sortValues("notional", { ascending: false }).toString()).toBe(eager.toString());
    expect(df.sortValues("notional", { ascending: false }).groupby(["ccy"]).agg({ price: "sum" }).values).toEqual(
      eager.groupby(["ccy"]).agg({ price: "sum" }).values,
    );
  });

  it("a frame made from a column table builds its rows when first read, as they would have been built at once", () => {
    const built = (f: Any): boolean => "value" in Object.getOwnPropertyDescriptor(f, "$data")!;
    const rows = (f: Any): unknown[][] =>
      f.index.map((_: unknown, i: number) => f.columns.map((c: string) => f[c].values[i]));
    const df = trades();
    expect(built(df), "rows built by toDataFrame").toBe(false);
    expect(df.shape).toEqual([8, 5]);
    expect(df["notional"].values[0]).toBe(51_832_906_865.2);
    expect(built(df), "rows built by shape or a column").toBe(false);
    expect(df.values).toEqual(rows(df));
    expect(built(df)).toBe(true);
    const eager = trades();
    void eager.values;
    expect(trades().toString()).toBe(eager.toString());
    expect(trades().groupby(["ccy"]).agg({ price: "sum" }).values).toEqual(
      eager.groupby(["ccy"]).agg({ price: "sum" }).values,
    );
    const set = trades();
    set["price"] = [1, 2, 3, 4, 5, 6, 7, 8];
    expect(set.values.map((r: unknown[]) => r[3])).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("query after the sort keeps the sorted rows, their labels and dtypes", () => {
    const df = sorted();
    const q = df.query(df["notional"].gt(5e6));
    expect(q.index).toEqual([0, 3, 5, 2]);
    expect(q["notional"].values).toEqual([51_832_906_865.2, 12_345_678.9, 7_777_777.77, 5_000_000.01]);
    expect(q.dtypes).toEqual(df.dtypes);
    expect(seriesState(q["trade_id"])).toEqual(seriesState(upstream(() => q["trade_id"])));
  });
});

/** The message of what `fn` throws (to compare the corrections' errors with danfo's own). */
function captured(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected a throw");
}

describe("TensorFlow.js's Node.js banner", () => {
  it("is never printed, even by a CPU backend made again after tf.engine().reset()", () => {
    const vendor = path.resolve(__dirname, "../../vendor/danfo");
    const script = `
      const d = require(${JSON.stringify(vendor)});
      new d.DataFrame({ a: [1.5, 2] }).add(1).print();
      const tf = d.tensorflow;
      tf.engine().reset();
      tf.setBackend("cpu");
      console.log(tf.tensor([1, 2]).add(1).dataSync().join(","));`;
    const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("2,3");
    expect(run.stdout + run.stderr).not.toMatch(/Hi, looks like|node backend/);
  });
});
