/**
 * The rows read by DuckDB while they arrive (issue 46): once the first rows are profiled, a statement
 * reads the rest through a named pipe as the spool is written, with the types of those first rows. Its
 * table is used only when every row had those types and it had every byte; otherwise the spool is read
 * as before. The oracle is the in-memory route (and, for errors, loader "js"): the same
 * rows, kinds, warnings and errors, and nothing left behind — no pipe, no spool folder, no table of
 * its own in the caller's session, no partial Parquet file, the session's threads as they were.
 */
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import { readJsonRows, rowsSelectList, type PlannedColumn } from "../../src/columnar/json-load";
import {
  fetchTransactionTableToDuckDB,
  fetchTransactionTableToParquet,
  stageTransactionTable,
  type StreamOptions,
} from "../../src/transactions/stream";
import type { LiveReader } from "../../src/columnar/row-staging";
import { formatWarning } from "../../src/table/column-table";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-live-"));
let files = 0;
const file = () => path.join(dir, `t-${++files}.parquet`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const P = { portfolio_name: "P" };
const client = (url: string, limit = 0) =>
  new RiskPortalClient({ baseUrl: url, auth: { token: "t0ken-never-shown" }, retry: { limit, baseDelayMs: 1 } });

/**
 * A loopback server answering with `body` in chunks of `chunk` bytes; `cut` (bytes): the first `cuts`
 * answers break off there (the socket destroyed), the later ones are whole.
 */
async function serve(
  body: string,
  options: {
    chunk?: number;
    cut?: number;
    cuts?: number;
    stall?: boolean;
    hold?: { at: number; until: Promise<void> };
  } = {},
) {
  const { chunk = 64, cut, cuts = Infinity, stall = false, hold } = options;
  let answers = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const breaks = cut !== undefined && answers++ < cuts;
      res.writeHead(200, { "content-type": "application/json" });
      const bytes = Buffer.from(body);
      const end = breaks ? cut : bytes.length;
      let at = 0;
      let held = hold !== undefined;
      const next = () => {
        if (held && at >= hold!.at) return void hold!.until.then(() => ((held = false), next()));
        if (at >= end) return void (!breaks ? res.end() : stall ? undefined : res.socket?.destroy());
        const to = Math.min(end, at + chunk, held ? hold!.at : Infinity);
        res.write(bytes.subarray(at, to), next);
        at = to;
      };
      next();
    });
  });
  server.on("connection", (socket) => (sockets.add(socket), socket.on("close", () => sockets.delete(socket))));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The spool folders of this process left anywhere a route puts them (beside a target, or in the temporary directory). */
const spoolsLeft = () =>
  [dir, tmpdir()].flatMap((d) =>
    readdirSync(d).filter((f) => f.includes(".partial-") && f.includes(`-${process.pid}-`)),
  );

const row = (i: number) => ({
  id: `T-${i}`,
  when: `2026-01-${String((i % 28) + 1).padStart(2, "0")}T10:00:00+02:00`,
  n: i * 1.5,
  ok: i % 2 === 0,
});
const rows = (n: number, last?: Record<string, unknown>): Record<string, unknown>[] => {
  const all: Record<string, unknown>[] = Array.from({ length: n }, (_, i) => row(i));
  if (last) all[n - 1] = { ...all[n - 1], ...last };
  return all;
};
const bodyOf = (table: unknown[]) => JSON.stringify({ $type: "TransactionTable", data_table: table, count: 1 });

/**
 * The body of `table` with its last row held back until the live reader has started (see serve's `hold`): a
 * body that arrived whole would start the reader with every row's types, so what a test says about a
 * reader started with the first rows' would depend on how the bytes happened to arrive. `body`: the answer
 * holding `table` (by default {@link bodyOf}'s). `started` lets the row go (else it goes after 10 s).
 */
function heldBody(table: unknown[], body = bodyOf(table)) {
  let release!: () => void;
  const until = new Promise<void>((resolve) => (release = resolve));
  const unstarted = setTimeout(release, 10_000);
  const started = () => {
    clearTimeout(unstarted);
    release();
  };
  return { body, hold: { at: body.lastIndexOf(`,${JSON.stringify(table.at(-1))}`), until }, started };
}

/** What the live reader did in one staging: started (with which columns), and how its statement ended. */
async function stageWithLiveReader(url: string, options: StreamOptions = { batchRows: 2 }, onStart = () => {}) {
  const db = await frames.duckdb();
  const work = path.join(dir, `stage-${++files}`);
  const seen: { columns?: PlannedColumn[]; failed?: string } = {};
  const live: LiveReader = {
    afterRows: options.batchRows!,
    start: async (pipe, columns) => {
      seen.columns = columns;
      onStart();
      try {
        await db.run(`create table live as select ${rowsSelectList(columns)} from ${readJsonRows(pipe, columns, 0)}`);
      } catch (error) {
        seen.failed = (error as Error).message;
        throw error;
      }
    },
  };
  try {
    const staged = await stageTransactionTable(client(url), P, work, options, live);
    let same: boolean | undefined;
    if (staged.readLive) {
      const diff = `select count(*)::DOUBLE as n from (select * from live except all select * from ${staged.scan!})`;
      same = (await db.queryColumns(diff)).data.n![0] === 0;
    }
    return { staged, seen, same };
  } finally {
    await db.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Each route (Parquet, and an SQL session's table) against the in-memory route (the column table, then
 * `frames.writeParquet` or `db.register`): the same columns, kinds, warnings, column types and rows.
 */
async function expectSameAsBefore(url: string, options: StreamOptions = { batchRows: 2 }) {
  const rp = client(url);
  const table = await frames.fetchTransactionTableColumns(rp, P, options);
  const [old, duck] = [file(), file()];
  await frames.writeParquet(table, old);
  const now = await fetchTransactionTableToParquet(rp, P, duck, options);
  expect(now).toMatchObject({ columns: table.columns, kinds: table.kinds, rows: table.rowCount });
  // A streamed route words its warnings as it always has: as loader "js" does, where that loader reads the
  // table as the in-memory route does (it fails on a column that appears after the first batch).
  const js = await fetchTransactionTableToParquet(rp, P, file(), { ...options, loader: "js" }).catch(() => undefined);
  const jsAgrees = js !== undefined && JSON.stringify(js.kinds) === JSON.stringify(table.kinds);
  expect(now.warnings).toEqual(jsAgrees ? js.warnings : table.meta.warnings.map(formatWarning));
  const [a, b] = [await frames.readParquetColumns(old), await frames.readParquetColumns(duck)];
  expect(b.kinds).toEqual(a.kinds);
  expect(b.data).toEqual(a.data);
  // The file's metadata: the body's fields and the response's provenance, as the in-memory route writes them.
  expect(b.meta.fields).toEqual({ ...a.meta.fields, parquet: duck });
  expect(b.meta.provenance).toEqual(JSON.parse(JSON.stringify(now.provenance)));
  const db = await frames.duckdb({ threads: 2 });
  try {
    await db.register("old", table);
    const loaded = await fetchTransactionTableToDuckDB(rp, P, db, "now", options);
    expect(loaded.warnings).toEqual(now.warnings);
    const describe = async (t: string) => (await db.queryColumns(`describe ${t}`)).data.column_type;
    expect(await describe("now")).toEqual(await describe("old"));
    expect((await db.queryColumns("select * from now")).data).toEqual(
      (await db.queryColumns("select * from old")).data,
    );
    expect(await tables(db)).toEqual(["now", "old"]);
    expect(await threads(db)).toBe(2);
  } finally {
    await db.close();
  }
  return now;
}

const tables = async (db: frames.SqlSession) =>
  (await db.queryColumns("select table_name from duckdb_tables() order by 1")).data.table_name;
const threads = async (db: frames.SqlSession) =>
  (await db.queryColumns("select current_setting('threads')::DOUBLE as n")).data.n![0];

describe("rows read as they arrive", () => {
  it("a clean table: the live table is used, holds the spool's rows, and both routes give what the old route gives", async () => {
    const server = await serve(bodyOf(rows(300)));
    try {
      const { staged, seen, same } = await stageWithLiveReader(server.url);
      expect(seen.failed).toBeUndefined();
      expect(seen.columns?.map((c) => c.kind)).toEqual(["string", "date", "number", "boolean"]);
      expect(staged.readLive).toBe(true);
      expect(same).toBe(true);
      const now = await expectSameAsBefore(server.url);
      expect(now.rows).toBe(300);
      expect(now.warnings).toEqual([]);
    } finally {
      await server.close();
    }
  });

  const changes: [string, (table: Record<string, unknown>[]) => unknown[]][] = [
    [
      "a column empty in the first rows holds numbers later (DuckDB would read them as text)",
      (t) => t.map((r, i) => ({ ...r, late: i === t.length - 1 ? 7 : null })),
    ],
    [
      "dates with digits past the milliseconds later (DuckDB would keep them; the adapter drops them)",
      (t) => [...t, { ...t[0], when: "2026-01-02T00:00:00.1234Z" }],
    ],
    ["dates in a form DuckDB's cast does not read, later", (t) => [...t, { ...t[0], when: "2026-01-02t03:04z" }]],
    ["a column that appears later", (t) => [...t, { ...t[0], extra: "x" }]],
    ["numbers then text", (t) => [...t, { ...t[0], n: "n/a" }]],
    ["dates then text", (t) => [...t, { ...t[0], when: "later" }]],
    ["a row that is not an object", (t) => [...t, 7]],
  ];
  it.each(changes)("%s: the spool is read, as the old route reads it", async (_what, change) => {
    const { body, hold, started } = heldBody(change(rows(40)));
    const server = await serve(body, { hold });
    try {
      const { staged, seen } = await stageWithLiveReader(server.url, { batchRows: 2 }, started);
      expect(seen.columns).toBeDefined(); // it was started, with the first rows' types
      expect(staged.readLive).toBeFalsy();
      await expectSameAsBefore(server.url);
      expect(spoolsLeft()).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("a value DuckDB refuses mid-stream: its statement fails, the spool is read, nothing is left", async () => {
    const { body, hold, started } = heldBody(rows(300, { n: "n/a" }));
    const server = await serve(body, { hold });
    try {
      const { staged, seen } = await stageWithLiveReader(server.url, { batchRows: 2 }, started);
      expect(seen.failed).toMatch(/n\/a/);
      expect(staged.readLive).toBeFalsy();
      expect(staged.rows).toBe(300);
    } finally {
      await server.close();
    }
  });

  it("a value DuckDB refuses early in a long body: the writes that follow fail (EPIPE), not wait; the spool is read", async () => {
    // Live from row 1,000 on; megabytes after the refused value (more than a block and the pipe hold), so
    // writes meet a reader that is gone.
    const table = rows(30_000);
    table[3_000] = { ...table[3_000], n: "n/a" };
    const server = await serve(bodyOf(table), { chunk: 65_536 });
    try {
      const { staged, seen } = await stageWithLiveReader(server.url, { batchRows: 1_000 });
      expect(seen.failed).toMatch(/n\/a/);
      expect(staged.readLive).toBeFalsy();
      expect(staged.rows).toBe(30_000);
      expect(staged.meta.kinds.n).toBe("mixed");
    } finally {
      await server.close();
    }
  });

  it("a statement that fails before it reads the pipe: no hang, the spool is read", async () => {
    const server = await serve(bodyOf(rows(300)));
    const db = await frames.duckdb();
    const work = path.join(dir, `stage-${++files}`);
    try {
      const live: LiveReader = { afterRows: 2, start: () => db.run("select * from no_such_table") };
      const staged = await stageTransactionTable(client(server.url), P, work, { batchRows: 2 }, live);
      expect(staged.readLive).toBe(false);
      expect(staged.rows).toBe(300);
    } finally {
      await db.close();
      rmSync(work, { recursive: true, force: true });
      await server.close();
    }
  });
});

describe("the Parquet route writes its file as the rows arrive", () => {
  /** The Parquet files in this process's spool folders beside the targets (in `dir`). */
  const spooledFiles = () =>
    readdirSync(dir)
      .filter((f) => f.includes(".partial-") && f.includes(`-${process.pid}-`))
      .flatMap((f) => readdirSync(path.join(dir, f)).filter((name) => name.endsWith(".parquet")));

  it("the file is being written before the last row has come; its metadata (the fields after the rows, the provenance) is set at the end", async () => {
    const table = rows(300);
    const { body, hold, started } = heldBody(
      table,
      JSON.stringify({ $type: "TransactionTable", data_table: table, count: 1, after: { note: "é\n" } }),
    );
    const server = await serve(body, { hold });
    const target = file();
    let seen: string[] = [];
    // While the last row is held back: look for the file in the spool folder (for up to 10 s), then let the row go.
    const watch = (async () => {
      for (let i = 0; i < 200 && seen.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = spooledFiles();
      }
      started();
    })();
    try {
      const written = await fetchTransactionTableToParquet(client(server.url), P, target, { batchRows: 2 });
      await watch;
      expect(seen).toEqual([path.basename(target)]);
      const back = await frames.readParquetColumns(target);
      expect(back.rowCount).toBe(300);
      expect(back.meta.fields).toEqual({
        $type: "TransactionTable",
        count: 1,
        after: { note: "é\n" },
        parquet: target,
      });
      expect(back.meta.provenance).toEqual(JSON.parse(JSON.stringify(written.provenance)));
      expect(written.provenance).toHaveLength(1);
      expect(spoolsLeft()).toEqual([]);
    } finally {
      started();
      await server.close();
    }
  });
});

describe("a body that breaks off or is stopped after the live read began", () => {
  const body = bodyOf(rows(2_000));

  it("broken off: the same error as the old route; no file, no spool folder, no table, threads as they were", async () => {
    const server = await serve(body, { chunk: 4096, cut: Math.floor(body.length / 2) });
    try {
      const said: string[] = [];
      for (const loader of ["js", "duckdb"] as const) {
        const target = file();
        writeFileSync(target, "the previous file");
        const error = await fetchTransactionTableToParquet(client(server.url), P, target, {
          batchRows: 100,
          loader,
          overwrite: true,
        }).catch((e: unknown) => e);
        said.push((error as Error).message);
        expect(readFileSync(target, "utf8")).toBe("the previous file");
        expect(spoolsLeft()).toEqual([]);
      }
      expect(said[1]).toBe(said[0]);
      const db = await frames.duckdb({ threads: 2 });
      try {
        await db.run("create table trades as select 1 as a");
        const error = await fetchTransactionTableToDuckDB(client(server.url), P, db, "trades", {
          batchRows: 100,
        }).catch((e: unknown) => e);
        expect((error as Error).message).toBe(said[0]);
        // The session's own table stays as it was; the live reader's is gone; its threads are as they were.
        expect((await db.queryColumns("select * from trades")).data.a).toEqual([1]);
        expect(await tables(db)).toEqual(["trades"]);
        expect(await threads(db)).toBe(2);
        expect(spoolsLeft()).toEqual([]);
      } finally {
        await db.close();
      }
    } finally {
      await server.close();
    }
  });

  it("broken off once, then whole on a retry: the rows of the whole answer (the first attempt's live read is not used)", async () => {
    const server = await serve(body, { chunk: 4096, cut: Math.floor(body.length / 2), cuts: 1 });
    try {
      const db = await frames.duckdb();
      const work = path.join(dir, `stage-${++files}`);
      try {
        const live: LiveReader = {
          afterRows: 100,
          start: (pipe, columns) =>
            db.run(`create or replace table live as select * from ${readJsonRows(pipe, columns, 0)}`),
        };
        const staged = await stageTransactionTable(client(server.url, 1), P, work, { batchRows: 100 }, live);
        expect(staged.readLive).toBe(false);
        expect(staged.rows).toBe(2_000);
      } finally {
        await db.close();
        rmSync(work, { recursive: true, force: true });
      }
      const target = file();
      const written = await fetchTransactionTableToParquet(client(server.url, 1), P, target, { batchRows: 100 });
      expect(written.rows).toBe(2_000);
      expect((await frames.readParquetColumns(target)).rowCount).toBe(2_000);
    } finally {
      await server.close();
    }
  });

  it("stopped by its signal mid-body: the old route's error, nothing left, no hang", async () => {
    // Half the body, then nothing: the call is under way until it is stopped.
    const server = await serve(body, { chunk: 4096, cut: Math.floor(body.length / 2), stall: true });
    try {
      const said: string[] = [];
      for (const loader of ["js", "duckdb"] as const) {
        const target = file();
        const error = await fetchTransactionTableToParquet(client(server.url), P, target, {
          batchRows: 100,
          loader,
          signal: AbortSignal.timeout(500),
        }).catch((e: unknown) => e);
        said.push(`${(error as Error).name}: ${(error as Error).message}`);
        expect(existsSync(target)).toBe(false);
        expect(spoolsLeft()).toEqual([]);
      }
      expect(said[1]).toBe(said[0]);
    } finally {
      await server.close();
    }
  });
});
