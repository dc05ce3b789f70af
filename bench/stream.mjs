/**
 * Peak memory and time of a 1,000,000-row transaction table fetched over HTTP into one Parquet file or
 * into DuckDB, each way in one run. Into Parquet: streamed with DuckDB's own JSON reader
 * (`frames.fetchTransactionTableToParquet(rp, req, file)`, loader "duckdb", issue 46), streamed as
 * before (loader "js": JSON.parse + adapter + appender, batch by batch; issue 16's target ≤ 600 MB peak
 * RSS), the in-memory path (fetch the column table, then `frames.writeParquet`), and DuckDB's own
 * `COPY (SELECT * FROM read_json(…)) TO` of the same rows already on disk as a bare JSON array (the
 * peer), and the route's floor: the rows, a line each, received with `fetch` and written to a named pipe
 * that DuckDB's COPY reads into Parquet, nothing checked (what the streamed route costs without its
 * own work: the check of every row, the spool file). Into DuckDB, then Σ notional by counterparty × currency: `frames.fetchTransactionTableToDuckDB`
 * (issue 46) against `db.register(await frames.fetchTransactionTableColumns(…))`, and DuckDB's
 * `read_json` of the bare array (the peer). Run after `npm run build`:
 *
 *   node bench/stream.mjs          # STREAM_BENCH_ROWS=… the size, STREAM_BENCH_ROUNDS=… rounds (default 1),
 *                                  # STREAM_BENCH_MODES=stream,stream-js,… a subset
 *                                  # STREAM_BENCH_SERVE=sim: the simulator serves each call (default
 *                                  # body: its body, fetched once, served from memory by a loopback server)
 *                                  # STREAM_BENCH_BASELINE_DIR=/work/main (another checkout, built): adds
 *                                  # "stream-before" and "sql-before", its build's stream and sql, interleaved
 *
 * The simulator runs in this process; each variant runs in a fresh child process, which reports its
 * own peak RSS (`VmHWM` of /proc/self/status: `maxRSS` keeps the parent's across fork and exec, and the
 * parent holds the body) and time, so neither the simulator nor another variant
 * is counted; rounds interleave the variants, figures are medians. The Parquet files are read back
 * through DuckDB to check they hold the same rows. Prints the figures (with the load average) and
 * writes bench/results/stream.json.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { basename, dirname, join } from "node:path";
import {
  REPO_ROOT,
  envInt,
  formatTable,
  isMain,
  median,
  repoRequire,
  round,
  serveFromMemory,
  writeResults,
} from "./common.mjs";

const ROWS = envInt("STREAM_BENCH_ROWS", 1_000_000);
const ROUNDS = envInt("STREAM_BENCH_ROUNDS", 1);
const SERVE = process.env.STREAM_BENCH_SERVE ?? "body";
const BASELINE = process.env.STREAM_BENCH_BASELINE_DIR;
const PARQUET_MODES = ["stream", ...(BASELINE ? ["stream-before"] : []), "stream-js", "memory", "duckdb-copy", "floor"];
const SQL_MODES = ["sql", ...(BASELINE ? ["sql-before"] : []), "sql-js", "duckdb-read-json"];
const MODES = (process.env.STREAM_BENCH_MODES ?? [...PARQUET_MODES, ...SQL_MODES].join(",")).split(",");
const GROUP_BY =
  "select counterparty, currency, sum(notional) as notional, count(*) as trades from trades group by all order by all";
const LABELS = {
  stream: "streamed, DuckDB's JSON reader (new)",
  "stream-js": "streamed, JSON.parse + adapter (before)",
  memory: "in memory, then writeParquet",
  "duckdb-copy": "DuckDB's own COPY of read_json (peer)",
  floor: "fetch → pipe → DuckDB's COPY, no checks (floor)",
  sql: "fetchTransactionTableToDuckDB (new)",
  "stream-before": "streamed, DuckDB's JSON reader (baseline build)",
  "sql-before": "fetchTransactionTableToDuckDB (baseline build)",
  "sql-js": "fetchTransactionTableColumns + register (before)",
  "duckdb-read-json": "DuckDB read_json of the bare rows (peer)",
};

/** DuckDB's column types for the rows of `rowsFile` (a bare array), from its first row, for the floor's reader. */
function floorColumns(rowsFile) {
  const head = readFileSync(rowsFile)
    .subarray(0, 64 * 1024)
    .toString("utf8");
  const first = JSON.parse(head.slice(1, head.indexOf("}") + 1));
  const type = (v) =>
    typeof v === "number"
      ? "DOUBLE"
      : typeof v === "boolean"
        ? "BOOLEAN"
        : typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v)
          ? "TIMESTAMPTZ"
          : "VARCHAR";
  return `{${Object.entries(first)
    .map(([k, v]) => `'${k}': '${type(v)}'`)
    .join(", ")}}`;
}

/**
 * The floor: the rows a line each (served at `url`) received with `fetch`, copied into 2 MiB blocks and
 * given to the route's own pipe writer (`LivePipe`: libuv's pool, in order, with its high water), which
 * DuckDB's COPY reads into `file`, nothing checked.
 */
async function floor(frames, url, file, rowsFile) {
  const { LivePipe } = repoRequire(join(REPO_ROOT, "dist", "columnar", "live-pipe.js"));
  const pipe = LivePipe.create(dirname(file), `${basename(file)}.pipe`);
  const db = await frames.duckdb();
  try {
    const copy = db.run(
      `copy (select * from read_json('${pipe.path}', format = 'newline_delimited', records = true, columns = ${floorColumns(rowsFile)})) to '${file}' (FORMAT parquet, COMPRESSION zstd)`,
    );
    if (!(await pipe.open(copy))) await copy; // throws what DuckDB said
    let [block, held] = [new Uint8Array(2 << 20), 0];
    for await (const chunk of (await fetch(url, { method: "POST" })).body)
      for (let at = 0; at < chunk.length;) {
        const n = Math.min(chunk.length - at, block.length - held);
        block.set(chunk.subarray(at, at + n), held);
        [held, at] = [held + n, at + n];
        if (held < block.length) continue;
        pipe.write(block);
        [block, held] = [new Uint8Array(2 << 20), 0];
        await pipe.drained();
      }
    pipe.write(block.subarray(0, held));
    pipe.end();
    await copy;
    if (!pipe.complete) throw new Error("floor: the pipe was broken before every row was written");
    return (await db.queryColumns(`select count(*)::DOUBLE as n from read_parquet('${file}')`)).data.n[0];
  } finally {
    pipe.break();
    await db.close();
    rmSync(pipe.path, { force: true });
  }
}

/** In the child: one variant; `file` is its Parquet output, `rowsFile` the bare rows array for the peers. */
async function variant(mode, frames, rp, request, file, rowsFile, url) {
  if (mode === "floor") return floor(frames, url, file, rowsFile);
  if (mode === "stream") return (await frames.fetchTransactionTableToParquet(rp, request, file)).rows;
  if (mode === "stream-js")
    return (await frames.fetchTransactionTableToParquet(rp, request, file, { loader: "js" })).rows;
  if (mode === "memory") {
    const table = await frames.fetchTransactionTableColumns(rp, request);
    await frames.writeParquet(table, file);
    return table.rowCount;
  }
  const db = await frames.duckdb();
  try {
    const json = `read_json('${rowsFile}', format = 'array', records = true)`;
    if (mode === "duckdb-copy") {
      await db.run(`copy (select * from ${json}) to '${file}' (FORMAT parquet, COMPRESSION zstd)`);
      return (await db.queryColumns(`select count(*)::DOUBLE as n from read_parquet('${file}')`)).data.n[0];
    }
    if (mode === "sql") await frames.fetchTransactionTableToDuckDB(rp, request, db, "trades");
    else if (mode === "sql-js") await db.register("trades", await frames.fetchTransactionTableColumns(rp, request));
    else if (mode === "duckdb-read-json") await db.run(`create table trades as select * from ${json}`);
    else throw new Error(`unknown mode ${mode}`);
    const groups = await db.queryColumns(GROUP_BY);
    if (groups.rowCount === 0) throw new Error("the group-by is empty");
    return (await db.queryColumns("select count(*)::DOUBLE as n from trades")).data.n[0];
  } finally {
    await db.close();
  }
}

/** In the child: one fetch, then its figures as JSON on stdout. */
async function child(mode, url, apiKey, file, rowsFile) {
  // A "-before" mode: the same variant, from the baseline checkout's build.
  const root = mode.endsWith("-before") ? BASELINE : REPO_ROOT;
  mode = mode.replace(/-before$/, "");
  const { RiskPortalClient } = repoRequire(join(root, "dist", "index.js"));
  const frames = repoRequire(join(root, "dist", "frames", "index.js"));
  const rp = new RiskPortalClient({ baseUrl: url, auth: { apiKey }, timeoutMs: 600_000 });
  const request = { portfolio_name: "GLOBAL-MACRO" };
  const start = performance.now();
  const cpu = process.cpuUsage();
  const rows = await variant(mode, frames, rp, request, file, rowsFile, url);
  const ms = performance.now() - start;
  const { user, system } = process.cpuUsage(cpu);
  const peakRssMB = peakRssKB() / 1024;
  process.stdout.write(JSON.stringify({ mode, rows, ms, cpuMs: (user + system) / 1000, peakRssMB }));
}

/** This process's peak RSS in KB since it was started (Linux's VmHWM; elsewhere `maxRSS`, which may count the parent's). */
function peakRssKB() {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Number(hwm[1]);
  } catch {
    /* not Linux */
  }
  return process.resourceUsage().maxRSS;
}

/** The simulator's whole answer, as bytes. */
async function fetchBody(url, apiKey) {
  const { RiskPortalClient } = repoRequire(join(REPO_ROOT, "dist", "index.js"));
  const { getTransactionTable } = repoRequire(join(REPO_ROOT, "dist", "api", "position.js"));
  const rp = new RiskPortalClient({ baseUrl: url, auth: { apiKey }, timeoutMs: 600_000 });
  let chunks = [];
  const sink = { reset: () => void (chunks = []), chunk: (bytes) => void chunks.push(bytes) };
  await rp.requestStream(getTransactionTable, { portfolio_name: "GLOBAL-MACRO" }, sink);
  return Buffer.concat(chunks);
}

/** The rows of the bare array in `rowsFile` as newline-delimited JSON. */
function rowLines(rowsFile) {
  const rows = JSON.parse(readFileSync(rowsFile, "utf8"));
  return Buffer.from(rows.map((row) => JSON.stringify(row)).join("\n"));
}

/**
 * The table's rows as one bare JSON array on disk, the bytes the service's body carries them in (for the
 * peers): the body's `data_table` array cut out as it is (the simulator writes `{"data_table":[…]}`).
 */
async function spoolRows(body, rowsFile) {
  const text = body.subarray(0, 64).toString("latin1");
  const start = text.indexOf("[");
  const end = body.lastIndexOf("]");
  if (!text.startsWith('{"data_table":[') || end < start)
    throw new Error(`the simulator's body is not {"data_table":[…]}: it starts ${JSON.stringify(text)}`);
  writeFileSync(rowsFile, body.subarray(start, end + 1));
}

function runChild(mode, url, apiKey, file, rowsFile) {
  return new Promise((resolve, reject) => {
    const args = [new URL(import.meta.url).pathname, "--child", mode, url, apiKey, file, rowsFile];
    const proc = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.on("data", (d) => (out += d));
    proc.on("error", reject);
    proc.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${mode} child exited with ${code}`)),
    );
  });
}

async function main() {
  const { startSimulator } = repoRequire(join(REPO_ROOT, "dist", "sim", "index.js"));
  const frames = repoRequire(join(REPO_ROOT, "dist", "frames", "index.js"));
  const machine = { node: process.version, cpuModel: os.cpus()[0]?.model ?? "unknown", cpus: os.cpus().length };
  const loadBefore = os.loadavg().map((x) => round(x, 2));
  console.log(
    `stream bench: a ${ROWS.toLocaleString("en-US")}-row transaction table over HTTP into Parquet; node ${machine.node} on ${machine.cpuModel} x${machine.cpus}`,
  );
  const sim = await startSimulator({ transactionRows: ROWS });
  const dir = mkdtempSync(join(os.tmpdir(), "rpl-stream-bench-"));
  try {
    const rowsFile = join(dir, "rows.json");
    const body = await fetchBody(sim.url, sim.credentials.apiKey);
    await spoolRows(body, rowsFile);
    const server = SERVE === "sim" ? sim : await serveFromMemory(body);
    // The floor's rows, a line each (the same values).
    const lines = MODES.includes("floor") ? await serveFromMemory(rowLines(rowsFile)) : undefined;
    const runs = Object.fromEntries(MODES.map((m) => [m, []]));
    for (let round_ = 0; round_ < ROUNDS; round_++)
      for (const mode of MODES) {
        const file = join(dir, `${mode}.parquet`);
        rmSync(file, { force: true });
        const r = await runChild(mode, (mode === "floor" ? lines : server).url, sim.credentials.apiKey, file, rowsFile);
        const first = Object.values(runs).flat()[0];
        if (first && r.rows !== first.rows) throw new Error(`${mode}: ${r.rows} rows, ${first.mode}: ${first.rows}`);
        runs[mode].push({ ...r, load1: round(os.loadavg()[0], 2) });
        console.log(
          `${mode}: ${r.rows.toLocaleString("en-US")} rows in ${round(r.ms / 1000, 2)} s (CPU ${round(r.cpuMs / 1000, 2)} s), peak RSS ${round(r.peakRssMB, 0)} MB, load ${round(os.loadavg()[0], 2)}`,
        );
      }
    const results = Object.fromEntries(
      MODES.map((m) => [
        m,
        {
          rows: runs[m][0].rows,
          ms: median(runs[m].map((r) => r.ms)),
          cpuMs: median(runs[m].map((r) => r.cpuMs)),
          peakRssMB: median(runs[m].map((r) => r.peakRssMB)),
          runs: runs[m],
        },
      ]),
    );
    // Row for row: what one file has and another has not, both ways (EXCEPT ALL keeps duplicates).
    const written = MODES.filter((m) => PARQUET_MODES.includes(m) && m !== "duckdb-copy");
    let same = true;
    for (const m of written.slice(1)) {
      const [a, b] = [written[0], m].map((mode) => `read_parquet('${join(dir, `${mode}.parquet`)}')`);
      const diff = await frames.queryColumns(
        `select (select count(*) from (select * from ${a} except all select * from ${b})) as one, (select count(*) from (select * from ${b} except all select * from ${a})) as other`,
      );
      if (diff.data.one[0] !== 0 || diff.data.other[0] !== 0) same = false;
    }
    if (!same) throw new Error("the Parquet files differ");
    const loadAfter = round(os.loadavg()[0], 2);
    const table = (modes, base) =>
      formatTable(
        ["", "time (median)", "CPU", "peak RSS", `time ÷ ${base}`],
        modes
          .filter((m) => results[m])
          .map((m) => [
            LABELS[m],
            `${round(results[m].ms / 1000, 2)} s`,
            `${round(results[m].cpuMs / 1000, 2)} s`,
            `${round(results[m].peakRssMB, 0)} MB`,
            results[base] ? `${round(results[m].ms / results[base].ms, 2)}×` : "",
          ]),
      );
    console.log(
      `\nInto Parquet (served by ${SERVE === "sim" ? "the simulator" : "a loopback server from memory"}; ${ROUNDS} round(s), load average ${loadBefore[0]} before, ${loadAfter} after):\n` +
        table(PARQUET_MODES, "duckdb-copy") +
        `\n\nInto DuckDB, then group-by counterparty × currency:\n` +
        table(SQL_MODES, "duckdb-read-json") +
        `\nthe Parquet files hold the same rows (EXCEPT ALL both ways is empty): ${same}`,
    );
    if (server !== sim) await server.close();
    await lines?.close();
    writeResults("stream", {
      rows: ROWS,
      rounds: ROUNDS,
      serve: SERVE,
      machine,
      loadBefore,
      loadAfter,
      results,
      sameRows: same,
    });
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") await child(...process.argv.slice(3));
else if (isMain(import.meta.url)) await main();
