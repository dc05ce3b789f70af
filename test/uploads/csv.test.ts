import { describe, expect, it } from "vitest";
import { parseCsv, readCsvFile } from "../../src/uploads/csv";
import { CsvError } from "../../src/uploads/errors";
import { fixturePath } from "../frames/helpers/fixtures";

describe("parseCsv(text)", () => {
  it("reads a header and records, with the line each record starts on", () => {
    const t = parseCsv("a,b\n1,2\n3,4\n");
    expect(t).toMatchObject({
      header: ["a", "b"],
      records: [
        ["1", "2"],
        ["3", "4"],
      ],
      lines: [2, 3],
      headerLine: 1,
      delimiter: ",",
    });
  });

  it("handles CRLF, a BOM and a missing final newline", () => {
    const t = parseCsv("\uFEFFa,b\r\n1,2\r\n3,4");
    expect(t.header).toEqual(["a", "b"]);
    expect(t.records).toEqual([
      ["1", "2"],
      ["3", "4"],
    ]);
  });

  it("reads quoted fields: delimiters, doubled quotes and line breaks inside them, and counts lines right", () => {
    const t = parseCsv('name,note\n"Bund, 2034","he said ""buy"""\n"two\r\nlines",x\nlast,y\n');
    expect(t.records).toEqual([
      ["Bund, 2034", 'he said "buy"'],
      ["two\r\nlines", "x"],
      ["last", "y"],
    ]);
    expect(t.lines).toEqual([2, 3, 5]);
  });

  it("skips blank lines but keeps a record of empty cells", () => {
    const t = parseCsv("a,b\n\n1,2\n,\n\r\n");
    expect(t.records).toEqual([
      ["1", "2"],
      ["", ""],
    ]);
    expect(t.lines).toEqual([3, 4]);
  });

  it("detects ; and tab delimiters from the header, ignoring ones inside quotes", () => {
    expect(parseCsv("a;b\n1;2").records).toEqual([["1", "2"]]);
    expect(parseCsv("a\tb\n1\t2").delimiter).toBe("\t");
    expect(parseCsv('"x;y",b\n1,2').delimiter).toBe(",");
    expect(parseCsv("a|b\n1|2", { delimiter: "|" }).records).toEqual([["1", "2"]]);
  });

  it("keeps a quote inside an unquoted field literally", () => {
    expect(parseCsv('a\n5"3\n').records).toEqual([['5"3']]);
  });

  it("says which line an unterminated quote starts on, and refuses an empty text", () => {
    expect(() => parseCsv('a\n1\n"open,2\n3\n')).toThrow(new CsvError("a quoted field is never closed", 3));
    expect(() => parseCsv("")).toThrow(/line 1: no header line/);
    expect(() => parseCsv("a", { delimiter: '"' })).toThrow(RangeError);
  });
});

describe("readCsvFile(path)", () => {
  it("reads a file", () => {
    const t = readCsvFile(fixturePath("equity-vol-curves.csv"));
    expect(t.delimiter).toBe(";");
    expect(t.header).toEqual(["code", "market_identification_code", "reference_date", "maturity", "vol", "spot_ref"]);
    expect(t.records).toHaveLength(6);
  });
});
