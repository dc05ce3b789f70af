/**
 * Excel in and out (issue 48, item 1): round-trips of every column kind through real .xlsx files in a
 * temp dir, several sheets in one workbook, overwrite refused, replaced whole or not at all, and the
 * errors for what is not a readable workbook (each naming the file, the sheet or the cell).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import { TableBuilder, type ColumnTable } from "../../src/table/column-table";
import { ExcelError } from "../../src/uploads/errors";
import { MAC_1904_DAY, writeMac1904Workbook } from "./mac-1904";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-excel-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => path.join(dir, name);

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

/** One column of every kind the tables have, with missing values. */
function everyKind(): ColumnTable {
  return new TableBuilder(4, "test")
    .add("price", [99.5, NaN, -0.25, 1e-9])
    .add("code", ["XS1", null, "0012", 'a\nb "q" é'])
    .add("ccy", ["USD", "EUR", null, "USD"], { hint: "category" })
    .add("flag", [true, false, null, true])
    .add("date", [day("2026-11-20"), null, day("1999-12-31"), day("2026-02-28")])
    .add("stamp", [new Date("2026-11-20T13:45:07.250Z"), null, new Date("2026-11-21T00:00:00Z"), new Date(0)])
    .add("mixed", [1, "two", day("2026-11-20"), true])
    .add("nothing", [null, null, null, null])
    .build();
}

describe("toExcel → readExcelColumns round trip", () => {
  it("keeps every kind and every missing value", async () => {
    const file = at("kinds.xlsx");
    const written = await frames.toExcel(everyKind(), file);
    expect(written).toEqual({ path: file, sheets: [{ name: "Sheet1", rows: 4, columns: 8 }] });
    const t = await frames.readExcelColumns(file);
    expect(t.columns).toEqual(["price", "code", "ccy", "flag", "date", "stamp", "mixed", "nothing"]);
    expect(t.kinds).toEqual({
      price: "number",
      code: "string",
      ccy: "string", // categories are text in a cell
      flag: "boolean",
      date: "date",
      stamp: "date",
      mixed: "mixed",
      nothing: "empty",
    });
    expect(t.data.price).toEqual([99.5, NaN, -0.25, 1e-9]);
    expect(t.data.code).toEqual(["XS1", null, "0012", 'a\nb "q" é']);
    expect(t.data.ccy).toEqual(["USD", "EUR", null, "USD"]);
    expect(t.data.flag).toEqual([true, false, null, true]);
    expect(t.data.date).toEqual([day("2026-11-20"), null, day("1999-12-31"), day("2026-02-28")]);
    expect(t.data.stamp).toEqual(everyKind().data.stamp);
    expect(t.data.mixed).toEqual([1, "two", day("2026-11-20"), true]); // the date cell has a date format
    expect(t.data.nothing).toEqual([null, null, null, null]);
    expect(t.meta.missing).toMatchObject({ price: 1, code: 1, date: 1, nothing: 4 });
    expect(t.meta.warnings.map((w) => w.message)).toEqual([
      'column "mixed" holds 1 number, 1 text value, 1 boolean, 1 date, e.g. row 0: 1; kept as received, nothing converted (cell Sheet1!G2)',
    ]);
    expect(t.meta.fields).toMatchObject({ file, sheet: "Sheet1", sheetRows: [2, 3, 4, 5] });
  });

  it("writes a DataFrame and reads one back (readExcel)", async () => {
    const file = at("frame.xlsx");
    await frames.toExcel(frames.toDataFrame(everyKind()), file, { sheet: "Frame" });
    const df = await frames.readExcel(file, { sheet: "Frame" });
    expect(df.columns).toContain("price");
    expect(frames.fromDataFrame(df).data.date).toEqual(everyKind().data.date);
  });

  it("writes several sheets into one workbook, read by name or position", async () => {
    const file = at("sheets.xlsx");
    const a = new TableBuilder(2, "t").add("x", [1, 2]).build();
    const b = new TableBuilder(1, "t").add("y", ["z"]).build();
    const written = await frames.toExcel({ First: a, "Second one": b }, file);
    expect(written.sheets.map((s) => s.name)).toEqual(["First", "Second one"]);
    expect((await frames.readExcelColumns(file, { sheet: "Second one" })).data.y).toEqual(["z"]);
    expect((await frames.readExcelColumns(file, { sheet: 1 })).data.y).toEqual(["z"]);
    expect((await frames.readExcelColumns(file)).data.x).toEqual([1, 2]);
  });

  it("reads a range, with and without a header row", async () => {
    const file = at("range.xlsx");
    await frames.toExcel(everyKind(), file);
    const part = await frames.readExcelColumns(file, { range: "B1:D3" });
    expect(part.columns).toEqual(["code", "ccy", "flag"]);
    expect(part.rowCount).toBe(2);
    const bare = await frames.readExcelColumns(file, { range: "A2:C5", header: false });
    expect(bare.columns).toEqual(["A", "B", "C"]);
    expect(bare.data.A).toEqual([99.5, NaN, -0.25, 1e-9]);
    const named = await frames.readExcelColumns(file, { range: "A2:C5", header: ["p", "c", "k"] });
    expect(named.columns).toEqual(["p", "c", "k"]);
    // A row with nothing in the range is left out, as the CSV reader leaves out a blank line.
    const narrow = await frames.readExcelColumns(file, { range: "A2:B5", header: false });
    expect(narrow.data.A).toEqual([99.5, -0.25, 1e-9]);
    expect(narrow.meta.fields.sheetRows).toEqual([2, 4, 5]);
  });
});

describe("toExcel writes whole or not at all", () => {
  it("refuses to overwrite unless asked, and leaves the file as it was", async () => {
    const file = at("keep.xlsx");
    await frames.toExcel(new TableBuilder(1, "t").add("v", [1]).build(), file);
    const before = readFileSync(file);
    const again = frames.toExcel(new TableBuilder(1, "t").add("v", [2]).build(), file);
    await expect(again).rejects.toThrow(ExcelError);
    await expect(again).rejects.toThrow(`frames.toExcel: ${file} exists; pass { overwrite: true } to replace it`);
    expect(readFileSync(file).equals(before)).toBe(true);
    await frames.toExcel(new TableBuilder(1, "t").add("v", [2]).build(), file, { overwrite: true });
    expect((await frames.readExcelColumns(file)).data.v).toEqual([2]);
    expect(readdirSync(dir).filter((f) => f.includes(".partial-"))).toEqual([]);
  });

  it("a write that fails half-way leaves the previous workbook and no temporary file", async () => {
    const file = at("half.xlsx");
    await frames.toExcel(new TableBuilder(1, "t").add("v", [1]).build(), file);
    const before = readFileSync(file);
    const good = new TableBuilder(1000, "t")
      .add(
        "n",
        Array.from({ length: 1000 }, (_, i) => i),
      )
      .build();
    const bad = new TableBuilder(2, "t").add("text", ["ok", "x".repeat(40_000)]).build();
    const write = frames.toExcel({ Good: good, Bad: bad }, file, { overwrite: true });
    await expect(write).rejects.toThrow(
      `frames.toExcel: Bad!A3 (row 1 of a string column): text of 40000 characters; an Excel cell holds 32767 at most`,
    );
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.includes(".partial-"))).toEqual([]);
  });

  it("refuses sheet names Excel refuses", async () => {
    const t = new TableBuilder(1, "t").add("v", [1]).build();
    await expect(frames.toExcel({ "a/b": t }, at("bad-name.xlsx"))).rejects.toThrow(
      'sheet name "a/b" has one of [ ] : * ? / \\',
    );
    await expect(frames.toExcel({ Same: t, same: t }, at("bad-name.xlsx"))).rejects.toThrow(
      'sheet name "same" is used twice (Excel ignores case)',
    );
    expect(existsSync(at("bad-name.xlsx"))).toBe(false);
  });
});

describe("readExcel on what is not a readable workbook", () => {
  it("names the missing sheet and lists those there are", async () => {
    const file = at("sheets2.xlsx");
    await frames.toExcel({ One: everyKind(), Two: everyKind() }, file);
    await expect(frames.readExcelColumns(file, { sheet: "Three" })).rejects.toThrow(
      `frames.readExcelColumns: ${file} has no sheet "Three"; its sheets: "One", "Two"`,
    );
  });

  it("says a CSV, an .xls, an empty file or a missing file is not a workbook", async () => {
    writeFileSync(at("prices.xlsx"), "date,code\n2026-11-20,XS1\n");
    await expect(frames.readExcel(at("prices.xlsx"))).rejects.toThrow(
      `frames.readExcel: ${at("prices.xlsx")} is not an .xlsx workbook (an .xlsx is a zip file; it starts with "date,cod")`,
    );
    writeFileSync(at("old.xls"), Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]));
    await expect(frames.readExcel(at("old.xls"))).rejects.toThrow("it is an Excel 97–2003 (.xls) or other OLE file");
    writeFileSync(at("empty.xlsx"), "");
    await expect(frames.readExcel(at("empty.xlsx"))).rejects.toThrow("it is empty");
    await expect(frames.readExcel(at("nowhere.xlsx"))).rejects.toThrow(
      `cannot read ${at("nowhere.xlsx")}: no such file`,
    );
  });

  it("says a truncated workbook is a corrupt zip", async () => {
    const file = at("whole.xlsx");
    const big = new TableBuilder(3000, "t")
      .add(
        "n",
        Array.from({ length: 3000 }, (_, i) => `row ${i}`),
      )
      .build();
    await frames.toExcel(big, file);
    const bytes = readFileSync(file);
    writeFileSync(at("cut.xlsx"), bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(frames.readExcelColumns(at("cut.xlsx"))).rejects.toThrow(
      `frames.readExcelColumns: ${at("cut.xlsx")} is not a readable workbook (a corrupt or truncated zip`,
    );
  });

  it("stops at maxRows with an error naming the sheet and the row, before holding the rest", async () => {
    const file = at("many.xlsx");
    const n = 5000;
    await frames.toExcel(
      new TableBuilder(n, "t")
        .add(
          "n",
          Array.from({ length: n }, (_, i) => i),
        )
        .build(),
      file,
    );
    await expect(frames.readExcelColumns(file, { maxRows: 1000 })).rejects.toThrow(
      `frames.readExcelColumns: ${file} sheet "Sheet1" has more than 1000 data rows (maxRows), at Sheet1!A1002; read part of it with { range: "A1:J1001" }, or raise maxRows`,
    );
    expect((await frames.readExcelColumns(file, { maxRows: n })).rowCount).toBe(n);
  });
});

describe("a workbook exceljs's stream reader cannot read", () => {
  // exceljs's stream reader reads a zip's entries in the order they are stored, and ended early on some: a
  // workbook rewritten by JSZip (its sheets handed out before the workbook part, then a TypeError inside
  // exceljs), and now and then under load our own (sheets named "Sheet1", "Sheet2", text as
  // `{ sharedString: 0 }`, without an error). Such a workbook is read whole instead, within its bound.
  const rewritten = async (name: string, drop?: string): Promise<string> => {
    const file = at(name);
    const t = new TableBuilder(2, "t").add("name", ["a", "b"]).add("n", [1, 2]).build();
    await frames.toExcel({ One: t, Two: t }, file);
    const JSZip = createRequire(__filename)("jszip") as typeof import("jszip");
    const zip = await JSZip.loadAsync(readFileSync(file));
    if (drop) zip.remove(drop);
    writeFileSync(file, await zip.generateAsync({ type: "nodebuffer" }));
    return file;
  };

  it("reads a workbook JSZip wrote again, sheet names and text as written", async () => {
    const file = await rewritten("jszip.xlsx");
    const two = await frames.readExcelColumns(file, { sheet: "Two" });
    expect(two.data).toEqual({ name: ["a", "b"], n: [1, 2] });
    await expect(frames.readExcelColumns(file, { sheet: "Three" })).rejects.toThrow('its sheets: "One", "Two"');
  });

  it("refuses a workbook whose text is in a shared strings part it does not have, rather than read the indices", async () => {
    // Read whole, exceljs keeps a shared string's index (0, 1, …) as the cell's value when the part is missing:
    // the header read as columns "0" and "1", the text as numbers.
    const file = await rewritten("no-shared-strings.xlsx", "xl/sharedStrings.xml");
    await expect(frames.readExcelColumns(file, { sheet: "Two" })).rejects.toThrow(
      `frames.readExcelColumns: ${file} sheet "Two": cell A1 is text kept in the workbook's shared strings (xl/sharedStrings.xml), which the file does not have; nothing was read rather than the text's index (0) as a number: save the workbook again from Excel or LibreOffice`,
    );
  });

  it("refuses a workbook without its workbook part, rather than name its sheets Sheet1 and Sheet2", async () => {
    const file = await rewritten("no-workbook.xlsx", "xl/workbook.xml");
    await expect(frames.readExcelColumns(file, { sheet: "One" })).rejects.toThrow(
      `frames.readExcelColumns: ${file} holds no worksheet: a zip, but not an .xlsx workbook`,
    );
  });
});

describe("a workbook in the 1904 date system (Excel for Mac's old default)", () => {
  it("reads its dates, saved values and formula results alike, as the days they show", async () => {
    const file = at("mac-1904.xlsx");
    await writeMac1904Workbook(file);
    expect((await frames.readExcelColumns(file)).data).toEqual({ day: [MAC_1904_DAY], formula: [MAC_1904_DAY] });
  });
});

describe("a sheet picked by position", () => {
  it("counts the workbook's tabs, not the order its sheet files are stored in", async () => {
    // Tabs moved in Excel keep their sheet files (sheet1.xml stays the first made): here the tab order is
    // Second, First while sheet1.xml holds First.
    const file = at("moved-tabs.xlsx");
    const first = new TableBuilder(1, "t").add("which", ["first"]).build();
    const second = new TableBuilder(1, "t").add("which", ["second"]).build();
    await frames.toExcel({ First: first, Second: second }, file);
    const JSZip = createRequire(__filename)("jszip") as typeof import("jszip");
    const zip = await JSZip.loadAsync(readFileSync(file));
    const workbook = await zip.file("xl/workbook.xml")!.async("string");
    const tabs = /<sheets>(.*)<\/sheets>/s.exec(workbook)![1]!;
    const [a, b] = tabs.match(/<sheet [^>]*\/>/g)!;
    zip.file("xl/workbook.xml", workbook.replace(tabs, `${b}${a}`));
    writeFileSync(file, await zip.generateAsync({ type: "nodebuffer", compression: "DEFLATE" }));
    expect((await frames.readExcelColumns(file, { sheet: 0 })).data.which).toEqual(["second"]);
    expect((await frames.readExcelColumns(file, { sheet: 1 })).data.which).toEqual(["first"]);
    await expect(frames.readExcelColumns(file, { sheet: 2 })).rejects.toThrow('its sheets: "Second", "First"');
  });
});
