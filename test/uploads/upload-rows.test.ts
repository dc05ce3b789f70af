import { describe, expect, it } from "vitest";
import { RequestValidationError } from "../../src";
import { bondPriceRecord } from "../../src/api/market-data";
import { convertCell, issueToRowError, normaliseName, readRows } from "../../src/uploads/upload-rows";
import { formatRowError, RowValidationError } from "../../src/uploads/errors";

describe("readRows(source)", () => {
  it("reads an array of objects, normalising keys", () => {
    const r = readRows([{ "Traded Price": 1, currency: "USD" }]);
    expect(r.rows).toEqual([{ traded_price: 1, currency: "USD" }]);
    expect(r.columns).toEqual(["traded_price", "currency"]);
  });

  it("marks an array element that is not an object as unreadable", () => {
    const r = readRows([{ a: 1 }, 7 as unknown as Record<string, unknown>]);
    expect([...r.unreadable]).toEqual([1]);
    expect(r.errors).toEqual([{ row: 1, message: "expected an object, got 7" }]);
  });

  it("reads anything with danfo's columns and row-major values", () => {
    const r = readRows({
      columns: ["code", "vol"],
      values: [
        ["A", 0.2],
        ["B", NaN],
      ],
    });
    expect(r.rows).toEqual([
      { code: "A", vol: 0.2 },
      { code: "B", vol: NaN },
    ]);
  });

  it("reads CSV text with line numbers and flags a row with the wrong number of cells", () => {
    const r = readRows({ csv: "a,b\n1,2\n3\n" });
    expect(r.lines).toEqual([2, 3]);
    expect(r.errors).toEqual([{ row: 1, line: 3, message: "has 1 cell, the header has 2" }]);
  });

  it("turns an unreadable CSV into a table error", () => {
    expect(readRows({ csv: 'a\n"open\n' }).errors).toEqual([
      { row: null, line: 2, message: "a quoted field is never closed" },
    ]);
  });

  it("refuses anything else", () => {
    expect(() => readRows(42 as never)).toThrow(/expected a danfo DataFrame, an array of objects/);
  });
});

describe("convertCell(value, type)", () => {
  it("converts text that plainly is a number or boolean, and nothing else", () => {
    expect(convertCell(" 99.5 ", "number")).toBe(99.5);
    expect(convertCell("-1e-3", "number")).toBe(-0.001);
    expect(convertCell("abc", "number")).toBe("abc");
    expect(convertCell("0x10", "number")).toBe("0x10");
    expect(convertCell("TRUE", "boolean")).toBe(true);
    expect(convertCell("no", "boolean")).toBe(false);
    expect(convertCell(1, "boolean")).toBe(true);
    expect(convertCell("maybe", "boolean")).toBe("maybe");
  });

  it("reads blank cells (empty text, null, NaN) as missing", () => {
    for (const blank of ["", "  ", null, undefined, NaN]) expect(convertCell(blank, "number")).toBeUndefined();
  });
});

describe("issueToRowError and formatRowError", () => {
  it("writes zod's issues the way a person reads them", () => {
    const r = bondPriceRecord.safeParse({ traded_price: "abc" }, { reportInput: true });
    const errors = r.success ? [] : r.error.issues.map((i) => formatRowError(issueToRowError(i, 7, undefined)));
    expect(errors).toContain('row 7: traded_price: expected number, got "abc"');
    expect(errors).toContain("row 7: date: missing");
  });

  it("names the CSV line and the row", () => {
    expect(formatRowError({ row: 7, line: 9, field: "vol", message: "missing" })).toBe("line 9 (row 7): vol: missing");
    expect(formatRowError({ row: null, field: "tradedprice", message: "unknown column" })).toBe(
      "table: tradedprice: unknown column",
    );
  });
});

describe("RowValidationError", () => {
  it("is a RequestValidationError listing every row, with field issues", () => {
    const e = new RowValidationError("UploadBondPriceData", [
      { row: 1, field: "currency", message: "bad" },
      { row: 1, field: "date", message: "missing" },
      { row: 4, field: "traded_price", message: "missing" },
    ]);
    expect(e).toBeInstanceOf(RequestValidationError);
    expect(e.message).toBe(
      "UploadBondPriceData: 2 invalid rows, nothing was sent — row 1: currency: bad; row 1: date: missing; row 4: traded_price: missing. To send the valid rows and get one table of the others: { use_best_effort: true, skipInvalid: true }",
    );
    expect(e.issues[2]).toEqual({ path: "[4].traded_price", message: "missing" });
    expect(e.operation).toBe("UploadBondPriceData");
  });
});

describe("normaliseName(name)", () => {
  it("trims, lower-cases and joins words with _", () => {
    expect(normaliseName(" Traded Price ")).toBe("traded_price");
    expect(normaliseName("bond_identifier.code")).toBe("bond_identifier.code");
    expect(normaliseName("Is-Percentage-Of-Par")).toBe("is_percentage_of_par");
  });
});
