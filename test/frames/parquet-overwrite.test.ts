/**
 * Overwriting Parquet never loses what was there: an overwrite replaces only what the dataset owns (its
 * partition folders and .parquet files, not NOTES.md or .git/), and only once the new data is complete
 * (written beside, then swapped by rename); on any failure — a disk that fills, every call failing — the
 * previous file or dataset is intact. Disk-full runs on a small tmpfs (needs root; skipped with a message
 * elsewhere, required in CI).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
  readFileSync,
} from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import { TableBuilder } from "../../src/table/column-table";
import { fetchTransactionTableToParquet, stageTransactionTable } from "../../src/transactions/stream";
import { startSimulator, type Simulator } from "../../src/sim";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-overwrite-"));
const mounts: string[] = [];

/** Mounts a tmpfs of `bytes` at a fresh directory; throws when mounting is not permitted (not root). */
function tmpfs(name: string, bytes: number): string {
  const at = path.join(dir, name);
  mkdirSync(at, { recursive: true });
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${Math.ceil(bytes / 4096) * 4}k`, "tmpfs", at], { stdio: "pipe" });
  mounts.push(at);
  return at;
}
/** Why a tmpfs cannot be mounted here, or undefined when it can. */
const cannotMount = ((): string | undefined => {
  try {
    tmpfs("probe", 1 << 20);
    execFileSync("umount", [mounts.pop()!]);
    return undefined;
  } catch (error) {
    const reason = (error as Error).message.split("\n")[0];
    console.warn(`parquet-overwrite.test.ts: cannot mount a tmpfs (${reason}): the disk-full tests are skipped`);
    return reason;
  }
})();
const canMount = cannotMount === undefined;
/** CI runs as root: there the disk-full tests must run, not be skipped. */
const mustMount = Boolean(process.env.CI) && process.getuid?.() === 0;

it.runIf(mustMount)("can mount a tmpfs (CI runs as root: the disk-full tests must run)", () => {
  expect(cannotMount).toBeUndefined();
});

afterAll(() => {
  for (const m of mounts) execFileSync("umount", [m]);
  rmSync(dir, { recursive: true, force: true });
});

/** `n` trades of `book`, with a text column of `noise` random characters (incompressible). */
function trades(books: string[], n: number, noise = 8): frames.ColumnTable {
  const book = Array.from({ length: n }, (_, i) => books[i % books.length]!);
  return new TableBuilder(n, "Hand-made", {})
    .add("book", book, { hint: "category" })
    .add(
      "notional",
      Array.from({ length: n }, (_, i) => i + 0.5),
    )
    .add(
      "trade_date",
      Array.from({ length: n }, (_, i) => new Date(Date.UTC(2026, 0, 1 + (i % 300))).toISOString()),
    )
    .add(
      "note",
      Array.from({ length: n }, () => randomBytes(noise).toString("base64")),
    )
    .build();
}

async function booksIn(source: string): Promise<string[]> {
  const t = await frames.queryColumns(
    `select distinct book::varchar as book from read_parquet('${source}/**/*.parquet', hive_partitioning = true) order by 1`,
  );
  return t.data.book as string[];
}

/** What a directory holds besides the dataset, and nothing left over beside it. */
function unrelated(at: string): void {
  mkdirSync(path.join(at, ".git"), { recursive: true });
  writeFileSync(path.join(at, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(path.join(at, "NOTES.md"), "# what this data is\n");
}
function expectUnrelatedKept(at: string): void {
  expect(readFileSync(path.join(at, "NOTES.md"), "utf8")).toBe("# what this data is\n");
  expect(readFileSync(path.join(at, ".git", "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
}
function expectNothingBeside(at: string): void {
  expect(readdirSync(path.dirname(at)).filter((f) => f.startsWith(`${path.basename(at)}.`))).toEqual([]);
}

describe("frames.writeParquet(…, { overwrite: true })", () => {
  it("with partitionBy replaces the old partitions (old1, old2 → new), keeping files that are not the dataset's", async () => {
    const out = path.join(dir, "books");
    await frames.writeParquet(trades(["old1", "old2"], 10), out, { partitionBy: "book" });
    unrelated(out);
    const written = await frames.writeParquet(trades(["new"], 4), out, { partitionBy: "book", overwrite: true });
    expect(await booksIn(out)).toEqual(["new"]);
    expect((await frames.readParquetColumns(out)).rowCount).toBe(4);
    expect(readdirSync(out).sort()).toEqual([".git", "NOTES.md", "book=new"]);
    expect(written.files.every((f) => f.startsWith(path.join(out, "book=new") + path.sep))).toBe(true);
    expectUnrelatedKept(out);
    expectNothingBeside(out);
  });

  it.skipIf(!canMount)("a disk that fills keeps the previous file, and the previous dataset, intact", async () => {
    const disk = tmpfs("disk-write", 2 << 20);
    const file = path.join(disk, "trades.parquet");
    await frames.writeParquet(trades(["old1"], 100), file);
    const before = readFileSync(file);
    const big = trades(["new"], 40_000, 60); // ~3.2 MB of random text
    await expect(frames.writeParquet(big, file, { overwrite: true })).rejects.toThrow(
      /trades\.parquet.*(No space left|not enough space|disk)/is,
    );
    expect(readFileSync(file).equals(before)).toBe(true);
    expect((await frames.readParquetColumns(file)).rowCount).toBe(100);
    expect(readdirSync(disk)).toEqual(["trades.parquet"]);

    const out = path.join(disk, "books");
    await frames.writeParquet(trades(["old1", "old2"], 100), out, { partitionBy: "book" });
    unrelated(out);
    await expect(frames.writeParquet(big, out, { partitionBy: "book", overwrite: true })).rejects.toThrow(
      /books.*(No space left|not enough space|disk)/is,
    );
    expect(await booksIn(out)).toEqual(["old1", "old2"]);
    expect((await frames.readParquetColumns(out)).rowCount).toBe(100);
    expectUnrelatedKept(out);
    expect(readdirSync(disk).sort()).toEqual(["books", "trades.parquet"]);
  });
});

/** A loopback server that answers every request with `body`. */
async function serve(body: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("a streamed fetch with overwrite: true", () => {
  it.skipIf(!canMount)("keeps the previous file when the disk fills while the final file is written", async () => {
    const rows = Array.from({ length: 6_000 }, (_, i) => ({ id: i, key: randomBytes(48).toString("base64") }));
    const server = await serve(JSON.stringify({ $type: "TransactionTable", data_table: rows }));
    try {
      const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "t0ken" }, retry: { limit: 0 } });
      // The sizes on an ordinary disk: the spool and staged parts, the final file.
      const probe = path.join(dir, "probe");
      await stageTransactionTable(rp, { portfolio_name: "P" }, probe);
      const staging = readdirSync(probe).reduce((s, f) => s + statSync(path.join(probe, f)).size, 0);
      const final = (await fetchTransactionTableToParquet(rp, { portfolio_name: "P" }, path.join(dir, "probe.parquet")))
        .files[0]!;
      const finalSize = statSync(final).size;
      // Room for the staging and the old file, but not for the final file beside them.
      const disk = tmpfs("disk-stream", staging + 64 * 1024 + finalSize / 2);
      const file = path.join(disk, "rates.parquet");
      await frames.writeParquet(trades(["old"], 10), file);
      const before = readFileSync(file);
      await expect(
        frames.fetchTransactionTableToParquet(rp, { portfolio_name: "P" }, file, { overwrite: true }),
      ).rejects.toThrow(/rates\.parquet.*(No space left|not enough space|disk)/is);
      expect(readFileSync(file).equals(before)).toBe(true);
      expect((await frames.readParquetColumns(file)).rowCount).toBe(10);
      expect(readdirSync(disk)).toEqual(["rates.parquet"]);
    } finally {
      await server.close();
    }
  });
});

describe("frames.fetchTransactionTablesToParquet(…, { overwrite: true }, dir)", () => {
  let sim: Simulator;
  let rp: RiskPortalClient;
  beforeAll(async () => {
    sim = await startSimulator({ transactionRows: 300 });
    rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey }, retry: { limit: 0 } });
  });
  afterAll(async () => {
    await sim?.close();
  });
  const fetch = (out: string, portfolios: string[], overwrite = true) =>
    frames.fetchTransactionTablesToParquet(rp, { portfolios, months: ["2026-10"], overwrite, progress: "none" }, out);
  const portfoliosIn = async (out: string) =>
    (
      await frames.queryColumns(
        `select distinct portfolio from read_parquet('${out}/**/*.parquet', hive_partitioning = true) order by 1`,
      )
    ).data.portfolio;

  it("replaces the dataset's partitions only, keeping NOTES.md and .git/", async () => {
    const out = path.join(dir, "panel");
    await fetch(out, ["GLOBAL-MACRO"], false);
    unrelated(out);
    const again = await fetch(out, ["RATES-EU"]);
    expect(again).toMatchObject({ path: out, failures: [], replaced: true, warnings: [] });
    expect(readdirSync(out).sort()).toEqual([".git", "NOTES.md", "portfolio=RATES-EU"]);
    expect(await portfoliosIn(out)).toEqual(["RATES-EU"]);
    expectUnrelatedKept(out);
    expectNothingBeside(out);
  });

  it("when every call fails, the previous dataset is intact", async () => {
    const out = path.join(dir, "panel-all-fail");
    const first = await fetch(out, ["GLOBAL-MACRO"], false);
    unrelated(out);
    const failed = await fetch(out, ["NOPE", "NADA"]);
    expect(failed.failures.map((f) => f.portfolio)).toEqual(["NOPE", "NADA"]);
    expect(failed).toMatchObject({ path: out, rows: 0, replaced: false });
    expect(failed.warnings.join("\n")).toMatch(/every call failed: the dataset at .*panel-all-fail was kept as it was/);
    expect(await portfoliosIn(out)).toEqual(["GLOBAL-MACRO"]);
    expect((await frames.readParquetColumns(out)).rowCount).toBe(first.rows);
    expectUnrelatedKept(out);
    expectNothingBeside(out);
  });

  it.skipIf(!canMount)("a disk that fills keeps the previous dataset intact", async () => {
    const disk = tmpfs("disk-panel", 1 << 20);
    const out = path.join(disk, "panel");
    const first = await fetch(out, ["GLOBAL-MACRO"], false);
    unrelated(out);
    const { bavail, bsize } = statfsSync(disk);
    // 1 KB left: less than either call's rows (spooled without the body's wrapper, they take less than the body).
    writeFileSync(path.join(disk, "filler"), Buffer.alloc(Math.max(0, bavail * bsize - 1024)));
    const full = await fetch(out, ["RATES-EU", "EQ-LONG-SHORT"]);
    expect(full.failures.map((f) => [f.portfolio, f.error])).toEqual([
      ["RATES-EU", expect.stringMatching(/panel.*no space left on device/i)],
      ["EQ-LONG-SHORT", expect.stringMatching(/panel.*no space left on device/i)],
    ]);
    expect(full.failures.map((f) => f.error).join("\n")).not.toMatch(/copy \(select/); // the reason, not the SQL
    expect(full).toMatchObject({ path: out, rows: 0, replaced: false });
    expect(await portfoliosIn(out)).toEqual(["GLOBAL-MACRO"]);
    expect((await frames.readParquetColumns(out)).rowCount).toBe(first.rows);
    expectUnrelatedKept(out);
    expect(readdirSync(disk).sort()).toEqual(["filler", "panel"]);
  });

  it("when some calls fail, the previous dataset is intact and the new rows are kept beside it, named", async () => {
    const out = path.join(dir, "panel-some-fail");
    const first = await fetch(out, ["GLOBAL-MACRO"], false);
    const partial = await fetch(out, ["RATES-EU", "NOPE"]);
    expect(partial.failures.map((f) => f.portfolio)).toEqual(["NOPE"]);
    expect(partial.replaced).toBe(false);
    expect(partial.path).not.toBe(out);
    expect(path.dirname(partial.path)).toBe(dir);
    expect(partial.warnings.join("\n")).toMatch(
      /1 of 2 calls failed: the dataset at .*panel-some-fail was kept as it was; the rows of the 1 call that succeeded are in .*panel-some-fail\.incomplete-/,
    );
    expect(await portfoliosIn(out)).toEqual(["GLOBAL-MACRO"]);
    expect((await frames.readParquetColumns(out)).rowCount).toBe(first.rows);
    expect(await portfoliosIn(partial.path)).toEqual(["RATES-EU"]);
    expect((await frames.readParquetColumns(partial.path)).rowCount).toBe(partial.rows);
    rmSync(partial.path, { recursive: true });
    expectNothingBeside(out);
    expect(existsSync(out)).toBe(true);
  });
});
