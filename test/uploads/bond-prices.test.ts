import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import { bondPriceRecords, uploadBondPrices } from "../../src/uploads/bond-prices";
import { loadDanfo } from "../../src/frames/danfo";
import { formatRowError, RowValidationError } from "../../src/uploads/errors";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { fixturePath } from "../frames/helpers/fixtures";

const GOOD = { csvFile: fixturePath("bond-prices.csv") };
const BAD = { csvFile: fixturePath("bond-prices-bad.csv") };

describe("bondPriceRecords(source)", () => {
  it("turns a CSV file into wire records: identifier nested, text converted, a blank identifier_type left out", () => {
    const { records, errors, rows } = bondPriceRecords(GOOD);
    expect(errors).toEqual([]);
    expect(rows).toEqual([0, 1, 2, 3]);
    expect(records[0]).toEqual({
      date: "2026-11-20T00:00:00Z",
      bond_identifier: { code: "US91282CJL54", market_identification_code: "XNYS", identifier_type: "ISIN" },
      is_currency_per_bond_unit: false,
      currency: "USD",
      traded_price: 99.8125,
      is_percentage_of_par: true,
    });
    expect(records[1]!.date).toBe("2026-11-20T16:00:00-05:00");
    expect(records[2]!.bond_identifier).toEqual({ code: "DE0001102580", market_identification_code: "XETR" });
    expect(records[3]!.traded_price).toBe(100.21);
  });

  it("reports every invalid row with its line, row and reason", () => {
    const { errors, records } = bondPriceRecords(BAD);
    expect(errors.map(formatRowError)).toEqual([
      "line 3 (row 1): currency: usd: currency codes are upper case: USD",
      "line 4 (row 2): bond_identifier.code: missing",
      'line 5 (row 3): date: date-time "2026-11-20T10:00:00" has no offset; add "Z" or "+hh:mm" (its meaning would depend on the local time zone)',
      'line 6 (row 4): traded_price: expected number, got "abc"',
      "line 7 (row 5): has 7 cells, the header has 8",
      "line 9 (row 6): traded_price: missing",
    ]);
    expect(records).toHaveLength(1);
  });

  it("reads the same rows from an array of objects, with row numbers as array indices", () => {
    const { records, errors } = bondPriceRecords([
      {
        date: new Date("2026-11-20T00:00:00Z"),
        bond_identifier: { code: "US91282CJL54", market_identification_code: "XNYS" },
        is_currency_per_bond_unit: false,
        currency: "USD",
        traded_price: 99.8,
        is_percentage_of_par: true,
      },
      {
        date: "2026-11-20",
        code: "X",
        market_identification_code: "XNYS",
        is_currency_per_bond_unit: "false",
        currency: "USD",
        traded_price: "abc",
        is_percentage_of_par: true,
      },
    ]);
    expect(records).toHaveLength(1);
    expect(records[0]!.date).toBe("2026-11-20T00:00:00.000Z");
    expect(errors.map(formatRowError)).toEqual(['row 1: traded_price: expected number, got "abc"']);
  });

  it("reads a danfo DataFrame, including danfo's NaN for a missing number", () => {
    const d = loadDanfo();
    const df = new d.DataFrame(
      {
        date: ["2026-11-20", "2026-11-20"],
        "bond_identifier.code": ["US91282CJL54", "DE0001102580"],
        "bond_identifier.market_identification_code": ["XNYS", "XETR"],
        is_currency_per_bond_unit: [false, false],
        currency: ["USD", "EUR"],
        traded_price: [99.8125, NaN],
        is_percentage_of_par: [true, true],
      },
      { dtypes: ["string", "string", "string", "boolean", "string", "float32", "boolean"] },
    );
    const { records, errors } = bondPriceRecords(df);
    expect(records).toHaveLength(1);
    expect(errors.map(formatRowError)).toEqual(["row 1: traded_price: missing"]);
  });

  it("reports an unknown column once (it may be a misspelt field) unless told to ignore it", () => {
    const rows = [
      {
        date: "2026-11-20",
        code: "A",
        market_identification_code: "X",
        is_currency_per_bond_unit: false,
        currency: "USD",
        tradedprice: 1,
        is_percentage_of_par: true,
      },
    ];
    const { errors } = bondPriceRecords(rows);
    expect(errors[0]).toMatchObject({
      row: null,
      field: "tradedprice",
      message: expect.stringMatching(/^unknown column; expected date, code, .*traded_price/),
    });
    expect(errors[1]).toMatchObject({ row: 0, field: "traded_price", message: "missing" });
    expect(bondPriceRecords(rows, { unknownColumns: "ignore" }).errors.map((e) => e.field)).toEqual(["traded_price"]);
  });
});

describe("uploadBondPrices(rp, source) over HTTP", () => {
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

  it("sends nothing and throws RowValidationError listing every bad row", async () => {
    const error = await uploadBondPrices(rp, BAD).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RowValidationError);
    expect((error as RowValidationError).rows).toHaveLength(6);
    expect((error as Error).message).toMatch(
      /^UploadBondPriceData: 6 invalid rows, nothing was sent — line 3 \(row 1\): currency/,
    );
    expect(server.to("/api/MarketData/UploadBondPriceData")).toHaveLength(0);
  });

  it("uploads the validated records with the flags given", async () => {
    const outcome = await uploadBondPrices(rp, { csv: readFileSync(GOOD.csvFile, "utf8") }, { use_best_effort: true });
    expect(outcome.is_success).toBe(true);
    const sent = server.to("/api/MarketData/UploadBondPriceData").at(-1)!.json as {
      bond_data: unknown[];
      use_best_effort: boolean;
      trigger_immediate_bootstrap: boolean;
    };
    expect(sent.use_best_effort).toBe(true);
    expect(sent.trigger_immediate_bootstrap).toBeUndefined(); // not set by the caller: the service's default applies
    expect(sent.bond_data).toHaveLength(4);
    expect(sent.bond_data[2]).toMatchObject({ bond_identifier: { code: "DE0001102580" }, traded_price: 97.43 });
    expect((sent.bond_data[2] as { bond_identifier: Record<string, unknown> }).bond_identifier.$type).toBe(
      "Service.Web.Core.MarketData.InstrumentIdentifier, Service.Web.Core",
    );
  });

  it("refuses an empty source", async () => {
    await expect(uploadBondPrices(rp, [])).rejects.toThrow(/no rows: there is nothing to upload/);
  });
});
