/**
 * Issue 31, item 2: the pipeline takes a per-call response-check choice (`responseCheck`), where frames'
 * transaction-table fetch had a second declaration of operation 12 with a looser schema. A loopback
 * node:http server answers RateAsset and GetTransactionTable with crafted bodies:
 * - "top-level" passes an answer whose top-level fields are there, as the server sent it (the caller
 *   checks the rest), where the schema check refuses the same answer;
 * - an answer missing a required top-level field fails either way, with the schema's error;
 * - frames' transaction-table fetch (which asks for "top-level") still checks each row: a row that is
 *   not an object is a warning naming it, and an answer without data_table is refused.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResponseValidationError, RiskPortalClient } from "../../src";
import { fetchTransactionTableColumns } from "../../src/transactions/fetch";

const bodies: Record<string, unknown> = {};
let server: Server;
let rp: RiskPortalClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(bodies[req.url ?? ""] ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  rp = new RiskPortalClient({ baseUrl: `http://127.0.0.1:${port}`, auth: { apiKey: "key-check-choice-0123" } });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const CURVE = "/api/RateAsset";
const TABLE = "/api/Position/GetTransactionTable";
const request = { currency: "USD", market_date: "2026-11-20" };

describe("responseCheck: schema (default) or top-level", () => {
  it("top-level passes an answer with its top-level fields as sent; the schema check refuses it", async () => {
    // A curve point's maturity is text: the schema says number.
    bodies[CURVE] = {
      yield_curve_model: {
        currency: "USD",
        market_date: "2026-11-20T00:00:00Z",
        data: [{ maturity: "1Y", rate: 0.04 }],
      },
    };
    await expect(rp.rateAsset.getCurve(request)).rejects.toThrow(ResponseValidationError);
    await expect(rp.rateAsset.getCurve(request)).rejects.toThrow(
      /yield_curve_model\.data\[0\]\.maturity: Invalid input/,
    );
    const loose = await rp.rateAsset.getCurve(request, { responseCheck: "top-level" });
    expect(loose.yield_curve_model.data[0]!.maturity).toBe("1Y");
  });

  it("an answer missing a required top-level field fails either way, with the schema's error", async () => {
    bodies[CURVE] = { curve: {} };
    for (const responseCheck of ["schema", "top-level"] as const) {
      const error = await rp.rateAsset.getCurve(request, { responseCheck }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect((error as Error).message).toMatch(/yield_curve_model/);
    }
  });

  it("frames' transaction-table fetch checks the top level in the pipeline and each row itself", async () => {
    bodies[TABLE] = {
      data_table: [
        { trade_id: "T1", quantity: 5 },
        { trade_id: "T2", quantity: 7 },
      ],
    };
    const table = await fetchTransactionTableColumns(rp, { portfolio_name: "P" });
    expect(table.rowCount).toBe(2);
    // A row that is not an object: its cells are missing, and a warning names it.
    bodies[TABLE] = { data_table: [{ trade_id: "T1", quantity: 5 }, 42] };
    const odd = await fetchTransactionTableColumns(rp, { portfolio_name: "P" });
    expect(odd.data.quantity).toEqual([5, NaN]); // a missing number
    expect(odd.meta?.warnings).toEqual([
      { row: 1, message: "1 row is not an object (first: row 1, 42); their cells are missing" },
    ]);
    bodies[TABLE] = { table: [] };
    await expect(fetchTransactionTableColumns(rp, { portfolio_name: "P" })).rejects.toThrow(/data_table/);
  });
});
