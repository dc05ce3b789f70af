/**
 * Issue 28, "Errors": a transaction-table row holding a value nested 200,000 deep ended in a bare
 * RangeError (stack overflow). It is a RiskPortalError naming the row, on every path: a response held in
 * memory, a fetch over HTTP, a fetch streamed into Parquet (the JSON row scanner); and an error answer
 * nested that deep is reported as what it is.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadRequestError, ResponseValidationError, RiskPortalClient, RiskPortalError } from "../../src";
import { errorFromResponse } from "../../src/client/errors";
import * as frames from "../../src/frames";
import { TableShapeError } from "../../src/transactions/errors";
import { JsonRowScanner, JsonScanError, MAX_ROW_DEPTH } from "../../src/columnar/json-rows";
import { bond } from "../helpers/samples";

const DEEP = 200_000;

/** A value `levels` objects/arrays deep (alternating when `mix`), built without recursion. */
function nested(levels: number, kind: "object" | "array" | "mix" = "mix"): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = kind === "array" || (kind === "mix" && i % 2) ? [v] : { a: v };
  return v;
}
const nestedText = (levels: number) => "[".repeat(levels) + "1" + "]".repeat(levels);
const objectText = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("frames.transactionTable(response) with a row nested too deep", () => {
  it.each(["array", "object", "mix"] as const)(
    "a 200,000-deep %s in a cell: TableShapeError naming the row and the field",
    (kind) => {
      const error = thrown(() =>
        frames.transactionTable({
          data_table: [
            { id: 1, x: 1 },
            { id: 2, x: nested(DEEP, kind) },
          ],
        }),
      );
      expect(error).toBeInstanceOf(TableShapeError);
      expect(error).toBeInstanceOf(RiskPortalError);
      expect((error as Error).message).toMatch(
        /^data_table row 1: its "x" is nested too deep \(more than 1000 levels of objects and arrays, the row counted\)/,
      );
    },
  );

  it("a row that is itself a 200,000-deep array, and the other layouts: the row is named", () => {
    expect(
      (thrown(() => frames.transactionTable({ data_table: [{ id: 1 }, nested(DEEP, "array")] })) as Error).message,
    ).toMatch(/^data_table row 1: the row is nested too deep/);
    expect(
      (
        thrown(() =>
          frames.transactionTable({
            data_table: {
              columns: ["id", "x"],
              rows: [
                [1, 2],
                [2, nested(DEEP)],
              ],
            },
          }),
        ) as Error
      ).message,
    ).toMatch(/^data_table row 1: its "x" is nested too deep/);
    expect(
      (
        thrown(() =>
          frames.transactionTableColumns({ data_table: { id: [1, 2, 3], x: [1, 2, nested(DEEP)] } }),
        ) as Error
      ).message,
    ).toMatch(/^data_table row 2: its "x" is nested too deep/);
  });

  it(`a row nested ${MAX_ROW_DEPTH} levels (the row counted) is kept as received; one level more is refused`, () => {
    const table = frames.transactionTableColumns({ data_table: [{ id: 1, x: nested(MAX_ROW_DEPTH - 1) }] });
    expect(table.kinds.x).toBe("mixed");
    expect(
      thrown(() => frames.transactionTableColumns({ data_table: [{ id: 1, x: nested(MAX_ROW_DEPTH) }] })),
    ).toBeInstanceOf(TableShapeError);
    expect(frames.transactionTableColumns({ data_table: [nested(MAX_ROW_DEPTH, "array")] }).rowCount).toBe(1);
    expect(
      thrown(() => frames.transactionTableColumns({ data_table: [nested(MAX_ROW_DEPTH + 1, "array")] })),
    ).toBeInstanceOf(TableShapeError);
  });
});

describe("the JSON row scanner", () => {
  it("names the row nested too deep, counted across batches and chunks", () => {
    const scanner = new JsonRowScanner(2);
    const rows = Array.from({ length: 5 }, (_, i) => `{"id":${i}}`);
    rows.push(`{"id":5,"x":${nestedText(DEEP)}}`);
    const body = new TextEncoder().encode(`{"data_table":[${rows.join(",")}]}`);
    let error: unknown;
    try {
      for (let at = 0; at < body.length; at += 1000) scanner.push(body.subarray(at, at + 1000));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JsonScanError);
    expect((error as Error).message).toBe(
      `data_table row 5 is nested too deep: more than ${MAX_ROW_DEPTH} levels of objects and arrays`,
    );
  });

  it(`streams a row nested ${MAX_ROW_DEPTH} levels`, () => {
    const scanner = new JsonRowScanner();
    const batches = scanner.push(new TextEncoder().encode(`{"data_table":[${nestedText(MAX_ROW_DEPTH)}]}`));
    expect(batches.flat()).toHaveLength(1);
  });
});

describe("over HTTP: a table answer with a row nested 200,000 deep", () => {
  let server: Server;
  let url: string;
  let dir: string;
  let answer = { status: 200, body: "" };
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "deep-nesting-"));
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  const client = () => new RiskPortalClient({ baseUrl: url, auth: { token: "deep-test-token-123" }, retry: false });
  const table = `{"data_table":[{"id":1,"x":1},{"id":2,"x":${nestedText(DEEP)}},{"id":3,"x":2}]}`;

  it("rp.position.transactionTable parses it (JSON.parse holds), frames.transactionTable names the row", async () => {
    answer = { status: 200, body: table };
    const response = await client().position.transactionTable({ portfolio_name: "P" });
    expect(thrown(() => frames.transactionTable(response))).toMatchObject({
      name: "TableShapeError",
      message: expect.stringMatching(/^data_table row 1: /),
    });
  });

  it("frames.fetchTransactionTable: TableShapeError naming the row", async () => {
    answer = { status: 200, body: table };
    const error = await frames.fetchTransactionTable(client(), { portfolio_name: "P" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TableShapeError);
    expect((error as Error).message).toMatch(/^data_table row 1: its "x" is nested too deep/);
  });

  it("frames.fetchTransactionTableToParquet: ResponseValidationError naming the row, no file left", async () => {
    answer = { status: 200, body: table };
    const file = path.join(dir, "t.parquet");
    const error = await frames
      .fetchTransactionTableToParquet(client(), { portfolio_name: "P" }, file)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/data_table row 1 is nested too deep: more than 1000 levels/);
  });

  it("a read answered 200 with a body nested 200,000 deep is a clean validation error", async () => {
    answer = { status: 200, body: nestedText(DEEP) };
    const error = await client()
      .report.lookBacks()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/^LookBacks: the server's response does not fit the schema/);
  });

  it.each([
    ["array", nestedText],
    ["object", objectText],
  ])(
    "a write refused with HTTP 400 and a body nested 200,000 deep (%s): BadRequestError, not-applied",
    async (_kind, text) => {
      answer = { status: 400, body: text(DEEP) };
      const error = await client()
        .marketData.uploadBondPrices({ bond_data: [bond] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ status: 400, outcome: "not-applied" });
      expect((error as Error).message).toMatch(/^UploadBondPriceData failed: HTTP 400 Bad Request — /);
    },
  );

  it("errorFromResponse shows a body too deep to write without overflowing", () => {
    const error = errorFromResponse({ operation: "X", status: 400, body: JSON.parse(nestedText(DEEP)) as unknown });
    // Node 26's JSON.stringify writes it (its first 300 characters are shown); Node 22's overflows.
    expect(error.message).toMatch(/^X failed: HTTP 400 — (\(a JSON array nested too deep to show\)|\[{300})$/);
  });
});
