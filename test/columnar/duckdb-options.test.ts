/**
 * DuckDB sessions you can size and keep (issue 48, item 2): `frames.duckdb({ path, memoryLimit, tempDirectory,
 * threads, readOnly })`, and the same options for `frames.query`/`queryColumns` and the Parquet verbs.
 * - A group-by whose hash table is several times the memory limit completes by spilling to `tempDirectory`
 *   (DuckDB creates it for the spill), with the right answer.
 * - A table registered in a database file is there for the next process, which may open the file read-only;
 *   a file another process has open for writing is refused with a message that says so.
 * - Every option DuckDB would refuse vaguely ("Failed to set config") or ignore (an unknown key) is refused
 *   first, naming the option.
 * - The transaction tables' Parquet verbs take the sizing options too, checked before anything is fetched.
 * The other process is Node running the built package (dist/, built by test/global-setup.ts).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import { startSimulator, type Simulator } from "../../src/sim";

const root = path.resolve(__dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "rpl-duckdb-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `code` in a Node process with the built package as `frames` and prints what it returns as JSON. */
function inAnotherProcess(code: string): unknown {
  const script = `const { frames } = require(${JSON.stringify(path.join(root, "dist"))});
(async () => { console.log(JSON.stringify(await (async () => { ${code} })())); })().catch((e) => { console.error(e.message); process.exit(3); });`;
  const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000 });
  if (run.status !== 0) throw new Error(`the other process exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as unknown;
}

describe("frames.duckdb's options", () => {
  it("refuses an unknown option, a size DuckDB cannot read, bad threads and a read-only session without its file", async () => {
    const refused = (options: unknown): Promise<string> =>
      frames.duckdb(options as frames.DuckDBOptions).then(
        async (s) => {
          await s.close();
          return "opened";
        },
        (e: Error) => e.message,
      );
    expect(await refused({ memory_limit: "1GB" })).toBe(
      'frames.duckdb: unknown option "memory_limit" (known: memoryLimit, tempDirectory, threads, path, readOnly)',
    );
    for (const limit of ["lots", "50%", 0, -1, 1.5, "0MB"])
      expect(await refused({ memoryLimit: limit })).toBe(
        `frames.duckdb: memoryLimit must be bytes (a whole number > 0) or a size such as "256MB" or "4GiB"; got ${JSON.stringify(limit)}`,
      );
    expect(await refused({ threads: 0 })).toBe("frames.duckdb: threads must be a whole number > 0; got 0");
    expect(await refused({ tempDirectory: "" })).toBe('frames.duckdb: tempDirectory must be a folder\'s path; got ""');
    expect(await refused({ readOnly: true })).toBe("frames.duckdb: readOnly needs a database file (path)");
    const missing = path.join(dir, "missing.duckdb");
    expect(await refused({ path: missing, readOnly: true })).toBe(
      `frames.duckdb: no database file at ${missing} to open read-only`,
    );
    expect(existsSync(missing)).toBe(false);
    await expect(frames.query("select 1 as x", {}, { memoryLimit: "a lot" })).rejects.toThrow(
      /^frames\.query: memoryLimit must be bytes/,
    );
  });

  it("sets DuckDB's memory limit and threads as given", async () => {
    const settings = "select current_setting('memory_limit') as m, current_setting('threads') as t";
    const a = await frames.queryColumns(settings, {}, { memoryLimit: "256MiB", threads: 1 });
    expect([a.data.m![0], Number(a.data.t![0])]).toEqual(["256.0 MiB", 1]);
    const b = await frames.queryColumns(settings, {}, { memoryLimit: 64 * 1024 * 1024 });
    expect(b.data.m![0]).toBe("64.0 MiB");
  });

  it("completes a group-by several times the memory limit by spilling to tempDirectory", async () => {
    const file = path.join(dir, "keys.parquet");
    const spill = path.join(dir, "spill");
    const db = await frames.duckdb({ memoryLimit: "64MB", tempDirectory: spill, threads: 2 });
    try {
      await db.run(
        `copy (select i as k, (i % 1000) * 1.0 as v from range(2000000) t(i)) to '${file}' (format parquet)`,
      );
      // 2,000,000 groups: a hash table far larger than 64 MB (without somewhere to spill, DuckDB's own
      // "Out of Memory Error: could not allocate block").
      const out = await db.queryColumns(
        `select count(*) as groups, sum(s) as total from (select k, sum(v) as s from read_parquet('${file}') group by k)`,
      );
      expect(Number(out.data.groups![0])).toBe(2_000_000);
      expect(out.data.total![0]).toBe(999_000_000);
      expect(existsSync(spill), "DuckDB spilled into tempDirectory").toBe(true);
    } finally {
      await db.close();
    }
  });

  it("sizes the Parquet verbs' sessions, and names the verb when a size is wrong", async () => {
    const dfd = frames.loadDanfo();
    const file = path.join(dir, "small.parquet");
    const df = new dfd.DataFrame({ id: ["a", "b"], notional: [1, 2] });
    await frames.writeParquet(df, file, { memoryLimit: "64MB", threads: 1 });
    expect((await frames.readParquetColumns(file, { memoryLimit: "64MB", threads: 1 })).data.id).toEqual(["a", "b"]);
    await expect(frames.readParquetColumns(file, { memoryLimit: "x" })).rejects.toThrow(
      /^frames\.readParquetColumns: memoryLimit must be bytes/,
    );
    await expect(frames.writeParquet(df, path.join(dir, "b.parquet"), { threads: -1 })).rejects.toThrow(
      "frames.writeParquet: threads must be a whole number > 0; got -1",
    );
  }, 60_000);

  it("keeps a database file's tables for the next process, which may read it read-only", async () => {
    const file = path.join(dir, "kept.duckdb");
    const db = await frames.duckdb({ path: file });
    const dfd = frames.loadDanfo();
    await db.register("trades", new dfd.DataFrame({ id: ["a", "b", "c"], notional: [1.5, 2.5, 3] }));
    await db.close();
    expect(
      inAnotherProcess(`const db = await frames.duckdb({ path: ${JSON.stringify(file)}, readOnly: true });
        try { const t = await db.queryColumns("select count(*) as n, sum(notional) as s from trades"); return [Number(t.data.n[0]), t.data.s[0]]; }
        finally { await db.close(); }`),
    ).toEqual([3, 7]);
    const again = await frames.queryColumns(
      "select string_agg(id, ',' order by id) as ids from trades",
      {},
      {
        path: file,
        readOnly: true,
      },
    );
    expect(again.data.ids![0]).toBe("a,b,c");
  });

  it("says a database file is open in another process, and keeps its tables", async () => {
    const file = path.join(dir, "held.duckdb");
    const db = await frames.duckdb({ path: file });
    await db.run("create table t as select 42 as x");
    await db.close();
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const { frames } = require(${JSON.stringify(path.join(root, "dist"))});
        frames.duckdb({ path: ${JSON.stringify(file)} }).then(() => { console.log("open"); setTimeout(() => {}, 30000); });`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on("data", (d: Buffer) => (String(d).includes("open") ? resolve() : undefined));
        holder.on("exit", (code) => reject(new Error(`the holder exited ${code}`)));
      });
      await expect(frames.duckdb({ path: file })).rejects.toThrow(
        `frames.duckdb: the database file ${file} is open in another process (DuckDB lets one process write a file; several may read it with { readOnly: true } while none writes it): `,
      );
    } finally {
      const gone = new Promise((resolve) => holder.once("exit", resolve));
      holder.kill("SIGKILL");
      await gone;
    }
    const t = await frames.queryColumns("select x from t", {}, { path: file });
    expect(Number(t.data.x![0])).toBe(42);
  });
});

describe("the transaction tables' Parquet verbs, sized", () => {
  let sim: Simulator;
  let rp: RiskPortalClient;
  beforeAll(async () => {
    sim = await startSimulator({ transactionRows: 200 });
    rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey }, retry: { limit: 0 } });
  });
  afterAll(async () => {
    await sim?.close();
  });
  const request = { portfolio_name: "GLOBAL-MACRO" };
  const panel = { portfolios: ["GLOBAL-MACRO"], months: ["2026-10"], progress: "none" as const };

  it("take memoryLimit, tempDirectory and threads, and name the verb when a size is wrong", async () => {
    const spill = path.join(dir, "verbs-spill");
    const one = path.join(dir, "one.parquet");
    const sizing = { memoryLimit: "64MB", tempDirectory: spill, threads: 1 };
    const written = await frames.fetchTransactionTableToParquet(rp, request, one, sizing);
    expect(written.rows).toBeGreaterThan(0);
    expect((await frames.readParquetColumns(one)).rowCount).toBe(written.rows);
    const dataset = await frames.fetchTransactionTablesToParquet(rp, { ...panel, ...sizing }, path.join(dir, "panel"));
    expect(dataset.failures).toEqual([]);
    expect(dataset.rows).toBeGreaterThan(0);
    await expect(
      frames.fetchTransactionTableToParquet(rp, request, path.join(dir, "two.parquet"), { memoryLimit: "a lot" }),
    ).rejects.toThrow(/^frames\.fetchTransactionTableToParquet: memoryLimit must be bytes/);
    await expect(
      frames.fetchTransactionTablesToParquet(rp, { ...panel, threads: 0 }, path.join(dir, "panel-two")),
    ).rejects.toThrow("frames.fetchTransactionTablesToParquet: threads must be a whole number > 0; got 0");
  }, 60_000);
});
