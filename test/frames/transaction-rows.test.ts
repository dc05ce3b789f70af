/**
 * A table answer's rows straight into DuckDB's own JSON reader (loader "duckdb") against the route
 * before it (loader "js": JSON.parse, the adapter, the appender). The oracle is the old route: the
 * same rows, kinds, values, warnings and errors, from the simulator and from a loopback server serving
 * clean tables (dates in every ISO form, nulls, big numbers, escapes), tables the adapter warns about
 * (which the new route hands to the old one), and bodies that are not the table at all.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResponseTooLargeError, ResponseValidationError, RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import {
  fetchTransactionTableToDuckDB,
  fetchTransactionTableToParquet,
  stageTransactionTable,
  type StreamOptions,
} from "../../src/transactions/stream";
import { startSimulator, type Simulator } from "../../src/sim";
import { serveBody } from "./loopback-body";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-rows-"));
let files = 0;
const file = () => path.join(dir, `t-${++files}.parquet`);
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

const serve = serveBody;

const P = { portfolio_name: "P" };

const client = (url: string, maxResponseBytes?: number) =>
  new RiskPortalClient({
    baseUrl: url,
    auth: { token: "t0ken-never-shown" },
    retry: { limit: 0 },
    ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
  });

/** Whether the new route gave these rows to DuckDB's reader (not to the old route). */
async function readByDuckDB(rp: RiskPortalClient, options: StreamOptions = {}, request = P): Promise<boolean> {
  const work = path.join(dir, `stage-${++files}`);
  try {
    return (await stageTransactionTable(rp, request, work, options)).scan !== undefined;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Both loaders into Parquet and into an SQL session: the same answer, column types and rows, or the same error. */
async function expectSameBothWays(rp: RiskPortalClient, options: StreamOptions = {}, request = P) {
  const [js, duck] = [file(), file()];
  const old = await fetchTransactionTableToParquet(rp, request, js, { ...options, loader: "js" });
  const now = await fetchTransactionTableToParquet(rp, request, duck, { ...options, loader: "duckdb" });
  const { provenance: _a, ...oldRest } = old;
  const { provenance: _b, ...nowRest } = now;
  expect({ ...nowRest, path: js, files: nowRest.files.length }).toEqual({ ...oldRest, files: oldRest.files.length });
  if (old.rows > 0) {
    const [a, b] = [await frames.readParquetColumns(js), await frames.readParquetColumns(duck)];
    expect(b.kinds).toEqual(a.kinds);
    expect(contents(b)).toEqual(contents(a));
  }
  // SQL: db.register of the in-memory table (the old route) and the rows loaded by DuckDB's reader.
  const db = await frames.duckdb();
  try {
    const table = await frames.fetchTransactionTableColumns(rp, request, options);
    if (table.columns.length === 0) {
      const refused = await fetchTransactionTableToDuckDB(rp, request, db, "now", options).catch((e: unknown) => e);
      expect((refused as Error).message).toBe('register("now", …): the table has no columns');
      return { old, now };
    }
    await db.register("old", table);
    const loaded = await fetchTransactionTableToDuckDB(rp, request, db, "now", options);
    expect(loaded.kinds).toEqual(table.kinds);
    expect(loaded.columns).toEqual(table.columns);
    const types = async (t: string) => (await db.queryColumns(`describe ${t}`)).data.column_type;
    expect(await types("now")).toEqual(await types("old"));
    const [a, b] = [await db.queryColumns("select * from old"), await db.queryColumns("select * from now")];
    expect(contents(b)).toEqual(contents(a));
    expect(b.meta.provenance).toEqual([expect.objectContaining({ operation: "GetTransactionTable" })]);
  } finally {
    await db.close();
  }
  return { old, now };
}

describe("the simulator's transaction table", () => {
  let sim: Simulator;
  let rp: RiskPortalClient;
  beforeAll(async () => {
    sim = await startSimulator({ transactionRows: 2_000 });
    rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
  });
  afterAll(() => sim?.close());

  it("is read by DuckDB's reader and gives what the old route gives, into Parquet and into SQL, in many batches or one", async () => {
    const request = { portfolio_name: "GLOBAL-MACRO" };
    expect(await readByDuckDB(rp, {}, request)).toBe(true);
    for (const batchRows of [333, 20_000]) {
      const { now } = await expectSameBothWays(rp, { batchRows }, request);
      expect(now.rows).toBeGreaterThan(1_500);
      expect(now.warnings).toEqual([]);
    }
  });
});

describe("a clean table from a loopback server", () => {
  const rows = [
    {
      id: 1111,
      big: 18446744073709551616,
      tiny: 5e-324,
      x: 0.30000000000000004,
      when: "2026-01-02",
      t: 'é 𝄞 "q" \\ \n\t',
      ok: true,
      nothing: null,
    },
    { id: -1.5e308, big: -0, tiny: 1e-7, x: 12, when: "2026-01-02T03:04Z", t: "\u0000ctl", ok: false, nothing: null },
    { id: 3, big: null, tiny: 1, x: null, when: "2026-01-02t03:04:05.123456z", t: null, ok: null },
    { big: 4, when: "2026-01-02T03:04:05,9+02:00", t: "", ok: true, late: "2026-03-01T00:00:00-0130" },
    { id: 5, when: "1969-12-31T23:59:59.9999Z", t: "[not] {json}", late: null, 'q"uote': "k" },
    { id: 6, when: null, t: "]", late: "0001-01-01T00:00:00Z", 'q"uote': null },
  ];
  // 2^53 + 1 as the wire has it: no JS number literal holds it.
  const body = JSON.stringify({ $type: "TransactionTable", data_table: rows, count: rows.length }, null, 1).replace(
    '"id": 1111',
    '"id": 9007199254740993',
  );
  expect(body).toContain("9007199254740993");

  it("is read by DuckDB's reader, with the old route's kinds and values: dates in every ISO form, nulls, big numbers, escapes", async () => {
    const server = await serve(body);
    try {
      const rp = client(server.url);
      expect(await readByDuckDB(rp, { batchRows: 2 })).toBe(true);
      const { now } = await expectSameBothWays(rp, { batchRows: 2 });
      expect(now.kinds).toEqual({
        id: "number",
        big: "number",
        tiny: "number",
        x: "number",
        when: "date",
        t: "string",
        ok: "boolean",
        nothing: "empty",
        late: "date",
        'q"uote': "string",
      });
      expect(now.fields).toEqual({ $type: "TransactionTable", count: 6 });
      // dates: "keep" reads them as text, on the same route.
      expect(await readByDuckDB(rp, { dates: "keep" })).toBe(true);
      expect((await expectSameBothWays(rp, { dates: "keep" })).now.kinds.when).toBe("string");
    } finally {
      await server.close();
    }
  });
});

describe("edges of the one pass over the bytes", () => {
  it("a date written with escapes is a date, as the old route reads it", async () => {
    const body =
      '{"data_table": [{"a": "2026-01-0\\u0032", "b": "x"}, {"a": "2026\\u002d01-03T00:00:00Z", "b": "\\u0041"}]}';
    const server = await serve(body);
    try {
      const { now } = await expectSameBothWays(client(server.url));
      expect(now.kinds).toEqual({ a: "date", b: "string" });
    } finally {
      await server.close();
    }
  });

  it("data_table twice: the rows of both arrays, as the old route streams them (an empty one adds none)", async () => {
    const bodies: [string, number[]][] = [
      ['{"data_table": [{"a": 1}], "data_table": [{"a": 2}, {"a": 3}]}', [1, 2, 3]],
      ['{"data_table": [{"a": 1}], "data_table": []}', [1]],
      ['{"data_table": [], "data_table": [{"a": 2}]}', [2]],
    ];
    for (const [body, values] of bodies) {
      const server = await serve(body, 5);
      try {
        for (const loader of ["js", "duckdb"] as const) {
          const target = file();
          const written = await fetchTransactionTableToParquet(client(server.url), P, target, { loader });
          expect((await frames.readParquetColumns(target)).data.a, `${loader}: ${body}`).toEqual(values);
          expect(written.rows).toBe(values.length);
        }
      } finally {
        await server.close();
      }
    }
  });
});

describe("tables the adapter warns about", () => {
  const cases: [string, unknown[]][] = [
    ["a row that is not an object", [{ a: 1 }, 7, { a: 2 }]],
    ["numbers then text (mixed)", [{ a: 1 }, { a: "n/a" }]],
    ["dates then text", [{ a: "2026-01-02" }, { a: "2026-01-03" }, { a: "later" }]],
    ["nested values", [{ a: { b: [1] } }, { a: null }]],
    ["booleans and numbers", [{ a: true }, { a: 1 }]],
    ["integer-like field names (a JS object lists them first)", [{ b: 1, "2": 2 }]],
    ["a date with more than 6 decimals", [{ a: "2026-01-02T00:00:00.9999999Z" }]],
  ];
  it.each(cases)("%s: read as the old route reads them, with its warnings", async (_what, rows) => {
    const server = await serve(JSON.stringify({ data_table: rows }));
    try {
      const rp = client(server.url);
      expect(await readByDuckDB(rp, { batchRows: 1 })).toBe(false);
      await expectSameBothWays(rp, { batchRows: 1 });
    } finally {
      await server.close();
    }
  });

  it("a number too large for a double (JSON.parse: Infinity, DuckDB: NULL) and a field twice in a row too", async () => {
    for (const body of ['{"data_table": [{"a": 1e400}, {"a": 2}]}', '{"data_table": [{"a": 1, "a": 2}]}']) {
      const server = await serve(body);
      try {
        const rp = client(server.url);
        expect(await readByDuckDB(rp)).toBe(false);
        await expectSameBothWays(rp);
      } finally {
        await server.close();
      }
    }
  });

  it("an empty table: no file, said so; SQL refuses it as register does", async () => {
    const server = await serve('{"data_table": [], "n": 0}');
    try {
      const { now } = await expectSameBothWays(client(server.url));
      expect(now).toMatchObject({ rows: 0, files: [], warnings: ["the table has no rows: no file was written"] });
    } finally {
      await server.close();
    }
  });
});

describe("bodies that are not the table", () => {
  const cases: [string, string | Uint8Array, RegExp][] = [
    ["not JSON", "<html>busy</html>", /not the JSON expected: expected a JSON object, found "<" \(byte 0\)/],
    ["no data_table", '{"rows": []}', /expected an object with a data_table field \(it has rows\)/],
    ["cut short", '{"data_table": [{"a": 1}, {"a": 2},', /the body ended before its JSON was complete/],
    ["a trailing comma in a row", '{"data_table": [{"a": 1}, {"a": 2,}]}', /data_table rows 1… are not JSON/],
    [
      "NaN (DuckDB's reader would take it)",
      '{"data_table": [{"a": 1}, {"a": NaN}]}',
      /data_table rows 1… are not JSON/,
    ],
    ["a bad escape", '{"data_table": [{"a": "x\\q"}]}', /data_table rows 0… are not JSON/],
    ["a raw control character", '{"data_table": [{"a": "x\ty"}]}', /data_table rows 0… are not JSON/],
    ["tru", '{"data_table": [{"a": tru}]}', /data_table rows 0… are not JSON/],
    [
      "bad UTF-8",
      Buffer.concat([Buffer.from('{"data_table": [{"a": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}]}')]),
      /GetTransactionTable: the response is not valid UTF-8 at byte 23: refused/,
    ],
  ];
  it.each(cases)("%s: both routes refuse it with the same words, leaving nothing behind", async (_what, body, said) => {
    const server = await serve(body);
    try {
      for (const loader of ["js", "duckdb"] as const) {
        const target = file();
        const error = await fetchTransactionTableToParquet(client(server.url), { portfolio_name: "P" }, target, {
          batchRows: 1,
          loader,
        }).catch((e: unknown) => e);
        expect(error, loader).toBeInstanceOf(ResponseValidationError);
        expect((error as Error).message, loader).toMatch(said);
        expect(existsSync(target)).toBe(false);
        expect(readdirSync(dir).filter((f) => f.includes(".partial-"))).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });

  it("over the size limit: both routes stop at the limit with the same error", async () => {
    const rows = Array.from({ length: 500 }, (_, i) => ({ id: i, note: "x".repeat(50) }));
    const server = await serve(JSON.stringify({ data_table: rows }), 4096);
    try {
      const said: string[] = [];
      for (const loader of ["js", "duckdb"] as const) {
        const error = await fetchTransactionTableToParquet(client(server.url), P, file(), {
          loader,
          maxResponseBytes: 10_000,
        }).catch((e: unknown) => e);
        expect(error, loader).toBeInstanceOf(ResponseTooLargeError);
        said.push((error as Error).message);
      }
      expect(said[1]).toBe(said[0]);
    } finally {
      await server.close();
    }
  });
});
