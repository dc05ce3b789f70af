import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import { detectTableShape, transactionTableColumns } from "../../src/transactions/table";
import { fetchTransactionTableColumns } from "../../src/transactions/fetch";
import { fetchTransactionTable, transactionTable } from "../../src/frames/transactions";
import { TableShapeError } from "../../src/transactions/errors";
import { frameInfo } from "../../src/frames/danfo";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { fixture } from "./helpers/fixtures";

const SHAPES = {
  rows: "transaction-table-rows.json",
  "columns+rows": "transaction-table-columns-rows.json",
  "columns+data": "transaction-table-columns-data.json",
  "column-major": "transaction-table-column-major.json",
} as const;

const COLUMNS = [
  "trade_id",
  "trade_date",
  "settlement_date",
  "tradable_id",
  "instrument_name",
  "asset_class",
  "counterparty",
  "book",
  "direction",
  "quantity",
  "price",
  "currency",
  "notional",
  "strategy",
];

const iso = (values: unknown[]) => values.map((v) => (v instanceof Date ? v.toISOString() : v));

describe("transactionTableColumns(response) on every wire shape (A13)", () => {
  for (const [shape, file] of Object.entries(SHAPES)) {
    it(`reads ${shape}: columns in the order received, the union over rows, dates as Date, numbers numeric, nulls missing`, () => {
      const t = transactionTableColumns(fixture(file));
      expect(t.meta.shape).toBe(shape);
      expect(t.columns).toEqual(COLUMNS);
      expect(t.rowCount).toBe(6);
      expect(t.kinds).toMatchObject({
        trade_id: "string",
        trade_date: "date",
        settlement_date: "date",
        quantity: "number",
        price: "number",
        notional: "number",
        strategy: "string",
      });
      expect(t.data.quantity).toEqual([5000000, -2000000, 1500, 1000000, 300000000, -750000]);
      expect(t.data.price).toEqual([99.8125, 97.43, 189.5, NaN, 98.12, 101.05]);
      expect(t.data.counterparty).toEqual(["JPM", "DB", null, "BARC", "MS", "UBS"]);
      expect(t.data.book).toEqual(["RATES-US", "RATES-EU", "EQ-DELTA1", "RATES-EU", null, "RATES-EU"]);
      expect(t.data.strategy).toEqual([null, null, null, "carry", null, null]);
      expect(t.meta.missing).toMatchObject({ counterparty: 1, book: 1, price: 1, notional: 1, strategy: 5 });
      expect(t.meta.warnings).toEqual([]);
    });
  }

  it("gives the same table for all four shapes", () => {
    const [first, ...others] = Object.values(SHAPES).map((f) => transactionTableColumns(fixture(f)));
    for (const t of others) {
      expect(t.columns).toEqual(first!.columns);
      for (const c of t.columns) expect(iso(t.data[c]!), c).toEqual(iso(first!.data[c]!));
    }
  });

  it("turns dates written with different offsets into the right instants", () => {
    const t = transactionTableColumns(fixture(SHAPES.rows));
    expect(iso(t.data.trade_date!)).toEqual([
      "2026-11-02T00:00:00.000Z",
      "2026-11-03T07:30:00.000Z",
      "2026-11-03T20:45:10.123Z",
      "2026-11-04T00:00:00.000Z",
      "2026-11-05T00:00:00.000Z",
      "2026-11-06T00:00:00.000Z",
    ]);
    expect(iso(t.data.settlement_date!).slice(1, 3)).toEqual(["2026-11-04T23:00:00.000Z", "2026-11-05T00:00:00.000Z"]);
  });

  it("accepts the data_table alone and keeps the response's other fields in meta", () => {
    const response = fixture<{ data_table: unknown }>(SHAPES.rows);
    expect(transactionTableColumns(response.data_table).rowCount).toBe(6);
    expect(transactionTableColumns({ ...response, portfolio_name: "GLOBAL-MACRO" }).meta.fields).toEqual({
      portfolio_name: "GLOBAL-MACRO",
    });
  });

  it("keeps fields the spec does not list (a later row's new field gets its column at the end)", () => {
    const t = transactionTableColumns([{ a: 1 }, { a: 2, b: "x" }, { c: true, a: 3 }]);
    expect(t.columns).toEqual(["a", "b", "c"]);
    expect(t.data).toEqual({ a: [1, 2, 3], b: [null, "x", null], c: [null, null, true] });
  });

  it("finds a row that swaps a field for another with the same count of keys", () => {
    const t = transactionTableColumns([
      { a: 1, b: 2 },
      { a: 3, z: 9 },
    ]);
    expect(t.columns).toEqual(["a", "b", "z"]);
    expect(t.data).toEqual({ a: [1, 3], b: [2, NaN], z: [NaN, 9] });
  });

  it("gives an empty table, not an exception, for every empty form", () => {
    for (const empty of [[], {}, null, { data_table: [] }, { data_table: null }, { data_table: {} }]) {
      const t = transactionTableColumns(empty);
      expect(t.rowCount).toBe(0);
      expect(t.columns).toEqual([]);
    }
    const declared = transactionTableColumns({ data_table: { columns: ["trade_id", "price"], rows: [] } });
    expect(declared.columns).toEqual(["trade_id", "price"]);
    expect(declared.rowCount).toBe(0);
    expect(transactionTable({ data_table: [] }).shape).toEqual([0, 0]);
  });

  it("keeps a column with a text value among numbers as received, with a warning, instead of NaN", () => {
    const t = transactionTableColumns([{ price: 99.5 }, { price: "n/a" }, { price: 101 }]);
    expect(t.kinds.price).toBe("mixed");
    expect(t.data.price).toEqual([99.5, "n/a", 101]);
    expect(t.meta.warnings[0]?.message).toMatch(/column "price" holds 2 numbers, 1 text value, e\.g\. row 1: "n\/a"/);
  });

  it("keeps a date column as text, with a warning, when one value is not a date", () => {
    const t = transactionTableColumns([{ d: "2026-11-20" }, { d: "TBD" }]);
    expect(t.kinds.d).toBe("string");
    expect(t.data.d).toEqual(["2026-11-20", "TBD"]);
    expect(t.meta.warnings[0]?.message).toMatch(/value at row 1 \("TBD"\) is not an ISO 8601 date/);
  });

  it("leaves dates as text with { dates: 'keep' }", () => {
    expect(transactionTableColumns(fixture(SHAPES.rows), { dates: "keep" }).kinds.trade_date).toBe("string");
  });

  it("reads rows that are not objects as rows without fields, and says so", () => {
    const t = transactionTableColumns([{ a: 1 }, null, 7, { a: 2 }]);
    expect(t.data.a).toEqual([1, NaN, NaN, 2]);
    expect(t.meta.warnings[0]?.message).toMatch(/2 rows are not an object \(first: row 1, null\)/);
  });

  it("pads short columns of a column-major table and drops extra cells of positional rows, with warnings", () => {
    const cm = transactionTableColumns({ a: [1, 2, 3], b: ["x"] });
    expect(cm.data.b).toEqual(["x", null, null]);
    expect(cm.meta.warnings[0]?.message).toMatch(/column "b" has 1 values, others have 3/);
    const pos = transactionTableColumns({ columns: ["a"], rows: [[1, "extra"], [2]] });
    expect(pos.data.a).toEqual([1, 2]);
    expect(pos.meta.warnings[0]?.message).toMatch(/1 row has more cells than the 1 declared columns/);
  });

  it("does not change the caller's column-major arrays", () => {
    const input = { price: [1, null] };
    transactionTableColumns(input);
    expect(input.price).toEqual([1, null]);
  });

  it("throws a TableShapeError naming the known shapes for anything else", () => {
    expect(() => detectTableShape("table")).toThrow(TableShapeError);
    expect(() => detectTableShape({ columns: "a", total: 3 })).toThrow(
      /field "columns" is not an array.*rows of objects/,
    );
    expect(() => transactionTableColumns({ columns: [{ width: 3 }], rows: [] })).toThrow(/data_table\.columns\[0\]/);
  });
});

describe("transactionTable(response)", () => {
  it("is a danfo DataFrame with datetime, float64 and string dtypes and the shape in frameInfo", () => {
    const df = transactionTable(fixture(SHAPES["columns+data"]));
    expect(df.shape).toEqual([6, 14]);
    expect(df.dtypes.slice(0, 3)).toEqual(["string", "datetime", "datetime"]);
    expect(df.column("notional").isNa().values).toEqual([false, false, false, true, false, false]);
    expect(frameInfo(df)!.shape).toBe("columns+data");
  });
});

describe("fetchTransactionTable(rp, request) over HTTP", () => {
  let server: Loopback;
  let rp: RiskPortalClient;
  beforeAll(async () => {
    server = await startLoopback({ "/api/Position/GetTransactionTable": { body: fixture(SHAPES.rows) } });
    rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "test-bearer-token-123" }, retry: false });
  });
  afterAll(() => server.close());

  it("sends the same request as rp.position.transactionTable and returns the same table", async () => {
    const table = await fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO", counterparties: ["JPM"] });
    const plain = transactionTableColumns(
      await rp.position.transactionTable({ portfolio_name: "GLOBAL-MACRO", counterparties: ["JPM"] }),
    );
    const [lean, normal] = server.to("/api/Position/GetTransactionTable");
    expect(lean!.json).toEqual(normal!.json);
    expect(lean!.json).toEqual({
      $type: "Service.Web.Core.Positions.ApiGetTransactionTableRequest, Service.Web.Core",
      portfolio_name: "GLOBAL-MACRO",
      counterparties: ["JPM"],
    });
    expect(table.columns).toEqual(plain.columns);
    for (const c of table.columns) expect(iso(table.data[c]!)).toEqual(iso(plain.data[c]!));
  });

  it("returns a DataFrame, with { dates: 'keep' } honoured", async () => {
    const df = await fetchTransactionTable(rp, { portfolio_name: "GLOBAL-MACRO" }, { dates: "keep" });
    expect(df.shape).toEqual([6, 14]);
    expect(df.dtypes[1]).toBe("string");
  });

  it("validates the request like the client (nothing is sent for a bad one)", async () => {
    const before = server.requests.length;
    await expect(fetchTransactionTableColumns(rp, { portfolio_name: " " })).rejects.toThrow(
      /portfolio_name: must not be empty/,
    );
    expect(server.requests.length).toBe(before);
  });

  it("rejects a response without data_table with the client's ResponseValidationError", async () => {
    server.on("/api/Position/GetTransactionTable", { body: { rows: [] } });
    await expect(fetchTransactionTableColumns(rp, { portfolio_name: "X" })).rejects.toMatchObject({
      name: "ResponseValidationError",
    });
    server.on("/api/Position/GetTransactionTable", { body: fixture(SHAPES.rows) });
  });
});
