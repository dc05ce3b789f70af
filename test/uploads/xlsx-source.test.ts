/**
 * The upload helpers take a workbook sheet as they take a CSV (`{ xlsxFile, sheet }`, issue 48 item 1):
 * the same records from typed cells, and every row error at its cell (`'Bond marks'!F9 (row 7)`). The
 * workbooks are written with frames.toExcel into a temp dir from the CSV fixtures (typed: dates as date
 * cells, prices as numbers, flags as booleans), one cell spoilt where a test says so.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import { TableBuilder, type ColumnTable } from "../../src/table/column-table";
import { readCsvFile } from "../../src/uploads/csv";
import { ExcelError, formatRowError, RowValidationError } from "../../src/uploads/errors";
import { startLoopback, type Loopback } from "../helpers/loopback";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-xlsx-upload-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ROOT_FIXTURES = path.resolve(__dirname, "../../fixtures");

/** A CSV fixture as a typed table: ISO dates → dates, numbers → numbers, true/false → booleans, blank → missing. */
function typedTable(csv: string, spoil: (column: string, row: number, value: unknown) => unknown = (_c, _r, v) => v) {
  const { header, records } = readCsvFile(path.join(ROOT_FIXTURES, csv));
  const builder = new TableBuilder(records.length, "test");
  header.forEach((name, j) => {
    const values = records.map((r, i) => {
      const text = r[j]!;
      const typed =
        text === ""
          ? null
          : /^\d{4}-\d{2}-\d{2}$/.test(text)
            ? new Date(`${text}T00:00:00Z`)
            : /^-?\d+(\.\d+)?$/.test(text)
              ? Number(text)
              : text === "true" || text === "false"
                ? text === "true"
                : text;
      return spoil(name, i, typed);
    });
    builder.add(name, values, { detectDates: false });
  });
  return builder.build();
}

async function workbook(name: string, sheets: Record<string, ColumnTable>): Promise<string> {
  const file = path.join(dir, name);
  await frames.toExcel(sheets, file, { overwrite: true });
  return file;
}

describe("bondPriceRecords({ xlsxFile, sheet })", () => {
  it("reads the same records from a sheet of typed cells as from the CSV", async () => {
    const file = await workbook("bonds.xlsx", {
      Notes: typedTable("equity-vol-curves.csv"),
      Bonds: typedTable("bond-prices.csv"),
    });
    const fromSheet = await frames.bondPriceRecords({ xlsxFile: file, sheet: "Bonds" });
    const fromCsv = frames.bondPriceRecords({ csvFile: path.join(ROOT_FIXTURES, "bond-prices.csv") });
    expect(fromSheet.records).toEqual(fromCsv.records);
    const said = (e: { row: number | null; field?: string; message: string }) => [e.row, e.field, e.message];
    expect(fromSheet.errors.map(said)).toEqual(fromCsv.errors.map(said));
    expect(fromSheet.errors.length).toBeGreaterThan(0); // the fixture has a missing code and a price "95.5O"
    expect(fromSheet.sheet).toBe("Bonds");
    expect(fromSheet.lines).toEqual(Array.from({ length: 11 }, (_, i) => i + 2)); // the sheet rows, under a header in row 1
  });

  it("names the cell of every row error, the sheet quoted as Excel quotes it", async () => {
    const spoilt = typedTable("bond-prices.csv", (column, row, v) =>
      column === "traded_price" && row === 7 ? "95.5O" : column === "currency" && row === 2 ? "eur" : v,
    );
    const file = await workbook("bad-bonds.xlsx", { "Bond marks": spoilt });
    const { errors, records } = await frames.bondPriceRecords({ xlsxFile: file, sheet: "Bond marks" });
    expect(errors.map(formatRowError)).toEqual([
      "'Bond marks'!E4 (row 2): currency: eur: currency codes are upper case: EUR",
      "'Bond marks'!B8 (row 6): bond_identifier.code: missing",
      "'Bond marks'!F9 (row 7): traded_price: expected number, got \"95.5O\"",
    ]);
    expect(errors[2]).toMatchObject({ row: 7, line: 9, sheet: "Bond marks", cell: "F9", field: "traded_price" });
    expect(records).toHaveLength(8);
  });

  it("says which sheets there are when the one asked for is not", async () => {
    const file = await workbook("one-sheet.xlsx", { Bonds: typedTable("bond-prices.csv") });
    const error = await frames.bondPriceRecords({ xlsxFile: file, sheet: "Prices" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExcelError);
    expect((error as Error).message).toBe(
      `frames.bondPriceRecords: ${file} has no sheet "Prices"; its sheets: "Bonds"`,
    );
  });
});

describe("equityVolCurveRecords({ xlsxFile })", () => {
  it("leaves out a curve with a bad vol and names the cell", async () => {
    const spoilt = typedTable("equity-vol-curves.csv", (column, row, v) => (column === "vol" && row === 1 ? -0.25 : v));
    const file = await workbook("vols.xlsx", { Vols: spoilt });
    const result = await frames.equityVolCurveRecords({ xlsxFile: file });
    expect(result.errors.map(formatRowError)[0]).toMatch(/^Vols!E3 \(row 1\): vol: /);
    expect(result.leftOut[0]!.message).toMatch(/^AAPL curve of 2026-11-20 left out: Vols!E3 \(row 1\), vol -0\.25: /);
  });
});

describe("uploadBondPrices(rp, { xlsxFile }) over HTTP", () => {
  let server: Loopback;
  let rp: RiskPortalClient;
  beforeAll(async () => {
    server = await startLoopback({
      "/api/MarketData/UploadBondPriceData": {
        body: {
          $type: "Service.Web.Core.MarketData.ApiUploadBondPriceDataResponse, Service.Web.Core",
          is_success: true,
          error_messages: [],
        },
      },
    });
    rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "test-bearer-token-123" } });
  });
  afterAll(() => server.close());

  it("sends nothing and names the cells when a row is invalid", async () => {
    const spoilt = typedTable("bond-prices.csv", (column, row, v) =>
      column === "traded_price" && row === 7 ? "95.5O" : v,
    );
    const file = await workbook("upload-bad.xlsx", { Bonds: spoilt });
    const error = await frames.uploadBondPrices(rp, { xlsxFile: file, sheet: "Bonds" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RowValidationError);
    expect((error as Error).message).toMatch(
      /^UploadBondPriceData: 2 invalid rows, nothing was sent — Bonds!B8 \(row 6\): bond_identifier\.code: missing; Bonds!F9 \(row 7\): traded_price: expected number, got "95\.5O"/,
    );
    expect(server.to("/api/MarketData/UploadBondPriceData")).toHaveLength(0);
  });

  it("uploads the records of a valid sheet", async () => {
    const good = typedTable("bond-prices.csv", (column, row, v) =>
      column === "code" && row === 6 ? "DE0001102581" : column === "traded_price" && row === 7 ? 95.52 : v,
    );
    const file = await workbook("upload-good.xlsx", { Bonds: good });
    const outcome = await frames.uploadBondPrices(rp, { xlsxFile: file, sheet: "Bonds" });
    expect(outcome.is_success).toBe(true);
    const sent = server.to("/api/MarketData/UploadBondPriceData").at(-1)!.json as { bond_data: unknown[] };
    expect(sent.bond_data).toHaveLength(10); // row 7 now repeats row 2 exactly: sent once
    expect(sent.bond_data[0]).toMatchObject({
      date: "2026-11-20T00:00:00Z",
      traded_price: 101.07,
      is_percentage_of_par: true,
    });
  });
});
