/**
 * frames.fetchTransactionTableToParquet: one transaction table streamed into a Parquet
 * file as its answer arrives. The oracle is the in-memory path: the streamed file reads back exactly as
 * the in-memory table written with frames.writeParquet does — every column, kind and value — from the
 * simulator, and from a loopback server whose rows change kind between batches, arrive in odd chunks,
 * break off mid-body, or are not JSON at all.
 */
import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResponseValidationError, RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import { ColumnarError } from "../../src/columnar/errors";
import { fetchTransactionTableToParquet } from "../../src/transactions/stream";
import { startSimulator, type Simulator } from "../../src/sim";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-stream-"));
let files = 0;
const file = (name = "t") => path.join(dir, `${name}-${++files}.parquet`);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every column's values, dates as ISO text, NaN as null: what two reads must agree on. */
function contents(t: frames.ColumnTable): Record<string, unknown[]> {
  return Object.fromEntries(
    t.columns.map((c) => [
      c,
      t.data[c]!.map((v) =>
        v instanceof Date ? v.toISOString() : typeof v === "number" && Number.isNaN(v) ? null : v,
      ),
    ]),
  );
}

/** The streamed file and the in-memory table (written the ordinary way) read back the same. */
async function expectSameAsInMemory(streamed: string, inMemory: frames.ColumnTable): Promise<frames.ColumnTable> {
  const reference = file("reference");
  await frames.writeParquet(inMemory, reference);
  const [got, want] = [await frames.readParquetColumns(streamed), await frames.readParquetColumns(reference)];
  expect(got.columns).toEqual(want.columns);
  expect(got.kinds).toEqual(want.kinds);
  expect(got.rowCount).toBe(want.rowCount);
  expect(contents(got)).toEqual(contents(want));
  return got;
}

describe("streaming a transaction table from the simulator into Parquet", () => {
  let sim: Simulator;
  let rp: RiskPortalClient;
  beforeAll(async () => {
    sim = await startSimulator({ transactionRows: 3_000 });
    rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
  });
  afterAll(() => sim?.close());

  it("writes the rows, kinds and values the in-memory table has, in many batches or one, with the provenance in the file", async () => {
    const request = { portfolio_name: "GLOBAL-MACRO" };
    const inMemory = await frames.fetchTransactionTableColumns(rp, request);
    const n = inMemory.rowCount;
    expect(n).toBeGreaterThan(2_500);
    for (const batchRows of [97, 20_000]) {
      const target = file();
      const written = await fetchTransactionTableToParquet(rp, request, target, { batchRows });
      expect(written).toMatchObject({
        path: target,
        rows: n,
        files: [target],
        columns: inMemory.columns,
        kinds: inMemory.kinds,
        warnings: [],
      });
      expect(written.bytes).toBeGreaterThan(100_000);
      const back = await expectSameAsInMemory(target, inMemory);
      expect(back.meta.provenance).toEqual([
        expect.objectContaining({ operation: "GetTransactionTable", source: "live", baseUrl: sim.url }),
      ]);
      expect(readdirSync(dir).filter((f) => f.includes(".partial-"))).toEqual([]);
    }
  });

  it("is frames.fetchTransactionTableToParquet, which never writes over a file unless asked", async () => {
    const target = file();
    const request = {
      portfolio_name: "RATES-EU",
      start_date: "2026-06-01T00:00:00Z",
      end_date: "2026-06-30T23:59:59Z",
    };
    const written = await frames.fetchTransactionTableToParquet(rp, request, target);
    expect(written.rows).toBe((await frames.fetchTransactionTableColumns(rp, request)).rowCount);
    await expect(frames.fetchTransactionTableToParquet(rp, request, target)).rejects.toThrow(ColumnarError);
    await expect(frames.fetchTransactionTableToParquet(rp, request, target)).rejects.toThrow(
      /exists; pass \{ overwrite: true \}/,
    );
    expect((await frames.fetchTransactionTableToParquet(rp, request, target, { overwrite: true })).rows).toBe(
      written.rows,
    );
  });

  it("the in-memory fetches refuse the parquet option they had (it changed their return type), naming the verb, before any call", async () => {
    const request = { portfolio_name: "RATES-EU" };
    const old = { parquet: file() } as object;
    const verb =
      /has no parquet option: it always returns the table\. To stream into a Parquet file, call frames\.fetchTransactionTableToParquet\(rp, request, /;
    const offline = new RiskPortalClient({
      baseUrl: "http://127.0.0.1:9",
      auth: { apiKey: "unused" },
      retry: { limit: 0 },
    });
    await expect(frames.fetchTransactionTable(offline, request, old)).rejects.toThrow(verb);
    await expect(frames.fetchTransactionTableColumns(offline, request, old)).rejects.toThrow(verb);
    await expect(frames.fetchTransactionTablesColumns(offline, { portfolios: ["RATES-EU"], ...old })).rejects.toThrow(
      /frames\.fetchTransactionTablesColumns has no parquet option.*frames\.fetchTransactionTablesToParquet\(rp, \{ portfolios, months \}, "data\/trades"\)/,
    );
  });

  it("records to a cassette and replays from it: the same file, from the cassette", async () => {
    const cassette = path.join(dir, "stream-cassette.json");
    const request = {
      portfolio_name: "GLOBAL-MACRO",
      start_date: "2026-01-01T00:00:00Z",
      end_date: "2026-03-31T23:59:59Z",
    };
    const recorder = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: cassette, mode: "record" },
    });
    const recorded = await frames.fetchTransactionTableToParquet(recorder, request, file());
    recorder.cassette!.finish();
    const player = new RiskPortalClient({
      baseUrl: "http://127.0.0.1:9",
      cassette: { path: cassette, mode: "replay" },
    });
    const target = file();
    const replayed = await frames.fetchTransactionTableToParquet(player, request, target);
    expect(replayed.rows).toBe(recorded.rows);
    expect(replayed.provenance[0]).toMatchObject({ source: "cassette", cassette });
    await expectSameAsInMemory(target, await frames.fetchTransactionTableColumns(player, request));
  });
});

/** A loopback server answering each request with the next of `bodies`, written in chunks of `chunk` bytes; a body `null` breaks the connection midway. */
async function serve(
  bodies: (string | { cutAfter: string })[],
  chunk = 7,
): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const body = bodies[Math.min(hits++, bodies.length - 1)]!;
      res.writeHead(200, { "content-type": "application/json" });
      const bytes = Buffer.from(typeof body === "string" ? body : body.cutAfter);
      let at = 0;
      const next = () => {
        if (at >= bytes.length) {
          if (typeof body === "string") res.end();
          else res.socket?.destroy();
          return;
        }
        res.write(bytes.subarray(at, at + chunk), next);
        at += chunk;
      };
      next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const client = (url: string) =>
  new RiskPortalClient({ baseUrl: url, auth: { token: "t0ken-never-shown" }, retry: { baseDelayMs: 1, jitter: 0 } });

describe("a streamed table's warnings name the rows of the whole table", () => {
  // Batches of 2: the bad date is row 1 of the second batch, row 3 of the table; its text names a row too.
  const rows = [
    { id: 0, when: "2026-01-02T00:00:00Z" },
    { id: 1, when: "2026-01-03T00:00:00Z" },
    { id: 2, when: "2026-01-04T00:00:00Z" },
    { id: 3, when: "see row 1" },
  ];
  const body = JSON.stringify({ $type: "TransactionTable", data_table: rows });

  it("says what the in-memory table says, and the file's warnings are records with the row and column", async () => {
    const server = await serve([body]);
    try {
      const rp = client(server.url);
      const target = file();
      const written = await fetchTransactionTableToParquet(rp, { portfolio_name: "P" }, target, { batchRows: 2 });
      const inMemory = await frames.fetchTransactionTableColumns(rp, { portfolio_name: "P" });
      const said =
        'column "when": value at row 3 ("see row 1") is not an ISO 8601 date, though earlier values are; the column is kept as text';
      expect(inMemory.meta.warnings).toEqual([{ row: 3, column: "when", message: said }]);
      expect(written.warnings).toEqual([said]);
      const back = await frames.readParquetColumns(target);
      expect(back.meta.warnings).toEqual([{ row: 3, column: "when", message: said }]);
    } finally {
      await server.close();
    }
  });
});

describe("streaming rows that are not all alike", () => {
  // Kinds change between the batches of 3 rows: what a batch alone would say is not what the table is.
  const rows = [
    { id: 1, amount: 10.5, when: "2026-01-02T00:00:00Z", flag: true, note: "é", empty: null },
    { id: 2, amount: null, when: "2026-01-03T00:00:00Z", flag: false, note: '𝄞 "quoted" \\ back', empty: null },
    { id: 3, amount: 12, when: null, flag: null, note: null, empty: null },
    { id: 4, amount: "n/a", when: "2026-01-05T00:00:00Z", flag: true, note: "{not: json}", empty: null, late: 1 },
    { id: 5, amount: 13, when: "not a date", flag: false, note: "]", empty: null, late: 2 },
    {
      id: 6,
      amount: 14,
      when: "2026-01-07T00:00:00Z",
      flag: true,
      note: "x",
      empty: null,
      late: null,
      nested: { a: [1, 2] },
    },
    { id: 7, amount: 15, when: "2026-01-08T00:00:00Z", flag: 1, note: "y", empty: null },
  ];
  const body = JSON.stringify({ $type: "TransactionTable", data_table: rows, count: rows.length }, null, 1);

  it("gives each column its kind over every row (numbers then text: mixed; dates then text: text), as in memory", async () => {
    const server = await serve([body]);
    try {
      const rp = client(server.url);
      const target = file();
      const written = await fetchTransactionTableToParquet(rp, { portfolio_name: "P" }, target, { batchRows: 3 });
      const inMemory = await frames.fetchTransactionTableColumns(rp, { portfolio_name: "P" });
      expect(written.kinds).toEqual(inMemory.kinds);
      expect(written.kinds).toMatchObject({
        id: "number",
        amount: "mixed",
        when: "string",
        flag: "mixed",
        note: "string",
        empty: "empty",
        late: "number",
        nested: "mixed",
      });
      expect(written.fields).toEqual({ $type: "TransactionTable", count: 7 });
      expect(written.warnings).toEqual(inMemory.meta.warnings.map((w) => w.message));
      expect(written.warnings.join("\n")).toMatch(
        /column "when": value at row 4 \("not a date"\) is not an ISO 8601 date, though earlier values are/,
      );
      expect(written.warnings.join("\n")).toMatch(/column "amount" holds 5 numbers, 1 text value, e.g. row 3: "n\/a"/);
      await expectSameAsInMemory(target, inMemory);
    } finally {
      await server.close();
    }
  });

  it("an answer that breaks off midway is fetched again, and only the complete one is written", async () => {
    const server = await serve([{ cutAfter: body.slice(0, Math.floor(body.length / 2)) }, body], 64);
    try {
      let retries = 0;
      const rp = new RiskPortalClient({
        baseUrl: server.url,
        auth: { token: "t0ken-never-shown" },
        retry: { baseDelayMs: 1, jitter: 0, onRetry: () => retries++ },
      });
      const written = await fetchTransactionTableToParquet(rp, { portfolio_name: "P" }, file(), { batchRows: 2 });
      expect(retries).toBe(1);
      expect(server.hits()).toBe(2);
      expect(written.rows).toBe(rows.length);
      expect((await frames.readParquetColumns(written.path)).data.id).toEqual([1, 2, 3, 4, 5, 6, 7]);
    } finally {
      await server.close();
    }
  });

  it("an answer that is not the table is refused as such, leaving nothing behind", async () => {
    const cases: [string, RegExp][] = [
      ["<html>busy</html>", /not the JSON expected: expected a JSON object, found "<" \(byte 0\)/],
      ['{"rows": []}', /expected an object with a data_table field \(it has rows\)/],
      ['{"data_table": [{"a": 1}, {"a": 2},', /not the JSON expected: the body ended before its JSON was complete/],
      ['{"data_table": [{"a": 1}, {"a": 2]}', /not the JSON expected: unexpected "}" in data_table \(byte 34\)/],
      ['{"data_table": [{"a": 1}, {"a": 2,}]}', /not the JSON expected: data_table rows 1… are not JSON/],
    ];
    for (const [answer, message] of cases) {
      const server = await serve([answer]);
      try {
        const target = file();
        const error = await fetchTransactionTableToParquet(client(server.url), { portfolio_name: "P" }, target, {
          batchRows: 1,
        }).catch((e: unknown) => e);
        expect(error, answer).toBeInstanceOf(ResponseValidationError);
        expect((error as Error).message, answer).toMatch(message);
        expect(existsSync(target)).toBe(false);
        expect(readdirSync(dir).filter((f) => f.includes(".partial-"))).toEqual([]);
      } finally {
        await server.close();
      }
    }
  });

  it("an empty table writes no file and says so; other layouts are read whole", async () => {
    const server = await serve([
      '{"data_table": []}',
      JSON.stringify({
        data_table: {
          columns: ["a", "b"],
          rows: [
            [1, "x"],
            [2, "y"],
          ],
        },
      }),
    ]);
    try {
      const rp = client(server.url);
      const empty = await frames.fetchTransactionTableToParquet(rp, { portfolio_name: "P" }, file());
      expect(empty).toMatchObject({ rows: 0, files: [], warnings: ["the table has no rows: no file was written"] });
      expect(existsSync(empty.path)).toBe(false);
      const target = file();
      const layout = await frames.fetchTransactionTableToParquet(rp, { portfolio_name: "P" }, target);
      expect(layout).toMatchObject({ rows: 2, columns: ["a", "b"], kinds: { a: "number", b: "string" } });
      expect(contents(await frames.readParquetColumns(target))).toEqual({ a: [1, 2], b: ["x", "y"] });
    } finally {
      await server.close();
    }
  });

  it("refuses a bad target before anything is sent", async () => {
    const server = await serve([body]);
    try {
      const existing = file();
      writeFileSync(existing, "keep me");
      await expect(
        frames.fetchTransactionTableToParquet(client(server.url), { portfolio_name: "P" }, existing),
      ).rejects.toThrow(/frames\.fetchTransactionTableToParquet: .* exists; pass \{ overwrite: true \}/);
      await expect(
        frames.fetchTransactionTableToParquet(client(server.url), { portfolio_name: "P" }, ""),
      ).rejects.toThrow(/target must be a file path/);
      expect(server.hits()).toBe(0);
    } finally {
      await server.close();
    }
  });
});
