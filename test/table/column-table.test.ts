import { describe, expect, it } from "vitest";
import {
  emptyTable,
  finishColumn,
  formatWarning,
  levelsOf,
  numbersOf,
  preview,
  TableBuilder,
  valuesOf,
} from "../../src/table/column-table";

describe("finishColumn(name, raw, options)", () => {
  it("keeps numbers numeric and turns missing values (null, undefined, holes) into NaN", () => {
    const raw: unknown[] = [1.5, null, undefined, 4];
    raw.length = 5; // a hole
    const done = finishColumn("price", raw);
    expect(done.kind).toBe("number");
    expect(done.values).toEqual([1.5, NaN, NaN, 4, NaN]);
    expect(done.missing).toBe(3);
  });

  it("does not touch the caller's array unless it is owned", () => {
    const raw = [1, null];
    finishColumn("q", raw);
    expect(raw).toEqual([1, null]);
    const owned = [1, null];
    const done = finishColumn("q", owned, { owned: true });
    expect(done.values).toBe(owned);
  });

  it("keeps text with null for missing", () => {
    const done = finishColumn("book", ["A", null, undefined]);
    expect(done).toMatchObject({ kind: "string", values: ["A", null, null], missing: 2 });
  });

  it("reads a text column of ISO dates as Dates, whatever their offsets", () => {
    const done = finishColumn("d", ["2026-11-20", null, "2026-11-20T10:00:00+02:00"]);
    expect(done.kind).toBe("date");
    expect((done.values as (Date | null)[]).map((d) => d?.toISOString() ?? null)).toEqual([
      "2026-11-20T00:00:00.000Z",
      null,
      "2026-11-20T08:00:00.000Z",
    ]);
  });

  it("keeps a column as text, with a warning naming the row, when one value is not a date", () => {
    const done = finishColumn("trade_date", ["2026-11-20", "soon", "2026-11-21"]);
    expect(done.kind).toBe("string");
    expect(done.values).toEqual(["2026-11-20", "soon", "2026-11-21"]);
    expect(done.warning?.message).toMatch(/column "trade_date": value at row 1 \("soon"\) is not an ISO 8601 date/);
  });

  it("never turns text in a number column into NaN: the column is kept as received and a warning says where", () => {
    const done = finishColumn("price", [99.5, "abc", 101], { hint: "number" });
    expect(done.kind).toBe("mixed");
    expect(done.values).toEqual([99.5, "abc", 101]);
    expect(done.warning?.message).toMatch(
      /column "price" \(expected number\) holds 2 numbers, 1 text value, e\.g\. row 1: "abc"; kept as received/,
    );
  });

  it("infers booleans and keeps null", () => {
    expect(finishColumn("b", [true, null, false])).toMatchObject({ kind: "boolean", values: [true, null, false] });
  });

  it("calls a column with no values empty", () => {
    expect(finishColumn("x", [null, undefined])).toMatchObject({ kind: "empty", values: [null, null], missing: 2 });
  });

  it("gives a category its known levels first, then the others in order of appearance", () => {
    const done = finishColumn("status", ["failed", "archived", null, "none"], {
      hint: "category",
      levels: ["none", "running", "failed"],
    });
    expect(done.kind).toBe("category");
    expect(done.levels).toEqual(["none", "running", "failed", "archived"]);
  });

  it("leaves dates as text when date detection is off", () => {
    expect(finishColumn("d", ["2026-11-20"], { detectDates: false }).kind).toBe("string");
  });
});

describe("TableBuilder, valuesOf and numbersOf", () => {
  it("builds columns in order with their kinds, missing counts and warnings", () => {
    const t = new TableBuilder(2, "test", { $type: "X" }).add("a", [1, null]).add("b", ["x", 2]).build();
    expect(t.columns).toEqual(["a", "b"]);
    expect(t.kinds).toEqual({ a: "number", b: "mixed" });
    expect(t.meta).toMatchObject({ source: "test", missing: { a: 1, b: 0 }, fields: { $type: "X" } });
    expect(t.meta.warnings).toEqual([
      {
        row: 1,
        column: "b",
        message: 'column "b" holds 1 number, 1 text value, e.g. row 1: 2; kept as received, nothing converted',
      },
    ]);
  });

  it("warnings are records: the row and column at fault, and the words (firstRow numbers a batch's rows in the whole)", () => {
    const dates = ["2026-11-20", "2026-11-21", "soon"];
    expect(finishColumn("d", dates).warning).toEqual({
      row: 2,
      column: "d",
      message:
        'column "d": value at row 2 ("soon") is not an ISO 8601 date, though earlier values are; the column is kept as text',
    });
    const later = finishColumn("d", dates, { firstRow: 1000 }).warning!;
    expect(later).toMatchObject({ row: 1002, column: "d" });
    expect(formatWarning(later)).toBe(
      'column "d": value at row 1002 ("soon") is not an ISO 8601 date, though earlier values are; the column is kept as text',
    );
    const t = new TableBuilder(1, "t").add("a", [1]).warn("a plain warning").build();
    expect(t.meta.warnings).toEqual([{ message: "a plain warning" }]);
  });

  it("refuses a column of the wrong length or a duplicate name", () => {
    const b = new TableBuilder(2, "test").add("a", [1, 2]);
    expect(() => b.add("c", [1])).toThrow(/has 1 values, the table has 2 rows/);
    expect(() => b.add("a", [1, 2])).toThrow(/duplicate column "a"/);
  });

  it("valuesOf names the columns when asked for one that is not there", () => {
    const t = new TableBuilder(1, "t").add("a", [1]).build();
    expect(() => valuesOf(t, "b")).toThrow(/no column "b"; the table has "a"/);
  });

  it("numbersOf returns a number column and refuses any other kind", () => {
    const t = new TableBuilder(2, "t").add("n", [1, 2]).add("s", ["a", "b"]).add("e", [null, null]).build();
    expect(numbersOf(t, "n")).toEqual([1, 2]);
    expect(numbersOf(t, "e")).toEqual([NaN, NaN]);
    expect(() => numbersOf(t, "s")).toThrow(/is string, not number/);
  });

  it("emptyTable has the columns and no rows", () => {
    expect(emptyTable("x", ["a"])).toMatchObject({
      columns: ["a"],
      rowCount: 0,
      data: { a: [] },
      kinds: { a: "empty" },
    });
  });
});

describe("levelsOf and preview", () => {
  it("levelsOf keeps known levels even when absent", () => {
    expect(levelsOf(["b"], ["a", "b"])).toEqual(["a", "b"]);
  });

  it("preview quotes text, shortens long values and renders dates as ISO", () => {
    expect(preview("abc")).toBe('"abc"');
    expect(preview(undefined)).toBe("nothing");
    expect(preview(new Date(0))).toBe("1970-01-01T00:00:00.000Z");
    expect(preview("x".repeat(100))).toHaveLength(40);
  });
});
